"""Basis ``full_text``: the work's snapshot (by identifier), a corpus document, a store revision."""

from __future__ import annotations

from citeaudit.sources.cited.interface import Basis, CitedText
from citeaudit.sources.interface import Pin

__all__ = ["document_text", "pinned_full_text", "revision_text", "snapshot_text"]


def snapshot_text(key: str, text: str) -> CitedText | None:
    """The pinned snapshot of the work ``key`` (a DOI, an arXiv DOI)."""
    return CitedText(Basis.FULL_TEXT, f"snapshot of {key}", text) if text.strip() else None


def document_text(document_id: str, version: str, text: str) -> CitedText | None:
    """Version ``version`` of corpus document ``document_id``."""
    name = f"corpus document {document_id} version {version}"
    return CitedText(Basis.FULL_TEXT, name, text) if text.strip() else None


def revision_text(source_id: str, revision: int, text: str) -> CitedText | None:
    """Revision ``revision`` of evidence-store source ``source_id``."""
    name = f"store source {source_id} revision {revision}"
    return CitedText(Basis.FULL_TEXT, name, text) if text.strip() else None


def pinned_full_text(pin: Pin) -> CitedText | None:
    """The open full text a work's record names (its arXiv PDF, a text-mining link), fetched with
    ``--full-text`` and pinned like a web page; None for one not found or with no text."""
    if not pin.found or not pin.text or not pin.text.strip():
        return None
    return CitedText(Basis.FULL_TEXT, f"full text at {pin.url} as pinned {pin.fetched_at}", pin.text)
