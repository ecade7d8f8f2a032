"""Where the text of a cited work comes from."""

from __future__ import annotations

from abc import ABC, abstractmethod

__all__ = ["SnapshotStore", "normalize_newlines"]


def normalize_newlines(text: str) -> str:
    """CRLF and CR become LF: offsets are defined over this text (seeds 002, 003)."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


class SnapshotStore(ABC):
    """Pinned texts of works cited by identifier."""

    @abstractmethod
    def text_for_doi(self, doi: str) -> str | None:
        """The snapshot text of a normalised DOI, or None when there is none."""
