"""Crossref: a work ``message`` of the REST API as a normalised record."""

from __future__ import annotations

from typing import Any

from citeaudit.resolve.abstracts import plain_abstract
from citeaudit.resolve.fields import date_year, strings
from citeaudit.resolve.interface import Author, Record, Relation

__all__ = ["record_from_message"]

# The dates Crossref gives a work; the print and online years differ on real records.
_YEAR_FIELDS = ("issued", "published", "published-print", "published-online")


def _author(data: dict[str, Any]) -> Author:
    return Author(
        family=data.get("family") or None,
        given=data.get("given") or None,
        name=data.get("name") or None,
        sequence=data.get("sequence") or None,
    )


def _relations(message: dict[str, Any]) -> tuple[Relation, ...]:
    out: list[Relation] = []
    for key in ("updated-by", "update-to"):
        for item in message.get(key) or ():
            if isinstance(item, dict):
                doi = item.get("DOI")
                out.append(Relation(key, item.get("type"), doi.lower() if isinstance(doi, str) else None))
    for key, items in sorted((message.get("relation") or {}).items()):
        for item in items if isinstance(items, list) else ():
            if isinstance(item, dict) and item.get("id-type") == "doi" and isinstance(item.get("id"), str):
                out.append(Relation(key, None, item["id"].lower()))
    return tuple(sorted(set(out), key=lambda r: (r.relation, r.type or "", r.doi or "")))


# The text-mining links a reader can read, the most readable first (XML and EPUB are not read).
_FULL_TEXT_TYPES = ("text/plain", "text/html", "application/pdf", "unspecified")
MAX_FULL_TEXT_URLS = 3


def _full_text_urls(message: dict[str, Any]) -> tuple[str, ...]:
    """The work's ``link`` entries meant for text mining, in order of how readable they are."""
    found: list[tuple[int, int, str]] = []
    for i, link in enumerate(message.get("link") or ()):
        if not isinstance(link, dict) or link.get("intended-application") != "text-mining":
            continue
        url, kind = link.get("URL"), link.get("content-type", "unspecified")
        if isinstance(url, str) and url.startswith(("https://", "http://")) and kind in _FULL_TEXT_TYPES:
            found.append((_FULL_TEXT_TYPES.index(kind), i, url))
    urls = dict.fromkeys(url for _, _, url in sorted(found))
    return tuple(urls)[:MAX_FULL_TEXT_URLS]


def _text(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def record_from_message(message: dict[str, Any]) -> Record:
    """Normalise one Crossref work; keeps every year, title and author."""
    years = []
    for key in _YEAR_FIELDS:
        year = date_year(message.get(key))
        if year is not None:
            years.append((key, year))
    return Record(
        doi=str(message.get("DOI", "")).lower(),
        agency="crossref",
        titles=strings(message.get("title")),
        subtitles=strings(message.get("subtitle")),
        years=tuple(sorted(years)),
        authors=tuple(_author(a) for a in message.get("author") or () if isinstance(a, dict)),
        type=message.get("type"),
        container=strings(message.get("container-title")),
        short_container=strings(message.get("short-container-title")),
        relations=_relations(message),
        volume=_text(message.get("volume")),
        issue=_text(message.get("issue")),
        pages=_text(message.get("page")),
        article_number=_text(message.get("article-number")),
        abstract=plain_abstract(message.get("abstract")),  # JATS XML
        full_text_urls=_full_text_urls(message),
    )
