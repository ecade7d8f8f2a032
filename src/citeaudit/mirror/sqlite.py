"""The embedded mirror: one SQLite file with the records of every imported dump, the progress of
each dump file, an index of the records' exact (folded) titles, and an FTS5 index of the titles'
words and the first authors' surnames, with the number of records each word is in.

The full-text index keeps no text of its own (``content=''``, ``detail=none``: no positions, no
columns; a look-up needs neither): the records table keeps what the index was fed (``norm`` and
``names``, from which :func:`~citeaudit.mirror.rows.fts_words` gives it back), and the store
writes both together, in one transaction with the progress of the dump file. The word counts
(``terms``) and the index's merge into one segment are made once, when an import ends
(:meth:`SqliteStore.build`); until then the mirror answers no look-up.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import os
import re
import sqlite3
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import orjson

from citeaudit.mirror.interface import FORMATS, DumpFile, MirrorError, MirrorStore, Row, SourceState
from citeaudit.mirror.ranking import STOPWORDS, Scored, content_words, score
from citeaudit.mirror.rows import author_year_words, fts_words, title_hash
from citeaudit.mirror.streams import is_track, stream, stream_names
from citeaudit.normalize import fold_tex_math
from citeaudit.resolve.indexes.interface import Candidate, IndexAnswer, SearchIndex, WorkQuery, query_words
from citeaudit.resolve.indexes.interface import surname as cited_surname
from citeaudit.resolve.interface import Record

__all__ = ["SCHEMA_VERSION", "SqliteMirror", "SqliteStore", "mirror_status", "open_mirror"]

SCHEMA_VERSION = "2"
_APPLICATION = "citeaudit-mirror"

_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE sources(
    id INTEGER PRIMARY KEY, format TEXT NOT NULL, name TEXT NOT NULL, size INTEGER NOT NULL,
    mtime INTEGER NOT NULL, complete INTEGER NOT NULL, units INTEGER NOT NULL, imported INTEGER NOT NULL,
    skipped TEXT NOT NULL, dump_date TEXT NOT NULL, generation INTEGER NOT NULL, UNIQUE(format, name));
CREATE TABLE records(
    id INTEGER PRIMARY KEY, format TEXT NOT NULL, key TEXT NOT NULL, th INTEGER NOT NULL, norm TEXT NOT NULL,
    names TEXT NOT NULL, year INTEGER, data BLOB NOT NULL);
CREATE UNIQUE INDEX records_key ON records(format, key);
CREATE INDEX records_title ON records(th);
CREATE VIRTUAL TABLE fts USING fts5(
    words, content='', columnsize=0, detail=none, tokenize="ascii tokenchars '_'");
INSERT INTO fts(fts, rank) VALUES ('pgsz', 500);
INSERT INTO fts(fts, rank) VALUES ('automerge', 0);
INSERT INTO fts(fts, rank) VALUES ('crisismerge', 64);
CREATE VIRTUAL TABLE fts_vocab USING fts5vocab(fts, 'row');
CREATE TABLE terms(term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE venues(
    stream TEXT NOT NULL, year INTEGER NOT NULL, name TEXT NOT NULL, count INTEGER NOT NULL,
    PRIMARY KEY(stream, year, name)) WITHOUT ROWID;
"""
# venues: the names of every DBLP stream (conference or journal) that its records use (year 0),
# and the titles of its proceedings by year, made by build() from the records (see
# citeaudit.mirror.streams and _build_venues). A mirror written before it has no such table:
# an import adds it (and its next build fills it); a look-up in such a mirror adds no names.
_VENUES = (
    "CREATE TABLE IF NOT EXISTS venues(stream TEXT NOT NULL, year INTEGER NOT NULL, name TEXT NOT NULL, "
    "count INTEGER NOT NULL, PRIMARY KEY(stream, year, name)) WITHOUT ROWID"
)
# Each DBLP record of a conference or a journal, counted by its stream, whether it is a
# proceedings, its container and (of a proceedings) its title and year: one scan of the records
# in SQLite (one JSON parse a record: a proceedings is found by its type's text, which no string
# of the JSON can hold unescaped), a few rows a stream out of it.
_STREAM_OF_KEY = "substr(key, 1, instr(key, '/') + instr(substr(key, instr(key, '/') + 1), '/') - 1)"
_VENUES_USED = (
    "SELECT stream, proceedings, container, title, year, count(*) FROM ("
    "SELECT stream, proceedings, json_extract(d, '$.container[0]') AS container, "
    "CASE WHEN proceedings THEN json_extract(d, '$.titles[0]') END AS title, "
    "CASE WHEN proceedings THEN year END AS year FROM ("
    f"SELECT {_STREAM_OF_KEY} AS stream, year, CAST(data AS TEXT) AS d, "
    """instr(CAST(data AS TEXT), '"type":"proceedings"') > 0 AS proceedings """
    "FROM records WHERE format = 'dblp' AND (key LIKE 'conf/%/%' OR key LIKE 'journals/%/%'))) "
    "GROUP BY stream, proceedings, container, title, year"
)

# automerge 0: no merging of the index's segments while an import writes (crisismerge bounds their
# number); build() merges them into one at its end.

# A mirror's first import writes its records without these two indexes, and build() makes them
# (sorting once costs less than a million inserts at random places); a later import keeps them.
_RECORD_INDEXES = (
    "CREATE UNIQUE INDEX IF NOT EXISTS records_key ON records(format, key)",
    "CREATE INDEX IF NOT EXISTS records_title ON records(th)",
)
_INSERT = "INSERT INTO records(id, format, key, th, norm, names, year, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
_INDEX = "INSERT INTO fts(rowid, words) VALUES (?, ?)"
_UNINDEX = "INSERT INTO fts(fts, rowid, words) VALUES ('delete', ?, ?)"


def _check_mirror(conn: sqlite3.Connection, path: Path) -> None:
    try:
        rows = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.DatabaseError:
        raise MirrorError(f"{path}: not a citeaudit mirror") from None
    if rows.get("application") != _APPLICATION:
        raise MirrorError(f"{path}: not a citeaudit mirror")
    if rows.get("schema") != SCHEMA_VERSION:
        raise MirrorError(
            f"{path}: a mirror of schema {rows.get('schema')} (an older citeaudit's), this version reads "
            f"schema {SCHEMA_VERSION}; import the dumps again into a new mirror file"
        )


def _state(row: Sequence[Any]) -> SourceState:
    return SourceState(
        format=row[0], name=row[1], size=row[2], mtime=row[3], complete=bool(row[4]), units=row[5],
        imported=row[6], skipped=json.loads(row[7]), dump_date=row[8], generation=row[9],
    )  # fmt: skip


_SOURCE_COLUMNS = "format, name, size, mtime, complete, units, imported, skipped, dump_date, generation"


# The writer locks this process holds: a forked process (an import's reader) closes its copies, so
# that the lock ends with the writer, also when the writer is killed and its readers linger.
_HELD: set[int] = set()


def _forget_locks() -> None:
    for fd in _HELD:
        with contextlib.suppress(OSError):
            os.close(fd)
    _HELD.clear()


os.register_at_fork(after_in_child=_forget_locks)


def _writer_lock(path: Path) -> int:
    """The lock of the one writer a mirror has (``<mirror>.lock`` beside it, held until the store
    closes, released by the system if its process dies): a second import into the mirror is
    refused at once rather than interleaved with the first or left waiting for SQLite's lock."""
    try:
        fd = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as e:
        raise MirrorError(f"{path}: cannot lock the mirror for writing ({e.strerror})") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise MirrorError(
            f"{path}: another `citeaudit mirror import` is writing to this mirror; "
            "rerun this one when it has ended"
        ) from None
    _HELD.add(fd)
    return fd


def _release(fd: int) -> None:
    _HELD.discard(fd)
    with contextlib.suppress(OSError):
        os.close(fd)


class SqliteStore(MirrorStore):
    """The writer's side of the mirror file (one import at a time writes to it: a second store
    on the same file is refused while the first is open)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        if not path.exists() and not path.parent.is_dir():
            raise MirrorError(f"{path}: its folder does not exist")
        self._lock = _writer_lock(path)
        try:
            self._open(path)
        except BaseException:
            _release(self._lock)
            raise
        self._stale = False  # whether this store marked the index stale (it writes that once)
        self._venues_stale = False  # the same, of the names of DBLP's streams
        self._bulk: bool | None = None  # whether the records are written without their indexes

    def _open(self, path: Path) -> None:
        new = not path.exists() or path.stat().st_size == 0
        try:
            self.conn = sqlite3.connect(path, isolation_level=None, timeout=60)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.execute("PRAGMA cache_size=-32768")
            if new:  # one script, one transaction: a mirror file is created whole or not at all
                self.conn.executescript(
                    f"BEGIN;{_SCHEMA}INSERT INTO meta VALUES ('application', '{_APPLICATION}'), "
                    f"('schema', '{SCHEMA_VERSION}'), ('index', 'ready');COMMIT;"
                )
        except sqlite3.DatabaseError as e:
            raise MirrorError(f"{path}: cannot be opened as a mirror ({e})") from None
        try:
            _check_mirror(self.conn, path)
        except MirrorError:
            self.conn.close()
            raise
        try:
            self.conn.execute(_VENUES)  # a mirror written before the stream names were kept
        except sqlite3.DatabaseError as e:
            self.conn.close()
            raise MirrorError(f"{path}: cannot be opened as a mirror ({e})") from None

    def source(self, fmt: str, name: str) -> SourceState | None:
        row = self.conn.execute(
            f"SELECT {_SOURCE_COLUMNS} FROM sources WHERE format = ? AND name = ?", (fmt, name)
        ).fetchone()
        return _state(row) if row else None

    def start(self, fmt: str, dump: DumpFile) -> SourceState:
        old = self.source(fmt, dump.name)
        generation = old.generation + 1 if old else 1
        self.conn.execute(
            "INSERT INTO sources(format, name, size, mtime, complete, units, imported, skipped, dump_date, "
            "generation) VALUES (?, ?, ?, ?, 0, 0, 0, '{}', '', ?) ON CONFLICT(format, name) DO UPDATE SET "
            "size = excluded.size, mtime = excluded.mtime, complete = 0, units = 0, imported = 0, "
            "skipped = '{}', dump_date = '', generation = excluded.generation",
            (fmt, dump.name, dump.size, dump.mtime, generation),
        )
        state = self.source(fmt, dump.name)
        assert state is not None
        return state

    def write(
        self,
        state: SourceState,
        rows: Sequence[Row],
        units: int,
        skipped: Mapping[str, int],
        date: str,
    ) -> SourceState:
        conn = self.conn
        if not conn.in_transaction:
            conn.execute("BEGIN")
        conn.execute("SAVEPOINT write")
        try:
            if not self._stale:
                conn.execute("UPDATE meta SET value = 'stale' WHERE key = 'index'")
            if state.format == "dblp" and not self._venues_stale:  # counted again by build()
                conn.execute("INSERT OR REPLACE INTO meta VALUES ('venues', 'stale')")
            bulk = self._bulk
            if bulk is None:
                bulk = self._meta("record_indexes") == "later"
                if not bulk and conn.execute("SELECT 1 FROM records LIMIT 1").fetchone() is None:
                    conn.execute("DROP INDEX records_key")
                    conn.execute("DROP INDEX records_title")
                    conn.execute("INSERT OR REPLACE INTO meta VALUES ('record_indexes', 'later')")
                    bulk = True
            self._write(state.format, rows, bulk)
            dump_date = max(state.dump_date, date)
            imported = state.imported + len(rows)
            conn.execute(
                "UPDATE sources SET units = ?, imported = ?, skipped = ?, dump_date = ? "
                "WHERE format = ? AND name = ?",
                (
                    units,
                    imported,
                    json.dumps(dict(skipped), sort_keys=True),
                    dump_date,
                    state.format,
                    state.name,
                ),
            )
            conn.execute("RELEASE write")
        except BaseException:
            conn.execute("ROLLBACK TO write")
            conn.execute("RELEASE write")
            raise
        self._stale, self._bulk = True, bulk  # until a rollback: see rollback()
        self._venues_stale = self._venues_stale or state.format == "dblp"
        return SourceState(
            state.format, state.name, state.size, state.mtime, False, units, imported, dict(skipped),
            dump_date,
            state.generation,
        )  # fmt: skip

    def commit(self) -> None:
        if self.conn.in_transaction:
            self.conn.execute("COMMIT")

    def rollback(self) -> None:
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")
        self._stale, self._bulk = False, None  # the marks may have been rolled back with the rest
        self._venues_stale = False

    def _meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _write(self, fmt: str, rows: Sequence[Row], bulk: bool) -> None:
        """New records at once, with ids from the next free one; a batch with a key already in
        the mirror (a newer dump's record, a key twice) record by record instead. In a first
        import (``bulk``: no index on the keys yet), every record is added: build() keeps the
        last of a key written twice."""
        if not rows:
            return
        conn = self.conn
        (first,) = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM records").fetchone()
        conn.execute("SAVEPOINT fresh")
        try:
            conn.executemany(
                _INSERT, [(first + i, fmt, r[0], r[1], r[2], r[3], r[4], r[5]) for i, r in enumerate(rows)]
            )
        except sqlite3.IntegrityError:
            assert not bulk
            conn.execute("ROLLBACK TO fresh")
            conn.execute("RELEASE fresh")
            self._upsert(fmt, rows)
            return
        conn.executemany(_INDEX, [(first + i, r[6]) for i, r in enumerate(rows)])
        conn.execute("RELEASE fresh")

    def _upsert(self, fmt: str, rows: Sequence[Row]) -> None:
        conn = self.conn
        for key, th, norm, names, year, data, words, _ in rows:
            old = conn.execute(
                "SELECT id, norm, names, year FROM records WHERE format = ? AND key = ?", (fmt, key)
            ).fetchone()
            if old is None:
                cursor = conn.execute(_INSERT, (None, fmt, key, th, norm, names, year, data))
                conn.execute(_INDEX, (cursor.lastrowid, words))
                continue
            rowid, old_norm, old_names, old_year = old
            conn.execute(_UNINDEX, (rowid, fts_words(old_norm, old_names, old_year)))
            conn.execute(
                "UPDATE records SET th = ?, norm = ?, names = ?, year = ?, data = ? WHERE id = ?",
                (th, norm, names, year, data, rowid),
            )
            conn.execute(_INDEX, (rowid, words))

    def finish(self, state: SourceState) -> SourceState:
        if not self.conn.in_transaction:
            self.conn.execute("BEGIN")
        self.conn.execute(
            "UPDATE sources SET complete = 1 WHERE format = ? AND name = ?", (state.format, state.name)
        )
        done = self.source(state.format, state.name)
        assert done is not None
        return done

    def build(self) -> None:
        """The number of records each word is in, counted from the full-text index, and its
        segments merged into one; nothing to do when no record was written since the last build."""
        conn = self.conn
        self.commit()
        row = conn.execute("SELECT value FROM meta WHERE key = 'index'").fetchone()
        if row is not None and row[0] == "ready" and self._meta("venues") == "ready":
            return
        conn.execute("BEGIN")
        try:
            if self._meta("record_indexes") == "later":
                conn.execute("PRAGMA cache_size=-8192")  # the sort's memory too: bounded whatever the size
                try:
                    self._index_records()
                finally:
                    conn.execute("PRAGMA cache_size=-32768")
            conn.execute("DELETE FROM terms")
            conn.execute(  # the words and the first authors' surnames (not with the year and a word)
                "INSERT INTO terms(term, df) SELECT term, doc FROM fts_vocab "
                "WHERE instr(term, '_') = 0 OR (instr(term, '_') = 1 AND instr(substr(term, 2), '_') = 0)"
            )
            conn.execute("INSERT INTO fts(fts) VALUES ('optimize')")
            if self._meta("venues") != "ready":  # DBLP records were written (or never counted)
                self._build_venues()
            (records,) = conn.execute("SELECT count(*) FROM records").fetchone()
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('records', ?)", (str(records),))
            conn.execute("UPDATE meta SET value = 'ready' WHERE key = 'index'")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        self._stale, self._bulk, self._venues_stale = False, None, False

    def _build_venues(self) -> None:
        """The names of every DBLP stream, counted again from the records (in build()'s
        transaction: the table is always that of the records, after an import resumed or a
        newer dump replaced records)."""
        conn = self.conn
        conn.execute("DELETE FROM venues")
        used = conn.execute(_VENUES_USED).fetchall()
        conn.executemany(
            "INSERT INTO venues(stream, year, name, count) VALUES (?, ?, ?, ?)", stream_names(used)
        )
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('venues', 'ready')")

    def _index_records(self) -> None:
        """The indexes of a first import's records, once it is written; of the records of a key
        that a dump has twice, the last written is kept (what an update would have left)."""
        conn = self.conn
        try:
            conn.execute(_RECORD_INDEXES[0])
        except sqlite3.IntegrityError:
            twice = conn.execute(
                "SELECT r.id, r.norm, r.names, r.year FROM records r JOIN (SELECT format, key, "
                "max(id) AS last FROM records GROUP BY format, key HAVING count(*) > 1) d "
                "ON r.format = d.format AND r.key = d.key AND r.id < d.last"
            ).fetchall()
            for rowid, norm, names, year in twice:
                conn.execute(_UNINDEX, (rowid, fts_words(norm, names, year)))
                conn.execute("DELETE FROM records WHERE id = ?", (rowid,))
            conn.execute(_RECORD_INDEXES[0])
        conn.execute(_RECORD_INDEXES[1])
        conn.execute("DELETE FROM meta WHERE key = 'record_indexes'")

    def sources(self) -> list[SourceState]:
        rows = self.conn.execute(f"SELECT {_SOURCE_COLUMNS} FROM sources ORDER BY format, name").fetchall()
        return [_state(r) for r in rows]

    def counts(self) -> dict[str, int]:
        return dict(self.conn.execute("SELECT format, count(*) FROM records GROUP BY format ORDER BY format"))

    def close(self) -> None:
        """Closes the file; what was written and not committed is dropped."""
        try:
            self.rollback()
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            self.conn.close()
            _release(self._lock)


def _quote(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def _any(words: Iterable[str]) -> str:
    return "(" + " OR ".join(_quote(w) for w in words) + ")"


def _all(words: Iterable[str]) -> str:
    return "(" + " AND ".join(_quote(w) for w in words) + ")"


# What one look-up reads at most, whatever the title: bounds on its time.
_EXACT_CAP = 100  # records of the exact title
_RARE_CAP = 300  # records with one of the rarest words, when they are that rare together
_AND_CAP = 100  # records of one conjunction
_WORDS = 6  # of a title's words, the rarest that the conjunctions take
# The index's work a look-up may spend on conjunctions of common words, in steps: a conjunction
# steps through the records of its rarest word, seeking each in the others' (about a microsecond a
# step on a 1M-record mirror, most of it where the others are common). Exact titles, the first
# author and year, and rare words cost none of it.
_BUDGET = 5_000

_STREAMS_MAX = 10_000  # streams (and years) whose names a look-up process keeps

_COLUMNS = "r.id, r.format, r.key, r.norm, r.names, r.year"
_EXACT = f"SELECT {_COLUMNS} FROM records r WHERE r.th = ? ORDER BY r.id LIMIT ?"
_MATCH = f"SELECT {_COLUMNS} FROM fts CROSS JOIN records r ON r.id = fts.rowid WHERE fts MATCH ? LIMIT ?"

Found = tuple[int, str, str, str, str, int | None]  # id, format, key, norm, names, year
Plan = tuple[str, int, int]  # an index expression, the records it may read, its cost


class SqliteMirror(SearchIndex):
    """Title look-ups in a mirror file, as one of the indexes a ``work`` citation is searched in.

    ``formats`` limits it to the records of some dumps (``name`` is then ``mirror:dblp``…);
    every candidate is named by its own dump, ``mirror:<format>``. Safe to share between
    threads and to pickle into worker processes (each opens the file again, read-only)."""

    def __init__(self, path: Path, formats: Sequence[str] | None = None) -> None:
        self.path = Path(path)
        self.formats = tuple(sorted(formats, key=FORMATS.index)) if formats else FORMATS
        unknown = sorted(set(self.formats) - set(FORMATS))
        if unknown:
            raise MirrorError(f"unknown mirror format {unknown[0]!r}; known: {', '.join(FORMATS)}")
        self.name = "mirror" if formats is None else "mirror:" + "+".join(self.formats)
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._pid = 0
        self._streams: dict[tuple[str, int], tuple[str, ...]] = {}
        self._connect()  # a bad path is an error now, not at the first look-up

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "formats": self.formats, "name": self.name}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.path, self.formats, self.name = state["path"], state["formats"], state["name"]
        self._lock = threading.Lock()
        self._conn = None
        self._pid = 0
        self._streams = {}

    def _connect(self) -> sqlite3.Connection:
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        if not self.path.is_file():
            raise MirrorError(f"{self.path}: no mirror there; create it with `citeaudit mirror import`")
        try:
            conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False, timeout=30)
            _check_mirror(conn, self.path)
            conn.execute("PRAGMA cache_size=-16384")
        except sqlite3.DatabaseError as e:
            raise MirrorError(f"{self.path}: cannot be opened as a mirror ({e})") from None
        self._conn, self._pid = conn, os.getpid()
        self._streams = {}
        return conn

    def incomplete(self) -> str | None:
        """The first dump file (of this index's formats) whose import did not finish, or a
        sentence saying that nothing was imported or that the index was not built; ``None``
        when the mirror is whole."""
        marks = ",".join("?" * len(self.formats))
        conn = self._connect()
        row = conn.execute(
            f"SELECT name FROM sources WHERE complete = 0 AND format IN ({marks}) "
            "ORDER BY format, name LIMIT 1",
            self.formats,
        ).fetchone()
        if row:
            return f"{row[0]} did not finish importing; rerun `citeaudit mirror import`"
        if not conn.execute(
            f"SELECT 1 FROM sources WHERE format IN ({marks}) LIMIT 1", self.formats
        ).fetchone():
            return f"{self.path} holds no {'/'.join(self.formats)} dump; run `citeaudit mirror import`"
        if conn.execute("SELECT value FROM meta WHERE key = 'index'").fetchone() != ("ready",):
            return f"{self.path}: an import ended before the index was built; rerun `citeaudit mirror import`"
        return None

    def described(self) -> dict[str, Any]:
        """The mirror as a report names it: its file name (not its folder: the report is the same
        wherever it is kept) and, per dump file of its formats, the name, the newest record date
        and the records imported from it."""
        marks = ",".join("?" * len(self.formats))
        with self._lock:
            rows = (
                self._connect()
                .execute(
                    f"SELECT format, name, dump_date, imported FROM sources WHERE format IN ({marks}) "
                    "ORDER BY format, name",
                    self.formats,
                )
                .fetchall()
            )
        dumps = [
            {"dump_date": date or None, "file": dump_file_name(name), "format": fmt, "records": count}
            for fmt, name, date, count in rows
        ]
        return {"dumps": dumps, "file": self.path.name, "index": self.name}

    def search_many(self, queries: Sequence[WorkQuery], limit: int = 10) -> dict[str, IndexAnswer]:
        with self._lock:
            problem = self.incomplete()
            if problem:
                return {
                    q.key: IndexAnswer.unavailable(self.name, "E_MIRROR_INCOMPLETE", problem) for q in queries
                }
            return {q.key: IndexAnswer(self.name, tuple(self._search(q, limit))) for q in queries}

    def search(self, query: WorkQuery, limit: int = 10) -> list[Candidate]:
        """The candidates for one query, best first (no completeness check: see search_many)."""
        with self._lock:
            return self._search(query, limit)

    def _frequencies(self, words: Sequence[str]) -> dict[str, int]:
        """The number of records each word is in (a word in none is left out)."""
        marks = ",".join("?" * len(words))
        rows = self._connect().execute(f"SELECT term, df FROM terms WHERE term IN ({marks})", list(words))
        return dict(rows.fetchall())

    def _plan(
        self, query: WorkQuery, words: Sequence[str], content: Sequence[str]
    ) -> tuple[list[Plan], set[str]]:
        """The index expressions a title is looked up by, in order, each with the records it may
        read and its cost (index steps: see _BUDGET; 0 for those always run).

        A title that shares no word with a record is no candidate of it. With the cited first
        author and year, first the records of that first author and year (±1) whose title
        begins or ends with the same word as the cited one (stopwords left out; see
        :func:`~citeaudit.mirror.rows.author_year_words`): a title with one word wrong still
        finds its record. Then every record that has one of the title's rarest words, while
        those words are rare enough (at most _RARE_CAP records together): with two or three of
        them, a record with any word of the title wrong is still found, and nothing else is
        looked up. Otherwise (a title of common words), as the budget allows: the records that
        have all of the title's rarest words (as many as make them rare together, at most
        _WORDS); with the first author alone, that author's records that have them; and those
        that have all of them but one (one word wrong). Ties (more records than a bound) go to
        the first records in the mirror."""
        plans: list[Plan] = []
        author = cited_surname(query.first_author or "")
        token = f"_{author}" if author else ""
        if token and query.year is not None and content:
            keys = [
                k
                for y in (query.year - 1, query.year, query.year + 1)
                if y >= 0  # a sign is no part of one index word ("_smith_-1_…" would be a phrase)
                for k in author_year_words(author, y, content)
            ]
            if keys:
                plans.append((_any(keys), _AND_CAP, 0))
        df = self._frequencies([*words, token] if token else words)
        known = sorted((w for w in words if w in df), key=lambda w: (df[w], w))
        if not known:
            return plans, set()
        top = known[:_WORDS]
        rare, total = 0, 0
        for word in top[:3]:
            if total + df[word] > _RARE_CAP:
                break
            rare, total = rare + 1, total + df[word]
        if rare:
            plans.append((_any(top[:rare]), _RARE_CAP, 0))
            if rare > 1:
                return plans, set(known)
        rest = top[rare:]  # with one rare word: the records without it have the others
        if not rest:
            return plans, set(known)
        size = self._records()
        every = _rare_together(rest, df, size)
        if len(every) > 1:
            plans.append((_all(every), _AND_CAP, df[every[0]] * (len(every) - 1)))
        if token in df and (query.year is None or len(known) <= 2):
            # With no year; or a short title ("BERT", "Hyperband"), too common alone: the first
            # author's records with its words.
            steps = min(df[token], df[every[0]])
            plans.append((f"{_quote(token)} AND {_all(every)}", _AND_CAP, steps * len(every)))
        seen = {tuple(every)}
        for word in every if len(every) > 1 else ():
            others = _rare_together([w for w in rest if w != word], df, size)
            if len(others) > 1 and tuple(others) not in seen:
                seen.add(tuple(others))
                plans.append((_all(others), _AND_CAP, df[others[0]] * (len(others) - 1)))
        return plans, set(known)

    def _match(self, expression: str, cap: int) -> list[Found]:
        """The first ``cap`` records (by id) that the index expression matches."""
        rows: list[Found] = self._connect().execute(_MATCH, (expression, cap)).fetchall()
        return rows

    def _records(self) -> int:
        row = self._connect().execute("SELECT value FROM meta WHERE key = 'records'").fetchone()
        return max(int(row[0]), 1) if row else 1

    def _settles(self, query: WorkQuery, exact: str, known: set[str], row: Found) -> bool:
        """Whether a record read so far settles the look-up: it agrees with the cited first author
        and year (those cited), and its title is the exact title, or has every word of the cited
        title that the mirror knows (with both the author and the year cited: all but one), so no
        further record would be a better candidate."""
        _, fmt, _, norm, names, year = row
        if fmt not in self.formats:
            return False
        if query.year is not None and year != query.year:
            return False
        if query.first_author:
            author = query_words(query.first_author)
            if author and author[-1] not in names.split("|", 1)[0].split():
                return False
        if norm == exact or norm.startswith(exact + " "):
            return True
        if not known:
            return False
        missing = len(known - set(norm.split()))
        # With the first author and the year agreeing, a record without one of the words (the one
        # cited wrong) settles it too.
        return missing == 0 or (
            missing == 1 and len(known) > 2 and bool(query.first_author) and query.year is not None
        )

    def _search(self, query: WorkQuery, limit: int) -> list[Candidate]:
        conn = self._connect()
        cited = fold_tex_math(query.title)  # "$\ell_1$" looked up as the dumps write it, "ℓ1"
        title = query_words(cited)
        words = content_words(cited)
        if not words or limit < 1:
            return []
        exact = " ".join(title)
        found: dict[int, Found] = {r[0]: r for r in conn.execute(_EXACT, (title_hash(exact), _EXACT_CAP))}
        if not any(self._settles(query, exact, set(), r) for r in found.values()):
            spent = 0
            plans, known = self._plan(query, words, [w for w in title if w not in STOPWORDS])
            for expression, cap, cost in plans:
                if spent + cost > _BUDGET:
                    continue  # a later, cheaper one may still fit
                spent += cost
                new = [r for r in self._match(expression, cap) if r[0] not in found]
                found.update((r[0], r) for r in new)
                if any(self._settles(query, exact, known, r) for r in new):
                    break
        scored: list[Scored] = []
        for rowid, fmt, key, norm, names, year in found.values():
            if fmt in self.formats:
                s = score(query, title, rowid, fmt, key, norm, names, year)
                if s is not None:
                    scored.append(s)
        best = sorted(scored)[:limit]
        if not best:
            return []
        marks = ",".join("?" * len(best))
        data = dict(
            conn.execute(f"SELECT id, data FROM records WHERE id IN ({marks})", [s.rowid for s in best])
        )
        out = []
        for s in best:
            raw = orjson.loads(data[s.rowid])
            arxiv = raw.pop("_arxiv", None)
            _, fmt, key = s.sort_key
            record = Record.from_json(raw)
            if fmt == "dblp":
                record = self._with_stream_names(key, record)
            out.append(Candidate(f"mirror:{fmt}", key, record, arxiv))
        return out

    def _stream_names(self, name_of: str, year: int) -> tuple[str, ...]:
        """The names a DBLP stream's records use and the titles of its proceedings of the year, by
        name (none in a mirror written before they were kept)."""
        names = self._streams.get((name_of, year))
        if names is None:
            conn = self._connect()
            try:
                rows = conn.execute(
                    "SELECT DISTINCT name FROM venues WHERE stream = ? AND year IN (0, ?) ORDER BY name",
                    (name_of, year),
                )
                names = tuple(r[0] for r in rows)
            except sqlite3.OperationalError:  # no such table: an older mirror
                names = ()
            if len(self._streams) >= _STREAMS_MAX:
                self._streams.clear()
            self._streams[name_of, year] = names
        return names

    def _with_stream_names(self, key: str, record: Record) -> Record:
        """A DBLP record of a conference's or a journal's main track with the other names of its
        stream and the titles of its proceedings of its year in its short container, after its
        own (``NeurIPS``, ``Advances in Neural Information Processing Systems`` and ``Advances in
        Neural Information Processing Systems 30: Annual Conference …, Long Beach, CA, USA``
        beside ``NIPS``); a paper of a workshop or another part (:func:`is_track`) keeps its own."""
        name_of = stream(key)
        own = record.container + record.short_container
        if name_of is None or any(is_track(n) for n in own):  # a workshop's paper: its own venue only
            return record
        years = record.year_values
        more = tuple(n for n in self._stream_names(name_of, years[0] if years else 0) if n not in own)
        return dataclasses.replace(record, short_container=record.short_container + more) if more else record


def _rare_together(words: Sequence[str], df: Mapping[str, int], size: int) -> list[str]:
    """The fewest of the rarest words (at least two, at most _WORDS) that few records have all
    of (fewer than one expected, were the words independent)."""
    out: list[str] = []
    expected = float(size)
    for word in words[:_WORDS]:
        out.append(word)
        expected *= df[word] / size
        if len(out) > 1 and expected < 1:
            break
    return out


_ARCHIVE = re.compile(r"(.*?\.(?:tar|tgz|tar\.[a-z0-9]+)):(.+)", re.DOTALL)


def dump_file_name(name: str) -> str:
    """A dump file as a report names it: the file's own name, or ``archive.tar:member`` for a
    member of an archive, never the folder it was imported from."""
    archive = _ARCHIVE.fullmatch(name)
    if archive is not None:
        return f"{Path(archive[1]).name}:{archive[2]}"
    return Path(name).name


def open_mirror(path: Path, formats: Sequence[str] | None = None) -> SqliteMirror:
    """The mirror at ``path`` as a search index (all its dumps, or those of ``formats``).
    Raises :class:`MirrorError` when there is no mirror there."""
    return SqliteMirror(path, formats)


def mirror_status(path: Path) -> tuple[list[SourceState], dict[str, int], int, bool]:
    """Every dump file's progress, the records by format, the bytes on disk of the mirror at
    ``path`` and whether its index is built (read-only)."""
    index = SqliteMirror(path)
    conn = index._connect()
    rows = conn.execute(f"SELECT {_SOURCE_COLUMNS} FROM sources ORDER BY format, name").fetchall()
    counts = dict(conn.execute("SELECT format, count(*) FROM records GROUP BY format ORDER BY format"))
    ready = conn.execute("SELECT value FROM meta WHERE key = 'index'").fetchone() == ("ready",)
    size = sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())
    conn.close()
    return [_state(r) for r in rows], counts, size, ready
