"""CSL-JSON from doi.org content negotiation: the way to read DOIs of
agencies without a REST API of their own (JaLC, mEDRA, KISTI, OP…)."""

from __future__ import annotations

from typing import Any

from citeaudit.resolve.abstracts import plain_abstract
from citeaudit.resolve.fields import date_year, strings
from citeaudit.resolve.interface import Author, Record

__all__ = ["CSL_MEDIA_TYPE", "record_from_csl"]

CSL_MEDIA_TYPE = "application/vnd.citationstyles.csl+json"
_DATES = ("issued", "published-print", "published-online")


def record_from_csl(csl: dict[str, Any], agency: str) -> Record:
    years = []
    for key in _DATES:
        year = date_year(csl.get(key))
        if year is not None:
            years.append((key, year))
    authors = []
    for a in csl.get("author") or ():
        if isinstance(a, dict):
            authors.append(
                Author(
                    family=a.get("family") or None,
                    given=a.get("given") or None,
                    name=a.get("literal") or None,
                )
            )
    doi = str(csl.get("DOI") or csl.get("id") or "").lower().removeprefix("https://doi.org/")
    return Record(
        doi=doi,
        agency=agency,
        titles=strings(csl.get("title")),
        subtitles=strings(csl.get("subtitle")),
        years=tuple(sorted(years)),
        authors=tuple(authors),
        type=csl.get("type"),
        container=strings(csl.get("container-title")),
        short_container=strings(csl.get("container-title-short")),
        volume=str(csl["volume"]) if isinstance(csl.get("volume"), (str, int)) else None,
        issue=str(csl["issue"]) if isinstance(csl.get("issue"), (str, int)) else None,
        pages=csl["page"] if isinstance(csl.get("page"), str) else None,
        abstract=plain_abstract(csl.get("abstract")),
    )
