"""The HTTP service's reports per tenant, in the evidence store's database (reviews are in
:class:`citeaudit.store.reviews.ReviewBook`).

A report is stored once per (tenant, digest): the insert itself skips one already there
(``ON CONFLICT DO NOTHING``), so several service processes storing the same report at once
store it once, where a look-then-insert let two of them both insert and one fail."""

from __future__ import annotations

import threading
from typing import Any

from citeaudit.model import Report
from citeaudit.store.evidence import EvidenceStore, Scope
from citeaudit.store.schema import schema_lock
from citeaudit.store.trail import Trail

__all__ = ["ReportRecords"]


class ReportRecords:
    """Reports per tenant, stored once per digest."""

    def __init__(self, store: EvidenceStore) -> None:
        from sqlalchemy import Column, MetaData, String, Table, Text, select

        self.store = store
        meta = MetaData()
        self.reports = Table(
            "citeaudit_reports", meta,
            Column("tenant", String(64), primary_key=True), Column("digest", String(64), primary_key=True),
            Column("body", Text, nullable=False),
        )  # fmt: skip
        with schema_lock(store.engine) as conn:
            meta.create_all(conn)
        self.lock = threading.Lock()  # SQLite: one writer at a time within this process
        # Built once: executed with parameters, they are compiled once (SQLAlchemy's statement cache).
        self._insert = _insert_once(store.engine.dialect.name, self.reports)
        self._exists = select(self.reports.c.digest).where(
            self.reports.c.tenant == _param("tenant"), self.reports.c.digest == _param("digest")
        )
        self._body = select(self.reports.c.body).where(
            self.reports.c.tenant == _param("tenant"), self.reports.c.digest == _param("digest")
        )

    def save_report(self, tenant: str, digest: str, body: str) -> None:
        with self.lock, self.store.engine.begin() as conn:
            self._save(conn, tenant, digest, body)

    def save_audit(
        self, tenant: str, digest: str, body: str, trail: Trail, scope: Scope, report: Report
    ) -> int:
        """The report (once per digest) and the audit's trail record, in one transaction: one
        commit per audit, and never a report without its record. Returns the record's id."""
        with self.lock, self.store.engine.begin() as conn:
            self._save(conn, tenant, digest, body)
            return trail.append_in(conn, scope, report)

    def _save(self, conn: Any, tenant: str, digest: str, body: str) -> None:
        row = {"tenant": tenant, "digest": digest, "body": body}
        if self._insert is not None:
            conn.execute(self._insert, row)
        elif conn.execute(self._exists, row).first() is None:  # pragma: no cover - neither dialect
            conn.execute(self.reports.insert(), row)

    def report(self, tenant: str, digest: str) -> str | None:
        with self.store.engine.connect() as conn:
            row = conn.execute(self._body, {"tenant": tenant, "digest": digest}).first()
        return None if row is None else str(row.body)


def _param(name: str) -> Any:
    from sqlalchemy import bindparam

    return bindparam(name)


def _insert_once(dialect: str, table: Any) -> Any:
    """An INSERT that skips a row whose key is there already, on the dialects that have one."""
    if dialect == "sqlite":
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        return sqlite_insert(table).on_conflict_do_nothing()
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as postgresql_insert

        return postgresql_insert(table).on_conflict_do_nothing()
    return None
