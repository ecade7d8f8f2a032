"""The core: one call from a submission to a report.

It never reads argv, prints or exits; the resolver, the snapshot store, the
corpus and the evidence store are handed in, so the same call serves the CLI,
the library and the services. Citations are checked in groups, one per cited
source (a DOI, a web page, a corpus document, a store source), so each text is read and
searched at most once per audit; groups run in ``settings.jobs`` processes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol

from citeaudit.checks.bibliographic import check_work
from citeaudit.checks.codes import FindingMaker
from citeaudit.checks.matching import Match, MatchStatus, is_enough, match_reference
from citeaudit.checks.metadata import (
    check_first_author,
    check_identifier_controls,
    check_relations,
    check_title,
    check_year,
    display_title,
)
from citeaudit.checks.numbers import NumberText, check_numbers
from citeaudit.checks.quote import check_quote
from citeaudit.checks.ranged import check_range
from citeaudit.checks.structure import check_uncited, index_citations
from citeaudit.checks.web import check_page_doi, check_page_title
from citeaudit.errors import SourceError
from citeaudit.identifiers import HANDLERS, canonical_key, pin_key
from citeaudit.identifiers.registry import SEARCH_ROUTE
from citeaudit.locate import SourceText
from citeaudit.model import (
    Citation,
    Claim,
    ClaimResult,
    ClaimStatus,
    CorpusSource,
    Decision,
    Finding,
    Outcome,
    Report,
    ReportStatus,
    Review,
    Row,
    Source,
    Span,
    StoreSource,
    Submission,
    Verdict,
    WorkSource,
)
from citeaudit.normalize import show_controls
from citeaudit.parallel import run_items
from citeaudit.policy import Policy, finalize
from citeaudit.resolve.indexes.interface import Candidate, IndexAnswer, WorkQuery
from citeaudit.resolve.interface import Record, Resolution, ResolutionStatus, Resolver
from citeaudit.semantic.interface import Judge
from citeaudit.semantic.stage import Cited, Evidence, evidence_of, judge_claims
from citeaudit.sources.cited import CitedText, abstract_of, page_text, pinned_full_text, snapshot_text
from citeaudit.sources.interface import (
    PinAnswer,
    PinStore,
    SnapshotStore,
    SourceLookup,
    StoredSource,
    digest_text,
)
from citeaudit.util.version import __version__

if TYPE_CHECKING:
    from citeaudit.sources.corpus import Corpus

__all__ = ["AuditSettings", "WorkSearch", "audit", "query_of"]

DEFAULT_MIN_QUOTE_LENGTH = 30


@dataclass(frozen=True)
class AuditSettings:
    min_quote_length: int = DEFAULT_MIN_QUOTE_LENGTH
    severity: Mapping[str, str] = field(default_factory=dict)
    offline: bool = False
    jobs: int = 1  # processes for the per-source checks; the report is the same for any value
    policy: Policy = field(default_factory=Policy)
    # Online: fetch and pin the full text a record names for a citation with no quote. Offline the
    # pins already made are read either way, so the setting is not in the report (same bytes).
    full_text: bool = False

    def to_json(self) -> dict[str, Any]:
        """What changes a verdict. Not ``offline``: an online audit and the offline one after it
        read the same pins and give the same report, so the report does not say which it was."""
        return {
            "min_quote_length": self.min_quote_length,
            "policy": self.policy.to_json(),
            "severity": dict(sorted(self.severity.items())),
        }


@dataclass(slots=True)
class _Pending:
    """A row under construction."""

    claim: Claim | None
    citation_id: str | None
    citation: Citation | None
    findings: list[Finding] = field(default_factory=list)
    doi: str | None = None
    location: Span | None = None
    lines: tuple[int, int] | None = None
    record: dict[str, Any] | None = None
    years: tuple[int, ...] = ()  # the cited work's years, which the numbers check exempts
    excerpt: dict[str, str] | None = None
    origin: str = ""  # where the input has a finding of its structure (a Note's)
    text: CitedText | None = None  # the cited work's pinned text, for a citation with no quote

    def row(self) -> Row:
        claim, citation = self.claim, self.citation
        origin = self.origin or (
            citation.origin if citation is not None else (claim.origin if claim is not None else "")
        )
        # Positional: a frozen dataclass's keyword construction is a third slower, once per citation.
        return Row(
            None if claim is None else claim.id, self.citation_id, citation, self.doi,
            tuple(self.findings), self.location, self.lines, self.record, origin, self.excerpt,
        )  # fmt: skip


@dataclass(slots=True)
class _Checked:
    """What checking one citation adds to its row."""

    findings: list[Finding]
    location: Span | None = None
    lines: tuple[int, int] | None = None
    record: dict[str, Any] | None = None
    years: tuple[int, ...] = ()
    excerpt: dict[str, str] | None = None
    text: CitedText | None = None  # what a citation with no quote is judged and its numbers checked on


EXCERPT_CONTEXT = 160  # characters of source text kept on each side of a located quote


def _place(
    text: SourceText | None, span: Span | None
) -> tuple[tuple[int, int] | None, dict[str, str] | None]:
    """Line numbers and the surrounding text of a located quote, for readers of the report."""
    if text is None or span is None:
        return None, None
    t = text.text
    excerpt = {
        "after": t[span.end : span.end + EXCERPT_CONTEXT],
        "before": t[max(0, span.start - EXCERPT_CONTEXT) : span.start],
        "match": t[span.start : span.end],
    }
    return text.lines(span), excerpt


@lru_cache(maxsize=64)  # a service audits with one configuration: build its severity table once
def _finding_maker(severity: tuple[tuple[str, str], ...]) -> FindingMaker:
    return FindingMaker(dict(severity))


def _plan(submission: Submission, make: FindingMaker) -> tuple[list[_Pending], list[_Pending]]:
    """Rows per claim (sorted by claim id, as the seed does) and rows of the list itself."""
    listed, problems = index_citations(submission.citations, make)
    referenced: set[str] = set()
    rows: list[_Pending] = []
    # Findings of the input's own structure (a Markdown report's markers and references).
    noted: dict[str | None, list[_Pending]] = {}
    for note in submission.notes:
        pending = _Pending(None, note.citation_id, None, [make(note.code, note.message)], origin=note.origin)
        noted.setdefault(note.claim_id, []).append(pending)
    for claim in sorted(submission.claims, key=lambda c: c.id):
        own = noted.get(claim.id, [])
        for pending in own:
            pending.claim = claim
        uncited = check_uncited(claim, make) if not own else []
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
        rows += own
    orphans: list[_Pending] = []
    by_index = dict(problems)
    for i, citation in enumerate(submission.citations):
        if i in by_index:
            orphans.append(_Pending(None, citation.id or None, None, [by_index[i]]))
        elif citation.id not in referenced:
            orphans.append(_Pending(None, citation.id, citation))  # checked, though no claim uses it
    by_id: dict[str | None, _Pending] = {}
    for o in orphans:
        if o.citation is not None:
            by_id.setdefault(o.citation_id, o)
    cited: dict[str | None, _Pending] = {}
    for row in rows:
        if row.citation is not None:
            cited.setdefault(row.citation_id, row)
    for pending in noted.get(None, []):
        # On its citation's row — the listed one's, else the first claim's that cites it (a row
        # of its own would read "pass" for a citation it did not check) — else on a row of its own.
        home = by_id.get(pending.citation_id) or cited.get(pending.citation_id)
        if home is not None:
            home.findings += pending.findings
        else:
            orphans.append(pending)
    return rows, orphans


def _record_summary(record: Record) -> dict[str, Any]:
    """What the report keeps of the record: the fields its readers compare the citation with.
    The authors as the checks name them (``Family, Given``), at most 20 of them (a work can have
    thousands; ``authors_total`` says how many there are when more); the first author is the one
    the record marks first, else the first listed, as the first-author check reads it."""
    from citeaudit.checks.metadata import display_author  # beside display_title, imported above

    shown = 20
    authors = record.authors
    first = next((a for a in authors if a.sequence == "first"), authors[0] if authors else None)
    summary: dict[str, Any] = {
        "agency": record.agency,
        "authors": [display_author(a) for a in authors[:shown]],
        "doi": record.doi or None,  # a record found by search may have none
        "first_author": display_author(first) if first is not None else None,
        "title": display_title(record),
        "type": record.type,
        "years": dict(record.years),
    }
    if len(authors) > shown:
        summary["authors_total"] = len(authors)
    return summary


class _Context:
    """Everything the group checks read; built before any worker forks."""

    def __init__(
        self,
        settings: AuditSettings,
        make: FindingMaker,
        snapshots: SnapshotStore,
        answers: Mapping[str, Resolution],
        corpus: Corpus | None,
        stored: Mapping[str, StoredSource],
        store_given: bool,
        pages: Mapping[str, PinAnswer] | None = None,
        searches: Mapping[str, tuple[IndexAnswer, ...]] | None = None,
    ) -> None:
        self.settings = settings
        self.make = make
        self.snapshots = snapshots
        self.answers = answers
        self.corpus = corpus
        self.stored = stored
        self.store_given = store_given
        self.pages = pages or {}
        self.searches = searches or {}

    # -- works named by an identifier (DOI, arXiv) ----------------------------------

    def check_work(self, doi: str, citations: list[Citation]) -> list[_Checked]:
        """All citations of one work (by its resolver key): one registry answer, one snapshot read."""
        make, answer = self.make, self.answers[doi]
        if answer.status is ResolutionStatus.UNAVAILABLE:
            return [_Checked([make(answer.code, answer.reason)]) for _ in citations]
        if answer.status is ResolutionStatus.NOT_FOUND:
            return [
                _Checked([make("E_DOI_NOT_FOUND", f"{show_controls(doi)} is not registered")])
                for _ in citations
            ]
        record = answer.record
        assert record is not None
        return self._against_record(record, doi, _record_summary(record), [], citations)

    def _against_record(
        self,
        record: Record,
        snapshot_key: str | None,
        summary: dict[str, Any],
        first: list[Finding],
        citations: list[Citation],
        where: str = "",
        related: Sequence[Record] = (),
    ) -> list[_Checked]:
        """Each citation's metadata against the work's record, its quote against the work's
        snapshot (by ``snapshot_key``; None: the work has none, as a record without a DOI).
        A citation with no quote is read in the snapshot, else in the record's abstract
        (given by ``where``, the index that found it, else the record's agency)."""
        make = self.make
        relations = [*first, *check_relations(record, make)]
        snapshot: SourceText | None = None
        unreadable: Finding | None = None
        loaded = False
        abstract: SourceText | None = None  # the record's abstract, searched for a quote when no snapshot
        read: CitedText | None = None  # what a citation with no quote is read in
        chosen = False
        out: list[_Checked] = []
        for citation in citations:
            source = citation.source
            assert isinstance(source, WorkSource)  # grouped by kind: see audit()
            findings: list[Finding] = list(relations)
            if source.title is not None:
                findings += check_title(source.title, record, make)
            if source.year is not None:
                findings += check_year(source.year, record, make, related)
            if source.first_author is not None:
                findings += check_first_author(source.first_author, record, make)
            findings += check_work(source, record, make)
            if not loaded and snapshot_key is not None:
                try:
                    text = self.snapshots.text_for_doi(snapshot_key)
                except SourceError as e:  # this work's citations could not be checked; the rest can
                    # A snapshot whose bytes are not the ones recorded says so (E_CACHE_CORRUPT).
                    code = getattr(e, "code", "E_NO_SNAPSHOT")
                    unreadable = make(code, f"the snapshot cannot be read: {e}")
                    text = None
                snapshot = SourceText(text) if text is not None else None
                loaded = True
            if unreadable is not None and citation.quote is not None:
                quote_findings, location = [unreadable], None
            else:
                quote_findings, location = check_quote(
                    citation.quote, snapshot, self.settings.min_quote_length, make, doi=snapshot_key or ""
                )
            searched = snapshot
            if citation.quote is not None and snapshot is None and unreadable is None and record.abstract:
                # No snapshot: a quote of the abstract is found in the record, pinned like it;
                # one that is not there may be in the full text, so it stays "could not check".
                abstract = abstract or SourceText(record.abstract)
                in_abstract, at = check_quote(citation.quote, abstract, self.settings.min_quote_length, make)
                if at is not None:
                    searched, location = abstract, at
                    note = make(
                        "I_QUOTE_IN_ABSTRACT", "the quote was found in the abstract of the work's record"
                    )
                    quote_findings = [note, *in_abstract]
            if citation.quote is None and not chosen:  # the work's text, named (and hashed) once
                read = snapshot_text(snapshot_key, snapshot.text) if snapshot and snapshot_key else None
                # An unreadable snapshot is no text: the full text fetched, else the abstract.
                read = read or self._full_text(record) or abstract_of(record, where)
                chosen = True
            lines, excerpt = _place(searched, location)
            out.append(
                _Checked(
                    findings + quote_findings,
                    location,
                    lines,
                    summary,
                    record.year_values,
                    excerpt,
                    read if citation.quote is None else None,
                )
            )
        return out

    def _full_text(self, record: Record) -> CitedText | None:
        """The first of the full texts the record names that was pinned (``fetch --full-text``)."""
        for key in full_text_keys(record):
            answer = self.pages.get(key)
            found = pinned_full_text(answer.pin) if answer is not None and answer.pin is not None else None
            if found is not None:
                return found
        return None

    # -- works named by their metadata alone, found by bibliographic search ------------

    def check_search(self, key: str, citations: list[Citation]) -> list[_Checked]:
        """All citations of one reference (by its normalised query): the match rule over the
        candidates of every index asked, then, for one match, the checks of a DOI citation."""
        make, answers = self.make, self.searches.get(key, ())
        if not answers:
            message = "no bibliographic index could be searched: give a --mirror, or check online"
            return [_Checked([make("E_NO_INDEX", message)]) for _ in citations]
        source = citations[0].source
        assert isinstance(source, WorkSource)  # grouped by kind: see audit()
        candidates = [c for a in answers if a.answered for c in a.candidates]
        match = match_reference(
            query_of(source), source.reference, candidates, container=source.container, kind=source.type
        )
        if match.status is MatchStatus.MATCHED:
            return self._matched(match, citations)
        missing = [a for a in answers if not a.answered]
        if missing:  # an index could not be asked: no verdict from the others
            alike: dict[tuple[str, str], list[str]] = {}  # the same reason said once, its indexes named
            for a in missing:
                alike.setdefault((a.code, a.reason), []).append(a.index)
            reason = "; ".join(f"{', '.join(names)}: {why}" for (_, why), names in alike.items())
            return [_Checked([make(missing[0].code, reason)]) for _ in citations]
        searched = ", ".join(a.index for a in answers)
        if match.status is MatchStatus.AMBIGUOUS:
            listed = [r.to_json() for r in match.rivals]
            message = (
                f"{len(listed)} different works in {searched} match the reference equally well, so it "
                "was not checked against any of them: name the one meant by its DOI or arXiv id"
            )
            finding = make("E_WORK_AMBIGUOUS", message, suggestion={"candidates": listed})
            return [_Checked([finding]) for _ in citations]
        nearest = match.nearest
        message = f"no record in {searched} has this title with this author or year"
        if nearest is not None:
            message += f"; the nearest title ({nearest.title:.2f} similar) is {nearest.to_json()['title']!r}"
        suggestion = {"nearest": nearest.to_json()} if nearest is not None else None
        return [_Checked([make("E_WORK_NOT_FOUND", message, suggestion=suggestion)]) for _ in citations]

    def _matched(self, match: Match, citations: list[Citation]) -> list[_Checked]:
        best = match.best
        assert best is not None
        candidate: Candidate = best.candidate
        record = candidate.record
        # The fix makes the citation a proved one: the identifier the index knows the work by.
        fix = {"doi": record.doi} if record.doi else ({"arxiv": candidate.arxiv} if candidate.arxiv else None)
        found = self.make(
            "I_MATCHED_BY_SEARCH",
            f"matched by search in {candidate.index}: {candidate.key} (title similarity {best.title:.3f})",
            suggestion=fix,
        )
        summary = _record_summary(record) | {"matched": best.to_json() | {"by": "search"}}
        related = [r.candidate.record for r in match.related]  # other versions: named by the year check
        return self._against_record(
            record, record.doi or None, summary, [found], citations, where=candidate.index, related=related
        )

    # -- web pages, checked against their pins --------------------------------------

    def check_page(self, url: str, citations: list[Citation]) -> list[_Checked]:
        """All citations of one page: one pin, its text searched as a DOI's snapshot is."""
        make, answer = self.make, self.pages[url]
        pin = answer.pin
        if pin is None:
            return [_Checked([make(answer.code, answer.reason)]) for _ in citations]
        summary = pin.summary()
        if not pin.found:
            message = (
                f"{url} answered HTTP {pin.status} when it was fetched ({pin.fetched_at}): "
                "the page is not there"
            )
            return [_Checked([make("E_URL_NOT_FOUND", message)], record=summary) for _ in citations]
        assert pin.text is not None  # a pin of a page found has its text: sources/pins.py
        text = SourceText(pin.text)
        out: list[_Checked] = []
        for citation in citations:
            source = citation.source
            assert isinstance(source, WorkSource)  # grouped by kind: see audit()
            findings = check_page_title(source.title, pin.titles, make) if source.title is not None else []
            findings += check_page_doi(source.named_doi, pin.citation_doi, make)
            quote_findings, location = check_quote(citation.quote, text, self.settings.min_quote_length, make)
            lines, excerpt = _place(text, location)
            read = page_text(pin) if citation.quote is None else None
            out.append(
                _Checked(findings + quote_findings, location, lines, summary, excerpt=excerpt, text=read)
            )
        return out

    # -- corpus documents (seed 003) -------------------------------------------------

    def check_document(self, document_id: str, citations: list[Citation]) -> list[_Checked]:
        make = self.make
        if self.corpus is None:
            message = f"document {document_id!r} cannot be checked: no corpus was given"
            return [_Checked([make("E_NO_CORPUS", message)]) for _ in citations]
        document = self.corpus.get(document_id)
        if document is None:
            message = f"document {document_id!r} is not in the corpus"
            return [_Checked([make("E_DOCUMENT_MISSING", message)]) for _ in citations]
        text = self.corpus.text_of(document)
        summary = {"document_id": document_id, "title": document.title, "version": document.version}
        out: list[_Checked] = []
        for citation in citations:
            source = citation.source
            assert isinstance(source, CorpusSource)  # grouped by kind: see audit()
            if source.document_version != document.version:
                cited = source.document_version
                message = f"version {cited!r} is cited; the corpus has version {document.version!r}"
                finding = make("E_VERSION_MISMATCH", message, suggestion={"version": document.version})
                out.append(_Checked([finding], record=summary))
                continue
            findings, location = check_range(citation, text, make)
            lines, excerpt = _place(text, location)
            out.append(_Checked(findings, location, lines, summary, excerpt=excerpt))
        return out

    # -- evidence-store sources (seed 002) ---------------------------------------------

    def check_stored(self, source_id: str, citations: list[Citation]) -> list[_Checked]:
        make = self.make
        if not self.store_given:
            message = f"source {source_id!r} cannot be checked: no evidence store was given"
            return [_Checked([make("E_NO_STORE", message)]) for _ in citations]
        stored = self.stored.get(source_id)
        if stored is None:
            message = f"source {source_id!r} is not registered in this scope of the store"
            return [_Checked([make("E_DOCUMENT_MISSING", message)]) for _ in citations]
        current = stored.current
        summary: dict[str, Any] = {
            "kind": stored.kind,
            "locator": stored.locator,
            "source_id": source_id,
            "title": stored.title,
        }
        if stored.revisions == 0:  # registered, never ingested: nothing to check against, nothing removed
            message = f"source {source_id!r} is registered but has no revision yet; nothing to check against"
            return [_Checked([make("E_SOURCE_EMPTY", message)], record=summary) for _ in citations]
        if current is None or current.text is None:
            message = f"source {source_id!r} was removed from the store; its citations are no longer valid"
            return [_Checked([make("E_SOURCE_REVOKED", message)], record=summary) for _ in citations]
        summary |= {"digest": current.digest, "entered_at": current.entered_at, "revision": current.revision}
        intact = digest_text(current.text) == current.digest
        text = SourceText(current.text)
        out: list[_Checked] = []
        for citation in citations:
            source = citation.source
            assert isinstance(source, StoreSource)  # grouped by kind: see audit()
            if source.revision != current.revision:
                relation = "was replaced by" if source.revision < current.revision else "is newer than"
                message = f"revision {source.revision} is cited; it {relation} revision {current.revision}"
                finding = make("E_VERSION_MISMATCH", message, suggestion=current.ref())
                out.append(_Checked([finding], record=summary))
                continue
            if source.digest != current.digest or not intact:
                message = (
                    "the cited digest is not the digest of this revision"
                    if intact
                    else "the store's text of this revision does not match its recorded digest"
                )
                out.append(
                    _Checked([make("E_DIGEST_MISMATCH", message, suggestion=current.ref())], record=summary)
                )
                continue
            findings, location = check_range(citation, text, make)
            lines, excerpt = _place(text, location)
            out.append(_Checked(findings, location, lines, summary, excerpt=excerpt))
        return out


def _claim_pass(
    claim: Claim,
    rows: list[_Pending],
    make: FindingMaker,
    disputed: bool,
    judge: Judge | None,
    judged: bool,
    question: str | None = None,
) -> tuple[list[Finding], ClaimStatus, Verdict | None, Evidence | None]:
    """The claim-level numbers check, the claim's status, and, for a claim awaiting an
    entailment check when a judge runs (``judged``), the evidence it is judged on — the
    passages of quote-less citations are ranked here, inside the worker processes — and the
    verdict of a per-claim judge (``rules``, ``learned``), which thus rides in the same processes.
    A short claim is read with the answer's ``question`` (``semantic/stage.py``)."""
    findings = _check_numbers(claim, rows, make)
    status = _claim_status([*(f for r in rows for f in r.findings), *findings], disputed)
    if not judged or status is not ClaimStatus.REQUIRES_ENTAILMENT_CHECK:
        return findings, status, None, None
    cited = [
        Cited(r.citation_id, r.citation, r.text)
        for r in rows
        if r.citation is not None and r.citation_id is not None
    ]
    evidence = evidence_of(claim.text, cited, question=question)
    if evidence is None or judge is None:
        return findings, status, None, evidence
    return findings, status, evidence.label(judge.judge(evidence.read(claim.text), evidence.fragments)), None


def _check_numbers(claim: Claim, rows: list[_Pending], make: FindingMaker) -> list[Finding]:
    """The claim's numbers against what was read of its citations: their quotes, and for a
    citation with no quote the pinned text of its work (a claim-level finding)."""
    cited = [r for r in rows if r.citation is not None]
    if not cited:
        return []
    texts: list[NumberText] = []
    # A Markdown report's quote is what the claim itself puts in quotation marks (it has a place in
    # the report): a title as often as evidence, so a number outside it is no proof of a wrong claim.
    quoted = "report_quote" if claim.place is not None else "quote"
    for r in cited:
        assert r.citation is not None
        if r.citation.quote is not None:
            texts.append(NumberText(r.citation.quote, quoted))
        elif r.text is not None:
            texts.append(NumberText(r.text.text, r.text.basis.value))
        else:
            texts.append(NumberText(None, "none"))
    years: set[int] = set()
    for r in rows:
        year = r.citation.source.cited_year if r.citation is not None else None
        if year:
            years.add(year)
        years.update(r.years)
    markers = tuple(m.text for m in claim.place.markers) if claim.place is not None else ()
    return check_numbers(claim.text, texts, years, make, markers=markers)


class Suggester(Protocol):
    def suggest_many(self, queries: dict[str, str]) -> dict[str, dict[str, Any]]: ...


class WorkSearch(Protocol):
    """The bibliographic indexes a reference without an identifier is looked up in, in order,
    each asked until one's candidates are ``enough`` (``resolve/indexes/finder.py``)."""

    def find_many(
        self, queries: Sequence[WorkQuery], enough: Callable[[WorkQuery, Sequence[Candidate]], bool]
    ) -> Mapping[str, tuple[IndexAnswer, ...]]: ...

    def described(self) -> list[dict[str, Any]]:
        """The indexes searched, in order, as the report's settings name them: a mirror by its
        file name, dump files, dump dates and records; an online index by its name."""
        ...


def query_of(source: WorkSource) -> WorkQuery:
    """What a reference is searched by: its title, first author and year as cited."""
    first = source.first_author or (source.authors[0] if source.authors else None)
    return WorkQuery(source.title or "", first, source.year)


# Findings after which the right work may be a different one: worth a bibliographic search.
_SEARCH_AFTER = {
    "E_DOI_NOT_FOUND",
    "E_DOI_SYNTAX",
    "E_TITLE_MISMATCH",
    "E_AUTHOR_MISMATCH",
    "E_YEAR_MISMATCH",
}


def _add_candidates(rows: list[_Pending], suggester: Suggester) -> None:
    """Put the best search candidate into the first such finding's suggestion."""
    queries: dict[str, str] = {}
    targets: dict[str, tuple[_Pending, int]] = {}
    for n, row in enumerate(rows):
        source = row.citation.source if row.citation is not None else None
        index = next((i for i, f in enumerate(row.findings) if f.code in _SEARCH_AFTER), None)
        if not isinstance(source, WorkSource) or index is None or not source.title:
            continue
        if HANDLERS[source.kind].route == SEARCH_ROUTE:
            continue  # found by search already: the match is in the report
        parts = [source.title, source.first_author or "", str(source.year or "")]
        key = f"row{n}"
        queries[key] = " ".join(p for p in parts if p)
        targets[key] = (row, index)
    for key, candidate in suggester.suggest_many(queries).items():
        row, index = targets[key]
        finding = row.findings[index]
        row.findings[index] = replace(
            finding, suggestion={**(finding.suggestion or {}), "candidate": candidate}
        )


def _group_of(row: _Pending, source: Source, make: FindingMaker) -> tuple[str, str] | None:
    """The group a citation is checked in: its work's resolver key (through the handler of its
    identifier kind), its corpus document or its store source; None when it cannot be checked at
    all (a malformed identifier, a reference with none), with the finding added to its row."""
    if isinstance(source, WorkSource):
        handler = HANDLERS[source.kind]
        normal = handler.normalise(source.identifier)
        row.doi = handler.key(normal)
        if handler.is_valid(normal) and handler.route == SEARCH_ROUTE:
            key, row.doi = row.doi, None  # it cites no identifier; the match says which it found
            return ("search", key)
        if handler.is_valid(normal):
            row.doi = canonical_key(row.doi)
            row.findings += check_identifier_controls(handler.kind, source.identifier, make)
            if source.form_note:
                row.findings.append(make("W_IDENTIFIER_FORM", source.form_note))
            return ("page" if handler.text_source == "pin" else "work", row.doi)
        row.findings += check_identifier_controls(handler.kind, source.identifier, make)  # valid or not
        if handler.syntax_code is not None:
            row.findings.append(make(handler.syntax_code, handler.invalid(source.identifier)))
        return None
    if isinstance(source, CorpusSource):
        return ("corpus", source.document_id)
    if isinstance(source, StoreSource):
        return ("store", source.source_id)
    row.findings.append(
        make("E_NO_IDENTIFIER", "the reference names no DOI or arXiv id, so it cannot be looked up")
    )
    return None


def _searches(
    finder: WorkSearch | None, groups: Mapping[tuple[str, str], list[_Pending]]
) -> Mapping[str, tuple[IndexAnswer, ...]]:
    """The answers of the indexes for every reference searched, by its key (``work:…``)."""
    queries: dict[str, WorkQuery] = {}
    for (kind, key), group in sorted(groups.items()):
        citation = group[0].citation
        if kind == "search" and citation is not None and isinstance(citation.source, WorkSource):
            queries[key] = query_of(citation.source)
    if finder is None or not queries:
        return {}
    found = finder.find_many(list(queries.values()), is_enough)
    return {key: tuple(found.get(query.key, ())) for key, query in queries.items()}


def full_text_keys(record: Record) -> list[str]:
    """The keys the full texts a record names are pinned under (as a cited web page's)."""
    keys = (pin_key(WorkSource(url, kind="url")) for url in record.full_text_urls)
    return [key for key in keys if key is not None]


def _full_text_pins(
    groups: Mapping[tuple[str, str], list[_Pending]], answers: Mapping[str, Resolution]
) -> list[str]:
    """The full-text pins worth reading: those of works cited with no quote."""
    keys: set[str] = set()
    for (kind, key), group in groups.items():
        record = answers[key].record if kind == "work" and key in answers else None
        if record is not None and any(r.citation is not None and r.citation.quote is None for r in group):
            keys.update(full_text_keys(record))
    return sorted(keys)


def _pages(pins: PinStore | None, urls: list[str]) -> dict[str, PinAnswer]:
    if not urls:
        return {}
    if pins is None:
        reason = "no pins were given to check web pages against"
        return {url: PinAnswer(None, "E_NOT_PINNED", reason) for url in urls}
    return pins.lookup_many(urls)


def _claim_status(findings: Iterable[Finding], disputed: bool) -> ClaimStatus:
    errors = [f for f in findings if f.severity == "error"]
    if any(f.code == "E_UNCITED" for f in errors):
        return ClaimStatus.UNSUPPORTED
    if any(f.outcome is not Outcome.UNCHECKED for f in errors):
        return ClaimStatus.INVALID
    if errors:
        return ClaimStatus.UNCHECKED
    if disputed:
        return ClaimStatus.DISPUTED
    return ClaimStatus.REQUIRES_ENTAILMENT_CHECK


def audit(
    submission: Submission,
    *,
    resolver: Resolver,
    snapshots: SnapshotStore,
    corpus: Corpus | None = None,
    store: SourceLookup | None = None,
    suggester: Suggester | None = None,
    settings: AuditSettings | None = None,
    judge: Judge | None = None,
    reviews: Sequence[Review] = (),
    pins: PinStore | None = None,
    finder: WorkSearch | None = None,
) -> Report:
    """Run every deterministic check of ``submission``, then the judge (if
    any) on the claims that passed them, and apply the reviews and the policy.
    A stale or malformed review raises :class:`citeaudit.policy.ReviewError`."""
    settings = settings or AuditSettings()
    make = _finding_maker(tuple(sorted(settings.severity.items())))
    rows, orphans = _plan(submission, make)
    everything = rows + orphans

    groups: dict[tuple[str, str], list[_Pending]] = {}
    for row in everything:
        citation = row.citation
        if citation is None:
            continue
        target = _group_of(row, citation.source, make)
        if target is not None:
            groups.setdefault(target, []).append(row)

    dois = sorted(key for kind, key in groups if kind == "work")
    answers = resolver.resolve_many(dois) if dois else {}
    source_ids = [key for kind, key in groups if kind == "store"]
    stored = store.fetch(source_ids) if store is not None and source_ids else {}
    urls = sorted(key for kind, key in groups if kind == "page")
    if settings.offline or settings.full_text:  # online, full texts are fetched only when asked for
        urls = sorted({*urls, *_full_text_pins(groups, answers)})
    pages = _pages(pins, urls)
    searches = _searches(finder, groups)
    context = _Context(settings, make, snapshots, answers, corpus, stored, store is not None, pages, searches)
    checkers = {
        "work": context.check_work,
        "page": context.check_page,
        "corpus": context.check_document,
        "store": context.check_stored,
        "search": context.check_search,
    }
    ordered = list(groups.items())

    def check_group(i: int) -> list[_Checked]:
        (kind, key), group = ordered[i]
        return checkers[kind](key, [row.citation for row in group if row.citation is not None])

    for (_, group), results in zip(ordered, run_items(check_group, len(ordered), settings.jobs), strict=True):
        for row, checked in zip(group, results, strict=True):
            row.findings += checked.findings
            row.location, row.lines, row.record = checked.location, checked.lines, checked.record
            row.years, row.excerpt, row.text = checked.years, checked.excerpt, checked.text

    if suggester is not None:
        _add_candidates(everything, suggester)

    claim_rows: dict[str, list[_Pending]] = {}
    for row in rows:
        assert row.claim is not None
        claim_rows.setdefault(row.claim.id, []).append(row)
    sorted_claims = sorted(submission.claims, key=lambda c: c.id)
    disputed = {cid for conflict in submission.conflicts for cid in conflict.claim_ids}
    inline = judge if judge is not None and judge.per_claim else None
    passes = run_items(
        lambda i: _claim_pass(
            sorted_claims[i],
            claim_rows[sorted_claims[i].id],
            make,
            sorted_claims[i].id in disputed,
            inline,
            judge is not None,
            submission.question,
        ),
        len(sorted_claims),
        # Without a judge the pass is a few microseconds a claim: less than forking for it costs.
        settings.jobs if inline is not None else 1,
    )
    claims: list[ClaimResult] = []
    verdicts: dict[str, Verdict] = {}
    to_judge: dict[str, tuple[str, Evidence]] = {}  # for a judge that batches or waits on a server
    for claim, (findings, status, verdict, evidence) in zip(sorted_claims, passes, strict=True):
        own = claim_rows[claim.id]
        # Reported on the claim's first citation, the seed's place for it.
        first = next((r for r in own if r.citation is not None), None)
        if first is not None:
            first.findings += findings
        ids = tuple(r.citation_id for r in own if r.citation_id is not None)
        claims.append(ClaimResult(claim.id, claim.kind, status, ids))
        if verdict is not None:
            verdicts[claim.id] = verdict
        elif evidence is not None:
            to_judge[claim.id] = (claim.text, evidence)

    deterministic = Report(
        submission=submission,
        rows=tuple(r.row() for r in everything),
        claims=tuple(claims),
        status=ReportStatus.NEEDS_REVIEW,  # status and decision: finalize decides both, below
        settings=settings.to_json()
        | {"judge": str(judge.identity) if judge is not None else None}
        # Only an audit that searched names what it searched: the others' reports stay as they were.
        | ({"search": {"indexes": finder.described()}} if searches and finder is not None else {}),
        checker_version=__version__,
        decision=Decision.REJECT,
    )
    if judge is not None and to_judge:
        verdicts |= judge_claims(judge, to_judge)
    return finalize(deterministic, verdicts, reviews, settings.policy)
