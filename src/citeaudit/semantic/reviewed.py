"""Training pairs from people's reviews: a reviewer's verdict on a claim is a label.

A review is bound to the digest of the submission it was made on and names a
claim; the claim's text and the quotes the judge saw come from the report of
that submission (the report the reviewer was shown). Only claims that passed
every deterministic check and have verified quotes become pairs, since
those are the only claims a judge ever sees; the latest review of a claim
counts, as it does in ``check --reviews``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from citeaudit.errors import InputError
from citeaudit.model import Review
from citeaudit.semantic.datasets import Pair
from citeaudit.semantic.interface import Fragment, VerdictLabel

__all__ = ["report_pairs", "reviewed_pairs"]

_LABEL: dict[str, VerdictLabel] = {
    "supported": "entailed",
    "insufficient": "insufficient",
    "contradicted": "contradicted",
}


def _fragments(report: dict[str, Any], claim_id: str) -> tuple[Fragment, ...]:
    """What the judge saw of a claim: the quotes of its passing citations, in report order."""
    out: list[Fragment] = []
    for row in report["results"]:
        quote = row.get("quote")
        if row.get("claim") != claim_id or row["errors"] or not isinstance(quote, str) or not quote.strip():
            continue
        source = row.get("source") or {}
        year = source.get("year") if source.get("kind") == "doi" else None
        out.append(
            Fragment(str(row.get("citation") or claim_id), quote, (year,) if isinstance(year, int) else ())
        )
    return tuple(out)


def report_pairs(path: Path, report: dict[str, Any], reviews: Sequence[Review]) -> list[Pair]:
    """The labelled pairs of one report's reviewed claims that a judge would see."""
    claims = {c["id"]: c for c in report["claims"]}
    pairs: list[Pair] = []
    for review in reviews:
        claim = claims.get(review.claim_id)
        if claim is None:
            raise InputError(
                str(path), "$.claims", f"reviewed claim {review.claim_id!r} is not in the report"
            )
        if claim["status"] != "requires_entailment_check" or not claim.get("text"):
            continue  # a claim that failed a check is never judged, so it teaches the judge nothing
        fragments = _fragments(report, review.claim_id)
        if fragments:
            where = f"{review.submission_sha256[:12]}/{review.claim_id}"
            pairs.append(Pair(where, str(claim["text"]), fragments, _LABEL[review.verdict]))
    return pairs


def reviewed_pairs(store: str, scope: str, reports: Sequence[Path]) -> tuple[list[Pair], dict[str, Any]]:
    """Every reviewed claim of these reports in the scope's tenant, and the model file's record of them."""
    from citeaudit.report.read import load_report
    from citeaudit.store.evidence import Scope, open_store
    from citeaudit.store.reviews import ReviewBook

    tenant = Scope.parse(scope).tenant
    book = ReviewBook(open_store(store))
    pairs: list[Pair] = []
    for path in reports:
        report = load_report(path)
        digest = report.get("submission_sha256")
        if not isinstance(digest, str) or len(digest) != 64:
            raise InputError(str(path), "$.submission_sha256", "missing: the report predates reviews")
        pairs += report_pairs(path, report, book.latest_for(tenant, digest))
    canonical = json.dumps(
        sorted([p.claim, [[f.citation_id, f.text] for f in p.fragments], p.gold] for p in pairs),
        ensure_ascii=False,
    )
    record = {
        "dataset": "reviews",
        "pairs": len(pairs),
        "reports": len(reports),
        "sha256": hashlib.sha256(canonical.encode("utf-8")).hexdigest(),
    }
    return pairs, record
