"""DataCite: a ``/dois/{doi}`` record as a normalised record."""

from __future__ import annotations

import re
from typing import Any

from citeaudit.resolve.abstracts import plain_abstract
from citeaudit.resolve.interface import Author, Record, Relation

__all__ = ["record_from_datacite"]


def _kebab(name: str) -> str:
    """``IsPreprintOf`` → ``is-preprint-of`` (Crossref's spelling of relations)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def _year(value: Any) -> int | None:
    m = re.match(r"^\s*(\d{4})", str(value or ""))
    return int(m.group(1)) if m else None


def _author(creator: dict[str, Any]) -> Author:
    family, given, name = creator.get("familyName"), creator.get("givenName"), creator.get("name")
    if creator.get("nameType") == "Organizational" or not (family or given):
        if name and "," in name and creator.get("nameType") == "Personal":
            family, _, given = (part.strip() for part in name.partition(","))
            return Author(family=family or None, given=given or None)
        return Author(name=name or None)
    return Author(family=family or None, given=given or None)


def _text(value: Any) -> str | None:
    return str(value).strip() or None if isinstance(value, (str, int)) else None


def _abstract(attributes: dict[str, Any]) -> str | None:
    """The descriptions of type Abstract, in the order given, as one text."""
    found = [
        text
        for d in attributes.get("descriptions") or ()
        if isinstance(d, dict) and d.get("descriptionType") == "Abstract"
        and (text := plain_abstract(d.get("description"))) is not None
    ]  # fmt: skip
    return "\n\n".join(found) or None


def record_from_datacite(attributes: dict[str, Any]) -> Record:
    titles: list[str] = []
    subtitles: list[str] = []
    for t in attributes.get("titles") or ():
        if isinstance(t, dict) and isinstance(t.get("title"), str) and t["title"].strip():
            (subtitles if t.get("titleType") == "Subtitle" else titles).append(t["title"])
    years: set[tuple[str, int]] = set()
    published = _year(attributes.get("publicationYear"))
    if published is not None:
        years.add(("published", published))
    for date in attributes.get("dates") or ():
        kind = {"Issued": "issued", "Available": "published-online"}.get(str(date.get("dateType")))
        year = _year(date.get("date"))
        if kind and year is not None:
            years.add((kind, year))
    relations = set()
    for rel in attributes.get("relatedIdentifiers") or ():
        if rel.get("relatedIdentifierType") == "DOI" and rel.get("relationType"):
            relations.add(
                Relation(_kebab(rel["relationType"]), None, str(rel.get("relatedIdentifier", "")).lower())
            )
    types = attributes.get("types") or {}
    container = attributes.get("container") or {}
    return Record(
        doi=str(attributes.get("doi", "")).lower(),
        agency="datacite",
        titles=tuple(titles),
        subtitles=tuple(subtitles),
        years=tuple(sorted(years)),
        authors=tuple(_author(c) for c in attributes.get("creators") or () if isinstance(c, dict)),
        type=(types.get("resourceTypeGeneral") or "").lower() or None,
        container=(container["title"],) if isinstance(container.get("title"), str) else (),
        relations=tuple(sorted(relations, key=lambda r: (r.relation, r.doi or ""))),
        volume=_text(container.get("volume")),
        issue=_text(container.get("issue")),
        pages="-".join(p for p in (_text(container.get("firstPage")), _text(container.get("lastPage"))) if p)
        or None,
        abstract=_abstract(attributes),
    )
