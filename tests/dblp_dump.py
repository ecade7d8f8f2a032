"""A ``dblp.xml.gz`` in DBLP's own form, written from records the tests and benchmarks choose.

The form is the one DBLP ships (see tests/mirror/data/README.md for the real samples it follows):
ISO-8859-1 with the named character entities ``dblp.dtd`` declares beside it, one element per
record (``<article>``, ``<inproceedings>``…) with ``mdate`` and ``key``, ``<author>`` elements in
order, the title ending in a full stop, ``<ee>`` links with the DOI.
"""

from __future__ import annotations

import gzip
import html.entities
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

__all__ = [
    "SAMPLE_RECORDS",
    "STREAM_RECORDS",
    "dblp_record",
    "import_killed_midway",
    "sample_mirror",
    "write_dblp",
]

_LATIN1_NAMES = {
    cp: name for name, cp in html.entities.name2codepoint.items() if 0xC0 <= cp <= 0xFF and name[0].isalpha()
}
_VENUE_TAG = {"article": "journal"}


def _xml_text(text: str) -> str:
    """Markup characters escaped, Latin-1 letters as dblp.dtd's named entities, anything else
    beyond ASCII as a character reference, as dblp.xml writes them."""
    out = []
    for ch in text:
        cp = ord(ch)
        if ch in "<>&":
            out.append({"<": "&lt;", ">": "&gt;", "&": "&amp;"}[ch])
        elif cp < 128:
            out.append(ch)
        elif cp in _LATIN1_NAMES:
            out.append(f"&{_LATIN1_NAMES[cp]};")
        else:
            out.append(f"&#{cp};")
    return "".join(out)


def _dtd() -> str:
    lines = [
        "<!ELEMENT dblp (article|inproceedings|proceedings|book|incollection|phdthesis|mastersthesis|www)*>"
    ]
    lines += [
        f'<!ENTITY {name} "&#{cp};" >' for cp, name in sorted(_LATIN1_NAMES.items(), key=lambda kv: kv[1])
    ]
    return "\n".join(lines) + "\n"


def dblp_record(kind: str, key: str, fields: Mapping[str, str]) -> str:
    """One record; ``fields``: ``author`` (names joined by `` and ``; ``editor`` for a
    ``proceedings``), ``title``, ``year``, and any of ``booktitle``/``journal``, ``pages``,
    ``volume``, ``doi``."""
    parts = [f'<{kind} mdate="2026-11-01" key="{key}">']
    parts += [
        f"<{tag}>{_xml_text(a.strip())}</{tag}>"
        for tag in ("author", "editor")
        for a in fields.get(tag, "").split(" and ")
        if a.strip()
    ]
    title = fields["title"]
    parts.append(f"<title>{_xml_text(title if title.endswith(('.', '?', '!')) else title + '.')}</title>")
    for tag in ("pages", "year", "volume"):
        if fields.get(tag):
            parts.append(f"<{tag}>{_xml_text(fields[tag])}</{tag}>")
    venue = fields.get("booktitle") or fields.get("journal")
    if venue:
        tag = _VENUE_TAG.get(kind, "booktitle")
        parts.append(f"<{tag}>{_xml_text(venue)}</{tag}>")
    if fields.get("doi"):
        parts.append(f"<ee>https://doi.org/{_xml_text(fields['doi'])}</ee>")
    parts.append(f"</{kind}>")
    return "\n".join(parts)


def write_dblp(path: Path, records: Iterable[str]) -> Path:
    """``path`` (``….xml.gz``) and ``dblp.dtd`` beside it."""
    (path.parent / "dblp.dtd").write_text(_dtd(), "iso-8859-1")
    head = '<?xml version="1.0" encoding="ISO-8859-1"?>\n<!DOCTYPE dblp SYSTEM "dblp.dtd">\n<dblp>\n'
    with gzip.open(path, "wb") as f:
        f.write(head.encode("iso-8859-1"))
        for record in records:
            f.write((record + "\n").encode("iso-8859-1"))
        f.write(b"</dblp>\n")
    return path


# Real works as DBLP lists them (short venues, homonym numbers, a CoRR preprint, two works of one
# title), the mirror of the work-citation tests.
SAMPLE_RECORDS = [
    ("inproceedings", "conf/nips/VaswaniSPUJGKP17", {
        "author": "Ashish Vaswani and Noam Shazeer and Niki Parmar and Jakob Uszkoreit and Llion Jones and "
                  "Aidan N. Gomez and Lukasz Kaiser and Illia Polosukhin",
        "title": "Attention is All you Need", "pages": "5998-6008", "year": "2017", "booktitle": "NIPS"}),
    ("inproceedings", "conf/naacl/DevlinCLT19", {
        "author": "Jacob Devlin and Ming-Wei Chang and Kenton Lee and Kristina Toutanova",
        "title": "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding",
        "pages": "4171-4186", "year": "2019", "booktitle": "NAACL-HLT (1)", "doi": "10.18653/V1/N19-1423"}),
    ("article", "journals/neco/HochreiterS97", {
        "author": "Sepp Hochreiter and Jürgen Schmidhuber", "title": "Long Short-Term Memory",
        "pages": "1735-1780", "year": "1997", "volume": "9", "journal": "Neural Comput.",
        "doi": "10.1162/NECO.1997.9.8.1735"}),
    ("article", "journals/nature/LeCunBH15", {
        "author": "Yann LeCun and Yoshua Bengio and Geoffrey E. Hinton", "title": "Deep learning",
        "pages": "436-444", "year": "2015", "volume": "521", "journal": "Nat.", "doi": "10.1038/NATURE14539"}),
    ("book", "books/daglib/0040158", {
        "author": "Ian J. Goodfellow and Yoshua Bengio and Aaron C. Courville", "title": "Deep Learning",
        "year": "2016"}),
    ("article", "journals/corr/abs-2101-00001", {
        "author": "Jan van der Berg 0002 and John Smith Jr.", "title": "Peer Review of Citation Audits",
        "year": "2021", "volume": "abs/2101.00001", "journal": "CoRR"}),
]  # fmt: skip


# One conference's stream as DBLP writes it: the papers of ``conf/nips`` under the names of their
# year (``NIPS``, ``NeurIPS``, the track ``NeurIPS Datasets and Benchmarks``) and the 2017
# proceedings with its full title, each title as DBLP's BibTeX export gives it to the papers'
# ``booktitle`` (quoted so in the reference lists of many public papers); ICLR 2017's two
# proceedings (its conference and its workshop track) and a paper of the workshop track; an ICML paper.
STREAM_RECORDS = [
    ("proceedings", "conf/nips/2017", {
        "editor": "Isabelle Guyon and Ulrike von Luxburg and Samy Bengio and Hanna M. Wallach and Rob Fergus and "
                  "S. V. N. Vishwanathan and Roman Garnett",
        "title": "Advances in Neural Information Processing Systems 30: Annual Conference on Neural Information "
                 "Processing Systems 2017, December 4-9, 2017, Long Beach, CA, USA", "year": "2017",
        "booktitle": "NIPS"}),
    ("inproceedings", "conf/nips/BrownMRSKDNSSAA20", {
        "author": "Tom B. Brown and Benjamin Mann and Nick Ryder and Melanie Subbiah and Jared Kaplan",
        "title": "Language Models are Few-Shot Learners", "year": "2020", "booktitle": "NeurIPS"}),
    ("inproceedings", "conf/nips/HendrycksBKABTS21", {
        "author": "Dan Hendrycks and Collin Burns and Saurav Kadavath and Akul Arora and Steven Basart and "
                  "Eric Tang and Dawn Song and Jacob Steinhardt",
        "title": "Measuring Mathematical Problem Solving With the MATH Dataset", "year": "2021",
        "booktitle": "NeurIPS Datasets and Benchmarks"}),
    ("proceedings", "conf/icml/2017", {
        "editor": "Doina Precup and Yee Whye Teh",
        "title": "Proceedings of the 34th International Conference on Machine Learning, ICML 2017, Sydney, NSW, "
                 "Australia, 6-11 August 2017", "year": "2017", "booktitle": "ICML"}),
    ("proceedings", "conf/iclr/2017", {
        "editor": "Yoshua Bengio and Yann LeCun",
        "title": "5th International Conference on Learning Representations, ICLR 2017, Toulon, France, April 24-26, "
                 "2017, Conference Track Proceedings", "year": "2017", "booktitle": "ICLR (Poster)"}),
    ("proceedings", "conf/iclr/2017w", {
        "title": "5th International Conference on Learning Representations, ICLR 2017, Toulon, France, April 24-26, "
                 "2017, Workshop Track Proceedings", "year": "2017", "booktitle": "ICLR (Workshop)"}),
    ("inproceedings", "conf/iclr/HuangPGDA17", {
        "author": "Sandy H. Huang and Nicolas Papernot and Ian J. Goodfellow and Yan Duan and Pieter Abbeel",
        "title": "Adversarial Attacks on Neural Network Policies", "year": "2017", "booktitle": "ICLR (Workshop)"}),
    ("inproceedings", "conf/icml/ArjovskyCB17", {
        "author": "Martín Arjovsky and Soumith Chintala and Léon Bottou", "title": "Wasserstein Generative "
        "Adversarial Networks", "pages": "214-223", "year": "2017", "booktitle": "ICML"}),
]  # fmt: skip


def sample_mirror(work: Path) -> Path:
    """A mirror imported by ``citeaudit mirror import`` from :data:`SAMPLE_RECORDS` and 50 decoys
    (the title's words reordered, other authors) in ``work``."""
    from tests.conftest import run_cli

    decoys = [
        dblp_record("inproceedings", f"conf/decoy/d{i}", {
            "author": "Ada Lovelace and Alan Turing", "title": f"Need You All Attention Is {i}", "year": "2017",
            "booktitle": "NIPS"})
        for i in range(50)
    ]  # fmt: skip
    dump = write_dblp(work / "dblp-2026-11-01.xml.gz", [*(dblp_record(*r) for r in SAMPLE_RECORDS), *decoys])
    target = work / "refs.mirror"
    result = run_cli("mirror", "import", "--format", "dblp", dump, "--mirror", target)
    assert result.code == 0, result.stderr
    return target


def units_committed(mirror: Path) -> int:
    try:
        with sqlite3.connect(f"file:{mirror}?mode=ro", uri=True) as conn:
            row = conn.execute("SELECT max(units) FROM sources").fetchone()
    except sqlite3.Error:
        return 0
    return int(row[0] or 0)


def import_killed_midway(
    dump: Path, mirror: Path, *, dump_format: str = "dblp", batch: int = 500, after: int = 2_000
) -> tuple[list[str], dict[str, str]]:
    """Start ``citeaudit mirror import`` of ``dump`` (a file or a folder of ``dump_format``) into
    ``mirror`` in a process of its own, kill it (SIGKILL) once ``after`` units are committed, and give
    back the command and environment that rerun it."""
    from tests.conftest import ROOT

    command = [sys.executable, "-m", "citeaudit", "mirror", "import", "--format", dump_format, str(dump),
               "--mirror", str(mirror), "--batch", str(batch)]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while units_committed(mirror) < after and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert child.poll() is None, "the import ended before it could be killed"
    child.send_signal(signal.SIGKILL)
    child.wait(30)
    return command, env
