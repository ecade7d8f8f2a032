"""The HTTP service's reports per tenant, in the evidence store's database (reviews are in
:class:`citeaudit.store.reviews.ReviewBook`)."""

from __future__ import annotations

import threading

from citeaudit.store.evidence import EvidenceStore
from citeaudit.store.schema import schema_lock

__all__ = ["ReportRecords"]


class ReportRecords:
    """Reports per tenant, stored once per digest."""

    def __init__(self, store: EvidenceStore) -> None:
        from sqlalchemy import Column, MetaData, String, Table, Text

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

    def save_report(self, tenant: str, digest: str, body: str) -> None:
        from sqlalchemy import select

        with self.lock, self.store.engine.begin() as conn:
            exists = conn.execute(
                select(self.reports.c.digest).where(
                    self.reports.c.tenant == tenant, self.reports.c.digest == digest
                )
            ).first()
            if exists is None:
                conn.execute(self.reports.insert().values(tenant=tenant, digest=digest, body=body))

    def report(self, tenant: str, digest: str) -> str | None:
        from sqlalchemy import select

        with self.store.engine.connect() as conn:
            row = conn.execute(
                select(self.reports.c.body).where(
                    self.reports.c.tenant == tenant, self.reports.c.digest == digest
                )
            ).first()
        return None if row is None else str(row.body)
