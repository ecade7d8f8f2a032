"""DBLP's XML dump (``dblp.xml.gz``, https://dblp.org/xml/): ISO-8859-1, with the named character
entities declared in the DTD shipped beside it (``dblp.dtd``), one element per record.

A DBLP record becomes a work the way DBLP's own BibTeX export reads it: the homonym number of a
name (``Wei Wang 0001``) dropped, names split into given and family names (particles and
suffixes kept with the family name), the full stop DBLP ends every title with and the inline
markup of titles (``<i>``, ``<sub>``, ``<sup>``, ``<tt>``) removed, the DOI taken from ``<ee>``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from lxml import etree  # type: ignore[import-untyped]  # no stubs; DBLP's DTD needs a real XML parser

from citeaudit.mirror.interface import DumpFile, MirrorError, MirrorRecord, Skip, Unit
from citeaudit.mirror.reading import dump_files, read_errors
from citeaudit.resolve.fields import split_name
from citeaudit.resolve.interface import Author, Record

__all__ = ["FORMAT", "RECORD_TAGS", "TYPES", "author", "clean_title", "files", "units"]

FORMAT = "dblp"

#: DBLP's record elements and the Crossref type each is (``None``: not a publication).
TYPES: dict[str, str | None] = {
    "article": "journal-article",
    "inproceedings": "proceedings-article",
    "proceedings": "proceedings",
    "book": "book",
    "incollection": "book-chapter",
    "phdthesis": "dissertation",
    "mastersthesis": "dissertation",
    "www": None,  # a person's home page
    "person": None,
    "data": None,  # research data (newer DTDs)
}
RECORD_TAGS = tuple(TYPES)

_HOMONYM = re.compile(r"\s+\d{4}$")
_DOI_URL = re.compile(r"^https?://(?:dx\.)?doi\.org/(10\..+)$", re.I)
_ARXIV_URL = re.compile(r"arxiv\.org/abs/(.+?)(?:v\d+)?$", re.I)
_DOCTYPE = re.compile(rb'<!DOCTYPE\s+dblp\s+SYSTEM\s+"([^"]+)"')


def files(path: str) -> Sequence[DumpFile]:
    return dump_files(path, (".xml.gz", ".xml"))


def author(name: str) -> Author:
    """``Frank van der Linden 0001`` → family ``van der Linden``, given ``Frank``."""
    name = " ".join(name.split())
    if name[-4:].isdigit():
        name = _HOMONYM.sub("", name)
    given, family = split_name(name)
    if given is None:
        return Author(name=family)
    return Author(family=family, given=given)


def clean_title(text: str) -> str:
    """Whitespace collapsed and the one full stop DBLP ends a title with dropped
    (an ellipsis, ``?`` or ``!`` of the title itself stay)."""
    title = " ".join(text.split())
    if title.endswith(".") and not title.endswith(".."):
        title = title[:-1].rstrip()
    return title


def _text(element: Any) -> str:
    """The element's text; with its inline markup (``<i>``, ``<sub>``…) dropped, if it has any."""
    text = "".join(element.itertext()) if len(element) else element.text or ""
    return " ".join(text.split())


def _record(element: Any) -> Unit:
    tag = element.tag
    kind = TYPES.get(tag)
    if kind is None:
        return Skip(f"not a publication (<{tag}>)")
    key = element.get("key") or ""
    if not key:
        return Skip("no key")
    fields: dict[str, str] = {}
    authors: list[Author] = []
    doi = ""
    arxiv: str | None = None
    for child in element:
        name = child.tag
        if name == "author":
            authors.append(author(_text(child)))
        elif name == "ee":
            url = (child.text or "").strip()
            m = _DOI_URL.match(url)
            if m and not doi:
                doi = unquote(m.group(1)).lower()
            a = _ARXIV_URL.search(url)
            if a and arxiv is None:
                arxiv = a.group(1).lower()
        elif name in ("title", "journal", "booktitle", "volume", "number", "pages", "year", "school"):
            fields.setdefault(name, _text(child))
    title = clean_title(fields.get("title", ""))
    if not title:
        return Skip("no title")
    if tag == "article" and key.startswith("journals/corr/"):
        kind = "posted-content"  # CoRR: arXiv's preprints, as DBLP lists them
    year = fields.get("year", "")
    container = fields.get("journal") or fields.get("booktitle") or fields.get("school") or ""
    record = Record(
        doi=doi,
        agency=FORMAT,
        titles=(title,),
        years=(("issued", int(year)),) if year.isdigit() else (),
        authors=tuple(authors),
        type=kind,
        container=(container,) if container else (),
        volume=fields.get("volume") or None,
        issue=fields.get("number") or None,
        pages=fields.get("pages") or None,
    )
    return MirrorRecord(FORMAT, key, record, arxiv, element.get("mdate") or "")


def _dtd_beside(dump: DumpFile, head: bytes) -> Path:
    """The DTD the dump names, looked for beside it (never on the network)."""
    m = _DOCTYPE.search(head)
    folder = Path(dump.name).parent
    named = Path(m.group(1).decode("latin-1")).name if m else "dblp.dtd"
    for candidate in (folder / named, folder / "dblp.dtd"):
        if candidate.is_file():
            return candidate
    raise MirrorError(
        f"{dump.name}: its DTD {named!r} is not beside it; download dblp.dtd from https://dblp.org/xml/ "
        "into the same folder (its character entities are declared there)"
    )


class _Beside(etree.Resolver):  # type: ignore[misc]
    """Every external entity the dump asks for is the DTD beside it."""

    def __init__(self, dtd: Path) -> None:
        super().__init__()
        self.dtd = dtd

    def resolve(self, system_url: str, public_id: str, context: Any) -> Any:
        return self.resolve_filename(str(self.dtd), context)


def units(dump: DumpFile, skip: int, max_record_bytes: int) -> Iterator[Unit]:
    with read_errors(dump.name), dump.open() as stream:
        head = stream.read(4096)
    dtd = _dtd_beside(dump, head) if b"<!DOCTYPE" in head else None
    seen = 0
    with read_errors(dump.name), dump.open() as stream:
        events = etree.iterparse(
            stream,
            events=("end",),
            tag=RECORD_TAGS,
            load_dtd=dtd is not None,
            resolve_entities=dtd is not None,
            no_network=True,
            huge_tree=False,  # libxml2's limits on one text node stand: a record is never huge
        )
        if dtd is not None:
            events.resolvers.add(_Beside(dtd))
        try:
            for _, element in events:
                seen += 1
                if seen > skip:
                    yield _record(element)
                element.clear()
                parent = element.getparent()
                while element.getprevious() is not None and parent is not None:
                    del parent[0]  # the records before this one: memory stays flat
        except etree.XMLSyntaxError as e:
            line, column = e.position
            message = re.sub(r"(\s*\([^()]*line \d+\)|, line \d+, column \d+)$", "", str(e.msg))
            raise MirrorError(
                f"{dump.name}: invalid XML at line {line}, column {column}: {message}"
            ) from None
