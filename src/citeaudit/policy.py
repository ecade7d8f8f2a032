"""Statuses and the decision: pure functions over a report, the semantic
verdicts of its claims and the reviews people recorded.

No averaging: one deterministic error rejects the answer whatever the other
claims score, and a claim without citations is never supported, whatever a
review or a judge says of it. Nothing here reads the audited input's own
words about itself: reviews and verdicts come from outside it.

Per claim: ``invalid`` (a citation is wrong), ``could_not_check`` (nothing was found wrong, but a
citation could not be checked),
``unsupported`` (no citation), ``disputed`` (in a registered conflict),
``pending_review``, or a review's ``supported | insufficient | contradicted``.

Per report (seed 002): ``invalid``, ``partial``, ``needs_review``,
``reviewed_candidate``. Decision (seed 003): ``reject``, ``manual_review``,
``regenerate_or_abstain``, ``accept``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass
from typing import Literal

from citeaudit.errors import CiteauditError, ConfigError
from citeaudit.model import (
    ClaimResult,
    ClaimStatus,
    Decision,
    Outcome,
    Report,
    ReportStatus,
    Review,
    Severity,
    Verdict,
    VerdictLabel,
)

__all__ = [
    "FAIL_ON",
    "Decision",
    "Review",
    "ReviewError",
    "check_review",
    "claim_states",
    "decide",
    "finalize",
    "report_status",
]

# What the exit code of an audit follows (the ``fail_on`` setting): its deterministic findings
# ("error") or the decision.
FAIL_ON = ("error", "decision")

_REVIEW_VERDICTS = ("supported", "insufficient", "contradicted")
_MAX_NOTE = 1000


class ReviewError(CiteauditError):
    """A review that cannot apply: stale, for an unknown claim, or malformed."""


def check_review(review: Review, digest: str, claim_ids: set[str]) -> None:
    """Refuse a review that is stale (recorded for another submission), names
    a claim the submission does not have, or is malformed."""
    if review.submission_sha256 != digest:
        raise ReviewError(
            f"review of claim {review.claim_id!r} by {review.reviewer} is stale: it was recorded for input "
            f"{review.submission_sha256[:12]}…, this report is of {digest[:12]}…"
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
    digest = report.submission.digest if reviews else ""  # hashing the submission once, and only if needed
    for review in reviews:
        check_review(review, digest, claim_ids)
        latest[review.claim_id] = review
    states: dict[str, str] = {}
    for claim in report.claims:
        if claim.status is ClaimStatus.INVALID:
            states[claim.id] = "invalid"
        elif claim.status is ClaimStatus.UNCHECKED:
            states[claim.id] = "could_not_check"  # not wrong: nothing was found wrong
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
    """Seed 002: invalid citations first, then gaps, weak claims and citations that could not be
    checked, then what awaits review. ``invalid`` only when something was found wrong."""
    values = set(states.values())
    # The citation list itself: a wrong citation there; one that could not be checked is no proof.
    list_wrong = any(
        f.outcome is not Outcome.UNCHECKED for row in report.rows if row.claim_id is None for f in row.errors
    )
    list_unchecked = any(row.errors for row in report.rows if row.claim_id is None)
    if list_wrong or "invalid" in values:
        return ReportStatus.INVALID
    weak = {"unsupported", "insufficient", "contradicted", "disputed", "could_not_check"}
    if report.submission.gaps or values & weak or list_unchecked:
        return ReportStatus.PARTIAL
    if "pending_review" in values:
        return ReportStatus.NEEDS_REVIEW
    return ReportStatus.REVIEWED_CANDIDATE


_FROM_REVIEW: dict[str, VerdictLabel] = {
    "supported": "entailed",
    "insufficient": "insufficient",
    "contradicted": "contradicted",
}


@dataclass(frozen=True, slots=True)
class Policy:
    """The cases a team may weigh differently; the defaults are seed 003's strict policy.

    Nothing here can let a wrong citation through: a deterministic error
    always rejects."""

    # Nothing found wrong, but citations that could not be checked: by default a person looks.
    unchecked: Literal["manual_review", "regenerate_or_abstain", "reject"] = (
        "manual_review"  # unchecked citations
    )
    unknown: Literal["manual_review", "regenerate_or_abstain"] = "manual_review"  # no verdict either way
    require_review: bool = False  # a judge's "entailed" alone is not enough: a person must confirm
    # A judge's "entailed" on passages it was given from the cited texts (no quote was verified):
    # a judged support, not a proved one, so by default a person looks before the answer is accepted.
    retrieved: Literal["manual_review", "accept"] = "manual_review"  # "entailed" on retrieved passages
    # The probability of support an "entailed" verdict needs for the answer to be accepted: stricter
    # than the judge's own band, so a verdict near its edge goes to a person (an answer of one claim
    # too). A verdict with no probability is held to its confidence; one with neither (``rules``)
    # counts as it is.
    accept_probability: float = 0.9  # the probability of support an "entailed" needs to accept (0.5–1)

    def to_json(self) -> dict[str, object]:
        return {
            "accept_probability": self.accept_probability,
            "require_review": self.require_review,
            "retrieved": self.retrieved,
            "unchecked": self.unchecked,
            "unknown": self.unknown,
        }

    @classmethod
    def from_table(cls, table: Mapping[str, object], where: str) -> Policy:
        """From a configuration table, naming the setting at fault."""
        allowed: dict[str, tuple[object, ...]] = {
            "unchecked": ("manual_review", "regenerate_or_abstain", "reject"),
            "unknown": ("manual_review", "regenerate_or_abstain"),
            "require_review": (True, False),
            "retrieved": ("manual_review", "accept"),
        }
        for key, value in table.items():
            if key == "accept_probability":
                if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.5 <= value <= 1:
                    raise ConfigError(
                        f"{where}: policy.{key}: expected a number from 0.5 to 1, got {value!r}"
                    )
                continue
            if key not in allowed:
                raise ConfigError(f"{where}: policy.{key}: unknown setting")
            if value not in allowed[key] or isinstance(value, bool) != (key == "require_review"):
                choices = ", ".join(str(v).lower() for v in allowed[key])
                raise ConfigError(f"{where}: policy.{key}: expected one of {choices}, got {value!r}")
        values = dict(table)
        if "accept_probability" in values:
            values["accept_probability"] = float(values["accept_probability"])  # type: ignore[arg-type]
        return cls(**values)  # type: ignore[arg-type]


def decide(
    report: Report,
    verdicts: Mapping[str, VerdictLabel],
    reviews: Sequence[Review] = (),
    policy: Policy = Policy(),
    retrieved: Set[str] = frozenset(),
    scores: Mapping[str, float] | None = None,
) -> Decision:
    """Seed 003's policy. A review outranks a judge's verdict for its claim; a
    claim with neither counts as ``unknown``. ``retrieved``: the claims judged on passages
    of the cited texts rather than on verified quotes; ``scores``: each verdict's probability
    of support (or confidence), where the judge gives one."""
    return _decide(report, claim_states(report, reviews), verdicts, policy, retrieved, scores or {})


def _decide(
    report: Report,
    states: Mapping[str, str],
    verdicts: Mapping[str, VerdictLabel],
    policy: Policy,
    retrieved: Set[str] = frozenset(),
    scores: Mapping[str, float] | None = None,
) -> Decision:
    # One pass over the findings: what Report.has_errors and .has_unchecked would each make.
    outcomes = {f.outcome for r in report.rows for f in r.findings if f.severity is Severity.ERROR}
    wrong = bool(outcomes - {Outcome.UNCHECKED}) or any(
        c.status is ClaimStatus.INVALID for c in report.claims
    )
    if wrong or (Outcome.UNCHECKED in outcomes and policy.unchecked == "reject"):
        return Decision.REJECT
    to_person = "disputed" in states.values()
    effective: list[VerdictLabel] = []
    for claim_id, state in states.items():
        if state == "unsupported":
            effective.append("insufficient")
        elif state in _FROM_REVIEW:
            effective.append(_FROM_REVIEW[state])
        elif state == "could_not_check":  # nothing wrong, not all checked: as the policy says
            if policy.unchecked == "regenerate_or_abstain":
                effective.append("insufficient")
            else:
                to_person = True
        else:
            verdict = verdicts.get(claim_id, "unknown")
            if verdict == "entailed" and claim_id in retrieved and policy.retrieved == "manual_review":
                to_person = True  # judged on retrieved passages: a person confirms the support
            score = (scores or {}).get(claim_id)
            if verdict == "entailed" and score is not None and score < policy.accept_probability:
                to_person = True  # entailed, but not surely enough to accept without a person
            effective.append("unknown" if verdict == "entailed" and policy.require_review else verdict)
    to_person |= "contradicted" in effective or ("unknown" in effective and policy.unknown == "manual_review")
    if to_person:
        return Decision.MANUAL_REVIEW
    if "insufficient" in effective or "unknown" in effective:
        return Decision.REGENERATE_OR_ABSTAIN
    if effective and all(v == "entailed" for v in effective):
        return Decision.ACCEPT
    # Nothing wrong and no claim to accept (an answer with no claims): nothing to accept either.
    return Decision.REGENERATE_OR_ABSTAIN


def finalize(
    report: Report,
    verdicts: Mapping[str, Verdict],
    reviews: Sequence[Review] = (),
    policy: Policy = Policy(),
) -> Report:
    """The report with the judge's verdicts on its claims, the reviews that
    apply, and the report status and decision they lead to."""
    states = claim_states(report, reviews)  # raises ReviewError for a stale or malformed review
    claims = tuple(
        ClaimResult(c.id, c.kind, c.status, c.citation_ids, verdicts.get(c.id), states[c.id])
        for c in report.claims
    )
    labels = {claim_id: v.label for claim_id, v in verdicts.items()}
    retrieved = {claim_id for claim_id, v in verdicts.items() if v.basis == "retrieved"}
    scores = {
        claim_id: score
        for claim_id, v in verdicts.items()
        if (score := v.probability if v.probability is not None else v.confidence) is not None
    }
    # Built directly, not with dataclasses.replace, which looks up the fields on every call.
    return Report(
        report.submission,
        report.rows,
        claims,
        report_status(report, states),
        report.settings,
        report.checker_version,
        _decide(report, states, labels, policy, retrieved, scores),
        tuple(reviews),
    )
