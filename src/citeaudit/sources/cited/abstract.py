"""Basis ``abstract``: the abstract a registry or an index gave with the work's record."""

from __future__ import annotations

from citeaudit.resolve.interface import Record
from citeaudit.sources.cited.interface import Basis, CitedText

__all__ = ["abstract_of"]


def abstract_of(record: Record, where: str = "") -> CitedText | None:
    """The record's abstract, named by who gave it (``where``: the index that found it by
    search, else the record's agency); None when the record has none."""
    if not record.abstract or not record.abstract.strip():
        return None
    work = record.doi or "the work"
    return CitedText(
        Basis.ABSTRACT, f"abstract in the {where or record.agency} record of {work}", record.abstract
    )
