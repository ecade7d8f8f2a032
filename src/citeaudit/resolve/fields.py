"""Reading the loosely typed fields that Crossref and CSL-JSON share."""

from __future__ import annotations

from typing import Any

__all__ = ["date_year", "strings"]


def strings(value: Any) -> tuple[str, ...]:
    """A string or a list of strings, blanks dropped."""
    if isinstance(value, str):
        return (value,) if value.strip() else ()
    if isinstance(value, list):
        return tuple(v for v in value if isinstance(v, str) and v.strip())
    return ()


def date_year(date: Any) -> int | None:
    """The year of a ``{"date-parts": [[2016, 9]]}`` date (a digit string counts too)."""
    try:
        year = date["date-parts"][0][0]
    except (KeyError, IndexError, TypeError):
        return None
    if isinstance(year, str) and year.isdigit():
        return int(year)
    return year if isinstance(year, int) and not isinstance(year, bool) else None
