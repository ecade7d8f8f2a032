"""Seed 003's checks, each with its test: the eight listed at the end of the
seed, plus the structure checks of its validator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citeaudit.core import AuditSettings, audit
from citeaudit.errors import InputError
from citeaudit.formats import parse_document
from citeaudit.resolve.cache import CachingResolver, DoiCache
from citeaudit.semantic.rules import RulesJudge
from citeaudit.sources.corpus import Corpus, Document, load_corpus
from citeaudit.sources.directory import SnapshotDirectory

TEXT = "Правила хранения данных. Журнал операций хранится в течение 30 календарных дней. Резервные копии удаляются отдельно."
QUOTE = "Журнал операций хранится в течение 30 календарных дней."
CORPUS = Corpus({"retention-policy": Document("retention-policy", "2026-01", TEXT)}, "documents.json")


def _citation(**changes: Any) -> dict[str, Any]:
    base = {"id": "q1", "document_id": "retention-policy", "document_version": "2026-01", "start": 25,
            "end": 80, "quote": QUOTE}  # fmt: skip
    return {**base, **changes}


def _run(
    citations: list[dict[str, Any]],
    claims: list[dict[str, Any]] | None = None,
    tmp: Path = Path("/nonexistent"),
    judge: Any = None,
) -> Any:
    claims = claims or [
        {"id": "c1", "text": "Сервис хранит журнал операций 30 дней.", "citation_ids": ["q1"]}
    ]
    sub = parse_document({"claims": claims, "citations": citations}, "response.json")
    return audit(sub, resolver=CachingResolver(DoiCache(tmp)), snapshots=SnapshotDirectory(tmp), corpus=CORPUS,
                 settings=AuditSettings(offline=True), judge=judge)  # fmt: skip


def _codes(report: Any) -> list[str]:
    return [f.code for r in report.rows for f in r.errors]


def _status(report: Any, claim: str = "c1") -> Any:
    return next(c.status.value for c in report.claims if c.id == claim)


def test_the_right_range_passes_and_needs_an_entailment_check() -> None:
    report = _run([_citation()])
    assert _codes(report) == []
    assert _status(report) == "requires_entailment_check"


def test_1_unknown_document_is_rejected() -> None:
    assert _codes(_run([_citation(document_id="retention-policy-v2")])) == ["E_DOCUMENT_MISSING"]


def test_2_outdated_version_is_rejected() -> None:
    report = _run([_citation(document_version="2025-12")])
    assert _codes(report) == ["E_VERSION_MISMATCH"]
    assert report.rows[0].findings[0].suggestion == {"version": "2026-01"}


@pytest.mark.parametrize(
    ("start", "end", "problem"),
    [
        (-1, 54, "start -1 is negative"),
        (30, 30, "[30, 30) is empty"),
        (40, 30, "[40, 30) is empty"),
        (25, 500, "end 500 is past the end of the text (116 characters)"),
        (True, 80, "start must be an integer, got True"),
        ("25", 80, "start must be an integer, got '25'"),
        (25.0, 80, "start must be an integer, got 25.0"),
        (None, 80, "start must be an integer, got None"),
    ],
)
def test_3_bad_ranges_are_rejected_with_the_right_range_suggested(start: Any, end: Any, problem: str) -> None:
    report = _run([_citation(start=start, end=end)])
    (finding,) = report.rows[0].errors
    assert finding.code == "E_RANGE_INVALID"
    assert finding.message == f"{problem}; the quote occurs verbatim at [25, 80)"
    assert finding.suggestion == {"start": 25, "end": 80}


def test_4_one_changed_character_is_detected() -> None:
    report = _run([_citation(quote=QUOTE.replace("30", "31"))])
    assert _codes(report) == ["E_QUOTE_MISMATCH", "E_NUMBER_UNSUPPORTED"]  # and the claim's 30 lost its quote
    finding = report.rows[0].errors[0]
    assert finding.suggestion == {
        "closest": QUOTE,  # the cited range holds nearly the quote: it is the closest passage
        "expected": QUOTE,
        "similarity": 0.982,
        "span": {"start": 25, "end": 80},
    }


def test_a_quote_far_from_its_range_gets_the_closest_passage_searched() -> None:
    report = _run([_citation(start=0, end=24, quote=QUOTE.replace("30", "31"))])
    finding = report.rows[0].errors[0]
    assert finding.suggestion == {
        "closest": QUOTE,
        "expected": TEXT[:24],
        "similarity": 0.982,
        "span": {"start": 25, "end": 80},
    }


def test_the_seed_printed_off_by_one_range_is_reported_precisely() -> None:
    report = _run([_citation(start=24, end=79)])
    (finding,) = report.rows[0].errors
    assert finding.message == "the text at [24, 79) is not the quote; the quote occurs verbatim at [25, 80)"
    assert finding.suggestion == {"start": 25, "end": 80, "expected": " " + QUOTE[:-1]}


@pytest.mark.parametrize(("quote", "said"), [("", "the quote is empty"), ("   ", "the quote is only spaces")])
def test_an_empty_quote_is_said_to_be_empty_not_found_everywhere(quote: str, said: str) -> None:
    # An empty string "occurs" at every position of the text: it is no place the quote could be.
    report = _run([_citation(quote=quote)])
    finding = report.rows[0].errors[0]
    assert finding.code == "E_QUOTE_MISMATCH"
    assert finding.message == f"the text at [25, 80) is not the quote; {said}"
    assert finding.suggestion == {"expected": QUOTE}
    invalid = _run([_citation(start=-1, quote=quote)]).rows[0].errors[0]
    assert invalid.code == "E_RANGE_INVALID"
    assert invalid.message == f"start -1 is negative; {said}"
    assert invalid.suggestion is None


def test_a_quote_that_matches_only_normalised_says_what_differs() -> None:
    report = _run(
        [_citation(start=0, end=10, quote="журнал  операций хранится в течение 30 календарных дней.")]
    )
    (finding,) = report.rows[0].errors
    assert finding.code == "E_QUOTE_MISMATCH"
    assert finding.suggestion is not None
    assert finding.suggestion["differences"] == ["letter case", "whitespace"]
    assert (finding.suggestion["start"], finding.suggestion["end"]) == (25, 80)


def test_5_unknown_citation_id_in_a_claim() -> None:
    claims = [{"id": "c1", "text": "Сервис хранит журнал операций 30 дней.", "citation_ids": ["q1", "q9"]}]
    report = _run([_citation()], claims)
    assert _codes(report) == ["E_UNKNOWN_CITATION"]
    assert _status(report) == "invalid_reference"


def test_6_a_claim_without_references_is_unsupported() -> None:
    report = _run([_citation()], [{"id": "c1", "text": "x", "citation_ids": []}])
    assert _status(report) == "unsupported"


def test_7_an_exact_but_irrelevant_quote_is_not_accepted_as_support() -> None:
    claims = [{"id": "c1", "text": "Резервные копии хранятся вечно.", "citation_ids": ["q1"]}]
    report = _run([_citation()], claims)
    assert _codes(report) == []
    assert _status(report) == "requires_entailment_check"  # never "supported" from the deterministic stage
    assert report.decision.value == "manual_review"  # no judge: a person decides
    judged = _run([_citation()], claims, judge=RulesJudge())
    assert (judged.claims[0].verdict.label, judged.decision.value) == (
        "insufficient",
        "regenerate_or_abstain",
    )


def test_8_a_compound_claim_is_never_entailed_by_the_deterministic_stage() -> None:
    claims = [
        {"id": "c1", "text": "Журнал хранится 30 дней, а резервные копии — 90 дней.", "citation_ids": ["q1"]}
    ]
    report = _run([_citation()], claims)
    assert _status(report) != "supported"
    assert _codes(report) == ["E_NUMBER_UNSUPPORTED"]  # 90 is in no quote
    assert _run([_citation()], claims, judge=RulesJudge()).decision.value == "reject"


def test_missing_and_duplicate_citation_ids() -> None:
    second = _citation(quote="Резервные копии удаляются отдельно.", start=81, end=116)
    report = _run([_citation(), {k: v for k, v in second.items() if k != "id"}, _citation()])
    assert sorted(_codes(report)) == ["E_CITATION_ID_DUPLICATE", "E_CITATION_ID_MISSING"]


def test_no_corpus_given_is_could_not_check(tmp_path: Path) -> None:
    sub = parse_document(
        {"claims": [{"id": "c1", "text": "t", "citation_ids": ["q1"]}], "citations": [_citation()]}, "r"
    )
    report = audit(sub, resolver=CachingResolver(DoiCache(tmp_path)), snapshots=SnapshotDirectory(tmp_path))
    assert _codes(report) == ["E_NO_CORPUS"]
    assert _status(report) == "could_not_check"


def test_corpus_forms(tmp_path: Path) -> None:
    (tmp_path / "documents.json").write_text(json.dumps({"d": {"version": "1", "text": "a\r\nb"}}))
    (tmp_path / "docs.jsonl").write_text(
        '{"id": "d", "version": 2, "text": "x"}\n\n{"id": "e", "version": "1", "text": "y"}\n'
    )
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "d.txt").write_text("from a file")
    (folder / "manifest.json").write_text(json.dumps({"d": {"version": "v1", "file": "d.txt", "title": "D"}}))
    assert load_corpus(tmp_path / "documents.json").documents["d"].text == "a\nb"
    assert load_corpus(tmp_path / "docs.jsonl").documents["d"].version == "2"
    assert load_corpus(folder).documents["d"] == Document("d", "v1", "from a file", "D")


def test_a_manifest_cannot_point_outside_its_directory(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    (tmp_path / "secret.txt").write_text("x")
    (folder / "manifest.json").write_text(json.dumps({"d": {"version": "1", "file": "../secret.txt"}}))
    with pytest.raises(InputError, match=r"\$\.d\.file: the file must lie inside the corpus directory"):
        load_corpus(folder)


def test_a_manifest_file_name_with_a_nul_is_an_input_error(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "manifest.json").write_text(json.dumps({"d": {"version": "1", "file": "d\u0000.txt"}}))
    with pytest.raises(InputError) as caught:
        load_corpus(folder)
    assert (
        caught.value.diagnostics()
        == f"{folder / 'manifest.json'}: $.d.file: not a usable file name: embedded null byte"
    )


def test_bad_corpus_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "documents.json"
    path.write_text(json.dumps({"d": {"version": "1"}}))
    with pytest.raises(InputError, match=r"\$\.d\.text: required field is missing"):
        load_corpus(path)


def test_a_quote_found_nowhere_says_so() -> None:
    report = _run([_citation(start=0, end=10, quote="Zzzz qqqq wwww, nothing like this is in the text.")])
    finding = report.rows[0].errors[0]
    assert finding.message == "the text at [0, 10) is not the quote; the quote does not occur in the text"
    assert finding.suggestion == {"expected": TEXT[:10]}


def test_a_corpus_citation_without_its_quote_is_refused_when_read() -> None:
    # Quote-less citations are read in a work's text (docs: support.md); a corpus citation never is
    # (a missing range is the seed's range_invalid, above).
    citation = {k: v for k, v in _citation().items() if k != "quote"}
    with pytest.raises(InputError) as caught:
        parse_document({"claims": [{"id": "c1", "text": "x", "citation_ids": ["q1"]}], "citations": [citation]},
                       "response.json")  # fmt: skip
    assert str(caught.value) == "response.json: $.citations[0].quote: required field is missing"
