"""The core: one call from a submission to a report.

It never reads argv, prints or exits; the resolver and the snapshot store are
handed in, so the same call serves the CLI, the library and the services.
Citations of one DOI are checked together, so each snapshot is read and
normalised at most once per audit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from citeaudit import __version__
from citeaudit.checks.codes import FindingMaker
from citeaudit.checks.doi import check_doi_syntax, normalize_doi
from citeaudit.checks.metadata import check_first_author, check_title, check_year, display_title
from citeaudit.checks.numbers import check_numbers
from citeaudit.checks.quote import check_quote
from citeaudit.checks.structure import check_uncited, index_citations
from citeaudit.locate import SourceText
from citeaudit.model import (
    Citation,
    Claim,
    ClaimResult,
    ClaimStatus,
    CorpusSource,
    DoiSource,
    Finding,
    Outcome,
    Report,
    Row,
    Span,
    Submission,
)
from citeaudit.parallel import run_items
from citeaudit.resolve.interface import Record, Resolution, ResolutionStatus, Resolver
from citeaudit.sources.interface import SnapshotStore

__all__ = ["AuditSettings", "audit"]

DEFAULT_MIN_QUOTE_LENGTH = 30


@dataclass(frozen=True)
class AuditSettings:
    min_quote_length: int = DEFAULT_MIN_QUOTE_LENGTH
    severity: Mapping[str, str] = field(default_factory=dict)
    offline: bool = False
    jobs: int = 1  # processes for the per-source checks; the report is the same for any value

    def to_json(self) -> dict[str, Any]:
        return {
            "min_quote_length": self.min_quote_length,
            "offline": self.offline,
            "severity": dict(sorted(self.severity.items())),
        }


@dataclass
class _Pending:
    """A row under construction."""

    claim: Claim | None
    citation_id: str | None
    citation: Citation | None
    findings: list[Finding] = field(default_factory=list)
    doi: str | None = None
    location: Span | None = None
    record: Record | None = None


def _plan(submission: Submission, make: FindingMaker) -> tuple[list[_Pending], list[_Pending]]:
    """Rows per claim (sorted by claim id, as the seed does) and rows of the list itself."""
    listed, problems = index_citations(submission.citations, make)
    referenced: set[str] = set()
    rows: list[_Pending] = []
    for claim in sorted(submission.claims, key=lambda c: c.id):
        uncited = check_uncited(claim, make)
        if uncited:
            rows.append(_Pending(claim, None, None, uncited))
            continue
        for citation in claim.citations:
            rows.append(_Pending(claim, citation.id, citation))
        for cid in claim.citation_ids:
            target = listed.get(cid)
            if target is None:
                finding = make(
                    "E_UNKNOWN_CITATION", f"the claim cites {cid!r}, which is not in the citation list"
                )
                rows.append(_Pending(claim, cid, None, [finding]))
            else:
                referenced.add(cid)
                rows.append(_Pending(claim, cid, target))
    orphans: list[_Pending] = []
    by_index = dict(problems)
    for i, citation in enumerate(submission.citations):
        if i in by_index:
            orphans.append(_Pending(None, citation.id or None, None, [by_index[i]]))
        elif citation.id not in referenced:
            orphans.append(_Pending(None, citation.id, citation))  # checked, though no claim uses it
    return rows, orphans


# What checking one citation adds to its row: findings, quote span, record.
_Outcome = tuple[list[Finding], Span | None, Record | None]


def _check_doi_group(
    doi: str,
    citations: list[Citation],
    answer: Resolution,
    snapshots: SnapshotStore,
    settings: AuditSettings,
    make: FindingMaker,
) -> list[_Outcome]:
    """All citations of one DOI: one registry answer, one snapshot read."""
    if answer.status is ResolutionStatus.UNAVAILABLE:
        return [([make(answer.code, answer.reason)], None, None) for _ in citations]
    if answer.status is ResolutionStatus.NOT_FOUND:
        return [([make("E_DOI_NOT_FOUND", f"{doi} is not registered")], None, None) for _ in citations]
    record = answer.record
    assert record is not None
    snapshot: SourceText | None = None
    loaded = False
    outcomes: list[_Outcome] = []
    for citation in citations:
        source = citation.source
        assert isinstance(source, DoiSource)
        findings: list[Finding] = []
        if source.title is not None:
            findings += check_title(source.title, record, make)
        if source.year is not None:
            findings += check_year(source.year, record, make)
        if source.first_author is not None:
            findings += check_first_author(source.first_author, record, make)
        if not loaded and citation.quote is not None:
            text = snapshots.text_for_doi(doi)
            snapshot = SourceText(text) if text is not None else None
            loaded = True
        quote_findings, location = check_quote(citation.quote, snapshot, settings.min_quote_length, make)
        outcomes.append((findings + quote_findings, location, record))
    return outcomes


def _check_numbers(claim: Claim, rows: list[_Pending], make: FindingMaker) -> list[Finding]:
    """The claim's numbers against all its quotes (a claim-level finding)."""
    cited = [r.citation for r in rows if r.citation is not None]
    if not cited:
        return []
    quotes = [c.quote for c in cited if c.quote is not None]
    years: set[int] = set()
    for r in rows:
        if r.citation is not None and isinstance(r.citation.source, DoiSource) and r.citation.source.year:
            years.add(r.citation.source.year)
        if r.record is not None:
            years.update(r.record.year_values)
    return check_numbers(claim.text, quotes, years, make, len(cited))


def _claim_status(rows: list[_Pending]) -> ClaimStatus:
    errors = [f for r in rows for f in r.findings if f.severity == "error"]
    if any(f.code == "E_UNCITED" for f in errors):
        return ClaimStatus.UNSUPPORTED
    if any(f.outcome is not Outcome.UNCHECKED for f in errors):
        return ClaimStatus.INVALID
    if errors:
        return ClaimStatus.UNCHECKED
    return ClaimStatus.REQUIRES_ENTAILMENT_CHECK


def _record_summary(record: Record | None) -> dict[str, Any] | None:
    if record is None:
        return None
    return {
        "agency": record.agency,
        "doi": record.doi,
        "title": display_title(record),
        "type": record.type,
        "years": dict(record.years),
    }


def audit(
    submission: Submission,
    *,
    resolver: Resolver,
    snapshots: SnapshotStore,
    settings: AuditSettings | None = None,
) -> Report:
    """Run every deterministic check of ``submission`` and return the report."""
    settings = settings or AuditSettings()
    make = FindingMaker(settings.severity)
    rows, orphans = _plan(submission, make)
    everything = rows + orphans

    by_doi: dict[str, list[_Pending]] = {}
    for row in everything:
        citation = row.citation
        if citation is None:
            continue
        source = citation.source
        if isinstance(source, DoiSource):
            row.doi = normalize_doi(source.doi)
            syntax = check_doi_syntax(source.doi, row.doi, make)
            if syntax:
                row.findings += syntax
            else:
                by_doi.setdefault(row.doi, []).append(row)
        elif isinstance(source, CorpusSource):
            row.findings.append(
                make("E_NO_CORPUS", f"document {source.document_id!r} cannot be checked: no corpus was given")
            )
        else:
            row.findings.append(
                make(
                    "E_NO_STORE",
                    f"source {source.source_id!r} cannot be checked: no evidence store was given",
                )
            )

    answers = resolver.resolve_many(sorted(by_doi)) if by_doi else {}
    groups = list(by_doi.items())

    def check_group(i: int) -> list[_Outcome]:
        doi, group = groups[i]
        citations = [row.citation for row in group if row.citation is not None]
        return _check_doi_group(doi, citations, answers[doi], snapshots, settings, make)

    jobs = settings.jobs
    for (_, group), outcomes in zip(groups, run_items(check_group, len(groups), jobs), strict=True):
        for row, (findings, location, record) in zip(group, outcomes, strict=True):
            row.findings += findings
            row.location, row.record = location, record

    claim_rows: dict[str, list[_Pending]] = {}
    for row in rows:
        assert row.claim is not None
        claim_rows.setdefault(row.claim.id, []).append(row)
    ordered = sorted(submission.claims, key=lambda c: c.id)
    numbers = run_items(
        lambda i: _check_numbers(ordered[i], claim_rows[ordered[i].id], make), len(ordered), jobs
    )
    claims: list[ClaimResult] = []
    for claim, findings in zip(ordered, numbers, strict=True):
        own = claim_rows[claim.id]
        # Reported on the claim's first citation, the seed's place for it.
        first = next((r for r in own if r.citation is not None), None)
        if first is not None:
            first.findings += findings
        ids = tuple(r.citation_id for r in own if r.citation_id is not None)
        claims.append(ClaimResult(claim.id, claim.kind, _claim_status(own), ids))

    return Report(
        submission=submission,
        rows=tuple(
            Row(
                claim_id=r.claim.id if r.claim is not None else None,
                citation_id=r.citation_id,
                citation=r.citation,
                doi=r.doi,
                findings=tuple(r.findings),
                location=r.location,
                record=_record_summary(r.record),
            )
            for r in everything
        ),
        claims=tuple(claims),
        settings=settings.to_json(),
        checker_version=__version__,
    )
