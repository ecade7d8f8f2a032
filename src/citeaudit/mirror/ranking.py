"""How a mirror picks and orders its candidates for a title: which words to look up (the rarest
ones, so that a title with a word or two wrong still shares one with the record), and a score
that is a pure function of the query and the record (ties broken by key), so the same mirror
answers the same query the same way."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from citeaudit.resolve.indexes.interface import WorkQuery, query_words

__all__ = [
    "MIN_SIMILARITY",
    "STOPWORDS",
    "Scored",
    "content_words",
    "fast_words",
    "names_text",
    "score",
    "title_similarity",
]

# Words too common to find a title by; a title of nothing else is looked up by all its words.
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "over",
        "the",
        "their",
        "this",
        "to",
        "toward",
        "towards",
        "under",
        "via",
        "with",
        "without",
    ]
)
#: The least title similarity (Dice over words) of a candidate; below it a record is not "close".
#: A title of four words with two of them wrong is at 0.5: still a candidate for the match rule.
MIN_SIMILARITY = 0.4


_ASCII_WORD = re.compile(r"[a-z0-9]+")
_ASCII_CASED_WORD = re.compile(r"[A-Za-z0-9]+")  # NFKD may give capitals back (ℌ → H): query_words keeps them
_NOT_ASCII = re.compile(r"[^\x00-\x7f]")


def fast_words(text: str) -> list[str]:
    """:func:`query_words`, by regular expressions where the text is ASCII once its accents are
    dropped (most titles and names are; the import normalises millions of them)."""
    if text.isascii():
        return _ASCII_WORD.findall(text.lower())
    plain = unicodedata.normalize("NFKD", text.casefold())
    if plain.isascii():
        return _ASCII_CASED_WORD.findall(plain)
    if all(unicodedata.combining(c) for c in _NOT_ASCII.findall(plain)):
        return _ASCII_CASED_WORD.findall(plain.encode("ascii", "ignore").decode("ascii"))
    return query_words(text)


def content_words(title: str) -> list[str]:
    """The distinct words of a title a record is looked up by, in the title's order."""
    words = fast_words(title)
    content = [w for w in words if w not in STOPWORDS] or words
    return list(dict.fromkeys(content))


def names_text(families: Sequence[str]) -> str:
    """The authors' family names as the index keeps them: normalised, first author first."""
    return "|".join(" ".join(fast_words(f)) for f in families)


def title_similarity(query: Sequence[str], words: Sequence[str]) -> float:
    """Dice's coefficient over the two titles' distinct words."""
    if not query or not words:
        return 0.0
    a, b = set(query), set(words)
    return 2 * len(a & b) / (len(a) + len(b))


@dataclass(frozen=True, slots=True, order=True)
class Scored:
    sort_key: tuple[float, str, str]  # (-score, format, key): best first, then by key
    rowid: int
    similarity: float


def score(
    query: WorkQuery, query_title: Sequence[str], rowid: int, fmt: str, key: str, norm: str, names: str,
    year: int | None,
) -> Scored | None:  # fmt: skip
    """The candidate's score: title similarity first; the cited first author (as first author,
    or anywhere in the list) and year (exact, or one off for a preprint and its proceedings)
    order records whose titles are alike."""
    words = norm.split()
    similarity = title_similarity(query_title, words)
    surname = query_words(query.first_author or "")
    families = names.split("|")
    first = bool(surname) and bool(families) and surname[-1] in families[0].split()
    # A short title ("Hyperband", "BERT") is how the record's title begins: a candidate when the
    # first author is the cited one (the match rule then asks for the year too).
    if similarity < MIN_SIMILARITY and not (first and words[: len(query_title)] == list(query_title)):
        return None
    total = similarity
    if surname:
        last = surname[-1]
        if first:
            total += 0.05
        elif any(last in f.split() for f in families):
            total += 0.02
    if query.year is not None and year is not None:
        if year == query.year:
            total += 0.03
        elif abs(year - query.year) == 1:
            total += 0.015
    return Scored((-round(total, 9), fmt, key), rowid, similarity)
