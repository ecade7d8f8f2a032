"""A ``dblp.xml.gz`` in DBLP's own form, written from records the tests and benchmarks choose.

The form is the one DBLP ships (see tests/mirror/data/README.md for the real samples it follows):
ISO-8859-1 with the named character entities ``dblp.dtd`` declares beside it, one element per
record (``<article>``, ``<inproceedings>``…) with ``mdate`` and ``key``, ``<author>`` elements in
order, the title ending in a full stop, ``<ee>`` links with the DOI.
"""

from __future__ import annotations

import gzip
import html.entities
from collections.abc import Iterable, Mapping
from pathlib import Path

__all__ = ["dblp_record", "write_dblp"]

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
    """One record; ``fields``: ``author`` (names joined by `` and ``), ``title``, ``year``, and any
    of ``booktitle``/``journal``, ``pages``, ``volume``, ``doi``."""
    parts = [f'<{kind} mdate="2026-11-01" key="{key}">']
    parts += [
        f"<author>{_xml_text(a.strip())}</author>"
        for a in fields.get("author", "").split(" and ")
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
