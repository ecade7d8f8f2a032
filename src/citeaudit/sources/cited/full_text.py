"""Basis ``full_text``: the work's snapshot (by identifier), a corpus document, a store revision."""

from __future__ import annotations

from citeaudit.sources.cited.interface import Basis, CitedText

__all__ = ["document_text", "revision_text", "snapshot_text"]


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
