"""The semantic stage inside an audit: which claims a judge sees, and with
which fragments.

Only claims that passed every deterministic check are judged (a judge's
verdict must never hide a deterministic error), and each sees only the
quotes of its own citations, exactly as they were verified in the source.
A claim whose citations carry no quote (a DOI with metadata only) has
nothing to judge and gets no verdict.
"""

from __future__ import annotations

from citeaudit.model import Citation, ClaimStatus, Report, Verdict
from citeaudit.semantic.interface import Fragment, Judge

__all__ = ["fragment_of", "fragments_by_claim", "judge_report"]


def fragment_of(citation_id: str | None, citation: Citation | None) -> Fragment | None:
    """What a judge sees of one verified citation: its quote, if it has one."""
    if citation is None or not citation.quote or not citation.quote.strip():
        return None
    source = citation.source
    years = (source.cited_year,) if source.cited_year is not None else ()
    return Fragment(citation_id or citation.id, citation.quote, years)


def fragments_by_claim(report: Report) -> dict[str, list[Fragment]]:
    """The verified quotes of each claim awaiting an entailment check."""
    waiting = {c.id for c in report.claims if c.status is ClaimStatus.REQUIRES_ENTAILMENT_CHECK}
    fragments: dict[str, list[Fragment]] = {claim_id: [] for claim_id in sorted(waiting)}
    for row in report.rows:
        if row.claim_id not in waiting or row.errors:
            continue
        fragment = fragment_of(row.citation_id, row.citation)
        if fragment is not None:
            fragments[row.claim_id].append(fragment)
    return {claim_id: found for claim_id, found in fragments.items() if found}


def judge_report(report: Report, judge: Judge) -> dict[str, Verdict]:
    """One verdict per claim with fragments, all asked of the judge in one
    batch (``nli`` batches them, ``llm`` asks its server for each)."""
    texts = {c.id: c.text for c in report.submission.claims}
    fragments = fragments_by_claim(report)
    claim_ids = list(fragments)
    verdicts = judge.judge_many([(texts[claim_id], fragments[claim_id]) for claim_id in claim_ids])
    return dict(zip(claim_ids, verdicts, strict=True))
