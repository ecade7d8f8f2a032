"""The import driver: every file of a dump into the store, in batches, each committed with the
progress it makes, so that an import killed at any moment (kill -9 included) resumes where its
last batch ended: nothing lost, nothing twice (records are upserted by format and key, and the
units of a file already committed are skipped, not read again as new)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path

from citeaudit.mirror.interface import (
    FORMATS,
    DumpFile,
    Importer,
    MirrorError,
    MirrorRecord,
    MirrorStore,
    Skip,
)
from citeaudit.mirror.reading import DEFAULT_MAX_RECORD_BYTES

__all__ = ["DEFAULT_BATCH", "FileReport", "ImportReport", "import_dump", "importer"]

#: Units per transaction: big enough that commits cost little, small enough that a kill loses little.
DEFAULT_BATCH = 5000


def importer(fmt: str) -> Importer:
    """The importer module of a dump format."""
    if fmt not in FORMATS:
        raise MirrorError(f"unknown dump format {fmt!r}; known: {', '.join(FORMATS)}")
    module: Importer = import_module(f"citeaudit.mirror.{fmt}")
    return module


@dataclass(frozen=True, slots=True)
class FileReport:
    name: str
    action: str  # "imported", "resumed", "already imported"
    imported: int  # records written by this run
    skipped: dict[str, int] = field(default_factory=dict)  # units skipped by this run, by reason


@dataclass(frozen=True, slots=True)
class ImportReport:
    format: str
    files: tuple[FileReport, ...]

    @property
    def imported(self) -> int:
        return sum(f.imported for f in self.files)


def _same(dump: DumpFile, size: int, mtime: int) -> bool:
    return dump.size == size and dump.mtime == mtime


def import_file(
    store: MirrorStore,
    fmt: str,
    dump: DumpFile,
    *,
    batch: int = DEFAULT_BATCH,
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
    progress: Callable[[str, int], None] | None = None,
) -> FileReport:
    """One file: skipped when imported whole before (same size and time), resumed when its import
    was cut short, imported from its start otherwise (a newer dump's records replace the old)."""
    state = store.source(fmt, dump.name)
    if state is not None and state.complete and _same(dump, state.size, state.mtime):
        return FileReport(dump.name, "already imported", 0)
    resuming = state is not None and not state.complete and _same(dump, state.size, state.mtime)
    if not resuming or state is None:
        state = store.start(fmt, dump)
    skipped: Counter[str] = Counter(state.skipped)
    units = state.units
    run_imported = 0
    run_skipped: Counter[str] = Counter()
    pending: list[MirrorRecord] = []
    date = ""
    for unit in importer(fmt).units(dump, state.units, max_record_bytes):
        units += 1
        if isinstance(unit, Skip):
            skipped[unit.reason] += 1
            run_skipped[unit.reason] += 1
        else:
            pending.append(unit)
            date = max(date, unit.date)
        if units - state.units >= batch:
            state = store.commit(state, pending, units, skipped, date)
            run_imported += len(pending)
            pending = []
            if progress:
                progress(dump.name, units)
    state = store.commit(state, pending, units, skipped, date)
    run_imported += len(pending)
    store.finish(state)
    if progress:
        progress(dump.name, units)
    return FileReport(dump.name, "resumed" if resuming else "imported", run_imported, dict(run_skipped))


def import_dump(
    store: MirrorStore,
    fmt: str,
    paths: Sequence[str | Path],
    *,
    batch: int = DEFAULT_BATCH,
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
    progress: Callable[[str, int], None] | None = None,
) -> ImportReport:
    """Every file the paths name (files, folders, tar archives), in order."""
    module = importer(fmt)
    dumps = [d for p in paths for d in module.files(str(p))]
    reports = [
        import_file(store, fmt, d, batch=batch, max_record_bytes=max_record_bytes, progress=progress)
        for d in dumps
    ]
    return ImportReport(fmt, tuple(reports))
