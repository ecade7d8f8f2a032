"""The catalogue of finding codes: one place for every code, its default
severity, which of the three outcomes it is, and its help text.

Codes are stable (they double as SARIF rule ids). A configuration may change
a code's severity but never remove it, and never the severity of a
"could not check" code: downgrading those would turn "not checked" into a pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from citeaudit.errors import ConfigError
from citeaudit.model import Finding, Outcome, Severity, Span

__all__ = ["CATALOGUE", "CodeInfo", "FindingMaker"]


@dataclass(frozen=True, slots=True)
class CodeInfo:
    code: str
    severity: Severity
    outcome: Outcome
    summary: str


_E, _W, _I = Severity.ERROR, Severity.WARNING, Severity.INFO
_WRONG, _NR, _UN, _NOTE = Outcome.WRONG, Outcome.NOT_REGISTERED, Outcome.UNCHECKED, Outcome.NOTE

CATALOGUE: dict[str, CodeInfo] = {
    c.code: c
    for c in (
        # identifiers and registry answers
        CodeInfo("E_DOI_SYNTAX", _E, _WRONG, "The DOI is not syntactically a DOI (10.NNNN/suffix)."),
        CodeInfo(
            "E_PMID_SYNTAX", _E, _WRONG, "The PMID is not a PubMed identifier (digits, as in PMID: 31452104)."
        ),
        CodeInfo(
            "E_PMCID_SYNTAX", _E, _WRONG, "The PMCID is not a PubMed Central identifier (PMC and digits)."
        ),
        CodeInfo(
            "W_IDENTIFIER_FORM",
            _W,
            _NOTE,
            "The identifier is written in a form its kind does not define, read as the one it contains.",
        ),
        CodeInfo("E_DOI_NOT_FOUND", _E, _NR, "The registry answered that this DOI is not registered."),
        CodeInfo(
            "E_NOT_CACHED",
            _E,
            _UN,
            "Offline, and the cache holds no answer for this citation: run `citeaudit fetch` on the "
            "input online to pin the answer in the cache.",
        ),
        CodeInfo(
            "E_CACHE_CORRUPT", _E, _UN, "The cache entry for this DOI is unreadable and was not trusted."
        ),
        CodeInfo(
            "E_REGISTRY_UNAVAILABLE",
            _E,
            _UN,
            "The registry could not be asked (timeouts, errors, rate limits outlasted the retries).",
        ),
        # metadata as the agent wrote it against the registry record
        CodeInfo(
            "E_TITLE_MISMATCH", _E, _WRONG, "The title differs from the registry's title (and subtitle)."
        ),
        CodeInfo(
            "W_DISPLAY_CONTROLS",
            _W,
            _NOTE,
            "The cited title or quote holds bidirectional controls or variation selectors (shown escaped).",
        ),
        CodeInfo(
            "E_YEAR_MISMATCH", _E, _WRONG, "The year is none of the record's issued, print or online years."
        ),
        CodeInfo("E_AUTHOR_MISMATCH", _E, _WRONG, "The first author named is not an author of the work."),
        CodeInfo(
            "W_AUTHOR_NOT_FIRST", _W, _NOTE, "The author named as first is an author, but not the first."
        ),
        CodeInfo("E_AUTHOR_NOT_ON_WORK", _E, _WRONG, "A cited author is not an author of the work."),
        CodeInfo(
            "W_AUTHOR_ORDER", _W, _NOTE, "The authors are cited in another order than the work lists them."
        ),
        CodeInfo("W_AUTHORS_TRUNCATED", _W, _NOTE, "The author list is truncated (et al.)."),
        CodeInfo(
            "W_AUTHORS_MISSING",
            _W,
            _NOTE,
            "Authors of the work are missing and the list is not marked et al.",
        ),
        CodeInfo(
            "E_VENUE_MISMATCH",
            _E,
            _WRONG,
            "The cited venue and the work's are two distinct venues both known by name (ICML cited for a "
            "NeurIPS paper): not another form of the venue's name.",
        ),
        CodeInfo(
            "W_VENUE_MISMATCH",
            _W,
            _NOTE,
            "The venue is not a name of the work's journal or proceedings that citeaudit knows.",
        ),
        CodeInfo(
            "W_VENUE_PREPRINT_SERVER",
            _W,
            _NOTE,
            "A preprint server is cited as the venue of a published work.",
        ),
        CodeInfo(
            "E_PREPRINT_AS_PUBLISHED",
            _E,
            _WRONG,
            "A preprint is cited as published in a journal or proceedings.",
        ),
        CodeInfo("E_VOLUME_MISMATCH", _E, _WRONG, "The volume differs from the record's."),
        CodeInfo("E_ISSUE_MISMATCH", _E, _WRONG, "The issue differs from the record's."),
        CodeInfo("E_PAGES_MISMATCH", _E, _WRONG, "The pages or article number differ from the record's."),
        CodeInfo("E_WORK_TYPE_MISMATCH", _E, _WRONG, "The kind of work cited is not the kind the DOI names."),
        CodeInfo("E_RETRACTED", _E, _WRONG, "The cited work was retracted, withdrawn or removed."),
        CodeInfo("W_UPDATED", _W, _NOTE, "The cited work has a correction, a new version or another update."),
        CodeInfo(
            "W_PREPRINT_PUBLISHED", _W, _NOTE, "The cited work is a preprint that has since been published."
        ),
        CodeInfo(
            "W_METADATA_UNVERIFIABLE",
            _W,
            _NOTE,
            "The registry record lacks a field the citation gives, so it was not compared.",
        ),
        # the quote in the pinned snapshot text
        CodeInfo("E_QUOTE_TOO_SHORT", _E, _WRONG, "The quote is shorter than the minimum length."),
        CodeInfo(
            "E_NO_SNAPSHOT",
            _E,
            _UN,
            "No text snapshot of the cited work to search the quote in: add the work's text with "
            "`citeaudit snapshot FILE --doi DOI`.",
        ),
        CodeInfo(
            "E_QUOTE_NOT_FOUND", _E, _WRONG, "The quote does not occur in the snapshot, even normalised."
        ),
        CodeInfo(
            "I_QUOTE_NORMALIZED",
            _I,
            _NOTE,
            "The quote occurs only after normalisation; the differences are listed.",
        ),
        CodeInfo("I_QUOTE_REPEATED", _I, _NOTE, "The quote occurs more than once in the snapshot."),
        CodeInfo("I_QUOTE_ABSENT", _I, _NOTE, "The citation gives no quote; no passage was verified."),
        # numbers and coverage
        CodeInfo(
            "E_NUMBER_UNSUPPORTED",
            _E,
            _WRONG,
            "Numbers in the claim occur in none of its quotes, nor in the full text or page of a cited "
            "work it quotes nothing from (listed after the colon).",
        ),
        CodeInfo(
            "I_QUOTE_IN_ABSTRACT",
            _I,
            _NOTE,
            "There is no snapshot of the work; the quote was found in the abstract of its record, pinned "
            "in the cache.",
        ),
        CodeInfo(
            "W_NUMBER_NOT_IN_QUOTE",
            _W,
            _NOTE,
            "Numbers in a report's claim are not in the words it puts in quotation marks, which may be a "
            "title or a name rather than the evidence (listed after the colon).",
        ),
        CodeInfo(
            "W_NUMBER_NOT_IN_ABSTRACT",
            _W,
            _NOTE,
            "Numbers in the claim are not in the abstract of a work it cites; the full text was not read, "
            "and may give them (listed after the colon).",
        ),
        CodeInfo(
            "I_NUMBERS_NOT_CHECKED",
            _I,
            _NOTE,
            "The claim's numbers were not checked: no text of a cited work was read for a citation that "
            "quotes nothing (no snapshot, page or abstract is pinned).",
        ),
        CodeInfo("E_UNCITED", _E, _WRONG, "The claim cites nothing."),
        # structure of a response with a top-level citation list (seed 003)
        CodeInfo("E_CITATION_ID_MISSING", _E, _WRONG, "A citation in the top-level list has no id."),
        CodeInfo("E_CITATION_ID_DUPLICATE", _E, _WRONG, "Two citations in the top-level list share an id."),
        CodeInfo(
            "E_UNKNOWN_CITATION", _E, _WRONG, "A claim refers to a citation id that is not in the list."
        ),
        # web pages, fetched once and pinned
        CodeInfo(
            "E_URL_SYNTAX",
            _E,
            _WRONG,
            "The URL is not an http(s) URL citeaudit can pin (or carries credentials).",
        ),
        CodeInfo(
            "E_URL_NOT_FOUND",
            _E,
            _NR,
            "The server answered 404 or 410 for the page, and that answer was pinned.",
        ),
        CodeInfo("E_NOT_PINNED", _E, _UN, "Offline, and no pin of this page was found beside the snapshots."),
        CodeInfo(
            "E_PIN_CORRUPT", _E, _UN, "The pin of this page is unreadable or its text is not its digest's."
        ),
        CodeInfo(
            "E_URL_UNREACHABLE",
            _E,
            _UN,
            "The page could not be fetched (timeouts, errors, rate limits, redirect loops, other statuses).",
        ),
        CodeInfo(
            "E_URL_REFUSED",
            _E,
            _UN,
            "The host resolves to a loopback, private, link-local or multicast address; not fetched.",
        ),
        CodeInfo("E_ROBOTS_DISALLOWED", _E, _UN, "The site's robots.txt does not allow fetching the page."),
        CodeInfo(
            "E_URL_NO_TEXT", _E, _UN, "The page has no text to extract (it may need a browser to render)."
        ),
        CodeInfo(
            "E_URL_UNREADABLE", _E, _UN, "The page is of a type, size or encoding citeaudit cannot read."
        ),
        CodeInfo("W_URL_TITLE_MISMATCH", _W, _NOTE, "The cited title is none of the page's titles."),
        CodeInfo(
            "E_URL_DOI_MISMATCH",
            _E,
            _WRONG,
            "The DOI the citation names is not the citation_doi of the page.",
        ),
        # corpus documents and evidence-store sources (seeds 003 and 002)
        CodeInfo(
            "E_DOCUMENT_MISSING", _E, _NR, "The cited document or source is not in the corpus or store."
        ),
        CodeInfo("E_VERSION_MISMATCH", _E, _WRONG, "The cited version or revision is not the current one."),
        CodeInfo("E_DIGEST_MISMATCH", _E, _WRONG, "The cited content digest is not the text's digest."),
        CodeInfo("E_SOURCE_REVOKED", _E, _WRONG, "The cited source was removed from the store."),
        CodeInfo(
            "E_SOURCE_EMPTY", _E, _UN, "The cited source is registered but no text was ever ingested for it."
        ),
        CodeInfo("E_RANGE_INVALID", _E, _WRONG, "The [start, end) range is not a range of the text."),
        CodeInfo("E_QUOTE_MISMATCH", _E, _WRONG, "The text at [start, end) is not exactly the quote."),
        # corpus and evidence-store citations when nothing to check them against was given
        CodeInfo("E_NO_CORPUS", _E, _UN, "The citation names a corpus document, but no corpus was given."),
        CodeInfo(
            "E_NO_STORE", _E, _UN, "The citation names an evidence-store source, but no store was given."
        ),
        CodeInfo(
            "E_NO_IDENTIFIER", _E, _UN, "The reference names no DOI or arXiv id, so it cannot be looked up."
        ),
        # references without an identifier, found by bibliographic search
        CodeInfo(
            "I_MATCHED_BY_SEARCH",
            _I,
            _NOTE,
            "The reference names no identifier; bibliographic search matched it (index, record, score).",
        ),
        CodeInfo(
            "E_WORK_AMBIGUOUS",
            _E,
            _UN,
            "Several different works match the reference equally well; none was checked against it, "
            "so the citation could not be checked: name the work's DOI or arXiv id.",
        ),
        CodeInfo(
            "E_WORK_NOT_FOUND",
            _E,
            _NR,
            "No record in any index searched matches the reference's title with its author or year.",
        ),
        CodeInfo(
            "E_MIRROR_INCOMPLETE",
            _E,
            _UN,
            "A local mirror searched for the reference did not finish importing, so it was not trusted.",
        ),
        CodeInfo(
            "E_NO_INDEX",
            _E,
            _UN,
            "No bibliographic index could be searched for the reference (no mirror, no online index).",
        ),
        # research reports: the structure of a Markdown report's markers and reference list
        CodeInfo(
            "E_MARKER_UNDEFINED",
            _E,
            _WRONG,
            "A citation marker of the report names no entry of its references.",
        ),
        CodeInfo(
            "W_MARKER_MALFORMED",
            _W,
            _NOTE,
            "Text that opens a citation marker is never closed or cannot be read, so it names nothing.",
        ),
        CodeInfo("W_REFERENCE_UNUSED", _W, _NOTE, "An entry of the references is never cited by a marker."),
        CodeInfo("W_REFERENCE_DUPLICATE", _W, _NOTE, "Two entries of the references name the same work."),
        CodeInfo(
            "W_LABEL_DUPLICATE",
            _W,
            _NOTE,
            "A footnote or reference label is defined twice; markers name its first definition.",
        ),
        CodeInfo("W_REFERENCES_EMPTY", _W, _NOTE, "A references heading has no entries under it."),
    )
}


class FindingMaker:
    """Builds findings with the configured severity of each code."""

    def __init__(self, overrides: Mapping[str, str] | None = None) -> None:
        self._severity = {code: info.severity for code, info in CATALOGUE.items()}
        for code, value in sorted((overrides or {}).items()):
            info = CATALOGUE.get(code)
            if info is None:
                raise ConfigError(f"severity: unknown finding code {code!r}")
            try:
                severity = Severity(value)
            except ValueError:
                raise ConfigError(f"severity.{code}: {value!r} is not one of error, warning, info") from None
            fixed = info.outcome in (Outcome.UNCHECKED, Outcome.NOT_REGISTERED)
            if fixed and severity is not info.severity:
                raise ConfigError(
                    f"severity.{code}: a {info.outcome.value.replace('_', ' ')} outcome "
                    "cannot change severity"
                )
            self._severity[code] = severity

    def __call__(
        self,
        code: str,
        message: str,
        *,
        location: Span | None = None,
        suggestion: dict[str, Any] | None = None,
        detail: str | None = None,
    ) -> Finding:
        info = CATALOGUE[code]
        return Finding(
            code=code,
            severity=self._severity[code],
            outcome=info.outcome,
            message=message,
            location=location,
            suggestion=suggestion,
            detail=detail,
        )
