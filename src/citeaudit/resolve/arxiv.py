"""arXiv: records for arXiv identifiers (their syntax is ``identifiers/arxiv.py``)
through the arXiv API, whose Atom answers become normalised records. arXiv asks
for one request every three seconds, so identifiers are asked for many at a time."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from citeaudit.identifiers.arxiv import ARXIV_DOI_PREFIX, arxiv_id_of, normalize_arxiv
from citeaudit.resolve.abstracts import plain_abstract
from citeaudit.resolve.fields import split_name
from citeaudit.resolve.interface import Author, Record, Relation

__all__ = ["ARXIV_DOI_PREFIX", "arxiv_id_of", "normalize_arxiv", "records_from_atom"]

_NS = {"a": "http://www.w3.org/2005/Atom", "arxiv": "http://arxiv.org/schemas/atom"}


def _text(entry: ET.Element, path: str) -> str:
    found = entry.find(path, _NS)
    return " ".join((found.text or "").split()) if found is not None else ""


def _author(name: str) -> Author:
    """arXiv gives a name as one string: ``Jay J. Van Bavel`` is family ``Van Bavel``."""
    given, family = split_name(name)
    if given is None:
        return Author(name=name or None)
    return Author(family=family, given=given)


def records_from_atom(body: bytes) -> dict[str, Record]:
    """Records by versionless arXiv id; an id arXiv does not know is absent."""
    root = ET.fromstring(body)
    out: dict[str, Record] = {}
    for entry in root.findall("a:entry", _NS):
        abs_url = _text(entry, "a:id")
        m = re.search(r"arxiv\.org/abs/(.+?)(v\d+)?$", abs_url)
        title = _text(entry, "a:title")
        if not m or not title or title == "Error":
            continue
        arxiv_id = m.group(1).lower()
        years = []
        for kind, path in (("published", "a:published"), ("updated", "a:updated")):
            year = _text(entry, path)[:4]
            if year.isdigit():
                years.append((kind, int(year)))
        journal_doi = _text(entry, "arxiv:doi").lower()
        relations = (Relation("is-preprint-of", None, journal_doi),) if journal_doi else ()
        out[arxiv_id] = Record(
            doi=ARXIV_DOI_PREFIX + arxiv_id,
            agency="arxiv",
            titles=(title,),
            years=tuple(sorted(years)),
            authors=tuple(_author(_text(a, "a:name")) for a in entry.findall("a:author", _NS)),
            type="posted-content",
            relations=relations,
            abstract=plain_abstract(_text(entry, "a:summary")),
            full_text_urls=(f"https://arxiv.org/pdf/{arxiv_id}",),  # open access, every paper
        )
    return out
