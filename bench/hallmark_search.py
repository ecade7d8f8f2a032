"""References without an identifier, found by search: HALLMARK dev against a local DBLP mirror.

The mirror is imported (``citeaudit mirror import --format dblp``) from a ``dblp.xml.gz`` written in
DBLP's own form — ISO-8859-1, the named character entities of ``dblp.dtd`` beside it, titles ending
in a full stop, ``<ee>`` links — from HALLMARK's VALID entries, plus decoy records: each a real
title's words in another order and another real entry's authors, so the index holds many near
neighbours that are not the work. Every dev entry without a DOI or an arXiv eprint is then checked
offline, as a ``.bib``, against the mirror alone (``--indexes ""``), and each entry's outcome is
counted by its HALLMARK label and fabrication type.

``--copies`` makes the mirror as real DBLP is: beside every proceedings record a CoRR copy of the
same year (``journals/corr/…``, arXiv's DOI in ``<ee>``), and titles in Unicode where the entries
write LaTeX (``$\varepsilon$`` as ``ε``), as DBLP renders them.

What it measures is the rule and the pipeline, not coverage: the mirror holds every real work the
VALID entries name, as a full DBLP would for these CS papers. A perturbed entry whose original is
not a VALID dev entry is not in the mirror either, so it is "not found" here where a full DBLP
might match it and flag the perturbed field instead; both are errors.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from tests.dblp_dump import dblp_record, write_dblp

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "references" / "hallmark" / "dev_public.jsonl"
WORK = Path(__file__).resolve().parent / "work" / "hallmark_search"
DECOYS = 20_000


def _plain(value: str) -> str:
    """A BibTeX value without its braces (HALLMARK's fields are plain text with a few)."""
    return " ".join(value.replace("{", "").replace("}", "").split())


def _decoys(valid: list[dict[str, Any]], n: int) -> list[dict[str, str]]:
    rng = random.Random(20261202)
    titles = [_plain(r["fields"]["title"]).split() for r in valid]
    authors = [r["fields"]["author"] for r in valid]
    out = []
    for _ in range(n):
        i = rng.randrange(len(titles))
        words = list(titles[i])
        rng.shuffle(words)
        other = (i + rng.randrange(1, len(authors))) % len(authors)  # never the entry's own authors
        out.append({"title": " ".join(words), "author": authors[other],
                    "year": str(rng.randint(1995, 2025)), "booktitle": rng.choice(["NeurIPS", "ICML", "ICLR", "ACL"])})  # fmt: skip
    return out


def _unicode(title: str) -> str:
    """A title as DBLP renders its LaTeX: math and commands as Unicode, braces gone."""
    if "$" not in title and "\\" not in title:
        return title
    from pylatexenc.latex2text import LatexNodes2Text

    text = LatexNodes2Text(math_mode="text").latex_to_text(title)
    return " ".join(text.replace("_", "").replace("^", "").split())


def dblp_key(kind: str, venue: str | None, name: str) -> str:
    """A DBLP key in the stream of its venue, as DBLP keys a work (``conf/icml/…``,
    ``journals/j-mach-learn-res/…``): the mirror gives a record the other names of its stream only."""
    stream = re.sub(r"[^a-z0-9]+", "-", (venue or "").lower()).strip("-") or "misc"
    return f"{'journals' if kind == 'article' else 'conf'}/{stream}/{name}"


def _records(valid: list[dict[str, Any]], copies: bool) -> list[str]:
    out = []
    for n, r in enumerate(valid):
        fields = {k: _plain(v) for k, v in r["fields"].items()}
        kind = "article" if r["bibtex_type"] == "article" else "inproceedings"
        if copies:
            fields["title"] = _unicode(fields["title"])
        venue = fields.get("booktitle") or fields.get("journal")
        out.append(dblp_record(kind, dblp_key(kind, venue, r["bibtex_key"]), fields))
        if copies and kind == "inproceedings" and fields.get("year"):
            arxiv = f"{fields['year'][2:]}01.{n:05d}"
            corr = {"title": fields["title"], "author": fields.get("author", ""), "year": fields["year"],
                    "journal": "CoRR", "volume": f"abs/{arxiv}", "doi": f"10.48550/arXiv.{arxiv}"}  # fmt: skip
            out.append(dblp_record("article", f"journals/corr/abs-{arxiv.replace('.', '-')}", corr))
    return out


def _bib(rows: list[dict[str, Any]]) -> str:
    out = []
    for r in rows:
        body = ",\n".join(f"  {k} = {{{v}}}" for k, v in sorted(r["fields"].items()))
        out.append(f"@{r['bibtex_type']}{{{r['bibtex_key']},\n{body}\n}}\n")
    return "\n".join(out)


def _citeaudit(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEAUDIT_")}
    return subprocess.run(
        [sys.executable, "-m", "citeaudit", *args], capture_output=True, text=True, env=env, timeout=1800
    )


def _outcome(result: dict[str, Any]) -> str:
    if result["errors"]:
        return "error"
    if result["warnings"]:
        return "warning"
    return "pass"


def run(quick: bool = False, copies: bool = False) -> dict[str, Any]:
    if not DATA.exists():
        return {"skipped": f"{DATA} is absent"}
    rows = [json.loads(line) for line in DATA.read_text("utf-8").splitlines() if line.strip()]
    rows = [r for r in rows if r.get("generation_method") != "canary"]
    valid = [r for r in rows if r["label"] == "VALID"]
    work = WORK / ("copies" if copies else "plain")
    work.mkdir(parents=True, exist_ok=True)
    decoys = _decoys(valid, DECOYS // (10 if quick else 1))
    records = _records(valid, copies)
    records += [
        dblp_record("inproceedings", dblp_key("inproceedings", d["booktitle"], f"decoy{i}"), d)
        for i, d in enumerate(decoys)
    ]
    dump = write_dblp(work / "dblp.xml.gz", records)
    mirror = work / "mirror.db"
    for stale in work.glob("mirror.db*"):
        stale.unlink()
    started = time.perf_counter()
    imported = _citeaudit("mirror", "import", "--format", "dblp", str(dump), "--mirror", str(mirror))
    import_s = time.perf_counter() - started
    if imported.returncode != 0:
        raise RuntimeError(f"mirror import failed: {imported.stderr.strip()}")
    audited = [r for r in rows if not r["fields"].get("doi") and not r["fields"].get("eprint")]
    bib = work / "dev_without_identifier.bib"
    bib.write_text(_bib(audited), "utf-8")
    out = work / "report.json"
    (work / "cache").mkdir(exist_ok=True)  # empty: the mirror alone is searched
    started = time.perf_counter()
    checked = _citeaudit("check", str(bib), "--offline", "--mirror", str(mirror), "--indexes", "",
                         "--judge", "none", "--cache", str(work / "cache"), "--out", str(out))  # fmt: skip
    check_s = time.perf_counter() - started
    if checked.returncode not in (0, 1, 3):
        raise RuntimeError(f"check failed ({checked.returncode}): {checked.stderr.strip()}")
    report = json.loads(out.read_text("utf-8"))
    by_key = {r["claim"]: r for r in report["results"]}
    table: dict[str, Counter[str]] = defaultdict(Counter)
    codes: dict[str, Counter[str]] = defaultdict(Counter)
    for r in audited:
        kind = "VALID" if r["label"] == "VALID" else r.get("hallucination_type") or "unknown"
        result = by_key[r["bibtex_key"]]
        table[kind][_outcome(result)] += 1
        codes[kind].update(result["errors"] + result["warnings"])
    fabricated = [r for r in audited if r["label"] != "VALID"]
    flagged = sum(1 for r in fabricated if _outcome(by_key[r["bibtex_key"]]) != "pass")
    errors = sum(1 for r in fabricated if _outcome(by_key[r["bibtex_key"]]) == "error")
    return {
        "copies": copies,
        "mirror_records": len(records),
        "valid_records": len(valid),
        "decoys": len(decoys),
        "import_s": round(import_s, 2),
        "check_s": round(check_s, 2),
        "entries": len(audited),
        "valid_entries": sum(1 for r in audited if r["label"] == "VALID"),
        "valid_with_error": table["VALID"]["error"],
        "valid_with_warning": table["VALID"]["warning"],
        "fabricated": len(fabricated),
        "fabricated_flagged": flagged,
        "fabricated_error": errors,
        "table": {k: dict(v) for k, v in sorted(table.items())},
        "codes": {k: dict(v.most_common(4)) for k, v in sorted(codes.items())},
    }


def markdown(result: dict[str, Any]) -> str:
    if "skipped" in result:
        return f"Skipped: {result['skipped']}."
    fab = result["fabricated"]
    lines = [
        f"HALLMARK dev (public split, canaries dropped): the {result['entries']} entries with neither a DOI "
        'nor an arXiv eprint, as one `.bib`, checked with `citeaudit check --offline --mirror M --indexes ""` '
        f"against a DBLP mirror imported from a `dblp.xml.gz` in DBLP's form: the {result['valid_records']} "
        f"VALID entries' records and {result['decoys']:,} decoys (a real title's words reordered, another "
        f"entry's authors) — {result['mirror_records']:,} records, imported in {result['import_s']} s; the "
        f"check took {result['check_s']} s."
        + (
            " With a CoRR copy (same year, arXiv's DOI) beside every proceedings record and Unicode titles "
            "where the entries write LaTeX, as real DBLP has them."
            if result.get("copies")
            else ""
        ),
        "",
        f"- VALID entries: {result['valid_entries']}; with an error: **{result['valid_with_error']}**; "
        f"with a warning: {result['valid_with_warning']}.",
        f"- Fabricated entries: {fab}; flagged (error or warning): **{result['fabricated_flagged']}** "
        f"({100 * result['fabricated_flagged'] / max(fab, 1):.1f} %); with an error: "
        f"**{result['fabricated_error']}** ({100 * result['fabricated_error'] / max(fab, 1):.1f} %).",
        "",
        "| HALLMARK type | entries | error | warning | pass | most frequent codes |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for kind, counts in result["table"].items():
        n = sum(counts.values())
        top = ", ".join(f"`{c}` {k}" for c, k in result["codes"].get(kind, {}).items())
        lines.append(
            f"| {kind} | {n} | {counts.get('error', 0)} | {counts.get('warning', 0)} | "
            f"{counts.get('pass', 0)} | {top} |"
        )
    lines += [
        "",
        "The mirror holds every real work a VALID entry names, as a full DBLP would for these papers; a "
        "perturbed entry whose original is not among them is not in the mirror either, so it is "
        "`E_WORK_NOT_FOUND` here where a full DBLP might match the original and flag the perturbed "
        "field (an error too).",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(json.dumps(run(quick="--quick" in sys.argv, copies="--copies" in sys.argv), indent=2))
