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

from citeaudit.mirror.interface import PASSED, DumpFile, Keep, MirrorError, Passed, RowUnit, Skip, Unit
from citeaudit.mirror.reading import dump_files, read_errors
from citeaudit.mirror.rows import author_json, make_row, record_of
from citeaudit.resolve.fields import split_name
from citeaudit.resolve.interface import Author

__all__ = ["FORMAT", "RECORD_TAGS", "TYPES", "author", "clean_title", "files", "rows", "units"]

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


_FIELDS = frozenset(("title", "journal", "booktitle", "volume", "number", "pages", "year", "school"))
_PARTS = (("volume", "volume"), ("number", "issue"), ("pages", "pages"))
# The authors already read, by their text in the dump (names recur: a cache, cleared when full).
_AUTHORS: dict[str, tuple[dict[str, str], str]] = {}
_AUTHORS_MAX = 50_000


def _author(text: str) -> tuple[dict[str, str], str]:
    """An author's JSON and family name (or name) from their text in the dump."""
    hit = _AUTHORS.get(text)
    if hit is None:
        a = author(text)
        hit = (author_json(a), a.family or a.name or "")
        if len(_AUTHORS) >= _AUTHORS_MAX:
            _AUTHORS.clear()
        _AUTHORS[text] = hit
    return hit


def _row(element: Any) -> RowUnit:
    tag = element.tag
    kind = TYPES.get(tag)
    if kind is None:
        return Skip(f"not a publication (<{tag}>)")
    key = element.get("key") or ""
    if not key:
        return Skip("no key")
    fields: dict[str, str] = {}
    authors: list[dict[str, str]] = []
    families: list[str] = []
    doi = ""
    arxiv: str | None = None
    for child in element:
        name = child.tag
        if name == "author":
            entry = _author(("".join(child.itertext()) if len(child) else child.text) or "")
            authors.append(entry[0])
            families.append(entry[1])
        elif name == "ee":
            url = (child.text or "").strip()
            lower = url.lower()
            if not doi and "doi.org/" in lower:
                m = _DOI_URL.match(url)
                if m:
                    doi = unquote(m.group(1)).lower()
            if arxiv is None and "arxiv.org/abs/" in lower:
                a = _ARXIV_URL.search(url)
                if a:
                    arxiv = a.group(1).lower()
        elif name in _FIELDS and name not in fields:
            text = "".join(child.itertext()) if len(child) else child.text or ""
            fields[name] = " ".join(text.split())
    title = clean_title(fields.get("title", ""))
    if not title:
        return Skip("no title")
    if tag == "article" and (
        key.startswith("journals/corr/") or "informal" in (element.get("publtype") or "")
    ):
        kind = "posted-content"  # CoRR: arXiv's preprints, as DBLP lists them (publtype="informal")
    data: dict[str, Any] = {"doi": doi, "agency": FORMAT, "titles": [title], "type": kind}
    year_text = fields.get("year", "")
    year = int(year_text) if year_text.isdigit() else None
    if year is not None:
        data["years"] = {"issued": year}
    if authors:
        data["authors"] = authors
    container = fields.get("journal") or fields.get("booktitle") or fields.get("school") or ""
    if container:
        data["container"] = [container]
    for field, name in _PARTS:
        value = fields.get(field)
        if value:
            data[name] = value
    if arxiv is not None:
        data["_arxiv"] = arxiv
    return make_row(key, (title,), families, year, data, element.get("mdate") or "")


def _dtd_beside(dump: DumpFile, head: bytes) -> Path:
    """The DTD the dump names, looked for beside it (never on the network)."""
    m = _DOCTYPE.search(head)
    folder = Path(dump.name).parent
    named = Path(m.group(1).decode("latin-1")).name if m else "dblp.dtd"
    for candidate in (folder / named, folder / "dblp.dtd"):
        try:
            if candidate.is_file():
                return candidate
        except OSError:  # a name the file system cannot hold (too long): not beside it
            continue
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
    for unit in rows(dump, skip, max_record_bytes):
        if not isinstance(unit, Passed):
            yield unit if isinstance(unit, Skip) else record_of(FORMAT, unit)


def rows(dump: DumpFile, skip: int, max_record_bytes: int, keep: Keep | None = None) -> Iterator[RowUnit]:
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
                    yield _row(element) if keep is None or keep(seen - skip - 1) else PASSED
                element.clear(keep_tail=True)
                parent = element.getparent()
                if parent is not None:
                    while element.getprevious() is not None:
                        del parent[0]  # the records before this one: memory stays flat
        except etree.XMLSyntaxError as e:
            line, column = e.position
            message = re.sub(r"(\s*\([^()]*line \d+\)|, line \d+, column \d+)$", "", str(e.msg))
            # libxml2 quotes the text of an unfinished CDATA section or comment on the lines after
            # its message: the message is the first line.
            message = (message.splitlines() or [""])[0]
            raise MirrorError(
                f"{dump.name}: invalid XML at line {line}, column {column}: {message}"
            ) from None
