"""The semantic stage inside an audit: which claims a judge sees, and with
which fragments.

Only claims that passed every deterministic check are judged (a judge's
verdict must never hide a deterministic error), and each sees only the
quotes of its own citations, exactly as they were verified in the source.
A claim whose citations carry no quote (a DOI with metadata only) has
nothing to judge and gets no verdict.
"""

from __future__ import annotations

from citeaudit.model import ClaimStatus, Report, Verdict
from citeaudit.parallel import run_items
from citeaudit.semantic.judge import Fragment, Judge
from citeaudit.semantic.rules import RulesJudge

__all__ = ["fragments_by_claim", "judge_report"]


def fragments_by_claim(report: Report) -> dict[str, list[Fragment]]:
    """The verified quotes of each claim awaiting an entailment check."""
    waiting = {c.id for c in report.claims if c.status is ClaimStatus.REQUIRES_ENTAILMENT_CHECK}
    fragments: dict[str, list[Fragment]] = {claim_id: [] for claim_id in sorted(waiting)}
    for row in report.rows:
        if row.claim_id not in waiting or row.citation is None or row.errors:
            continue
        quote = row.citation.quote
        if quote and quote.strip():
            fragments[row.claim_id].append(Fragment(row.citation_id or row.citation.id, quote))
    return {claim_id: found for claim_id, found in fragments.items() if found}


def judge_report(report: Report, judge: Judge, jobs: int = 1) -> dict[str, Verdict]:
    """One verdict per claim with fragments, all asked of the judge in one batch.

    The ``rules`` judge is plain CPU-bound Python with no state, so it is
    spread over ``jobs`` processes like the deterministic checks; the other
    backends batch (``nli``) or wait on a server (``llm``) and get the whole list."""
    texts = {c.id: c.text for c in report.submission.claims}
    fragments = fragments_by_claim(report)
    claim_ids = list(fragments)
    items = [(texts[claim_id], fragments[claim_id]) for claim_id in claim_ids]
    if isinstance(judge, RulesJudge):
        verdicts = list(run_items(lambda i: judge.judge(*items[i]), len(items), jobs))
    else:
        verdicts = judge.judge_many(items)
    return dict(zip(claim_ids, verdicts, strict=True))
