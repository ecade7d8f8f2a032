"""The words of a claim a judge found unsupported, as every format shows them:
``[start, end)`` character ranges of the claim's text (``verdict.unsupported_spans``)."""

from __future__ import annotations

from typing import Any

__all__ = ["claim_pieces", "spans_of", "unsupported_summary"]


def spans_of(claim: dict[str, Any]) -> list[tuple[int, int]]:
    """The verdict's ranges that lie inside the claim text, in order."""
    verdict = claim.get("verdict") or {}
    text = claim.get("text") or ""
    spans = verdict.get("unsupported_spans") or []
    return sorted((s, e) for s, e in spans if 0 <= s < e <= len(text))


def claim_pieces(claim: dict[str, Any]) -> list[tuple[str, bool]]:
    """The claim text cut into ``(piece, unsupported)`` runs."""
    text = claim.get("text") or ""
    pieces: list[tuple[str, bool]] = []
    at = 0
    for start, end in spans_of(claim):
        if start < at:
            continue
        if start > at:
            pieces.append((text[at:start], False))
        pieces.append((text[start:end], True))
        at = end
    if at < len(text):
        pieces.append((text[at:], False))
    return pieces


def unsupported_summary(claim: dict[str, Any]) -> str:
    """``'word' [3, 7); 'other words' [12, 23)`` (empty when there are none)."""
    text = claim.get("text") or ""
    return "; ".join(f"{text[s:e]!r} [{s}, {e})" for s, e in spans_of(claim))
