"""Venue names as people write them: HALLMARK dev's correct references, each cited under every common
form of its venue, against the DBLP mirror of ``bench/hallmark_search.py`` (``--copies``: a CoRR copy
beside every proceedings record), where the venue is DBLP's own short name (``ICML``, ``NeurIPS``,
``J. Mach. Learn. Res.``).

Each VALID entry without a DOI or an arXiv eprint is written once per form of its venue (``ICML
2020``, ``Proc. ICML``, ``Proceedings of the 37th International Conference on Machine Learning``,
``JMLR``, ``Journal of Machine Learning Research``, ``Advances in neural information processing
systems`` as Google Scholar's ``@article``…) and once with another known venue (``ICLR`` for an ICML
paper). Every correct form should give no error and no venue warning; every other known venue
``E_VENUE_MISMATCH``.
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from typing import Any

from tests.dblp_dump import dblp_record, write_dblp

from bench.hallmark_search import DATA, DECOYS, WORK, _bib, _citeaudit, _decoys, _records, dblp_key


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _forms(venue: str, year: int) -> list[tuple[str, str]]:
    """(entry type, venue) pairs: the ways the venue is written in bibliographies."""
    inproc = "inproceedings"
    if venue == "ICML":
        nth = _ordinal(year - 1983)
        return [(inproc, f) for f in ("ICML", f"ICML {year}", "Proc. ICML", f"ICML'{year % 100:02d}",
                "International Conference on Machine Learning",
                f"Proceedings of the {nth} International Conference on Machine Learning",
                f"Proc. of the {nth} Int. Conf. on Machine Learning")]  # fmt: skip
    if venue == "NeurIPS":
        short = "NIPS" if year < 2018 else "NeurIPS"
        return [(inproc, f) for f in ("NeurIPS", "NIPS", f"{short} {year}", f"Proc. {short}",
                "Advances in Neural Information Processing Systems",
                f"Advances in Neural Information Processing Systems {year - 1987}",
                "Conference on Neural Information Processing Systems")] + [
            ("article", "Advances in neural information processing systems")  # Google Scholar
        ]  # fmt: skip
    if venue == "ICLR":
        nth = _ordinal(year - 2012)
        return [(inproc, f) for f in ("ICLR", f"ICLR {year}", "Proc. of ICLR",
                "International Conference on Learning Representations",
                f"The {nth} International Conference on Learning Representations")]  # fmt: skip
    if venue == "J. Mach. Learn. Res.":
        return [("article", f) for f in ("JMLR", "Journal of Machine Learning Research",
                "The Journal of Machine Learning Research", "J. Mach. Learn. Res.")]  # fmt: skip
    if venue == "Trans. Mach. Learn. Res.":
        return [("article", f) for f in ("TMLR", "Transactions on Machine Learning Research",
                "Trans. Mach. Learn. Res.")]  # fmt: skip
    return [(inproc, venue)]


_OTHER = {"ICML": "ICLR", "NeurIPS": "ICML", "ICLR": "NeurIPS", "J. Mach. Learn. Res.": "ICML",
          "Trans. Mach. Learn. Res.": "NeurIPS"}  # fmt: skip


def run(quick: bool = False) -> dict[str, Any]:
    if not DATA.exists():
        return {"skipped": f"{DATA} is absent"}
    rows = [json.loads(line) for line in DATA.read_text("utf-8").splitlines() if line.strip()]
    rows = [r for r in rows if r.get("generation_method") != "canary"]
    valid = [r for r in rows if r["label"] == "VALID"]
    work = WORK.parent / "hallmark_venues"
    work.mkdir(parents=True, exist_ok=True)
    records = _records(valid, copies=True)
    records += [dblp_record("inproceedings", dblp_key("inproceedings", d["booktitle"], f"decoy{i}"), d)
                for i, d in enumerate(_decoys(valid, DECOYS // (10 if quick else 1)))]  # fmt: skip
    dump = write_dblp(work / "dblp.xml.gz", records)
    mirror = work / "mirror.db"
    for stale in work.glob("mirror.db*"):
        stale.unlink()
    imported = _citeaudit("mirror", "import", "--format", "dblp", str(dump), "--mirror", str(mirror))
    if imported.returncode != 0:
        raise RuntimeError(f"mirror import failed: {imported.stderr.strip()}")
    audited = [r for r in valid if not r["fields"].get("doi") and not r["fields"].get("eprint")]
    cited: list[dict[str, Any]] = []
    expect: dict[str, tuple[str, str]] = {}  # key → (correct|other, the venue as written)
    for r in audited:
        fields = dict(r["fields"])
        venue = fields.pop("booktitle", None) or fields.pop("journal", None)
        if not venue:
            continue
        year = int(fields.get("year", "0") or 0)
        forms = [*_forms(venue, year), ("inproceedings", _OTHER.get(venue, ""))]
        for n, (kind, form) in enumerate(forms):
            if not form:
                continue
            key = f"{r['bibtex_key']}__{n}"
            field = "journal" if kind == "article" else "booktitle"
            cited.append({"bibtex_key": key, "bibtex_type": kind, "fields": {**fields, field: form}})
            expect[key] = ("other" if n == len(forms) - 1 else "correct", form)
    bib = work / "venue_forms.bib"
    bib.write_text(_bib(cited), "utf-8")
    out = work / "report.json"
    (work / "cache").mkdir(exist_ok=True)
    started = time.perf_counter()
    checked = _citeaudit("check", str(bib), "--offline", "--mirror", str(mirror), "--indexes", "",
                         "--judge", "none", "--cache", str(work / "cache"), "--out", str(out))  # fmt: skip
    check_s = time.perf_counter() - started
    if checked.returncode not in (0, 1, 3):
        raise RuntimeError(f"check failed ({checked.returncode}): {checked.stderr.strip()}")
    results = {r["claim"]: r for r in json.loads(out.read_text("utf-8"))["results"]}
    correct: Counter[str] = Counter()
    other: Counter[str] = Counter()
    failures: Counter[tuple[str, str]] = Counter()
    for key, (what, form) in expect.items():
        result = results[key]
        codes = result["errors"] + result["warnings"]
        venue_codes = sorted(c for c in codes if "VENUE" in c or "TYPE" in c)
        if what == "correct":
            outcome = (
                "error" if result["errors"] else ("venue warning" if venue_codes else "no venue finding")
            )
            correct[outcome] += 1
            if outcome != "no venue finding":
                failures[(form, ",".join(result["errors"] + venue_codes))] += 1
        else:
            other[
                "E_VENUE_MISMATCH" if "E_VENUE_MISMATCH" in result["errors"] else ",".join(codes) or "pass"
            ] += 1
    return {
        "entries": len(audited),
        "citations": len(expect),
        "correct_forms": sum(correct.values()),
        "correct": dict(correct),
        "other_venue": sum(other.values()),
        "other": dict(other),
        "failures": [{"form": f, "codes": c, "n": n} for (f, c), n in failures.most_common(20)],
        "check_s": round(check_s, 2),
    }


def markdown(result: dict[str, Any]) -> str:
    if "skipped" in result:
        return f"Skipped: {result['skipped']}."
    correct = result["correct"]
    clean = correct.get("no venue finding", 0)
    lines = [
        f"HALLMARK dev (public split): the {result['entries']} VALID entries with neither a DOI nor an arXiv "
        "eprint, each cited once under every common form of its venue (`ICML 2020`, `Proc. ICML`, "
        "`Proceedings of the 37th International Conference on Machine Learning`, `Proc. of the 37th Int. "
        "Conf. on Machine Learning`, `NIPS`, `Advances in Neural Information Processing Systems 33`, Google "
        "Scholar's `@article` in `Advances in neural information processing systems`, `JMLR`, `Journal of "
        "Machine Learning Research`, `TMLR`…) and once with another known venue (`ICLR` for an ICML paper), "
        "as one `.bib` of "
        f"{result['citations']:,} entries checked offline against the DBLP mirror of the search benchmark "
        "(CoRR copies beside the proceedings records; the venue there is DBLP's short name: `ICML`, "
        f"`NeurIPS`, `J. Mach. Learn. Res.`, `Trans. Mach. Learn. Res.`); the check took {result['check_s']} s.",
        "",
        f"- Correct forms: {result['correct_forms']:,}; with an error: **{correct.get('error', 0)}**; with a "
        f"venue or kind warning: **{correct.get('venue warning', 0)}**; with no venue finding: {clean:,}.",
        f"- Another known venue: {result['other_venue']}; `E_VENUE_MISMATCH`: "
        f"**{result['other'].get('E_VENUE_MISMATCH', 0)}**.",
    ]
    if result["failures"]:
        lines += ["", "| form | codes | entries |", "|---|---|---:|"]
        lines += [f"| {f['form']} | {f['codes']} | {f['n']} |" for f in result["failures"]]
    return "\n".join(lines)


if __name__ == "__main__":
    print(json.dumps(run(quick="--quick" in sys.argv), indent=2))
