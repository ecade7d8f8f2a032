"""CSL-JSON from doi.org content negotiation: the way to read DOIs of
agencies without a REST API of their own (JaLC, mEDRA, KISTI, OP…)."""

from __future__ import annotations

from typing import Any

from citeaudit.resolve.interface import Author, Record

__all__ = ["CSL_MEDIA_TYPE", "record_from_csl"]

CSL_MEDIA_TYPE = "application/vnd.citationstyles.csl+json"
_DATES = ("issued", "published-print", "published-online")


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,) if value.strip() else ()
    if isinstance(value, list):
        return tuple(v for v in value if isinstance(v, str) and v.strip())
    return ()


def _year(date: Any) -> int | None:
    try:
        year = date["date-parts"][0][0]
    except (KeyError, IndexError, TypeError):
        return None
    if isinstance(year, str) and year.isdigit():
        return int(year)
    return year if isinstance(year, int) else None


def record_from_csl(csl: dict[str, Any], agency: str) -> Record:
    years = []
    for key in _DATES:
        year = _year(csl.get(key))
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
        titles=_strings(csl.get("title")),
        subtitles=_strings(csl.get("subtitle")),
        years=tuple(sorted(years)),
        authors=tuple(authors),
        type=csl.get("type"),
        container=_strings(csl.get("container-title")),
    )
