"""The evidence store (seed 002): source snapshots as revisions, on SQLite by
default or on PostgreSQL when given a ``postgresql://`` URL — the same code.

* A source is registered by a trusted caller (id, title, locator, kind); its
  text is ingested as revisions. Text is newline-normalised and identified by
  the SHA-256 of its UTF-8 bytes. The same text as the current revision
  creates nothing and keeps the time it first entered the store; new text
  increments the revision.
* Removal keeps the revision counter: re-adding the same text later gets a new
  revision, so a citation of the removed one never comes back to life.
* Every query is scoped by tenant and user; a scope can only ever see its own
  rows, because no query is written without both in its WHERE clause.
* Every write runs in a transaction that first takes the write lock (SQLite's
  ``BEGIN IMMEDIATE``; on PostgreSQL the source's row, ``FOR UPDATE``), and the
  next revision number is read under it: parallel adds to one source all land,
  numbered one after another. A writer that cannot get the lock within
  ``StoreLimits.lock_wait_seconds`` stores nothing and gets :class:`StoreConflict`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Column,
    Connection,
    Engine,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    and_,
    create_engine,
    event,
    func,
    select,
)
from sqlalchemy.exc import IntegrityError, OperationalError, SQLAlchemyError

from citeaudit.errors import SourceError
from citeaudit.sources.interface import Revision, SourceLookup, StoredSource, digest_text, normalize_newlines
from citeaudit.store.schema import schema_lock

__all__ = [
    "EvidenceStore",
    "Revision",
    "Scope",
    "ScopedLookup",
    "StoreConflict",
    "StoreError",
    "StoreLimits",
    "StoredSource",
    "digest_text",
    "open_store",
]

_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$")
_SCOPE_PART_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class StoreError(SourceError):
    """A store operation was refused or failed."""


class StoreConflict(StoreError):
    """Another writer held the source for longer than the store waits; nothing was stored."""


class _Raced(StoreConflict):
    """Another writer created the same row between our look and our insert (PostgreSQL)."""


# SQLSTATEs of a lock that was not granted: lock_not_available, serialization_failure,
# deadlock_detected.
_LOCK_STATES = frozenset({"55P03", "40001", "40P01"})


def _lock_failure(error: SQLAlchemyError) -> bool:
    if not isinstance(error, OperationalError):
        return False
    if getattr(error.orig, "sqlstate", None) in _LOCK_STATES:
        return True
    return "database is locked" in str(error.orig) or "database table is locked" in str(error.orig)


def utc_now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


@dataclass(frozen=True, slots=True)
class Scope:
    tenant: str
    user: str

    @classmethod
    def parse(cls, value: str) -> Scope:
        """``TENANT/USER``."""
        tenant, sep, user = value.partition("/")
        if not sep or not _SCOPE_PART_RE.match(tenant) or not _SCOPE_PART_RE.match(user):
            raise StoreError(f"scope {value!r} is not TENANT/USER (letters, digits, _ . -)")
        return cls(tenant, user)

    def __str__(self) -> str:
        return f"{self.tenant}/{self.user}"


@dataclass(frozen=True, slots=True)
class StoreLimits:
    max_sources_per_scope: int = 100_000
    max_text_bytes: int = 64 * 1024 * 1024
    lock_wait_seconds: float = 10.0  # how long a write waits for another writer of the store


_metadata = MetaData()
_sources = Table(
    "citeaudit_sources",
    _metadata,
    Column("tenant", String(64), primary_key=True),
    Column("user_id", String(64), primary_key=True),
    Column("source_id", String(200), primary_key=True),
    Column("title", Text, nullable=False),
    Column("locator", Text, nullable=False),
    Column("kind", String(32), nullable=False),
    Column("filename", String(255), nullable=True),  # what a document server calls it (MCP ingestion)
    Column("revision_counter", Integer, nullable=False),
    Column("current_revision", Integer, nullable=True),
)
_revisions = Table(
    "citeaudit_revisions",
    _metadata,
    Column("tenant", String(64), primary_key=True),
    Column("user_id", String(64), primary_key=True),
    Column("source_id", String(200), primary_key=True),
    Column("revision", Integer, primary_key=True),
    Column("digest", String(64), nullable=False),
    Column("size", Integer, nullable=False),
    Column("entered_at", String(40), nullable=False),
    Column("text", Text, nullable=False),
)


def _url(target: str) -> str:
    if target.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + target.split("://", 1)[1]
    if target.startswith(("postgresql+", "sqlite:")):
        return target
    return f"sqlite:///{target}"


def open_store(
    target: str,
    limits: StoreLimits | None = None,
    clock: Callable[[], str] = utc_now,
    read_only: bool = False,
    write_ahead: bool = False,
) -> EvidenceStore:
    """A file path (SQLite) or a ``postgresql://`` URL; read-only when asked, enforced by the
    database. ``write_ahead``: a SQLite file is put in write-ahead-log mode (the HTTP service)."""
    limits = limits or StoreLimits()
    wait_ms = max(1, round(limits.lock_wait_seconds * 1000))
    try:
        url = _url(target)
        if read_only and url.startswith("sqlite:///"):
            path = url[len("sqlite:///") :]
            if not Path(path).is_file():
                raise StoreError(f"{path}: no such evidence store")
            engine = create_engine(f"sqlite:///file:{path}?mode=ro&uri=true")
        elif read_only:
            engine = create_engine(url, connect_args={"options": "-c default_transaction_read_only=on"})
        else:
            engine = create_engine(url)
        if engine.dialect.name == "sqlite":
            # Wait for another writer instead of failing at once.
            event.listen(engine, "connect", lambda conn, _: conn.execute(f"PRAGMA busy_timeout = {wait_ms}"))
        if not read_only:
            if write_ahead and engine.dialect.name == "sqlite":
                _write_ahead(engine)
            with schema_lock(engine) as conn:
                _metadata.create_all(conn)
    except ModuleNotFoundError as e:
        raise StoreError(f"{e.name} is needed for this store: pip install 'citeaudit[postgres]'") from None
    except SQLAlchemyError as e:
        raise StoreError(f"cannot open the evidence store: {_reason(e)}") from None
    return EvidenceStore(engine, limits, clock)


def _write_ahead(engine: Engine) -> None:
    """A SQLite store in write-ahead-log mode (kept by the file, for every later opener): readers
    and the one writer no longer block each other — several processes of the HTTP service write
    one store — and a commit syncs the log once instead of the rollback journal and the database
    (0.21 ms against 0.74 ms a commit on the machine of bench/RESULTS.md). The WAL and its index
    sit beside the database while it is open (``<file>-wal``, ``<file>-shm``; a read-only opener
    cannot remove them); an in-memory database keeps its own mode. Only the service asks for it,
    so a store it never served keeps SQLite's rollback journal."""
    with engine.connect() as conn:
        mode = conn.exec_driver_sql("PRAGMA journal_mode").scalar()
        if str(mode).lower() not in ("wal", "memory"):
            conn.exec_driver_sql("PRAGMA journal_mode = WAL")


def _reason(error: SQLAlchemyError) -> str:
    return str(getattr(error, "orig", None) or error).strip().splitlines()[0]


class EvidenceStore:
    def __init__(self, engine: Engine, limits: StoreLimits, clock: Callable[[], str]) -> None:
        self.engine = engine
        self.limits = limits
        self.clock = clock

    # -- scoping: every statement goes through these two ----------------------

    @staticmethod
    def _source_where(scope: Scope, source_id: str | None = None) -> Any:
        cond = and_(_sources.c.tenant == scope.tenant, _sources.c.user_id == scope.user)
        return cond if source_id is None else and_(cond, _sources.c.source_id == source_id)

    @staticmethod
    def _revision_where(scope: Scope, source_id: str) -> Any:
        return and_(
            _revisions.c.tenant == scope.tenant,
            _revisions.c.user_id == scope.user,
            _revisions.c.source_id == source_id,
        )

    # -- writes (trusted callers only) ------------------------------------------

    def register(
        self, scope: Scope, source_id: str, title: str, locator: str, kind: str, filename: str | None = None
    ) -> None:
        """Register a source, or update its description; the revisions stay.

        ``filename`` is the host's mapping for document servers: an MCP read is
        ingested as this source only when it returns exactly this file.
        """
        if not _ID_RE.match(source_id):
            raise StoreError(f"source id {source_id!r} must be 1-200 of letters, digits, _ . : - ")
        for name, value in (("title", title), ("locator", locator), ("kind", kind)):
            if not value.strip() or len(value) > 1000:
                raise StoreError(f"{name} must be non-empty and at most 1000 characters")
        try:
            self._register(scope, source_id, title, locator, kind, filename)
        except _Raced:  # created by another writer since we looked: now it is an update
            self._register(scope, source_id, title, locator, kind, filename)

    def _register(
        self, scope: Scope, source_id: str, title: str, locator: str, kind: str, filename: str | None
    ) -> None:
        with self._write(scope, source_id) as conn:
            row = conn.execute(
                select(_sources.c.source_id).where(self._source_where(scope, source_id))
            ).first()
            if row is not None:
                conn.execute(
                    _sources.update()
                    .where(self._source_where(scope, source_id))
                    .values(title=title, locator=locator, kind=kind, filename=filename)
                )
                return
            count = conn.execute(
                select(func.count()).select_from(_sources).where(self._source_where(scope))
            ).scalar()
            if (count or 0) >= self.limits.max_sources_per_scope:
                raise StoreError(f"scope {scope} already has {count} sources, the limit")
            conn.execute(
                _sources.insert().values(
                    tenant=scope.tenant,
                    user_id=scope.user,
                    source_id=source_id,
                    title=title,
                    locator=locator,
                    kind=kind,
                    filename=filename,
                    revision_counter=0,
                    current_revision=None,
                )
            )

    def ingest(self, scope: Scope, source_id: str, text: str) -> tuple[Revision, bool]:
        """Store ``text`` as the current revision; (revision, whether it is new)."""
        text = normalize_newlines(text)
        size = len(text.encode("utf-8"))
        if not text.strip():
            raise StoreError("the text is empty")
        if size > self.limits.max_text_bytes:
            raise StoreError(f"the text is {size} bytes, over the limit of {self.limits.max_text_bytes}")
        digest = digest_text(text)
        with self._write(scope, source_id) as conn:
            source = conn.execute(
                select(_sources.c.revision_counter, _sources.c.current_revision)
                .where(self._source_where(scope, source_id))
                .with_for_update()
            ).first()
            if source is None:
                raise StoreError(f"source {source_id!r} is not registered in scope {scope}")
            if source.current_revision is not None:
                current = self._revision(conn, scope, source_id, source.current_revision, with_text=False)
                if current is not None and current.digest == digest:
                    return current, False
            revision = source.revision_counter + 1
            entered_at = self.clock()
            conn.execute(
                _revisions.insert().values(
                    tenant=scope.tenant,
                    user_id=scope.user,
                    source_id=source_id,
                    revision=revision,
                    digest=digest,
                    size=size,
                    entered_at=entered_at,
                    text=text,
                )
            )
            conn.execute(
                _sources.update()
                .where(self._source_where(scope, source_id))
                .values(revision_counter=revision, current_revision=revision)
            )
        return Revision(source_id, revision, digest, entered_at, size), True

    def remove(self, scope: Scope, source_id: str) -> None:
        """Withdraw the current revision; the counter stays, so nothing revives."""
        with self._write(scope, source_id) as conn:
            result = conn.execute(
                _sources.update().where(self._source_where(scope, source_id)).values(current_revision=None)
            )
            if result.rowcount == 0:
                raise StoreError(f"source {source_id!r} is not registered in scope {scope}")

    # -- reads -------------------------------------------------------------------

    def get(self, scope: Scope, source_id: str, with_text: bool = True) -> StoredSource | None:
        return self.fetch(scope, [source_id], with_text).get(source_id)

    def fetch(
        self, scope: Scope, source_ids: Iterable[str], with_text: bool = True
    ) -> dict[str, StoredSource]:
        """The registered sources among ``source_ids`` with their current revisions."""
        wanted = sorted(set(source_ids))
        out: dict[str, StoredSource] = {}
        with self._connect() as conn:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                rows = conn.execute(
                    select(_sources).where(self._source_where(scope), _sources.c.source_id.in_(chunk))
                ).all()
                for row in rows:
                    current = None
                    if row.current_revision is not None:
                        current = self._revision(conn, scope, row.source_id, row.current_revision, with_text)
                    out[row.source_id] = StoredSource(
                        row.source_id,
                        row.title,
                        row.locator,
                        row.kind,
                        row.revision_counter,
                        current,
                        row.filename,
                    )
        return out

    def list(self, scope: Scope) -> list[StoredSource]:
        with self._connect() as conn:
            ids = conn.execute(
                select(_sources.c.source_id).where(self._source_where(scope)).order_by(_sources.c.source_id)
            ).scalars()
            ids = list(ids)
        found = self.fetch(scope, ids, with_text=False)
        return [found[i] for i in ids]

    def revision(self, scope: Scope, source_id: str, revision: int) -> Revision | None:
        """Any revision ever stored, removed ones included (for export and audit)."""
        with self._connect() as conn:
            return self._revision(conn, scope, source_id, revision, with_text=True)

    def _revision(
        self, conn: Any, scope: Scope, source_id: str, revision: int, with_text: bool
    ) -> Revision | None:
        columns = [_revisions.c.revision, _revisions.c.digest, _revisions.c.entered_at, _revisions.c.size]
        if with_text:
            columns.append(_revisions.c.text)
        row = conn.execute(
            select(*columns).where(self._revision_where(scope, source_id), _revisions.c.revision == revision)
        ).first()
        if row is None:
            return None
        text = row.text if with_text else None
        return Revision(source_id, row.revision, row.digest, row.entered_at, row.size, text)

    # -- plumbing ------------------------------------------------------------------

    @contextmanager
    def _write(self, scope: Scope, source_id: str) -> Iterator[Connection]:
        """A write transaction that holds the write lock from its first statement: the revision
        counter read in it is the one the insert after it is numbered from. Commits on exit."""
        try:
            with self.engine.connect() as conn:
                if self.engine.dialect.name == "sqlite":
                    # pysqlite would open the transaction only at the first INSERT, after the read.
                    conn.exec_driver_sql("BEGIN IMMEDIATE")
                elif self.engine.dialect.name == "postgresql":
                    wait_ms = max(1, round(self.limits.lock_wait_seconds * 1000))
                    conn.exec_driver_sql(f"SET LOCAL lock_timeout = {wait_ms}")
                yield conn
                conn.commit()
        except IntegrityError:
            raise _Raced(self._conflict(scope, source_id)) from None
        except SQLAlchemyError as e:
            if _lock_failure(e):
                raise StoreConflict(self._conflict(scope, source_id)) from None
            raise StoreError(f"evidence store: {_reason(e)}") from None

    def _conflict(self, scope: Scope, source_id: str) -> str:
        return (
            f"source {source_id!r} in scope {scope} is being changed by another writer and stayed "
            f"locked for {self.limits.lock_wait_seconds:g} s; nothing was stored, try again"
        )

    def _connect(self) -> Any:
        return _Translate(self.engine.connect())

    def close(self) -> None:
        self.engine.dispose()


class _Translate:
    """Turns driver errors into StoreError at the boundary."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __enter__(self) -> Any:
        try:
            return self.inner.__enter__()
        except SQLAlchemyError as e:
            raise StoreError(f"evidence store: {_reason(e)}") from None

    def __exit__(self, kind: Any, error: Any, trace: Any) -> Any:
        try:
            suppressed = self.inner.__exit__(kind, error, trace)
        except SQLAlchemyError as e:
            raise StoreError(f"evidence store: {_reason(e)}") from None
        if isinstance(error, SQLAlchemyError):
            raise StoreError(f"evidence store: {_reason(error)}") from None
        return suppressed


class ScopedLookup(SourceLookup):
    """The read-only view the audit gets: one scope, no writes."""

    def __init__(self, store: EvidenceStore, scope: Scope) -> None:
        self._store = store
        self._scope = scope

    def fetch(self, source_ids: Iterable[str]) -> dict[str, StoredSource]:
        return self._store.fetch(self._scope, source_ids)
