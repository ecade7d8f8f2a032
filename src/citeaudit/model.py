"""The canonical types: every input format maps onto :class:`Submission`,
every check yields :class:`Finding` values, and the audit returns a
:class:`Report`. All of them are frozen; collections are tuples.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, fields
from enum import StrEnum
from operator import attrgetter
from typing import Any, ClassVar, Literal

__all__ = [
    "VERDICTS",
    "Citation",
    "Claim",
    "ClaimPlace",
    "ClaimResult",
    "ClaimStatus",
    "Conflict",
    "CorpusSource",
    "Decision",
    "DoiSource",
    "Finding",
    "JudgeIdentity",
    "Marker",
    "Note",
    "Outcome",
    "Passage",
    "ReferenceSource",
    "Report",
    "ReportStatus",
    "Review",
    "ReviewVerdict",
    "Row",
    "Severity",
    "Source",
    "Span",
    "StoreSource",
    "Submission",
    "TextRead",
    "Verdict",
    "VerdictLabel",
    "WorkSource",
]


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Outcome(StrEnum):
    """The three outcomes DESIGN §4 keeps apart, plus plain notes."""

    WRONG = "wrong"  # the source answered and disagrees
    NOT_REGISTERED = "not_registered"  # a final "does not exist"
    UNCHECKED = "could_not_check"  # offline miss, unreachable, no text to check against
    NOTE = "note"  # a warning or info that is none of the above


class ClaimStatus(StrEnum):
    """Per-claim status of the deterministic stage (seed 003's names, and
    seed 002's ``disputed`` for a claim in a registered conflict)."""

    INVALID = "invalid_reference"
    UNSUPPORTED = "unsupported"
    UNCHECKED = "could_not_check"
    DISPUTED = "disputed"
    REQUIRES_ENTAILMENT_CHECK = "requires_entailment_check"


class ReportStatus(StrEnum):
    """Seed 002's status of the whole answer. ``reviewed_candidate`` needs
    review records, which only a trusted reviewer can add."""

    INVALID = "invalid"
    NEEDS_REVIEW = "needs_review"
    PARTIAL = "partial"
    REVIEWED_CANDIDATE = "reviewed_candidate"


class Decision(StrEnum):
    """Seed 003's decision on the whole answer."""

    REJECT = "reject"
    MANUAL_REVIEW = "manual_review"
    REGENERATE_OR_ABSTAIN = "regenerate_or_abstain"
    ACCEPT = "accept"


VerdictLabel = Literal["entailed", "contradicted", "insufficient", "unknown"]
VERDICTS: tuple[VerdictLabel, ...] = ("entailed", "contradicted", "insufficient", "unknown")
ReviewVerdict = Literal["supported", "insufficient", "contradicted"]


@dataclass(frozen=True, slots=True)
class JudgeIdentity:
    backend: str
    model: str
    prompt_version: str

    def __str__(self) -> str:
        return f"{self.backend}/{self.model}/{self.prompt_version}"


@dataclass(frozen=True, slots=True)
class TextRead:
    """Which pinned text of a cited work the judge read for a citation with no quote."""

    citation_id: str
    basis: str  # full_text, page or abstract (sources/cited)
    name: str  # what it is, for a reader
    sha256: str
    length: int  # in characters

    def to_json(self) -> dict[str, Any]:
        return {"basis": self.basis, "citation": self.citation_id, "length": self.length, "name": self.name,
                "sha256": self.sha256}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Passage:
    """A passage the judge read for a claim whose citation gives no quote: ``[start, end)`` of
    the cited work's pinned text (named by its basis and digest), found by ranking that text's
    sentence windows against the claim (``semantic/passages.py``); ``rank`` 1 is the best."""

    citation_id: str
    basis: str  # full_text, page or abstract (sources/cited)
    text_sha256: str  # the digest of the whole text the range is of
    start: int
    end: int
    text: str
    rank: int

    def to_json(self) -> dict[str, Any]:
        return {"basis": self.basis, "citation": self.citation_id, "end": self.end, "rank": self.rank,
                "start": self.start, "text": self.text, "text_sha256": self.text_sha256}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Verdict:
    """A semantic judge's answer for one claim: never a deterministic fact."""

    label: VerdictLabel
    judge: JudgeIdentity
    relied_on: tuple[str, ...] = ()  # citation ids
    unsupported: tuple[str, ...] = ()  # parts of the claim the fragments do not cover
    confidence: float | None = None
    signals: tuple[str, ...] = ()  # signal codes that routed the claim
    probability: float | None = None  # probability of support, from a judge that has one (``learned``)
    reason: str | None = None  # what moved the verdict most, for a reader
    unsupported_spans: tuple[tuple[int, int], ...] = ()  # ``[start, end)`` ranges of the claim text
    # What the judge read: the verified quotes (``quote``), or passages it was given from the
    # cited works' texts (``retrieved``): a judged support there, never a proved one.
    basis: Literal["quote", "retrieved"] = "quote"
    passages: tuple[Passage, ...] = ()
    texts: tuple[TextRead, ...] = ()  # the texts the passages were found in, one per citation read
    # The vetoes that kept it from ``entailed``, each with what raised it (``learned``): a part the
    # claim says that the source does not, "S_NAME_REPLACED (River Tane / Harlow Bridge)"
    vetoes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Review:
    """A person's verdict on one claim, bound to the digest of the exact
    submission reviewed (``Submission.digest``)."""

    submission_sha256: str
    claim_id: str
    verdict: ReviewVerdict
    note: str
    reviewer: str


@dataclass(frozen=True, slots=True)
class Span:
    """A half-open character range ``[start, end)`` in a source text."""

    start: int
    end: int

    def __reduce__(self) -> tuple[type[Span], tuple[int, int]]:
        return Span, (self.start, self.end)  # see Finding.__reduce__

    def to_json(self) -> dict[str, int]:
        return {"start": self.start, "end": self.end}


@dataclass(frozen=True, slots=True)
class WorkSource:
    """A work named by an identifier (a DOI, an arXiv id: its ``kind``, one of
    ``citeaudit.identifiers.KINDS``), with the metadata as the agent wrote it."""

    identifier: str  # as the kind's handler reads it (a DOI as written; for an arXiv id, its DOI)
    title: str | None = None
    year: int | None = None
    first_author: str | None = None
    authors: tuple[str, ...] = ()
    container: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    type: str | None = None  # the kind of work as cited: journal-article, book, dataset…
    kind: str = "doi"  # the identifier kind, which decides how it is validated, resolved and checked
    # The handler's warning about the form the identifier was written in (W_IDENTIFIER_FORM); it
    # says nothing the identifier does not, so the submission digest leaves it out.
    form_note: str | None = None
    accessed: str | None = None  # when the agent says it read a web page (as written; not checked)
    named_doi: str | None = None  # a DOI a web citation also names (checked against the page's)
    # The whole text of a reference-list entry that names no identifier (a Markdown report's
    # ``work`` citation): a candidate found by search must have its title, first author's
    # surname and year in it (``checks/matching.py``, ``match_entry``).
    reference: str | None = None

    ranged: ClassVar[bool] = False  # cited by its identifier, not by a range of a text

    @property
    def cited_year(self) -> int | None:
        """The year the work is cited with (checked against the registry; the numbers check exempts it)."""
        return self.year

    def cited_fields(self) -> dict[str, Any]:
        """The metadata as cited, for the report (the identifier's handler names the work)."""
        out: dict[str, Any] = {}
        for key in (
            "title",
            "year",
            "first_author",
            "container",
            "volume",
            "issue",
            "pages",
            "type",
            "accessed",
            "reference",
        ):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.named_doi is not None:
            out["doi"] = self.named_doi
        if self.authors:
            out["authors"] = list(self.authors)
        return out


DoiSource = WorkSource  # its former name


@dataclass(frozen=True, slots=True)
class CorpusSource:
    """A document of a versioned corpus (seed 003)."""

    document_id: str
    document_version: str

    ranged: ClassVar[bool] = True  # cited by a range of the document's text
    cited_year: ClassVar[None] = None

    @property
    def kind(self) -> str:
        return "corpus"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "document_id": self.document_id, "document_version": self.document_version}


@dataclass(frozen=True, slots=True)
class StoreSource:
    """A revision of a source in the evidence store (seed 002)."""

    source_id: str
    revision: int
    digest: str

    ranged: ClassVar[bool] = True  # cited by a range of the revision's text
    cited_year: ClassVar[None] = None

    @property
    def kind(self) -> str:
        return "store"

    def to_json(self) -> dict[str, Any]:
        return {
            "digest": self.digest,
            "kind": self.kind,
            "revision": self.revision,
            "source_id": self.source_id,
        }


@dataclass(frozen=True, slots=True)
class ReferenceSource:
    """A work cited without any identifier (a BibTeX entry with no DOI or arXiv id)."""

    title: str | None = None
    year: int | None = None
    first_author: str | None = None

    ranged: ClassVar[bool] = True  # the report keeps the range fields of what names no work
    cited_year: ClassVar[None] = None  # never looked up, so not a verified year

    @property
    def kind(self) -> str:
        return "reference"

    def to_json(self) -> dict[str, Any]:
        fields = {"title": self.title, "year": self.year, "first_author": self.first_author}
        return {"kind": self.kind, **{k: v for k, v in fields.items() if v is not None}}


Source = WorkSource | CorpusSource | StoreSource | ReferenceSource


@dataclass(frozen=True, slots=True)
class Citation:
    id: str
    source: Source
    quote: str | None = None
    start: Any = None  # kept as given: the range check reports wrong types
    end: Any = None
    origin: str = ""  # where the input has it: a JSON path ($.claims[0].citations[1]) or "line N"


@dataclass(frozen=True, slots=True)
class Marker:
    """A citation marker as a report wrote it (``[1, 3]``, ``[^note]``, ``(Vaswani et al., 2017)``,
    an inline link), at ``[start, end)`` of the input file, with the citations it names."""

    text: str
    start: int
    end: int
    line: int  # 1-based
    column: int  # 1-based, in characters
    labels: tuple[str, ...]  # the entries it names, as written ("1", "^note", "Vaswani et al. 2017")
    citations: tuple[str, ...]  # the ids of the citations they are (none for an undefined label)

    def to_json(self) -> dict[str, Any]:
        return {"citations": list(self.citations), "column": self.column, "end": self.end,
                "labels": list(self.labels), "line": self.line, "start": self.start,
                "text": self.text}  # fmt: skip


@dataclass(frozen=True, slots=True)
class ClaimPlace:
    """Where a claim read from a document (a Markdown report) is in the input file: its
    ``[start, end)`` in characters (line ends as ``\\n``), line and column, the paragraph (or list
    item, table row, heading) it is part of, and its markers."""

    start: int
    end: int
    line: int
    column: int
    end_line: int
    end_column: int
    paragraph: Span
    paragraph_text: str  # the paragraph's Markdown as written, for readers of the report
    markers: tuple[Marker, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "column": self.column,
            "end": self.end,
            "end_column": self.end_column,
            "end_line": self.end_line,
            "line": self.line,
            "markers": [m.to_json() for m in self.markers],
            "paragraph": {**self.paragraph.to_json(), "text": self.paragraph_text},
            "start": self.start,
        }


@dataclass(frozen=True, slots=True)
class Claim:
    id: str
    text: str
    kind: str = "fact"  # "fact" or "inference"
    rationale: str | None = None
    citations: tuple[Citation, ...] = ()
    citation_ids: tuple[str, ...] = ()  # references into Submission.citations
    origin: str = ""
    place: ClaimPlace | None = None  # where a document's claim is in the file (not in the digest)


@dataclass(frozen=True, slots=True)
class Note:
    """A finding about the structure of the input itself, made where it is read (a marker that
    names no entry of a report's reference list, an entry no marker names…): the core puts it on
    the claim's row for ``claim_id`` and ``citation_id`` (a row of its own), or, without a claim,
    on the row of the listed citation ``citation_id``, or on a row of its own."""

    code: str
    message: str
    claim_id: str | None = None
    citation_id: str | None = None
    origin: str = ""  # where the input has it ("line 12:5")


@dataclass(frozen=True, slots=True)
class Conflict:
    claim_ids: tuple[str, ...]
    reason: str


@dataclass(frozen=True, slots=True)
class Submission:
    """One agent answer in canonical form, whatever format it came in."""

    claims: tuple[Claim, ...]
    citations: tuple[Citation, ...] = ()  # the top-level list (seed 003)
    conflicts: tuple[Conflict, ...] = ()
    gaps: tuple[str, ...] = ()
    labels: tuple[tuple[str, str], ...] = ()
    title: str | None = None
    answer: str | None = None
    # The question the answer answers (native format): a claim of one to three words is judged as
    # its answer (semantic/stage.py). In the digest only when given, so digests before it stay.
    question: str | None = None
    format: str = "native"
    input_sha256: str = ""  # of the bytes as read (the seed's field)
    notes: tuple[Note, ...] = ()  # findings of the input's own structure (not in the digest)
    _digest: str | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def digest(self) -> str:
        """SHA-256 of the canonical submission: what reviews are bound to.

        The same claims and citations give the same digest whatever the input
        format, key order or whitespace; where the input has them (``origin``)
        and free ``labels`` do not count. Computed once: the review lookup,
        the policy and the report all ask for it."""
        if self._digest is None:
            object.__setattr__(self, "_digest", self._canonical_digest())
        assert self._digest is not None
        return self._digest

    def _canonical_digest(self) -> str:
        body = [
            "citeaudit-submission/1",  # the layout below: positional, fixed order
            self.title,
            self.answer,
            [_canonical_citation(c) for c in self.citations],
            [
                [
                    c.id,
                    c.kind,
                    c.text,
                    c.rationale,
                    list(c.citation_ids),
                    [_canonical_citation(x) for x in c.citations],
                ]
                for c in self.claims
            ],
            [[list(c.claim_ids), c.reason] for c in self.conflicts],
            list(self.gaps),
        ]
        if self.question is not None:
            body.append(["question", self.question])
        blob = json.dumps(body, ensure_ascii=False, separators=(",", ":"), default=repr)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()


_SOURCE_VALUES: dict[type, attrgetter[Any]] = {}


# Layout 1 of the digest predates identifier kinds: a DOI's and an arXiv id's citation (which
# carries the DOI arXiv registers) digest as a DOI's did, so reviews bound before stay bound.
_DOI_FORM_KINDS = ("doi", "arxiv")


def _canonical_citation(citation: Citation) -> list[Any]:
    source = citation.source
    values = _SOURCE_VALUES.get(type(source))
    if values is None:  # one getter per source type: the digest of 10,000 citations stays cheap
        # ``accessed`` and ``named_doi`` came with web citations: added only where given, so digests
        # made before stay; ``form_note`` says nothing the identifier does not.
        names = [
            f.name
            for f in fields(source)
            if f.name not in ("kind", "accessed", "named_doi", "form_note", "reference")
        ]
        values = _SOURCE_VALUES[type(source)] = attrgetter("kind", *names)
    canonical = values(source)
    if isinstance(source, WorkSource) and source.kind in _DOI_FORM_KINDS:
        canonical = ("doi", *canonical[1:])
    if isinstance(source, WorkSource) and (source.accessed is not None or source.named_doi is not None):
        canonical = (*canonical, source.accessed, source.named_doi)
    if isinstance(source, WorkSource) and source.reference is not None:  # came with Markdown reports
        canonical = (*canonical, source.reference)
    return [citation.id, canonical, citation.quote, citation.start, citation.end]


@dataclass(frozen=True, slots=True)
class Finding:
    """One result of one check: a value, never an exception."""

    code: str
    severity: Severity
    outcome: Outcome
    message: str
    location: Span | None = None
    suggestion: dict[str, Any] | None = None
    detail: str | None = None  # appended to the code in the seed's form: E_NUMBER_UNSUPPORTED:3

    def __reduce__(self) -> tuple[type[Finding], tuple[Any, ...]]:
        """Pickled as its constructor's arguments: findings come back from the audit's worker
        processes by the thousand, and the generic state of a frozen slotted dataclass
        (``dataclasses.fields`` on every object) made unpickling them a serial cost."""
        values = (self.code, self.severity, self.outcome, self.message)
        return Finding, (*values, self.location, self.suggestion, self.detail)

    @property
    def label(self) -> str:
        return f"{self.code}:{self.detail}" if self.detail else self.code

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "code": self.code,
            "label": self.label,
            "message": self.message,
            "outcome": str(self.outcome),
            "severity": str(self.severity),
        }
        if self.location is not None:
            out["location"] = self.location.to_json()
        if self.suggestion is not None:
            out["suggestion"] = self.suggestion
        return out


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the report: a claim and one of its citations.

    ``claim_id`` is None for a problem of the top-level citation list itself;
    ``citation`` is None for an uncited claim or an unknown citation id.
    """

    claim_id: str | None
    citation_id: str | None
    citation: Citation | None
    doi: str | None
    findings: tuple[Finding, ...] = ()
    location: Span | None = None
    lines: tuple[int, int] | None = None  # first and last line of the location, 1-based
    record: dict[str, Any] | None = None  # what the registry, corpus or store said, for readers
    origin: str = ""  # where the input has the citation (or the claim, for a row without one)
    excerpt: dict[str, str] | None = None  # the located quote with source text before and after it

    @property
    def errors(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity is Severity.ERROR)

    @property
    def unchecked(self) -> bool:
        """Every error is "could not check": nothing was found wrong."""
        errors = self.errors
        return bool(errors) and all(f.outcome is Outcome.UNCHECKED for f in errors)


@dataclass(frozen=True, slots=True)
class ClaimResult:
    id: str
    kind: str
    status: ClaimStatus
    citation_ids: tuple[str, ...]
    verdict: Verdict | None = None  # the semantic stage's, when a judge ran on the claim
    review_status: str = "pending_review"  # set by ``policy.finalize`` from the status and the reviews


@dataclass(frozen=True, slots=True)
class Report:
    """Everything an audit found; every output format renders this one object."""

    submission: Submission
    rows: tuple[Row, ...]
    claims: tuple[ClaimResult, ...]
    status: ReportStatus  # set, with the decision, by ``policy.finalize``, which every audit ends with
    settings: dict[str, Any]
    checker_version: str
    decision: Decision
    reviews: tuple[Review, ...] = ()  # the reviews that apply, in the order recorded

    @property
    def failed(self) -> int:
        return sum(1 for r in self.rows if r.errors)

    @property
    def has_errors(self) -> bool:
        """Something was found wrong (not merely unchecked)."""
        return any(f.outcome is not Outcome.UNCHECKED for r in self.rows for f in r.errors)

    @property
    def has_unchecked(self) -> bool:
        return any(f.outcome is Outcome.UNCHECKED for r in self.rows for f in r.errors)
