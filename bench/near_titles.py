"""References a title word off, on a large mirror: do they match their record (and get a title
mismatch), or another record, or none? ``python -m bench.near_titles [--records N] [--record]``.

A DBLP mirror of N generated records (``tests/mirror/dumps.py``: titles of a generated vocabulary,
authors with homonyms, years) is imported with ``citeaudit mirror import``; then references of
every ``N // count``-th work are written with every field right but one title word replaced by
another word of the vocabulary, or dropped, and looked up in the mirror; the match rule
(``checks/matching.py``) decides among the candidates, and the title check runs on a match.
Outcomes: matched to the right record (with ``E_TITLE_MISMATCH``), matched to another record (a
wrong match: the worst outcome), or not found (``E_WORK_NOT_FOUND``)."""

from __future__ import annotations

import argparse
import html
import json
import random
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "bench" / "work" / "near_titles"


def _mirror(n: int) -> tuple[Path, float]:
    sys.path.insert(0, str(ROOT))
    from tests.mirror.dumps import write_dblp

    mirror = WORK / f"dblp-{n}.sqlite"
    if mirror.exists():
        return mirror, 0.0
    WORK.mkdir(parents=True, exist_ok=True)
    dump = write_dblp(WORK / f"dblp-{n}", n, www_every=0)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "citeaudit", "mirror", "import", "--format", "dblp", str(dump), "--mirror",
         str(mirror)],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    return mirror, time.perf_counter() - started


def run(records: int = 1_000_000, count: int = 500) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT))
    from tests.mirror.dumps import works

    from citeaudit.checks.codes import FindingMaker
    from citeaudit.checks.matching import MatchStatus, match_work
    from citeaudit.checks.metadata import check_title
    from citeaudit.mirror import open_mirror
    from citeaudit.resolve.indexes.interface import WorkQuery

    mirror, import_s = _mirror(records)
    step = max(records // count, 1)
    chosen = [w for w in works(records) if w.i % step == 0][:count]
    vocabulary = sorted({word for w in chosen for word in w.words})
    rng = random.Random(38)
    index = open_mirror(mirror)
    make = FindingMaker()
    outcomes: dict[str, Counter[str]] = {"replaced": Counter(), "dropped": Counter()}
    by_length: dict[str, Counter[str]] = {}
    started = time.perf_counter()
    for k, w in enumerate(chosen):
        words = list(w.words)
        kind = "replaced" if k % 2 == 0 else "dropped"
        at = rng.randrange(len(words))
        if kind == "replaced":
            words[at] = rng.choice([v for v in vocabulary if v != words[at]])
        elif len(words) > 2:
            del words[at]
        else:
            continue
        query = WorkQuery(" ".join(words), html.unescape(w.authors[0][1]), w.year)
        candidates = index.search_many([query])[query.key].candidates
        match = match_work(query, candidates)
        if match.status is MatchStatus.MATCHED and match.best is not None:
            right = match.best.candidate.key == f"conf/gen/W{w.i}"
            titled = [f.code for f in check_title(query.title, match.best.candidate.record, make)]
            outcome = (
                ("right" if "E_TITLE_MISMATCH" in titled else "right, no title error") if right else "WRONG"
            )
        else:
            outcome = match.status.value
        outcomes[kind][outcome] += 1
        by_length.setdefault(str(min(len(w.words), 7)), Counter())[outcome] += 1
    return {
        "records": records,
        "import_s": round(import_s, 1),
        "references": sum(sum(c.values()) for c in outcomes.values()),
        "seconds": round(time.perf_counter() - started, 2),
        "outcomes": {k: dict(v) for k, v in outcomes.items()},
        "by_title_words": {k: dict(v) for k, v in sorted(by_length.items())},
    }


def markdown(r: dict[str, Any]) -> str:
    total: Counter[str] = Counter()
    for v in r["outcomes"].values():
        total.update(v)
    n = sum(total.values())
    lines = [
        f"References with every field right but one title word replaced (by another word of the vocabulary) "
        f"or dropped, looked up on a {r['records']:,}-record DBLP mirror and decided by the match rule: "
        f"{n} references ({r['seconds']} s).",
        "",
        f"- matched to the right record, with `E_TITLE_MISMATCH`: **{total['right']}** "
        f"({100 * total['right'] / max(n, 1):.1f} %); matched to another record: **{total['WRONG']}**; "
        f"not found: {total['not_found']}; ambiguous: {total['ambiguous']}.",
        "",
        "| perturbation | right | wrong | not found | ambiguous |",
        "|---|---:|---:|---:|---:|",
    ]
    for kind, v in r["outcomes"].items():
        lines.append(f"| {kind} | {v.get('right', 0)} | {v.get('WRONG', 0)} | {v.get('not_found', 0)} | "
                     f"{v.get('ambiguous', 0)} |")  # fmt: skip
    lines += ["", "By the title's number of words (7: 7 or more): " + json.dumps(r["by_title_words"]) + "."]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.near_titles")
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--record", action="store_true", help="write its section of bench/RESULTS.md")
    args = parser.parse_args(argv)
    result = run(args.records)
    print(json.dumps(result, indent=2))
    print(markdown(result))
    if args.record:
        from bench.results_file import write_section

        write_section("near-titles", "References a title word off, on a large mirror", markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
