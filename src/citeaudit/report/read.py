"""Reading a ``report.json`` back: ``render``, ``stats``, ``feedback``,
``review`` and ``reviews`` take one as input, and a hand-edited or damaged
report is bad input like any other (exit 2, the JSON path and the problem),
never a crash in a renderer.

The models mirror what :func:`citeaudit.report.json.report_to_dict` writes
(the test suite reads back every report its ``check`` runs write, so the two
cannot drift apart). The checked values stay a plain dict afterwards: the
renderers read them as JSON.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from citeaudit.checks.codes import CATALOGUE
from citeaudit.errors import InputError
from citeaudit.formats.validate import validate
from citeaudit.report.json import REPORT_SCHEMA
from citeaudit.util.jsonload import json_path, load_json_bytes, read_input

__all__ = ["ReportDoc", "checked_report", "load_report"]


_ClaimStatus = Literal[
    "invalid_reference", "unsupported", "could_not_check", "disputed", "requires_entailment_check"
]


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class CheckerDoc(_Part):
    name: str
    version: str


class PassageDoc(_Part):
    """A passage a verdict on retrieved passages was judged on: ``[start, end)`` of a cited text."""

    basis: Literal["full_text", "page", "abstract"]
    citation: str
    end: Annotated[int, Field(ge=0)]
    rank: Annotated[int, Field(ge=1)]
    start: Annotated[int, Field(ge=0)]
    text: str
    text_sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


class TextReadDoc(_Part):
    """Which pinned text of a cited work was read for a citation with no quote."""

    basis: Literal["full_text", "page", "abstract"]
    citation: str
    length: Annotated[int, Field(ge=0)]
    name: str
    sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


class VerdictDoc(_Part):
    basis: Literal["quote", "retrieved"] = "quote"
    passages: list[PassageDoc] | None = None
    texts: list[TextReadDoc] | None = None
    confidence: float | None
    judge: str
    label: Literal["entailed", "contradicted", "insufficient", "unknown"]
    relied_on: list[str]
    signals: list[str]
    unsupported: list[str]
    probability: float | None = None
    reason: str | None = None
    vetoes: list[str] | None = None
    unsupported_spans: list[Annotated[list[int], Field(min_length=2, max_length=2)]] | None = None


class MarkerDoc(_Part):
    citations: list[str]
    column: int
    end: int
    labels: list[str]
    line: int
    start: int
    text: str


class ParagraphDoc(_Part):
    end: int
    start: int
    text: str


class PositionDoc(_Part):
    """Where a claim read from a document (a Markdown report) is in the input file."""

    column: int
    end: int
    end_column: int
    end_line: int
    line: int
    markers: list[MarkerDoc]
    paragraph: ParagraphDoc
    start: int


class ClaimDoc(_Part):
    citations: list[str]
    id: str
    kind: str
    review_status: str
    status: _ClaimStatus
    text: str | None
    verdict: VerdictDoc | None
    rationale: str | None = None
    position: PositionDoc | None = None


class ConflictDoc(_Part):
    claim_ids: list[str]
    reason: str


class SpanDoc(_Part):
    start: int
    end: int


class LocationDoc(SpanDoc):
    line_start: int | None = None  # both or neither (checked_report)
    line_end: int | None = None


def _known_code(code: str) -> str:
    if code not in CATALOGUE:
        raise ValueError(f"unknown finding code {code!r}")
    return code


class _Open(BaseModel):
    """A part whose fields depend on the finding or the kind of source: the fields the renderers
    read are typed, any other is kept as it is."""

    model_config = ConfigDict(extra="allow", strict=True, frozen=True)


class SuggestionDoc(_Open):
    """What a finding suggests (each code its own fields): those the renderers read as more
    than text. ``start`` and ``end`` come together (checked_report)."""

    years: dict[str, int] | None = None
    span: SpanDoc | None = None
    occurrences: list[SpanDoc] | None = None
    container: list[str] | None = None
    authors: list[str] | None = None
    start: int | None = None
    end: int | None = None
    count: int | None = None
    normalized_match: bool | None = None
    source_text: str | None = None


class MatchedDoc(_Open):
    """The search match of a reference without an identifier (``record.matched``)."""

    index: str
    key: str
    score: float
    title: str | None = None
    years: list[int] | None = None
    first_author: str | None = None
    doi: str | None = None
    arxiv: str | None = None
    by: str | None = None


class RecordDoc(_Open):
    """What the report keeps of the record a citation was checked against: a registry's
    (``doi``, ``work``: ``agency`` then required, checked_report), a pinned page's (``url``), a
    corpus document's or an evidence-store source's."""

    agency: str | None = None
    authors: list[str] | None = None
    authors_total: int | None = None
    doi: str | None = None
    first_author: str | None = None
    title: str | None = None
    type: str | None = None
    years: dict[str, int] | None = None
    matched: MatchedDoc | None = None
    # a pinned web page
    body_sha256: str | None = None
    citation_doi: str | None = None
    content_type: str | None = None
    fetched_at: str | None = None
    final_url: str | None = None
    redirects: int | None = None
    status: int | None = None
    text_sha256: str | None = None
    url: str | None = None
    # a corpus document, an evidence-store source
    document_id: str | None = None
    version: str | int | None = None
    kind: str | None = None
    locator: str | None = None
    source_id: str | None = None
    digest: str | None = None
    entered_at: str | None = None
    revision: int | None = None


class FindingDoc(_Part):
    code: Annotated[str, AfterValidator(_known_code)]  # renderers look the code up in the catalogue
    label: str
    message: str
    outcome: Literal["wrong", "not_registered", "could_not_check", "note"]
    severity: Literal["error", "warning", "info"]
    location: SpanDoc | None = None
    suggestion: SuggestionDoc | None = None


class ExcerptDoc(_Part):
    before: str
    match: str
    after: str


class SourceDoc(_Part):
    """Any of the five kinds of source: the fields of each, all optional but ``kind``."""

    kind: Literal["doi", "url", "work", "corpus", "store", "reference", "pmid", "pmcid"]
    doi: str | None = None
    pmid: str | None = None
    pmcid: str | None = None
    url: str | None = None
    accessed: str | None = None
    title: str | None = None
    year: int | None = None
    first_author: str | None = None
    authors: list[str] | None = None
    container: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    type: str | None = None
    document_id: str | None = None
    document_version: str | None = None
    source_id: str | None = None
    revision: int | None = None
    digest: str | None = None
    reference: str | None = None  # the free text of a Markdown report's entry without an identifier


class RangeDoc(_Part):
    start: Any  # as the input gave it: the range check reports wrong types
    end: Any


_LINE_RE = re.compile(r"line [0-9]+(:[0-9]+)?")


def _input_path(path: str) -> str:
    # SARIF places a result at "line 12" (BibTeX) or "line 12:5" (a Markdown report).
    if path.startswith("line ") and _LINE_RE.fullmatch(path) is None:
        raise ValueError(f"expected 'line N' or 'line N:M', got {_shown(path)}")
    return path


class ResultDoc(_Part):
    citation: str | None
    claim: str | None
    doi: str | None
    errors: list[str]
    excerpt: ExcerptDoc | None
    findings: list[FindingDoc]
    input_path: Annotated[str, AfterValidator(_input_path)]
    location: LocationDoc | None
    notes: list[str]
    record: RecordDoc | None
    source: SourceDoc | None
    status: Literal["pass", "fail", "could_not_check"]
    warnings: list[str]
    quote: str | None = None
    range: RangeDoc | None = None


class ReviewDoc(_Part):
    claim: str
    note: str
    reviewer: str
    verdict: Literal["supported", "insufficient", "contradicted"]


class PolicyDoc(_Part):
    accept_probability: float = 0.9  # absent from older reports
    require_review: bool
    retrieved: Literal["manual_review", "accept"] = "manual_review"  # absent from older reports
    unchecked: Literal["manual_review", "regenerate_or_abstain", "reject"]
    unknown: Literal["manual_review", "regenerate_or_abstain"]


class SettingsDoc(_Part):
    model_config = ConfigDict(extra="allow", strict=True, frozen=True)  # callers add their own (jobs, store…)
    judge: str | None
    min_quote_length: int
    policy: PolicyDoc
    severity: dict[str, Literal["error", "warning", "info"]]


class SummaryDoc(_Part):
    by_code: dict[str, int]
    claims: int
    claims_by_status: dict[str, int]
    claims_by_verdict: dict[str, int]
    errors: int
    results_by_status: dict[str, int]
    warnings: int


class ReportDoc(_Part):
    checked: int
    checker: CheckerDoc
    claims: list[ClaimDoc]
    conflicts: list[ConflictDoc]
    decision: Literal["reject", "manual_review", "regenerate_or_abstain", "accept"]
    failed: int
    gaps: list[str]
    input_format: str
    input_sha256: str
    labels: dict[str, str]
    outcome: Literal["errors", "could_not_check", "clean"]
    title: str | None
    results: list[ResultDoc]
    reviews: list[ReviewDoc]
    schema_: str = Field(alias="schema")  # "schema" is a BaseModel attribute
    status: Literal["invalid", "needs_review", "partial", "reviewed_candidate"]
    submission_sha256: str | None = None  # reports from before reviews lack it: ``review`` says so
    settings: SettingsDoc
    summary: SummaryDoc


def load_report(path: Path) -> dict[str, Any]:
    """A report.json written by ``citeaudit check``, with its shape checked."""
    return checked_report(load_json_bytes(read_input(path), str(path)), str(path))


def checked_report(data: Any, name: str, path: list[str | int] | None = None) -> dict[str, Any]:
    """A report already parsed (a line of a batch part, at ``path`` in it), with its shape checked."""
    at = path or []
    if not isinstance(data, dict) or data.get("schema") != REPORT_SCHEMA:
        where = json_path([*at, "schema"])
        raise InputError(name, where, f"not a citeaudit report (expected {REPORT_SCHEMA!r})")
    validate(ReportDoc, data, name, at)
    for i, row in enumerate(data["results"]):
        _check_row(row, name, [*at, "results", i])
    return data


# The fields each kind of source has, beyond its kind, that the renderers name it by.
_SOURCE_FIELDS = {"corpus": ("document_id", "document_version"), "store": ("source_id", "revision", "digest")}
_LISTS = (("errors", "error"), ("warnings", "warning"), ("notes", "info"))
# The kinds of source whose record a registry gave (a DOI's agency, PubMed for a PMID or PMCID).
_REGISTRY_KINDS = ("doi", "pmid", "pmcid")


def _both_or_neither(part: dict[str, Any], first: str, second: str, name: str, at: list[str | int]) -> None:
    for have, lack in ((first, second), (second, first)):
        if have in part and lack not in part:
            raise InputError(name, json_path([*at, lack]), f"required field is missing (with {have})")


def _check_row(row: dict[str, Any], name: str, at: list[str | int]) -> None:
    """What the shape alone does not say: the rules across the fields of a row that the
    renderers rely on, each as the JSON path of the field that breaks it."""
    findings = row["findings"]
    for field, severity in _LISTS:
        labels = [f["label"] for f in findings if f["severity"] == severity]
        if row[field] != labels:
            problem = f"does not agree with the findings: expected {_shown(labels)}, got {_shown(row[field])}"
            raise InputError(name, json_path([*at, field]), problem)
    if (row["status"] == "pass") != (not row["errors"]):
        problem = (
            f"expected 'pass' (no finding is an error), got {row['status']!r}"
            if not row["errors"]
            else "a row with an error finding does not pass: expected 'fail' or 'could_not_check'"
        )
        raise InputError(name, json_path([*at, "status"]), problem)
    if row["location"] is not None:
        _both_or_neither(row["location"], "line_start", "line_end", name, [*at, "location"])
    for j, finding in enumerate(findings):
        suggestion = finding.get("suggestion")
        if suggestion is None:
            continue
        where: list[str | int] = [*at, "findings", j, "suggestion"]
        _both_or_neither(suggestion, "start", "end", name, where)
        if "start" in suggestion and suggestion.get("normalized_match") and "source_text" not in suggestion:
            raise InputError(
                name, json_path([*where, "source_text"]), "required field is missing (with normalized_match)"
            )
    kind: str = (row["source"] or {}).get("kind", "")
    for field in _SOURCE_FIELDS.get(kind, ()):
        if field not in row["source"]:
            raise InputError(
                name, json_path([*at, "source", field]), f"required field is missing (a {kind} source)"
            )
    if kind in _REGISTRY_KINDS and row["record"] is not None and "agency" not in row["record"]:
        raise InputError(
            name, json_path([*at, "record", "agency"]), "required field is missing (a registry record)"
        )


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
