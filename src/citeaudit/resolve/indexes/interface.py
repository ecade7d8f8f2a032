"""One interface for every bibliographic index a reference without an identifier is looked up in:
the local mirrors of the public dumps (``citeaudit.mirror``) and the online indexes (Crossref,
DBLP, arXiv, OpenAlex: the modules beside this one).

An index answers a :class:`WorkQuery` with :class:`Candidate` records, or says it could not be
asked. It never decides which candidate is the work: that is one deterministic rule over the
candidates (``checks/matching.py``), so that the answer pinned today gives the same verdict
tomorrow, offline, whatever the rule's next version is.
"""

from __future__ import annotations

import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from citeaudit.resolve.interface import Record

__all__ = ["Candidate", "IndexAnswer", "SearchIndex", "WorkQuery", "query_words", "surname"]


def query_words(text: str) -> list[str]:
    """The words of a title or a name, case-folded and without accents or punctuation: what a
    query is normalised to and what a full-text index is searched by."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    cleaned = "".join(ch if ch.isalnum() else " " for ch in plain)
    return cleaned.split()


_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv", "v"})


def surname(name: str) -> str:
    """The family name of a name as cited, folded: ``Smith, A.``, ``A. Smith``, ``John Smith Jr.``
    and ``Smith, Jr., John`` are all ``smith`` (the key of a query, not a name check: that is
    ``checks/metadata.py``'s)."""
    head, comma, _ = name.partition(",")
    words = query_words(head if comma and head.strip() else name)
    while len(words) > 1 and words[-1] in _SUFFIXES:
        words.pop()
    full = [w for w in words if len(w) > 1]  # initials are no surname
    return (full or words or [""])[-1]


@dataclass(frozen=True, slots=True)
class WorkQuery:
    """A reference as cited, reduced to what an index is searched by."""

    title: str
    first_author: str | None = None  # a surname or a full name, as cited
    year: int | None = None

    @property
    def key(self) -> str:
        """The normalised query: what its answers are pinned under, with the index's name.
        Two spellings of one reference (case, accents, punctuation) are one query."""
        # A title of symbols alone ("→") is still a title: kept as written, less the separator.
        title = " ".join(query_words(self.title)) or " ".join(self.title.casefold().replace("|", " ").split())
        parts = [title, surname(self.first_author or ""), str(self.year or "")]
        return "|".join(parts)


@dataclass(frozen=True, slots=True)
class Candidate:
    """One record an index answered a query with."""

    index: str  # the index that answered: "crossref", "dblp", "arxiv", "openalex", "mirror:dblp"…
    key: str  # the record's own key there: a DBLP key, a DOI, an OpenAlex id, an arXiv id
    record: Record  # its metadata, normalised; ``record.doi`` is "" when the index knows no DOI
    arxiv: str | None = None  # the arXiv id the index gives the work, if any

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"index": self.index, "key": self.key, "record": self.record.to_json()}
        if self.arxiv is not None:
            out["arxiv"] = self.arxiv
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Candidate:
        return cls(str(data["index"]), str(data["key"]), Record.from_json(data["record"]), data.get("arxiv"))


@dataclass(frozen=True, slots=True)
class IndexAnswer:
    """What one index said to one query: its candidates, best first as the index ranks them, or
    why it could not be asked (``code`` and ``reason``; such an answer is never pinned)."""

    index: str
    candidates: tuple[Candidate, ...] = ()
    code: str = ""  # set when the index could not be asked: E_NOT_CACHED, E_REGISTRY_UNAVAILABLE…
    reason: str = ""

    @property
    def answered(self) -> bool:
        return not self.code

    @classmethod
    def unavailable(cls, index: str, code: str, reason: str) -> IndexAnswer:
        return cls(index, (), code, reason)


class SearchIndex(ABC):
    """An index of bibliographic records, searched by title (and first author and year)."""

    #: The index's name in candidates, pins and reports ("mirror:dblp", "crossref"…).
    name: str

    def described(self) -> dict[str, Any]:
        """What the report's settings say of this index: its name (a mirror adds its file)."""
        return {"index": self.name}

    @abstractmethod
    def search_many(self, queries: Sequence[WorkQuery], limit: int = 10) -> dict[str, IndexAnswer]:
        """One answer per query, keyed by :attr:`WorkQuery.key`, each with at most ``limit``
        candidates. Never raises for a query it cannot answer: the answer says why."""
