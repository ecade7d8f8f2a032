"""Reading the loosely typed fields that Crossref and CSL-JSON share, and person names
given as one string (arXiv's), with the particles and suffixes that decide where the
family name starts and ends."""

from __future__ import annotations

from typing import Any

__all__ = [
    "NAME_PARTICLES",
    "NAME_SUFFIXES",
    "date_year",
    "is_particle",
    "is_suffix",
    "split_name",
    "strings",
]

# Surname particles: written before the family name ("Van Bavel", "Del Vicario", "de la Cruz",
# "van 't Veer") and left out by some citers when they sort ("Bavel, J. J. V."). Compared case-folded.
NAME_PARTICLES = frozenset(
    {"van", "von", "der", "den", "de", "del", "della", "di", "da", "das", "dos", "do", "du", "des", "la",
     "le", "ten", "ter", "zu", "al", "el", "bin", "ibn", "'t", "’t"}
)  # fmt: skip
# Generational suffixes, compared case-folded without their full stop: "Jr.", "Sr.", "III".
NAME_SUFFIXES = frozenset({"jr", "sr", "jnr", "snr", "ii", "iii", "iv", "2nd", "3rd", "4th"})


def is_particle(token: str) -> bool:
    return token.casefold() in NAME_PARTICLES


def is_suffix(token: str) -> bool:
    return token.casefold().rstrip(".") in NAME_SUFFIXES


def split_name(full: str) -> tuple[str | None, str | None]:
    """``(given, family)`` of a person's name written in one string, given names first:
    the family name is the last word, with the particles before it (``Jay J. Van Bavel`` →
    ``Van Bavel``) and a generational suffix after it (``John Smith Jr.`` → ``Smith Jr.``).
    One word is a family name alone; at least one word stays a given name."""
    words = full.split()
    if len(words) < 2:
        return None, (words[0] if words else None)
    end = len(words)
    while end > 1 and is_suffix(words[end - 1]):
        end -= 1
    start = end - 1
    while start > 1 and is_particle(words[start - 1]):
        start -= 1
    if start == 0:  # the whole name was a suffix: read it plainly
        return " ".join(words[:-1]), words[-1]
    return " ".join(words[:start]), " ".join(words[start:])


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
