"""Review records on SQLite and PostgreSQL: append-only, the latest per claim
counts, kept per tenant and per exact submission."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from citeaudit.model import Review
from citeaudit.store.evidence import open_store
from citeaudit.store.reviews import ReviewBook

DIGEST = "a" * 64
OTHER = "b" * 64


def test_latest_review_per_claim_counts_and_nothing_is_overwritten(store_target: str) -> None:
    store = open_store(store_target)
    book = ReviewBook(store)
    book.record("acme", Review(DIGEST, "c2", "insufficient", "no source for the number", "ana"))
    book.record("acme", Review(DIGEST, "c1", "supported", "range checked", "ana"))
    book.record("acme", Review(DIGEST, "c2", "supported", "found it in section 2", "bob"))
    book.record("acme", Review(OTHER, "c1", "contradicted", "another answer", "ana"))
    book.record("globex", Review(DIGEST, "c1", "contradicted", "their own review", "eve"))
    log = book.log_for("acme", DIGEST)
    assert [(r.review.claim_id, r.review.verdict, r.review.reviewer) for r in log] == [
        ("c2", "insufficient", "ana"),
        ("c1", "supported", "ana"),
        ("c2", "supported", "bob"),
    ]
    assert [r.id for r in log] == sorted({r.id for r in log})  # oldest first, each its own record
    assert [(r.claim_id, r.verdict) for r in book.latest_for("acme", DIGEST)] == [
        ("c1", "supported"),
        ("c2", "supported"),
    ]
    assert [r.reviewer for r in book.latest_for("globex", DIGEST)] == ["eve"]
    assert book.latest_for("initech", DIGEST) == []
    with pytest.raises(SQLAlchemyError, match="append-only"), store.engine.begin() as conn:
        conn.execute(text("UPDATE citeaudit_review_log SET verdict = 'supported'"))
    assert [r.verdict for r in ReviewBook(store).latest_for("globex", DIGEST)] == ["contradicted"]
