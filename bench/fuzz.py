"""The fuzzers at scale: 10,000 inputs of each kind the audit reads.

Kinds: claims (the JSON formats), BibTeX, Markdown reports, each dump format the mirror imports
(DBLP XML, Crossref JSON, OpenAlex and arXiv JSON Lines) and work citations checked against a
mirror. Each kind's fuzz tests run in one pytest process (``-n 0``) with their example count set by
``FUZZ_EXAMPLES`` so that the kind's tests together try ``--examples`` inputs (10,000);
the inputs are derandomized, so a run tries the same ones on every machine. Counted from
Hypothesis's own statistics: the inputs the generate phase ran (passing and failing; those a
strategy rejected are not inputs), the failures, the seconds. ``python -m bench.fuzz [--examples N] [--record] [KIND ...]``
(``make fuzz``).
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES_ENV = "FUZZ_EXAMPLES"  # tests/formats/fuzzing.py reads it

# kind, its fuzz tests (pytest arguments), how many fuzz tests that selects
KINDS: list[tuple[str, list[str], int]] = [
    ("claims (JSON)", ["tests/formats/test_fuzz_json.py", "-k", "not seeds"], 4),
    ("BibTeX", ["tests/formats/test_fuzz_bibtex.py", "-k", "not seeds"], 4),
    ("Markdown", ["tests/formats/test_fuzz_markdown.py", "-k", "not seeds"], 3),
    ("DBLP XML", ["tests/mirror/test_fuzz_dumps.py", "-k", "dblp_xml"], 1),
    ("Crossref JSON", ["tests/mirror/test_fuzz_dumps.py", "-k", "crossref_items"], 1),
    ("OpenAlex JSONL", ["tests/mirror/test_fuzz_dumps.py", "-k", "openalex_json"], 1),
    ("arXiv JSONL", ["tests/mirror/test_fuzz_dumps.py", "-k", "arxiv_json"], 1),
    ("work citations, a mirror", ["tests/mirror/test_fuzz_dumps.py", "-k", "work_citation"], 1),
]  # fmt: skip
# Hypothesis's statistics: the inputs of the generate phase (a failure's shrink phase runs more, all
# derived from the failing one; they are not counted).
_COUNTS = re.compile(
    r"during generate phase[^\n]*\n[^\n]*\n\s*- (\d+) passing, (\d+) failing, and (\d+) invalid"
)
_PASSED = re.compile(r"(\d+) passed")
_FAILED = re.compile(r"(\d+) failed")


def run_kind(name: str, args: list[str], tests: int, examples: int, timeout: float) -> dict[str, Any]:
    per_test = math.ceil(examples / tests)
    env = {**os.environ, EXAMPLES_ENV: str(per_test), "PYTHONHASHSEED": "0"}
    command = [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "--timeout", "0",
               "--hypothesis-show-statistics", *args]  # fmt: skip
    start = time.perf_counter()
    try:
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
        out, code = done.stdout + done.stderr, done.returncode
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        code = -1
    seconds = time.perf_counter() - start
    counts = [tuple(int(n) for n in m.groups()) for m in _COUNTS.finditer(out)]
    tried = sum(p + f for p, f, _ in counts)
    failing = sum(f for _, f, _ in counts)
    failed_tests = int(m.group(1)) if (m := _FAILED.search(out)) else 0
    return {
        "kind": name, "tests": tests, "per_test": per_test, "tried": tried, "failing": failing,
        "failed_tests": failed_tests, "exit": code, "seconds": seconds,
        "errors": [] if code == 0 else [line for line in out.splitlines() if line.startswith("E ")][:40],
        "tail": "" if code == 0 else out[-3000:],
    }  # fmt: skip


def run(quick: bool = False, examples: int | None = None, kinds: list[str] | None = None) -> dict[str, Any]:
    examples = examples or (200 if quick else 10_000)
    rows = [
        run_kind(name, args, tests, examples, timeout=3600.0)
        for name, args, tests in KINDS
        if not kinds or any(k.lower() in name.lower() for k in kinds)
    ]
    return {"examples": examples, "rows": rows}


def markdown(r: dict[str, Any]) -> str:
    lines = [
        f"`make fuzz` (`python -m bench.fuzz --examples={r['examples']} --record`): each kind's fuzz tests in "
        "one pytest process, one core, derandomized (the same inputs on every machine), each test given an "
        "equal share of the kind's inputs. *Inputs* are the examples Hypothesis generated and ran (passing and "
        "failing; those a strategy rejected before the test, and a failure's shrinking, are not counted). The property: a report, a record or a "
        "counted skip, or a one-line error naming the input; never a crash.",
        "",
        "| kind | tests | inputs run | failing | seconds | inputs/s |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in r["rows"]:
        rate = row["tried"] / row["seconds"] if row["seconds"] else 0.0
        lines.append(
            f"| {row['kind']} | {row['tests']} | {row['tried']:,} | {row['failing']} "
            f"| {row['seconds']:.0f} | {rate:.0f} |"
        )
    total = sum(row["tried"] for row in r["rows"])
    lines.append(f"\nAll kinds: {total:,} inputs, {sum(row['failing'] for row in r['rows'])} failing.")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    import json

    examples = next((int(a.split("=", 1)[1]) for a in argv if a.startswith("--examples=")), None)
    kinds = [a for a in argv if not a.startswith("--")]
    result = run(quick="--quick" in argv, examples=examples, kinds=kinds or None)
    print(json.dumps(result, indent=2))
    if "--record" in argv:
        from bench.results_file import write_section

        write_section("fuzz", "Fuzzers: 10,000 inputs of each kind", markdown(result))
    return 0 if all(row["exit"] == 0 for row in result["rows"]) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
