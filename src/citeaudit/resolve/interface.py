"""What every resolver returns: one normalised :class:`Record` per work,
whatever registry it came from, wrapped in a :class:`Resolution` that keeps
the three outcomes apart (found / not registered / could not check).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

__all__ = ["Author", "NoRegistry", "Record", "Relation", "Resolution", "ResolutionStatus", "Resolver"]


@dataclass(frozen=True, slots=True)
class Author:
    family: str | None = None
    given: str | None = None
    name: str | None = None  # an organisation, or a person given as one string
    sequence: str | None = None  # Crossref's "first" / "additional"

    def to_json(self) -> dict[str, str]:
        out = {"family": self.family, "given": self.given, "name": self.name, "sequence": self.sequence}
        return {k: v for k, v in out.items() if v is not None}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Author:
        return cls(data.get("family"), data.get("given"), data.get("name"), data.get("sequence"))


@dataclass(frozen=True, slots=True)
class Relation:
    """An update or relation of the work: ``updated-by`` a correction, ``is-preprint-of`` …"""

    relation: str  # "updated-by", "update-to", "is-preprint-of", "has-preprint", …
    type: str | None  # for updates: "correction", "retraction", "new_version", …
    doi: str | None

    def to_json(self) -> dict[str, str]:
        out = {"relation": self.relation, "type": self.type, "doi": self.doi}
        return {k: v for k, v in out.items() if v is not None}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Relation:
        return cls(data["relation"], data.get("type"), data.get("doi"))


@dataclass(frozen=True, slots=True)
class Record:
    """A work's metadata, normalised across registries."""

    doi: str
    agency: str  # "crossref", "datacite", … or "seed-cache" for the seed's cache files
    titles: tuple[str, ...] = ()
    subtitles: tuple[str, ...] = ()
    years: tuple[tuple[str, int], ...] = ()  # ("issued", 2016), ("published-print", 2016), …
    authors: tuple[Author, ...] = ()
    type: str | None = None
    container: tuple[str, ...] = ()
    relations: tuple[Relation, ...] = field(default=())
    short_container: tuple[str, ...] = ()
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    article_number: str | None = None
    # The work's abstract as plain text, where the registry or index gives one: a text the
    # semantic stage may judge a quote-less citation against (basis ``abstract``).
    abstract: str | None = None
    # Where the registry says the work's full text is, for text mining (Crossref's ``link`` entries,
    # arXiv's PDF): fetched and pinned only when the operator asks for it (``fetch --full-text``).
    full_text_urls: tuple[str, ...] = ()

    @property
    def year_values(self) -> tuple[int, ...]:
        return tuple(sorted({y for _, y in self.years}))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "agency": self.agency,
            "authors": [a.to_json() for a in self.authors],
            "container": list(self.container),
            "doi": self.doi,
            "relations": [r.to_json() for r in self.relations],
            "short_container": list(self.short_container),
            "volume": self.volume,
            "issue": self.issue,
            "pages": self.pages,
            "article_number": self.article_number,
            "subtitles": list(self.subtitles),
            "titles": list(self.titles),
            "type": self.type,
            "years": dict(self.years),
        }
        if self.abstract is not None:  # absent, not null: entries of records without one keep their bytes
            out["abstract"] = self.abstract
        if self.full_text_urls:
            out["full_text_urls"] = list(self.full_text_urls)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Record:
        return cls(
            doi=data["doi"],
            agency=data["agency"],
            titles=tuple(data.get("titles", ())),
            subtitles=tuple(data.get("subtitles", ())),
            years=tuple(sorted((str(k), int(v)) for k, v in data.get("years", {}).items())),
            authors=tuple(Author.from_json(a) for a in data.get("authors", ())),
            type=data.get("type"),
            container=tuple(data.get("container", ())),
            relations=tuple(Relation.from_json(r) for r in data.get("relations", ())),
            short_container=tuple(data.get("short_container", ())),
            volume=data.get("volume"),
            issue=data.get("issue"),
            pages=data.get("pages"),
            article_number=data.get("article_number"),
            abstract=data.get("abstract") if isinstance(data.get("abstract"), str) else None,
            full_text_urls=tuple(u for u in data.get("full_text_urls", ()) if isinstance(u, str)),
        )


class ResolutionStatus(StrEnum):
    FOUND = "found"
    NOT_FOUND = "not_found"  # a final answer: cached like a record
    UNAVAILABLE = "unavailable"  # offline miss, unreachable, corrupt entry: never cached


@dataclass(frozen=True, slots=True)
class Resolution:
    status: ResolutionStatus
    record: Record | None = None
    reason: str = ""  # why it is unavailable, for the report
    code: str = ""  # the finding code for an unavailable answer (E_NOT_CACHED, E_CACHE_CORRUPT…)
    agency: str = ""  # who said "not registered"

    @classmethod
    def found(cls, record: Record) -> Resolution:
        return cls(ResolutionStatus.FOUND, record)

    @classmethod
    def not_found(cls, agency: str = "") -> Resolution:
        return cls(ResolutionStatus.NOT_FOUND, agency=agency)

    @classmethod
    def unavailable(cls, code: str, reason: str) -> Resolution:
        return cls(ResolutionStatus.UNAVAILABLE, reason=reason, code=code)


class Resolver(ABC):
    """Looks DOIs up. Implementations never raise for a DOI they cannot
    resolve; they return an unavailable :class:`Resolution` with the reason."""

    @abstractmethod
    def resolve_many(self, dois: list[str]) -> dict[str, Resolution]:
        """Resolve normalised DOIs; the answer has one entry per DOI."""


class NoRegistry(Resolver):
    """The upstream of a build without network resolvers: every miss is
    "could not check", with that reason, and nothing is cached."""

    def resolve_many(self, dois: list[str]) -> dict[str, Resolution]:
        reason = (
            "not in the cache, and this build cannot look DOIs up online: run `citeaudit fetch` on this "
            "input with a build that can (same --cache) to pin the registry's answer"
        )
        return {doi: Resolution.unavailable("E_NOT_CACHED", reason) for doi in dois}
