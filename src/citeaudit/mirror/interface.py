"""The mirror's two interfaces: what an importer yields for each unit of a dump, and the store
that keeps the records, the import progress of every dump file, and the full-text index.

A dump is read in *units* (a DBLP record element, a Crossref item, a JSON line); the store
commits the records of a batch of units together with the number of units consumed, so an
import killed at any moment resumes exactly where its last commit ended.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import BinaryIO, Protocol

from citeaudit.errors import CiteauditError
from citeaudit.resolve.interface import Record

__all__ = [
    "FORMATS",
    "PASSED",
    "DumpFile",
    "Importer",
    "Keep",
    "MirrorError",
    "MirrorRecord",
    "MirrorStore",
    "Passed",
    "Row",
    "RowUnit",
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

#: A record as the store writes it: ``(key, title_hash, norm, names, year, data, words, date)``
#: (``citeaudit.mirror.rows`` builds and reads them).
Row = tuple[str, int, str, str, int | None, bytes, str, str]


@dataclass(frozen=True, slots=True)
class Passed:
    """A unit read past without being normalised: another reader process builds its row."""


PASSED = Passed()
RowUnit = Row | Skip | Passed
#: Which units of a file (numbered from 0 after those skipped) a reader builds the rows of.
Keep = Callable[[int], bool]


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
    """One dump format: which files a path names, and the units of one file, as normalised
    records or as the rows the store writes (``citeaudit.mirror.rows``)."""

    def files(self, path: str) -> Sequence[DumpFile]: ...

    def units(self, dump: DumpFile, skip: int, max_record_bytes: int) -> Iterator[Unit]:
        """Every unit of the file after the first ``skip`` (those are read, not normalised), in order."""
        ...

    def rows(
        self, dump: DumpFile, skip: int, max_record_bytes: int, keep: Keep | None = None
    ) -> Iterator[RowUnit]:
        """:meth:`units` as rows (what an import writes); a unit that ``keep`` leaves out is
        :data:`PASSED` (read, so that the units after it are found, but not normalised)."""
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
    def write(
        self,
        state: SourceState,
        rows: Sequence[Row],
        units: int,
        skipped: Mapping[str, int],
        date: str,
    ) -> SourceState:
        """Write a batch of records (new ones added, those of a key already there replaced) and
        the file's progress after it, together (all or nothing), in the current transaction."""

    @abstractmethod
    def commit(self) -> None:
        """Make what was written since the last commit durable, at once."""

    @abstractmethod
    def rollback(self) -> None:
        """Drop what was written since the last commit."""

    @abstractmethod
    def finish(self, state: SourceState) -> SourceState:
        """Mark a file imported to its end (in the current transaction)."""

    @abstractmethod
    def build(self) -> None:
        """Make the index ready for look-ups once every file of an import is written (a store
        answers no look-up between its first write and the end of this)."""

    @abstractmethod
    def sources(self) -> list[SourceState]:
        """Every file whose import started, by format and name."""

    @abstractmethod
    def counts(self) -> dict[str, int]:
        """Records by format."""

    @abstractmethod
    def close(self) -> None: ...
