"""The import driver: every file of a dump into the store, in batches, each committed with the
progress it makes, so that an import killed at any moment (kill -9 included) resumes where its
last batch ended: nothing lost, nothing twice (records are upserted by format and key, and the
units of a file already committed are skipped, not read again as new).

Reading (decompressing, parsing, normalising into rows) runs in reader processes while this one
writes: each reader reads every file and builds the rows of its share of the chunks, and the
writer takes the chunks in the files' order, so that what is written, committed and reported is
exactly what one reader in this process would give (``readers=0`` does that)."""

from __future__ import annotations

import gc
import multiprocessing
import os
import queue
import signal
import sys
import threading
import traceback
from collections import Counter
from collections.abc import Callable, Generator, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from importlib import import_module
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from citeaudit.mirror.interface import (
    FORMATS,
    DumpFile,
    Importer,
    MirrorError,
    MirrorStore,
    Passed,
    Row,
    Skip,
    SourceState,
)
from citeaudit.mirror.reading import DEFAULT_MAX_RECORD_BYTES

__all__ = ["DEFAULT_BATCH", "FileReport", "ImportReport", "import_dump", "importer"]

#: Units per transaction: big enough that commits (and the full-text index's segments) cost little,
#: small enough that a kill loses little (a second or so of reading).
DEFAULT_BATCH = 20000


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


#: Units a reader hands the writer at a time (or fewer, when a batch is smaller).
_CHUNK = 1000
#: Chunks taken in from each reader ahead of the writer (a commit lasts a while: the readers go on).
_QUEUED = 4
#: Reader processes of an import, while this one writes: each reads every file and normalises its
#: share of the chunks (reading is cheaper than normalising). Two on two cores (the writer and two
#: readers keep both busy, also when other work shares them), three on more.
READERS = max(2, min(3, (os.cpu_count() or 2) - 1))

Chunk = tuple[list[Row], int, dict[str, int], str]  # rows, units read, units skipped by reason, newest date


def _chunks(
    fmt: str, dump: DumpFile, skip: int, max_record_bytes: int, size: int, part: int = 0, parts: int = 1
) -> Generator[Chunk, None, None]:
    """The rows of a file after its first ``skip`` units, ``size`` units at a time: every chunk,
    or (``parts`` readers) the chunks ``part``, ``part + parts``, … only."""

    def keep(i: int) -> bool:
        return i // size % parts == part

    rows: list[Row] = []
    units = 0
    skipped: dict[str, int] = {}
    date = ""
    index = 0
    for unit in importer(fmt).rows(dump, skip, max_record_bytes, keep if parts > 1 else None):
        units += 1
        if isinstance(unit, Skip):
            skipped[unit.reason] = skipped.get(unit.reason, 0) + 1
        elif not isinstance(unit, Passed):
            rows.append(unit)
            if unit[7] > date:
                date = unit[7]
        if units >= size:
            if index % parts == part:
                yield rows, units, skipped, date
            rows, units, skipped, date = [], 0, {}, ""
            index += 1
    if units and index % parts == part:
        yield rows, units, skipped, date


Job = tuple[DumpFile, int]  # a file to read, and the units of it already committed
Message = tuple[str, int, object]  # "rows" / "end" / "error" / "bug", the job's index, the payload


def _read_jobs(
    fmt: str,
    jobs: Sequence[Job],
    max_record_bytes: int,
    size: int,
    part: int = 0,
    parts: int = 1,
    by_file: bool = False,
) -> Generator[Message, None, None]:
    """The chunks of every job's file in turn, each file's followed by its end, or an error that
    stops the reading: of ``parts`` readers, ``part``'s share of each file's chunks, or
    (``by_file``) every chunk of its share of the files."""
    for index, (dump, skip) in enumerate(jobs):
        if by_file and index % parts != part:
            continue
        try:
            share = (0, 1) if by_file else (part, parts)
            for chunk in _chunks(fmt, dump, skip, max_record_bytes, size, *share):
                yield "rows", index, chunk
        except MirrorError as e:
            yield "error", index, str(e)
            return
        yield "end", index, None


def _reader(
    send: Connection,
    others: list[Connection],
    fmt: str,
    jobs: Sequence[Job],
    max_record_bytes: int,
    size: int,
    part: int,
    parts: int,
    by_file: bool,
) -> None:
    """A reader process: parses, normalises its chunks, hands them over, and stops when the
    writer is gone (its pipe breaks). Ctrl-C is the writer's to handle."""
    for other in others:  # the writer's ends of the pipes, inherited: only the writer reads them
        other.close()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.freeze()  # what the writer had: never garbage, never traversed again
    index = 0
    try:
        try:
            for message in _read_jobs(fmt, jobs, max_record_bytes, size, part, parts, by_file):
                index = message[1]
                send.send(message)
        except Exception:
            send.send(("bug", index, traceback.format_exc()))
    except OSError:  # the writer is gone: nothing to tell
        pass
    finally:
        send.close()


def _merge(
    take: Callable[[int, int], Message], parts: int, jobs: Sequence[Job], by_file: bool
) -> Generator[Message, None, None]:
    """The readers' messages in the files' order (``take(reader, job)`` is a reader's next one):
    chunk ``k`` of a file from reader ``k % parts``, or every chunk of file ``j`` from reader
    ``j % parts``."""
    for job in range(len(jobs)):
        index = 0
        while True:
            owner = job % parts if by_file else index % parts
            message = take(owner, job)
            if message[0] == "rows":
                yield message
                index += 1
                continue
            if message[0] == "error":
                yield message
                return
            for other in range(parts) if not by_file else ():  # the others end the file there too
                if other != owner:
                    ending = take(other, job)
                    if ending[0] == "error":
                        yield ending
                        return
            yield message
            break


def _forked_jobs(
    fmt: str, jobs: Sequence[Job], max_record_bytes: int, size: int, parts: int, by_file: bool = False
) -> Generator[Message, None, None]:
    """:func:`_read_jobs` from ``parts`` child processes, in the files' order, so that reading and
    writing run at once, across files too. A thread for each reader takes its chunks in while this
    one writes (SQLite lets it run), up to _QUEUED of them: memory stays bounded. In chunks, the
    readers see the same units and the same errors, so what the writer gets is what one reader
    would give; ``by_file`` (many files, each costly to read past) shares out the files instead."""
    context = multiprocessing.get_context("fork")
    readers: list[tuple[BaseProcess, Connection]] = []
    queues: list[queue.Queue[tuple[str, Any]]] = [queue.Queue(maxsize=_QUEUED) for _ in range(parts)]
    stop = threading.Event()

    def offer(part: int, item: tuple[str, Any]) -> bool:
        while not stop.is_set():
            try:
                queues[part].put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def pump(part: int) -> None:
        process, pipe = readers[part]
        try:
            while True:
                try:
                    message: Message = pipe.recv()
                except (EOFError, OSError):
                    process.join(5)
                    offer(part, ("died", process.exitcode))
                    return
                if not offer(part, ("message", message)):
                    return
        except BaseException as e:  # handed to the writer, who raises it
            offer(part, ("raise", e))

    def take(part: int, job: int) -> Message:
        kind, payload = queues[part].get()
        if kind == "died":
            raise MirrorError(
                f"{jobs[job][0].name}: the process reading it ended unexpectedly (exit code {payload})"
            )
        if kind == "raise":
            raise payload
        message: Message = payload
        if message[0] == "bug":
            raise RuntimeError(
                f"reading {jobs[message[1]][0].name} failed in a reader process:\n{message[2]}"
            )
        return message

    threads = [threading.Thread(target=pump, args=(p,), daemon=True) for p in range(parts)]
    try:
        for part in range(parts):
            pipe, send = context.Pipe(duplex=False)
            others = [r for _, r in readers] + [pipe]
            child: BaseProcess = context.Process(
                target=_reader,
                args=(send, others, fmt, jobs, max_record_bytes, size, part, parts, by_file),
                name=f"citeaudit-mirror-reader-{part}",
                daemon=True,
            )
            child.start()
            send.close()
            readers.append((child, pipe))
        for thread in threads:
            thread.start()
        yield from _merge(take, parts, jobs, by_file)
    finally:
        stop.set()
        for process, _ in readers:
            if process.is_alive():
                process.kill()
            process.join()
        for thread in threads:
            if thread.is_alive():
                thread.join(10)
        for _, pipe in readers:
            pipe.close()


def _can_fork() -> bool:
    return sys.platform == "linux" and "fork" in multiprocessing.get_all_start_methods()


class _File:
    """The import of one file as the writer goes."""

    def __init__(self, store: MirrorStore, state: SourceState, resuming: bool) -> None:
        self.store = store
        self.state = state
        self.resuming = resuming
        self.skipped: Counter[str] = Counter(state.skipped)
        self.units = state.units
        self.imported = 0
        self.run_skipped: Counter[str] = Counter()
        self.pending: list[Row] = []
        self.date = ""

    def add(self, chunk: Chunk) -> None:
        rows, units, skipped, date = chunk
        self.units += units
        self.skipped.update(skipped)
        self.run_skipped.update(skipped)
        self.pending += rows
        if date > self.date:
            self.date = date

    @property
    def unwritten(self) -> int:
        return self.units - self.state.units

    def write(self) -> int:
        """The rows read so far and the progress they make, written; the units they are."""
        units = self.unwritten
        self.state = self.store.write(self.state, self.pending, self.units, self.skipped, self.date)
        self.imported += len(self.pending)
        self.pending = []
        return units

    def report(self) -> FileReport:
        return FileReport(
            self.state.name, "resumed" if self.resuming else "imported", self.imported, dict(self.run_skipped)
        )


def import_dump(
    store: MirrorStore,
    fmt: str,
    paths: Sequence[str | Path],
    *,
    batch: int = DEFAULT_BATCH,
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
    progress: Callable[[str, int], None] | None = None,
    readers: int | None = None,
) -> ImportReport:
    """Every file the paths name (files, folders, tar archives), in order: skipped when imported
    whole before (same size and time), resumed when its import was cut short, imported from its
    start otherwise (a newer dump's records replace the old); then the index is built (see
    :meth:`MirrorStore.build`), also when every file was imported before. A transaction holds
    ``batch`` units or so, of one file or of several small ones with the end of each. On an
    error what was written is committed (it is whole: records with the progress they make), the
    rest of the file is read again by the next run. ``readers``: the processes that read the
    files while this one writes (default :data:`READERS` where processes can be forked; 0: read
    here)."""
    module = importer(fmt)
    dumps = [d for p in paths for d in module.files(str(p))]
    reports: dict[int, FileReport] = {}
    files: list[_File] = []
    for n, dump in enumerate(dumps):
        state = store.source(fmt, dump.name)
        if state is not None and state.complete and _same(dump, state.size, state.mtime):
            reports[n] = FileReport(dump.name, "already imported", 0)
            continue
        resuming = state is not None and not state.complete and _same(dump, state.size, state.mtime)
        if not resuming or state is None:
            state = store.start(fmt, dump)
        files.append(_File(store, state, resuming))
    todo = [n for n in range(len(dumps)) if n not in reports]
    jobs = [(dumps[n], f.state.units) for n, f in zip(todo, files, strict=True)]
    size = max(1, min(batch, _CHUNK))
    parts = (READERS if _can_fork() else 0) if readers is None else readers
    by_file = getattr(module, "READ_BY_FILE", False) and len(jobs) >= parts
    stream = (
        _forked_jobs(fmt, jobs, max_record_bytes, size, parts, by_file)
        if parts > 0
        else _read_jobs(fmt, jobs, max_record_bytes, size)
    )
    written = 0  # units written since the last commit

    def commit(file: _File) -> None:
        nonlocal written
        store.commit()
        written = 0
        if progress:
            progress(file.state.name, file.units)

    gc.freeze()  # the rows passing through are never cyclic garbage: collections skip what came before
    try:
        with closing(stream):
            for kind, job, payload in stream:
                file = files[job]
                if kind == "error":
                    raise MirrorError(str(payload))
                if kind == "rows":
                    file.add(payload)  # type: ignore[arg-type]
                    if written + file.unwritten >= batch:
                        written += file.write()
                        commit(file)
                    continue
                written += file.write()
                file.state = store.finish(file.state)
                reports[todo[job]] = file.report()
                if written >= batch or job == len(jobs) - 1:
                    commit(file)
    finally:
        gc.unfreeze()
        try:
            store.commit()  # what was written is whole, also when reading failed
        except BaseException:
            store.rollback()
            raise
    store.build()
    return ImportReport(fmt, tuple(reports[n] for n in range(len(dumps))))
