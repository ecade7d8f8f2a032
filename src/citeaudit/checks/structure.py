"""Checks on the shape of an answer: uncited claims and the top-level
citation list of seed 003 (missing, duplicate and unknown ids)."""

from __future__ import annotations

from citeaudit.checks.codes import FindingMaker
from citeaudit.model import Citation, Claim, Finding

__all__ = ["check_uncited", "index_citations"]


def check_uncited(claim: Claim, make: FindingMaker) -> list[Finding]:
    if claim.citations or claim.citation_ids:
        return []
    return [make("E_UNCITED", "the claim cites nothing")]


def index_citations(
    citations: tuple[Citation, ...], make: FindingMaker
) -> tuple[dict[str, Citation], list[tuple[int, Finding]]]:
    """The listed citations by id (first wins), and findings by list index."""
    by_id: dict[str, Citation] = {}
    problems: list[tuple[int, Finding]] = []
    for i, citation in enumerate(citations):
        if not citation.id:
            problems.append((i, make("E_CITATION_ID_MISSING", f"citation {i} of the list has no id")))
        elif citation.id in by_id:
            problems.append(
                (
                    i,
                    make(
                        "E_CITATION_ID_DUPLICATE",
                        f"citation id {citation.id!r} is used more than once; only the first is used",
                    ),
                )
            )
        else:
            by_id[citation.id] = citation
    return by_id, problems
