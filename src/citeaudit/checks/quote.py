"""The quote in the pinned snapshot: raw match first, then the normalised
match, and the span always in the original snapshot text.

A quote that is not found gets the closest passage of the snapshot as a
diagnostic; it never passes.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from citeaudit.checks.codes import FindingMaker
from citeaudit.model import Finding, Span
from citeaudit.normalize import (
    DASH_CHARS,
    INVISIBLE_CHARS,
    QUOTE_CHARS,
    NormalizedText,
    normalize,
    normalize_with_map,
)

__all__ = ["Snapshot", "check_quote", "quote_differences"]

MAX_LISTED_OCCURRENCES = 20


@dataclass(slots=True)
class Snapshot:
    """A source text; its normal form is computed once, and only if needed."""

    text: str
    _normalized: NormalizedText | None = field(default=None, repr=False)

    @property
    def normalized(self) -> NormalizedText:
        if self._normalized is None:
            self._normalized = normalize_with_map(self.text)
        return self._normalized


_DROP = str.maketrans("", "", QUOTE_CHARS + INVISIBLE_CHARS)
_DASH = re.compile(f"[{DASH_CHARS}]")

# Each difference normalisation can hide, and how to undo only that one.
_STEPS: tuple[tuple[str, object], ...] = (
    ("unicode forms", lambda t: unicodedata.normalize("NFKC", t)),
    ("letter case", str.casefold),
    ("dashes", lambda t: _DASH.sub("-", t)),
    ("quotation marks", lambda t: t.translate(_DROP)),
    ("whitespace", lambda t: " ".join(t.split())),
)


def _apply(text: str, skip: str | None) -> str:
    for name, step in _STEPS:
        if name != skip:
            text = step(text)  # type: ignore[operator]
    return text


def quote_differences(source: str, quote: str) -> list[str]:
    """Which normalisations the match needed (those it cannot do without)."""
    return [name for name, _ in _STEPS if _apply(source, name) != _apply(quote, name)]


def _occurrences(text: str, needle: str) -> list[int]:
    found: list[int] = []
    at = text.find(needle)
    while at != -1 and len(found) < MAX_LISTED_OCCURRENCES:
        found.append(at)
        at = text.find(needle, at + 1)
    return found


def _whole_words(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen a span so it neither starts nor ends inside a word."""
    while start > 0 and text[start - 1].isalnum():
        start -= 1
    while end < len(text) and text[end].isalnum():
        end += 1
    return start, end


def _repeated(make: FindingMaker, spans: list[Span], total: int) -> list[Finding]:
    if total < 2:
        return []
    return [
        make(
            "I_QUOTE_REPEATED",
            f"the quote occurs {total} times in the snapshot; the first is reported",
            suggestion={"occurrences": [s.to_json() for s in spans], "count": total},
        )
    ]


def check_quote(
    quote: str | None, snapshot: Snapshot | None, min_length: int, make: FindingMaker
) -> tuple[list[Finding], Span | None]:
    """Findings, and the span of the quote in the snapshot when it was found."""
    if quote is None:
        return [make("I_QUOTE_ABSENT", "the citation gives no quote; no passage was verified")], None
    needle = normalize(quote)
    if len(needle) < min_length:
        return [
            make(
                "E_QUOTE_TOO_SHORT",
                f"the quote has {len(needle)} characters after normalisation; "
                f"at least {min_length} are needed",
            )
        ], None
    if snapshot is None:
        return [make("E_NO_SNAPSHOT", "no text snapshot of the cited work to search the quote in")], None

    text = snapshot.text
    at = text.find(quote)
    if at != -1:
        span = Span(at, at + len(quote))
        total = text.count(quote)
        spans = [Span(a, a + len(quote)) for a in _occurrences(text, quote)]
        return _repeated(make, spans, total), span

    norm = snapshot.normalized
    starts = _occurrences(norm.text, needle)
    if starts:
        spans = [Span(*norm.original_span(a, a + len(needle))) for a in starts]
        span = spans[0]
        differences = quote_differences(text[span.start : span.end], quote)
        findings = [
            make(
                "I_QUOTE_NORMALIZED",
                "the quote matches only after normalisation: " + ", ".join(differences or ["unicode forms"]),
                location=span,
                suggestion={"differences": differences, "source_text": text[span.start : span.end]},
            )
        ]
        return findings + _repeated(make, spans, norm.text.count(needle)), span

    suggestion = None
    best = fuzz.partial_ratio_alignment(needle, norm.text)
    if best is not None and best.dest_end > best.dest_start:
        start, end = _whole_words(text, *norm.original_span(best.dest_start, best.dest_end))
        suggestion = {
            "closest": text[start:end],
            "similarity": round(best.score / 100, 3),
            "span": {"start": start, "end": end},
        }
    return [
        make(
            "E_QUOTE_NOT_FOUND",
            "the quote does not occur in the snapshot, even after normalisation",
            suggestion=suggestion,
        )
    ], None
