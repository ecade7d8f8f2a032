"""Where the text of a cited work comes from."""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Pin",
    "PinAnswer",
    "PinStore",
    "Revision",
    "SnapshotStore",
    "SourceLookup",
    "StoredSource",
    "digest_text",
    "normalize_newlines",
]


def digest_text(text: str) -> str:
    """SHA-256 of the UTF-8 text: the content digest of a source revision."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


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


@dataclass(frozen=True, slots=True)
class Pin:
    """A web page as it was when it was fetched: a final answer (200 with its text, or 404/410),
    with what proves which page it was (``sources/pins.py`` keeps it on disk)."""

    url: str  # the normal URL it is pinned under (the citation's key)
    requested_url: str  # what was requested (the same, unless pinned by hand from another spelling)
    final_url: str  # after the redirects
    status: int
    content_type: str
    body_sha256: str
    fetched_at: str  # UTC, ISO 8601, to the second
    text: str | None = None  # the extracted text; None for a page not found
    text_sha256: str | None = None
    title: str | None = None  # citation_title, else og:title, else <title>
    titles: tuple[str, ...] = ()  # every title the page gives
    citation_doi: str | None = None
    redirects: tuple[dict[str, Any], ...] = ()
    extractor: dict[str, str] = field(default_factory=dict)  # library → version

    @property
    def found(self) -> bool:
        return self.status == 200

    def summary(self) -> dict[str, Any]:
        """What a report shows of the pin: which page, when, and the digests that prove which text."""
        return {
            "body_sha256": self.body_sha256,
            "citation_doi": self.citation_doi,
            "content_type": self.content_type,
            "fetched_at": self.fetched_at,
            "final_url": self.final_url,
            "redirects": len(self.redirects),
            "status": self.status,
            "text_sha256": self.text_sha256,
            "title": self.title,
            "url": self.url,
        }


@dataclass(frozen=True, slots=True)
class PinAnswer:
    """The pin of a page, or why there is none (a could-not-check finding code and its reason)."""

    pin: Pin | None
    code: str = ""
    reason: str = ""


class PinStore(ABC):
    """Pinned web pages, by normal URL."""

    @abstractmethod
    def lookup_many(self, urls: list[str]) -> dict[str, PinAnswer]:
        """One answer per URL; never raises for a page it has no pin of."""


@dataclass(frozen=True, slots=True)
class Revision:
    """One revision of an evidence-store source."""

    source_id: str
    revision: int
    digest: str
    entered_at: str
    size: int
    text: str | None = None  # loaded only when asked for

    def ref(self) -> dict[str, Any]:
        return {"source_id": self.source_id, "revision": self.revision, "digest": self.digest}


@dataclass(frozen=True, slots=True)
class StoredSource:
    """A registered source and its current revision (None once removed)."""

    source_id: str
    title: str
    locator: str
    kind: str
    revisions: int  # the counter: how many revisions it has ever had
    current: Revision | None
    filename: str | None = None  # the host's mapping for document servers

    def to_json(self) -> dict[str, Any]:
        current = self.current
        return {
            "current": None
            if current is None
            else {"digest": current.digest, "entered_at": current.entered_at, "revision": current.revision,
                  "size": current.size},
            "filename": self.filename,
            "kind": self.kind,
            "locator": self.locator,
            "revisions": self.revisions,
            "source_id": self.source_id,
            "title": self.title,
        }  # fmt: skip


class SourceLookup(ABC):
    """Read-only access to one scope of an evidence store, for the audit."""

    @abstractmethod
    def fetch(self, source_ids: Iterable[str]) -> dict[str, StoredSource]:
        """The registered sources among ``source_ids``, with current text."""
