"""The quote in the pinned snapshot: raw match first, then the normalised
match, and the span always in the original snapshot text.

A quote that is not found gets the closest passage of the snapshot as a
diagnostic; it never passes.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from citeaudit.checks.codes import FindingMaker
from citeaudit.checks.metadata import check_controls
from citeaudit.locate import SourceText
from citeaudit.model import Finding, Span
from citeaudit.normalize import DASH_CHARS, INVISIBLE_CHARS, QUOTE_CHARS, normalize, show_controls

__all__ = ["check_quote", "no_snapshot_message", "quote_differences"]

MAX_LISTED_OCCURRENCES = 20

_DROP = str.maketrans("", "", QUOTE_CHARS + INVISIBLE_CHARS)
_DASH = re.compile(f"[{DASH_CHARS}]")

# Each difference normalisation can hide, and how to apply only that one.
_STEPS: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("unicode forms", lambda t: unicodedata.normalize("NFKC", t)),
    ("letter case", str.casefold),
    ("dashes", lambda t: _DASH.sub("-", t)),
    ("quotation marks", lambda t: t.translate(_DROP)),
    ("whitespace", lambda t: " ".join(t.split())),
)


def _without_each_step(text: str) -> list[str]:
    """``text`` normalised with every step but one, for each step in turn. The steps before the
    one left out are shared: computed once, not once per step."""
    out = []
    done = text  # every step before the one left out, applied
    for k, (_, step) in enumerate(_STEPS):
        rest = done
        for _, later in _STEPS[k + 1 :]:
            rest = later(rest)
        out.append(rest)
        done = step(done)
    return out


def quote_differences(source: str, quote: str) -> list[str]:
    """Which normalisations the match needed (those it cannot do without)."""
    pairs = zip(_STEPS, _without_each_step(source), _without_each_step(quote), strict=True)
    return [name for (name, _), a, b in pairs if a != b]


def _repeated(make: FindingMaker, spans: list[Span], total: int) -> list[Finding]:
    if total < 2:
        return []
    return [
        make(
            "I_QUOTE_REPEATED",
            f"the quote occurs {total} times in the snapshot; the first is reported",
            suggestion={"count": total, "occurrences": [s.to_json() for s in spans]},
        )
    ]


def check_quote(
    quote: str | None,
    snapshot: SourceText | None,
    min_length: int,
    make: FindingMaker,
    *,
    doi: str | None = None,
) -> tuple[list[Finding], Span | None]:
    """Findings, and the span of the quote in the snapshot when it was found; display controls
    in the quote are a finding of their own beside them. ``doi``: the DOI a missing snapshot
    would be kept by, for the command that adds it ("": the work has none; None: not known)."""
    findings, span = _check_quote(quote, snapshot, min_length, make, doi)
    return (check_controls("quote", quote, make) + findings if quote else findings), span


def no_snapshot_message(doi: str | None) -> str:
    """What ``E_NO_SNAPSHOT`` says: what is missing and the command that adds it. Snapshots are
    kept by DOI: ``doi`` is the work's ("" when it has none, None when it is not known)."""
    missing = "no text snapshot of the cited work to search the quote in"
    if doi == "":
        return f"{missing}: its record has no DOI, and snapshots are kept by DOI"
    return (
        f"{missing}: add the work's text (a PDF, HTML or text file) with "
        f"`citeaudit snapshot FILE --doi {show_controls(doi) if doi else 'DOI'}`"
    )


def _check_quote(
    quote: str | None, snapshot: SourceText | None, min_length: int, make: FindingMaker, doi: str | None
) -> tuple[list[Finding], Span | None]:
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
        return [make("E_NO_SNAPSHOT", no_snapshot_message(doi))], None

    spans, total = snapshot.find_exact(quote, MAX_LISTED_OCCURRENCES)
    if spans:
        return _repeated(make, spans, total), spans[0]

    spans, total = snapshot.find_normalized(needle, MAX_LISTED_OCCURRENCES)
    if spans:
        span = spans[0]
        source_text = snapshot.text[span.start : span.end]
        differences = quote_differences(source_text, quote) or ["unicode forms"]
        findings = [
            make(
                "I_QUOTE_NORMALIZED",
                "the quote matches only after normalisation: " + ", ".join(differences),
                location=span,
                suggestion={"differences": differences, "source_text": source_text},
            )
        ]
        return findings + _repeated(make, spans, total), span

    closest = snapshot.closest(needle)
    suggestion = None
    if closest is not None:
        suggestion = {
            "closest": snapshot.text[closest.span.start : closest.span.end],
            "similarity": closest.similarity,
            "span": closest.span.to_json(),
        }
    return [
        make(
            "E_QUOTE_NOT_FOUND",
            "the quote does not occur in the snapshot, even after normalisation",
            suggestion=suggestion,
        )
    ], None
