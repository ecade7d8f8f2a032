"""The embedded mirror: one SQLite file with the records of every imported dump, the progress of
each dump file, and an FTS5 index of the titles and the authors' family names.

The index keeps no text of its own (``content=''``): the records table holds each title's words
as the index was fed them, and triggers keep the two in step on every insert, update and delete.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from citeaudit.mirror.interface import FORMATS, DumpFile, MirrorError, MirrorRecord, MirrorStore, SourceState
from citeaudit.mirror.ranking import Scored, content_words, fast_words, names_text, score
from citeaudit.resolve.indexes.interface import Candidate, IndexAnswer, SearchIndex, WorkQuery, query_words
from citeaudit.resolve.interface import Author, Record

__all__ = ["SCHEMA_VERSION", "SqliteMirror", "SqliteStore", "mirror_status", "open_mirror"]

SCHEMA_VERSION = "1"
_APPLICATION = "citeaudit-mirror"

# How many records one look-up reads at most from the index for one expression: a bound on the
# time of a look-up of a title made of common words (its exact record is still found: see _plan).
_CAP = 1000

_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE sources(
    id INTEGER PRIMARY KEY, format TEXT NOT NULL, name TEXT NOT NULL, size INTEGER NOT NULL,
    mtime INTEGER NOT NULL, complete INTEGER NOT NULL, units INTEGER NOT NULL, imported INTEGER NOT NULL,
    skipped TEXT NOT NULL, dump_date TEXT NOT NULL, generation INTEGER NOT NULL, UNIQUE(format, name));
CREATE TABLE records(
    id INTEGER PRIMARY KEY, format TEXT NOT NULL, key TEXT NOT NULL, norm TEXT NOT NULL,
    names TEXT NOT NULL, year INTEGER, data TEXT NOT NULL, UNIQUE(format, key));
CREATE VIRTUAL TABLE fts USING fts5(
    norm, names, content='', columnsize=0, detail=column, tokenize='unicode61 remove_diacritics 0');
CREATE VIRTUAL TABLE fts_vocab USING fts5vocab(fts, 'col');
CREATE TRIGGER records_ai AFTER INSERT ON records BEGIN
    INSERT INTO fts(rowid, norm, names) VALUES (new.id, new.norm, new.names);
END;
CREATE TRIGGER records_ad AFTER DELETE ON records BEGIN
    INSERT INTO fts(fts, rowid, norm, names) VALUES ('delete', old.id, old.norm, old.names);
END;
CREATE TRIGGER records_au AFTER UPDATE OF norm, names ON records BEGIN
    INSERT INTO fts(fts, rowid, norm, names) VALUES ('delete', old.id, old.norm, old.names);
    INSERT INTO fts(rowid, norm, names) VALUES (new.id, new.norm, new.names);
END;
"""

_UPSERT = """
INSERT INTO records(format, key, norm, names, year, data) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT(format, key) DO UPDATE SET
    norm = excluded.norm, names = excluded.names, year = excluded.year, data = excluded.data
"""


def _check_mirror(conn: sqlite3.Connection, path: Path) -> None:
    try:
        rows = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.DatabaseError:
        raise MirrorError(f"{path}: not a citeaudit mirror") from None
    if rows.get("application") != _APPLICATION:
        raise MirrorError(f"{path}: not a citeaudit mirror")
    if rows.get("schema") != SCHEMA_VERSION:
        raise MirrorError(
            f"{path}: a mirror of schema {rows.get('schema')}, this version reads {SCHEMA_VERSION}; "
            "import the dumps into a new mirror"
        )


def _author_json(a: Author) -> dict[str, str]:
    out = {}
    if a.family is not None:
        out["family"] = a.family
    if a.given is not None:
        out["given"] = a.given
    if a.name is not None:
        out["name"] = a.name
    if a.sequence is not None:
        out["sequence"] = a.sequence
    return out


def _data(item: MirrorRecord) -> str:
    """The record as the mirror keeps it: the JSON of :meth:`Record.to_json` without its empty
    fields (:meth:`Record.from_json` reads them back as empty), built directly: the import
    writes millions."""
    r = item.record
    out: dict[str, Any] = {"doi": r.doi, "agency": r.agency}
    if r.titles:
        out["titles"] = list(r.titles)
    if r.subtitles:
        out["subtitles"] = list(r.subtitles)
    if r.years:
        out["years"] = dict(r.years)
    if r.authors:
        out["authors"] = [_author_json(a) for a in r.authors]
    if r.type:
        out["type"] = r.type
    if r.container:
        out["container"] = list(r.container)
    if r.short_container:
        out["short_container"] = list(r.short_container)
    if r.relations:
        out["relations"] = [x.to_json() for x in r.relations]
    for name in ("volume", "issue", "pages", "article_number"):
        value = getattr(r, name)
        if value is not None:
            out[name] = value
    if item.arxiv is not None:
        out["_arxiv"] = item.arxiv
    return json.dumps(out, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _row(item: MirrorRecord) -> tuple[str, str, str, str, int | None, str]:
    rec = item.record
    norm = " ".join(fast_words(" ".join(rec.titles)))
    names = names_text([a.family or a.name or "" for a in rec.authors])
    years = rec.year_values
    return item.format, item.key, norm, names, (years[0] if years else None), _data(item)


def _state(row: Sequence[Any]) -> SourceState:
    return SourceState(
        format=row[0], name=row[1], size=row[2], mtime=row[3], complete=bool(row[4]), units=row[5],
        imported=row[6], skipped=json.loads(row[7]), dump_date=row[8], generation=row[9],
    )  # fmt: skip


_SOURCE_COLUMNS = "format, name, size, mtime, complete, units, imported, skipped, dump_date, generation"


class SqliteStore(MirrorStore):
    """The writer's side of the mirror file (one import at a time writes to it)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        new = not path.exists() or path.stat().st_size == 0
        if new and not path.parent.is_dir():
            raise MirrorError(f"{path}: its folder does not exist")
        try:
            self.conn = sqlite3.connect(path, isolation_level=None, timeout=60)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.execute("PRAGMA cache_size=-32768")
            if new:  # one script, one transaction: a mirror file is created whole or not at all
                self.conn.executescript(
                    f"BEGIN;{_SCHEMA}INSERT INTO meta VALUES ('application', '{_APPLICATION}'), "
                    f"('schema', '{SCHEMA_VERSION}');COMMIT;"
                )
        except sqlite3.DatabaseError as e:
            raise MirrorError(f"{path}: cannot be opened as a mirror ({e})") from None
        _check_mirror(self.conn, path)

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

    def commit(
        self,
        state: SourceState,
        records: Sequence[MirrorRecord],
        units: int,
        skipped: Mapping[str, int],
        date: str,
    ) -> SourceState:
        dump_date = max(state.dump_date, date)
        imported = state.imported + len(records)
        self.conn.execute("BEGIN")
        try:
            self.conn.executemany(_UPSERT, [_row(r) for r in records])
            self.conn.execute(
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
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        return SourceState(
            state.format, state.name, state.size, state.mtime, False, units, imported, dict(skipped),
            dump_date,
            state.generation,
        )  # fmt: skip

    def finish(self, state: SourceState) -> SourceState:
        self.conn.execute(
            "UPDATE sources SET complete = 1 WHERE format = ? AND name = ?", (state.format, state.name)
        )
        done = self.source(state.format, state.name)
        assert done is not None
        return done

    def sources(self) -> list[SourceState]:
        rows = self.conn.execute(f"SELECT {_SOURCE_COLUMNS} FROM sources ORDER BY format, name").fetchall()
        return [_state(r) for r in rows]

    def counts(self) -> dict[str, int]:
        return dict(self.conn.execute("SELECT format, count(*) FROM records GROUP BY format ORDER BY format"))

    def close(self) -> None:
        try:
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            self.conn.close()


def _quote(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def _any(words: Iterable[str]) -> str:
    return "norm : (" + " OR ".join(_quote(w) for w in words) + ")"


def _all(words: Iterable[str]) -> str:
    return "norm : (" + " AND ".join(_quote(w) for w in words) + ")"


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
        self._connect()  # a bad path is an error now, not at the first look-up

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "formats": self.formats, "name": self.name}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.path, self.formats, self.name = state["path"], state["formats"], state["name"]
        self._lock = threading.Lock()
        self._conn = None
        self._pid = 0

    def _connect(self) -> sqlite3.Connection:
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        if not self.path.is_file():
            raise MirrorError(f"{self.path}: no mirror there; create it with `citeaudit mirror import`")
        try:
            conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False, timeout=30)
            _check_mirror(conn, self.path)
        except sqlite3.DatabaseError as e:
            raise MirrorError(f"{self.path}: cannot be opened as a mirror ({e})") from None
        self._conn, self._pid = conn, os.getpid()
        return conn

    def incomplete(self) -> str | None:
        """The first dump file (of this index's formats) whose import did not finish, or a
        sentence saying that nothing was imported; ``None`` when the mirror is whole."""
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
        return None

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
        conn = self._connect()
        out = {}
        for word in words:
            row = conn.execute(
                "SELECT doc FROM fts_vocab WHERE term = ? AND col = 'norm'", (word,)
            ).fetchone()
            if row:
                out[word] = int(row[0])
        return out

    def _plan(self, query: WorkQuery, words: Sequence[str]) -> list[str]:
        """The index expressions a title is looked up by.

        A title that shares no word with a record is no candidate of it. Every record of the mirror
        whose title has at least one of the query's rarest words comes back while those words are
        rare enough (≤ _CAP records): with three of them, a record whose title misses two of the
        query's words is still found. A title of common words only is looked up by all its (six
        rarest) words, and by all of them but one; with a first author, by the author's name and
        the title's rarest words too."""
        df = self._frequencies(words)
        rare = sorted((w for w in words if df.get(w)), key=lambda w: (df[w], w))
        if not rare:
            return []
        plans: list[str] = []
        for n in (3, 2, 1):
            if len(rare) >= n and sum(df[w] for w in rare[:n]) <= _CAP:
                plans.append(_any(rare[:n]))
                break
        else:
            top = rare[:6]
            plans.append(_all(top))
            if len(top) > 2:
                plans.append(" OR ".join(f"({_all(top[:i] + top[i + 1 :])})" for i in range(len(top))))
        surname = query_words(query.first_author or "")
        if surname:
            plans.append(f"names : {_quote(surname[-1])} AND {_any(rare[:3])}")
        return plans

    def _search(self, query: WorkQuery, limit: int) -> list[Candidate]:
        conn = self._connect()
        title = query_words(query.title)
        words = content_words(query.title)
        if not words or limit < 1:
            return []
        rows: dict[int, tuple[Any, ...]] = {}
        for expression in self._plan(query, words):
            for row in conn.execute(
                "SELECT r.id, r.format, r.key, r.norm, r.names, r.year FROM fts CROSS JOIN records r "
                "ON r.id = fts.rowid WHERE fts MATCH ? LIMIT ?",
                (expression, _CAP),
            ):
                rows.setdefault(row[0], row)
        scored: list[Scored] = []
        for rowid, fmt, key, norm, names, year in rows.values():
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
            raw = json.loads(data[s.rowid])
            arxiv = raw.pop("_arxiv", None)
            _, fmt, key = s.sort_key
            out.append(Candidate(f"mirror:{fmt}", key, Record.from_json(raw), arxiv))
        return out


def open_mirror(path: Path, formats: Sequence[str] | None = None) -> SqliteMirror:
    """The mirror at ``path`` as a search index (all its dumps, or those of ``formats``).
    Raises :class:`MirrorError` when there is no mirror there."""
    return SqliteMirror(path, formats)


def mirror_status(path: Path) -> tuple[list[SourceState], dict[str, int], int]:
    """Every dump file's progress, the records by format and the bytes on disk of the mirror at
    ``path`` (read-only)."""
    index = SqliteMirror(path)
    conn = index._connect()
    rows = conn.execute(f"SELECT {_SOURCE_COLUMNS} FROM sources ORDER BY format, name").fetchall()
    counts = dict(conn.execute("SELECT format, count(*) FROM records GROUP BY format ORDER BY format"))
    size = sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())
    conn.close()
    return [_state(r) for r in rows], counts, size
