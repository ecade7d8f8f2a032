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
from citeaudit.checks.quote import Snapshot, check_quote
from citeaudit.checks.structure import check_uncited, index_citations
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
from citeaudit.resolve.interface import Record, Resolution, ResolutionStatus, Resolver
from citeaudit.sources.interface import SnapshotStore

__all__ = ["AuditSettings", "audit"]

DEFAULT_MIN_QUOTE_LENGTH = 30


@dataclass(frozen=True)
class AuditSettings:
    min_quote_length: int = DEFAULT_MIN_QUOTE_LENGTH
    severity: Mapping[str, str] = field(default_factory=dict)
    offline: bool = False

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


def _check_doi_group(
    rows: list[_Pending],
    answer: Resolution,
    snapshots: SnapshotStore,
    settings: AuditSettings,
    make: FindingMaker,
) -> None:
    """All citations of one DOI: one registry answer, one snapshot read."""
    if answer.status is ResolutionStatus.UNAVAILABLE:
        for row in rows:
            row.findings.append(make(answer.code, answer.reason))
        return
    if answer.status is ResolutionStatus.NOT_FOUND:
        for row in rows:
            row.findings.append(make("E_DOI_NOT_FOUND", f"{row.doi} is not registered"))
        return
    record = answer.record
    assert record is not None
    snapshot: Snapshot | None = None
    loaded = False
    for row in rows:
        assert row.citation is not None
        assert isinstance(row.citation.source, DoiSource)
        source = row.citation.source
        row.record = record
        if source.title is not None:
            row.findings += check_title(source.title, record, make)
        if source.year is not None:
            row.findings += check_year(source.year, record, make)
        if source.first_author is not None:
            row.findings += check_first_author(source.first_author, record, make)
        if not loaded and row.citation.quote is not None:
            text = snapshots.text_for_doi(row.doi or record.doi)
            snapshot = Snapshot(text) if text is not None else None
            loaded = True
        findings, row.location = check_quote(row.citation.quote, snapshot, settings.min_quote_length, make)
        row.findings += findings


def _check_numbers(claim: Claim, rows: list[_Pending], make: FindingMaker) -> None:
    cited = [r for r in rows if r.citation is not None]
    if not cited:
        return
    quotes = [r.citation.quote for r in cited if r.citation is not None and r.citation.quote is not None]
    years: set[int] = set()
    for r in cited:
        assert r.citation is not None
        if isinstance(r.citation.source, DoiSource) and r.citation.source.year is not None:
            years.add(r.citation.source.year)
        if r.record is not None:
            years.update(r.record.year_values)
    findings = check_numbers(claim.text, quotes, years, make, len(cited))
    # A claim-level finding, reported on the claim's first citation (the seed's place for it).
    cited[0].findings += findings


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
    for doi, group in by_doi.items():
        _check_doi_group(group, answers[doi], snapshots, settings, make)

    claim_rows: dict[str, list[_Pending]] = {}
    for row in rows:
        assert row.claim is not None
        claim_rows.setdefault(row.claim.id, []).append(row)
    claims: list[ClaimResult] = []
    for claim in sorted(submission.claims, key=lambda c: c.id):
        own = claim_rows[claim.id]
        _check_numbers(claim, own, make)
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
