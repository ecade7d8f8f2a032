"""The mirror's two interfaces: what an importer yields for each unit of a dump, and the store
that keeps the records, the import progress of every dump file, and the full-text index.

A dump is read in *units* (a DBLP record element, a Crossref item, a JSON line); the store
commits the records of a batch of units together with the number of units consumed, so an
import killed at any moment resumes exactly where its last commit ended.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import BinaryIO, Protocol

from citeaudit.errors import CiteauditError
from citeaudit.resolve.interface import Record

__all__ = [
    "FORMATS",
    "DumpFile",
    "Importer",
    "MirrorError",
    "MirrorRecord",
    "MirrorStore",
    "Skip",
    "SourceState",
    "Unit",
]

#: The dump formats a mirror imports, in the order ``mirror info`` lists them.
FORMATS = ("dblp", "crossref", "openalex", "arxiv")


class MirrorError(CiteauditError):
    """A dump cannot be read (truncated, invalid, too large a record), or a mirror cannot be opened."""


@dataclass(frozen=True, slots=True)
class MirrorRecord:
    """One work of a dump, normalised."""

    format: str  # "dblp", "crossref", "openalex", "arxiv"
    key: str  # its key in the dump: a DBLP key, a DOI, an OpenAlex id, an arXiv id
    record: Record
    arxiv: str | None = None  # the arXiv id the dump gives the work, if any
    date: str = (
        ""  # the record's own date (YYYY-MM-DD) where the dump gives one: the dump is at least that new
    )


@dataclass(frozen=True, slots=True)
class Skip:
    """A unit of a dump that is not imported, and why (counted, shown by ``mirror info``)."""

    reason: str


Unit = MirrorRecord | Skip


@dataclass(frozen=True, slots=True)
class DumpFile:
    """One file of a dump (or one member of a tar archive): what its progress is kept under."""

    name: str  # the absolute path, or "archive.tar:member"
    size: int
    mtime: int
    opener: OpenDump = field(compare=False, repr=False)

    def open(self) -> BinaryIO:
        return self.opener()


class OpenDump(Protocol):
    def __call__(self) -> BinaryIO: ...


class Importer(Protocol):
    """One dump format: which files a path names, and the units of one file."""

    def files(self, path: str) -> Sequence[DumpFile]: ...

    def units(self, dump: DumpFile, skip: int, max_record_bytes: int) -> Iterator[Unit]:
        """Every unit of the file after the first ``skip`` (read, not normalised), in order."""
        ...


@dataclass(frozen=True, slots=True)
class SourceState:
    """Where the import of one dump file stands."""

    format: str
    name: str
    size: int
    mtime: int
    complete: bool
    units: int  # units consumed and committed
    imported: int  # of them, records written
    skipped: Mapping[str, int]  # of them, skipped, by reason
    dump_date: str  # the newest record date seen ("" if the dump gives none)
    generation: int = 0


class MirrorStore(ABC):
    """Where a mirror keeps its records: the embedded default is SQLite with FTS5
    (:mod:`citeaudit.mirror.sqlite`); a shared service may put another store behind this."""

    @abstractmethod
    def source(self, fmt: str, name: str) -> SourceState | None:
        """The progress of one dump file, if its import ever started."""

    @abstractmethod
    def start(self, fmt: str, dump: DumpFile) -> SourceState:
        """Begin (or restart from nothing) the import of a file."""

    @abstractmethod
    def commit(
        self,
        state: SourceState,
        records: Sequence[MirrorRecord],
        units: int,
        skipped: Mapping[str, int],
        date: str,
    ) -> SourceState:
        """Write a batch of records and the progress after it in one transaction."""

    @abstractmethod
    def finish(self, state: SourceState) -> SourceState:
        """Mark a file imported to its end."""

    @abstractmethod
    def sources(self) -> list[SourceState]:
        """Every file whose import started, by format and name."""

    @abstractmethod
    def counts(self) -> dict[str, int]:
        """Records by format."""

    @abstractmethod
    def close(self) -> None: ...
