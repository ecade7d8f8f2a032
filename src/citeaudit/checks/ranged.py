"""Citations by ``[start, end)`` range over a pinned text (seeds 002 and 003).

Exact first: the verdict is ``text[start:end] == quote``. The normalised
comparison is only a diagnostic: it never makes a citation pass, but it says
where the quote really is and what differs.
"""

from __future__ import annotations

from typing import Any

from rapidfuzz import fuzz

from citeaudit.checks.codes import FindingMaker
from citeaudit.checks.metadata import check_controls
from citeaudit.checks.quote import quote_differences
from citeaudit.locate import Closest, SourceText
from citeaudit.model import Citation, Finding, Span
from citeaudit.normalize import normalize

__all__ = ["check_range", "locate_suggestion", "range_problem"]

MAX_LISTED = 20
NEARLY_THE_QUOTE = 0.9  # similarity of the cited range's text above which it is the closest passage


def range_problem(start: Any, end: Any, length: int) -> str | None:
    """Why ``[start, end)`` is not a range of a text of ``length``, or None."""
    if type(start) is int and type(end) is int and 0 <= start < end <= length:
        return None  # the usual case, decided without the checks that word the problem
    for name, value in (("start", start), ("end", end)):
        if isinstance(value, bool) or not isinstance(value, int):
            return f"{name} must be an integer, got {value!r}"
    if start < 0:
        return f"start {start} is negative"
    if end <= start:
        return f"[{start}, {end}) is empty"
    if end > length:
        return f"end {end} is past the end of the text ({length} characters)"
    return None


def locate_suggestion(text: SourceText, quote: str, cited: Span | None = None) -> dict[str, Any] | None:
    """Where the quote really is: its exact occurrence(s), else a normalised
    one with the differences, else the closest passage. A ``cited`` range
    that holds nearly the quote (a typo in it) is that passage: no search. An empty quote (or one of
    spaces) is nowhere: it would "occur" at every position of the text."""
    if not quote.strip():
        return None
    spans, total = text.find_exact(quote, MAX_LISTED)
    if total == 1:
        return {"start": spans[0].start, "end": spans[0].end}
    if total > 1:
        return {"count": total, "occurrences": [s.to_json() for s in spans]}
    needle = normalize(quote)
    if not needle:
        return None
    spans, total = text.find_normalized(needle, MAX_LISTED)
    if spans:
        found = text.text[spans[0].start : spans[0].end]
        out: dict[str, Any] = {
            "differences": quote_differences(found, quote) or ["unicode forms"],
            "normalized_match": True,
            "source_text": found,
        }
        if total == 1:
            out |= {"start": spans[0].start, "end": spans[0].end}
        else:
            out |= {"count": total, "occurrences": [s.to_json() for s in spans]}
        return out
    closest = _cited_if_near(text, needle, cited) or text.closest(needle)
    if closest is None:
        return None
    return {
        "closest": text.text[closest.span.start : closest.span.end],
        "similarity": closest.similarity,
        "span": closest.span.to_json(),
    }


def _cited_if_near(text: SourceText, needle: str, cited: Span | None) -> Closest | None:
    if cited is None:
        return None
    similarity = round(fuzz.ratio(needle, normalize(text.text[cited.start : cited.end])) / 100, 3)
    return Closest(cited, similarity) if similarity >= NEARLY_THE_QUOTE else None


def _where(suggestion: dict[str, Any] | None, quote: str) -> str:
    if not quote.strip():
        return "the quote is empty" if not quote else "the quote is only spaces"
    if not suggestion or not ("start" in suggestion or "count" in suggestion):
        return "the quote does not occur in the text"
    kind = "after normalisation" if suggestion.get("normalized_match") else "verbatim"
    if "start" in suggestion:
        return f"the quote occurs {kind} at [{suggestion['start']}, {suggestion['end']})"
    return f"the quote occurs {kind} {suggestion['count']} times"


def check_range(
    citation: Citation, text: SourceText, make: FindingMaker
) -> tuple[list[Finding], Span | None]:
    """Range validity, then the exact comparison; a suggestion when they fail. Display controls
    in the quote are a finding of their own beside them."""
    findings, span = _check_range(citation, text, make)
    return check_controls("quote", citation.quote or "", make) + findings, span


def _check_range(
    citation: Citation, text: SourceText, make: FindingMaker
) -> tuple[list[Finding], Span | None]:
    quote = citation.quote or ""
    problem = range_problem(citation.start, citation.end, len(text.text))
    if problem is not None:
        suggestion = locate_suggestion(text, quote)
        return [
            make("E_RANGE_INVALID", f"{problem}; {_where(suggestion, quote)}", suggestion=suggestion)
        ], None
    start, end = citation.start, citation.end
    held = text.text[start:end]
    if held == quote:
        return [], Span(start, end)
    suggestion = locate_suggestion(text, quote, Span(start, end)) or {}
    suggestion["expected"] = held
    return [
        make(
            "E_QUOTE_MISMATCH",
            f"the text at [{start}, {end}) is not the quote; {_where(suggestion, quote)}",
            suggestion=suggestion,
        )
    ], None
