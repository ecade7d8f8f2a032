"""Review records (seed 002 §4), in the evidence store's database.

A review is a person's verdict on one claim of one exact submission: it is
bound to the submission's canonical digest, so any change to the answer
leaves the old reviews behind. Records are append-only (the database
refuses an UPDATE); a later review of the same claim is a new record, and
the latest counts. Reviews are kept per tenant: the reviewer is usually not
the user whose agent wrote the answer. Only trusted entry points write here
(``citeaudit review``, the HTTP API's reviewer role); nothing in an audited
input can.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Column, Integer, MetaData, String, Table, Text, bindparam, select
from sqlalchemy.exc import SQLAlchemyError

from citeaudit.model import Review
from citeaudit.store.evidence import EvidenceStore, StoreError
from citeaudit.store.schema import schema_lock
from citeaudit.store.trail import make_append_only

__all__ = ["ReviewBook", "ReviewRecord"]

_meta = MetaData()
_reviews = Table(
    "citeaudit_review_log",
    _meta,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("tenant", String(64), nullable=False),
    Column("submission_sha256", String(64), nullable=False, index=True),
    Column("claim_id", String(200), nullable=False),
    Column("verdict", String(16), nullable=False),
    Column("note", Text, nullable=False),
    Column("reviewer", String(200), nullable=False),
    Column("recorded_at", String(40), nullable=False),
)
# Built once: executed with parameters, it is compiled once (SQLAlchemy's statement cache); the
# service runs it before every audit.
_LOG_FOR = (
    select(_reviews)
    .where(_reviews.c.tenant == bindparam("tenant"), _reviews.c.submission_sha256 == bindparam("digest"))
    .order_by(_reviews.c.id)
)


@dataclass(frozen=True, slots=True)
class ReviewRecord:
    """One entry of the review log, as it was appended."""

    id: int
    recorded_at: str
    review: Review


class ReviewBook:
    def __init__(self, store: EvidenceStore) -> None:
        self._engine = store.engine
        self._clock = store.clock
        try:
            with schema_lock(self._engine) as conn:
                _meta.create_all(conn)
                make_append_only(conn, "citeaudit_review_log")
        except SQLAlchemyError as e:
            raise StoreError(f"cannot open the review records: {e}") from None

    def record(self, tenant: str, review: Review) -> int:
        """Append one review; returns its record id."""
        with self._engine.begin() as conn:
            result = conn.execute(
                _reviews.insert().values(
                    tenant=tenant,
                    submission_sha256=review.submission_sha256,
                    claim_id=review.claim_id,
                    verdict=review.verdict,
                    note=review.note,
                    reviewer=review.reviewer,
                    recorded_at=self._clock(),
                )
            )
            key = result.inserted_primary_key
            assert key is not None  # an INSERT always has one
            return int(key[0])

    def log_for(self, tenant: str, submission_sha256: str) -> list[ReviewRecord]:
        """Every review of that submission in this tenant, oldest first (the latest per claim counts)."""
        with self._engine.connect() as conn:
            rows = conn.execute(_LOG_FOR, {"tenant": tenant, "digest": submission_sha256}).all()
        return [
            ReviewRecord(
                r.id, r.recorded_at, Review(r.submission_sha256, r.claim_id, r.verdict, r.note, r.reviewer)
            )
            for r in rows
        ]

    def latest_for(self, tenant: str, submission_sha256: str) -> list[Review]:
        """The review that counts for each claim, in claim order: what a report shows."""
        latest = {r.review.claim_id: r.review for r in self.log_for(tenant, submission_sha256)}
        return [latest[claim_id] for claim_id in sorted(latest)]
