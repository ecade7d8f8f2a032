"""Statuses and the decision: pure functions over a report, the semantic
verdicts of its claims and the reviews people recorded.

No averaging: one deterministic error rejects the answer whatever the other
claims score, and a claim without citations is never supported, whatever a
review or a judge says of it. Nothing here reads the audited input's own
words about itself: reviews and verdicts come from outside it.

Per claim: ``invalid`` (a citation is wrong or could not be checked),
``unsupported`` (no citation), ``disputed`` (in a registered conflict),
``pending_review``, or a review's ``supported | insufficient | contradicted``.

Per report (seed 002): ``invalid``, ``partial``, ``needs_review``,
``reviewed_candidate``. Decision (seed 003): ``reject``, ``manual_review``,
``regenerate_or_abstain``, ``accept``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from citeaudit.errors import CiteauditError
from citeaudit.model import ClaimStatus, Report, ReportStatus
from citeaudit.semantic.judge import VerdictLabel

__all__ = ["Decision", "Review", "ReviewError", "claim_states", "decide", "report_status"]

ReviewVerdict = Literal["supported", "insufficient", "contradicted"]
_REVIEW_VERDICTS = ("supported", "insufficient", "contradicted")
_MAX_NOTE = 1000


class Decision(StrEnum):
    REJECT = "reject"
    MANUAL_REVIEW = "manual_review"
    REGENERATE_OR_ABSTAIN = "regenerate_or_abstain"
    ACCEPT = "accept"


class ReviewError(CiteauditError):
    """A review that cannot apply: stale, for an unknown claim, or malformed."""


@dataclass(frozen=True, slots=True)
class Review:
    """A person's verdict on one claim, bound to the digest of the exact input reviewed."""

    input_sha256: str
    claim_id: str
    verdict: ReviewVerdict
    note: str
    reviewer: str


def _check(review: Review, report: Report, claim_ids: set[str]) -> None:
    digest = report.submission.input_sha256
    if review.input_sha256 != digest:
        raise ReviewError(
            f"review of claim {review.claim_id!r} by {review.reviewer} is stale: it was recorded for input "
            f"{review.input_sha256[:12]}…, this report is of {digest[:12]}…"
        )
    if review.claim_id not in claim_ids:
        raise ReviewError(f"review names claim {review.claim_id!r}, which is not in the report")
    if review.verdict not in _REVIEW_VERDICTS:
        raise ReviewError(f"review verdict {review.verdict!r} is not one of {', '.join(_REVIEW_VERDICTS)}")
    if not review.note.strip() or len(review.note) > _MAX_NOTE:
        raise ReviewError(f"review note must be non-empty and at most {_MAX_NOTE} characters")
    if not review.reviewer.strip():
        raise ReviewError("review must name its reviewer")


def claim_states(report: Report, reviews: Sequence[Review] = ()) -> dict[str, str]:
    """Each claim's status; of several reviews of one claim the last given counts."""
    claim_ids = {c.id for c in report.claims}
    latest: dict[str, Review] = {}
    for review in reviews:
        _check(review, report, claim_ids)
        latest[review.claim_id] = review
    states: dict[str, str] = {}
    for claim in report.claims:
        if claim.status in (ClaimStatus.INVALID, ClaimStatus.UNCHECKED):
            states[claim.id] = "invalid"
        elif claim.status is ClaimStatus.UNSUPPORTED:
            states[claim.id] = "unsupported"  # a review cannot make an uncited claim supported
        elif claim.status is ClaimStatus.DISPUTED:
            states[claim.id] = "disputed"
        elif claim.id in latest:
            states[claim.id] = latest[claim.id].verdict
        else:
            states[claim.id] = "pending_review"
    return states


def report_status(report: Report, states: Mapping[str, str]) -> ReportStatus:
    """Seed 002: invalid citations first, then gaps and weak claims, then what awaits review."""
    values = set(states.values())
    if report.status is ReportStatus.INVALID or "invalid" in values:
        return ReportStatus.INVALID
    if report.submission.gaps or values & {"unsupported", "insufficient", "contradicted", "disputed"}:
        return ReportStatus.PARTIAL
    if "pending_review" in values:
        return ReportStatus.NEEDS_REVIEW
    return ReportStatus.REVIEWED_CANDIDATE


_FROM_REVIEW: dict[str, VerdictLabel] = {
    "supported": "entailed",
    "insufficient": "insufficient",
    "contradicted": "contradicted",
}


def decide(report: Report, verdicts: Mapping[str, VerdictLabel], reviews: Sequence[Review] = ()) -> Decision:
    """Seed 003's policy. A review outranks a judge's verdict for its claim; a
    claim with neither counts as ``unknown``."""
    states = claim_states(report, reviews)
    if report.has_errors or report.has_unchecked or "invalid" in states.values():
        return Decision.REJECT
    effective: list[VerdictLabel] = []
    for claim_id, state in states.items():
        if state == "unsupported":
            effective.append("insufficient")
        elif state in _FROM_REVIEW:
            effective.append(_FROM_REVIEW[state])
        else:
            effective.append(verdicts.get(claim_id, "unknown"))
    if any(v in ("contradicted", "unknown") for v in effective) or "disputed" in states.values():
        return Decision.MANUAL_REVIEW
    if any(v == "insufficient" for v in effective):
        return Decision.REGENERATE_OR_ABSTAIN
    if effective and all(v == "entailed" for v in effective):
        return Decision.ACCEPT
    return Decision.REJECT
