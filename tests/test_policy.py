"""Seed 003's policy cases and seed 002's status transitions, on reports of
real audits of seed 003's example."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citeaudit.api import audit
from citeaudit.errors import ConfigError
from citeaudit.model import Report
from citeaudit.policy import Decision, Policy, Review, ReviewError, claim_states, decide, report_status
from citeaudit.semantic import Fragment, make_judge
from tests.conftest import GOLDEN, run_cli

CASE = GOLDEN / "seed003_real_range"
QUOTE = "Журнал операций хранится в течение 30 календарных дней."


def _report(tmp_path: Path, response: dict[str, Any]) -> Report:
    path = tmp_path / "response.json"
    path.write_text(json.dumps(response, ensure_ascii=False), "utf-8")
    return audit(path, corpus=CASE / "documents.json", cache=tmp_path / "cache", sources=tmp_path / "src")


def _response(*, version: str = "2026-01", uncited: bool = False) -> dict[str, Any]:
    base: dict[str, Any] = json.loads((CASE / "response.json").read_text("utf-8"))
    base["citations"][0]["document_version"] = version
    if uncited:
        base["claims"].append({"id": "c2", "text": "Резервные копии хранятся вечно.", "citation_ids": []})
    return base


def _review(report: Report, claim: str, verdict: str, digest: str | None = None) -> Review:
    return Review(digest or report.submission.digest, claim, verdict, "checked the range", "ana")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("verdict", "decision"),
    [("entailed", Decision.ACCEPT), ("insufficient", Decision.REGENERATE_OR_ABSTAIN),
     ("contradicted", Decision.MANUAL_REVIEW), ("unknown", Decision.MANUAL_REVIEW)],
)  # fmt: skip
def test_seed003_policy_on_a_clean_report(verdict: str, decision: Decision, tmp_path: Path) -> None:
    report = _report(tmp_path, _response())
    assert decide(report, {"c1": verdict}) is decision  # type: ignore[dict-item]


def test_one_deterministic_error_rejects_whatever_the_verdicts(tmp_path: Path) -> None:
    stale_version = _report(tmp_path, _response(version="2025-12"))
    assert decide(stale_version, {"c1": "entailed"}) is Decision.REJECT
    with_uncited = _report(tmp_path, _response(uncited=True))
    assert decide(with_uncited, {"c1": "entailed", "c2": "entailed"}) is Decision.REJECT


def test_no_verdict_counts_as_unknown_and_the_rules_judge_routes(tmp_path: Path) -> None:
    report = _report(tmp_path, _response())
    assert decide(report, {}) is Decision.MANUAL_REVIEW
    verdict = make_judge("rules").judge(report.submission.claims[0].text, [Fragment("q1", QUOTE)])
    assert verdict.label == "unknown"  # words all present: only a stronger judge or a person can say more
    assert decide(report, {"c1": verdict.label}) is Decision.MANUAL_REVIEW


def test_seed002_transitions_through_reviews(tmp_path: Path) -> None:
    report = _report(tmp_path, _response())
    states = claim_states(report)
    assert (states, report_status(report, states).value) == ({"c1": "pending_review"}, "needs_review")
    supported = [_review(report, "c1", "supported")]
    states = claim_states(report, supported)
    assert (states, report_status(report, states).value) == ({"c1": "supported"}, "reviewed_candidate")
    assert decide(report, {"c1": "contradicted"}, supported) is Decision.ACCEPT  # a person outranks a judge
    changed_mind = [*supported, _review(report, "c1", "contradicted")]
    states = claim_states(report, changed_mind)
    assert (states, report_status(report, states).value) == ({"c1": "contradicted"}, "partial")
    assert decide(report, {"c1": "entailed"}, changed_mind) is Decision.MANUAL_REVIEW


def test_an_uncited_claim_marked_supported_is_still_not_supported(tmp_path: Path) -> None:
    report = _report(tmp_path, _response(uncited=True))
    states = claim_states(report, [_review(report, "c1", "supported"), _review(report, "c2", "supported")])
    assert states == {"c1": "supported", "c2": "unsupported"}
    assert report_status(report, states).value == "partial"


def test_a_stale_review_is_rejected(tmp_path: Path) -> None:
    report = _report(tmp_path, _response())
    other = _report(tmp_path, _response(uncited=True))
    stale = _review(other, "c1", "supported")
    with pytest.raises(ReviewError) as err:
        claim_states(report, [stale])
    assert str(err.value) == (
        f"review of claim 'c1' by ana is stale: it was recorded for input {other.submission.digest[:12]}…, "
        f"this report is of {report.submission.digest[:12]}…"
    )


@pytest.mark.parametrize(
    ("claim", "verdict", "note", "message"),
    [("c9", "supported", "n", "review names claim 'c9', which is not in the report"),
     ("c1", "entailed", "n", "review verdict 'entailed' is not one of supported, insufficient, contradicted"),
     ("c1", "supported", " ", "review note must be non-empty and at most 1000 characters"),
     ("c1", "supported", "x" * 1001, "review note must be non-empty and at most 1000 characters")],
)  # fmt: skip
def test_malformed_reviews(claim: str, verdict: str, note: str, message: str, tmp_path: Path) -> None:
    report = _report(tmp_path, _response())
    review = Review(report.submission.digest, claim, verdict, note, "ana")  # type: ignore[arg-type]
    with pytest.raises(ReviewError) as err:
        claim_states(report, [review])
    assert str(err.value) == message


def test_policy_require_review_keeps_a_judge_from_accepting_alone(tmp_path: Path) -> None:
    report = _report(tmp_path, _response())
    strict = Policy(require_review=True)
    assert decide(report, {"c1": "entailed"}, policy=strict) is Decision.MANUAL_REVIEW
    assert decide(report, {"c1": "entailed"}, [_review(report, "c1", "supported")], strict) is Decision.ACCEPT


def test_policy_unknown_can_ask_for_a_new_answer_instead_of_a_person(tmp_path: Path) -> None:
    report = _report(tmp_path, _response())
    lenient = Policy(unknown="regenerate_or_abstain")
    assert decide(report, {}, policy=lenient) is Decision.REGENERATE_OR_ABSTAIN
    assert decide(report, {"c1": "contradicted"}, policy=lenient) is Decision.MANUAL_REVIEW


def test_policy_unchecked_can_go_to_a_person_but_a_wrong_citation_always_rejects(tmp_path: Path) -> None:
    path = tmp_path / "response.json"
    path.write_text(json.dumps(_response(), ensure_ascii=False), "utf-8")
    unchecked = audit(path, cache=tmp_path / "cache", sources=tmp_path / "src")  # no corpus given
    assert unchecked.has_unchecked
    assert not unchecked.has_errors
    # Nothing was found wrong: a person looks by default, never a reject (the strict policy can).
    assert decide(unchecked, {}) is Decision.MANUAL_REVIEW
    assert report_status(unchecked, claim_states(unchecked)).value == "partial"  # never invalid
    assert decide(unchecked, {}, policy=Policy(unchecked="reject")) is Decision.REJECT
    assert (
        decide(unchecked, {}, policy=Policy(unchecked="regenerate_or_abstain"))
        is Decision.REGENERATE_OR_ABSTAIN
    )
    wrong = _report(tmp_path, _response(version="2025-12"))
    assert decide(wrong, {"c1": "entailed"}, policy=Policy(unchecked="manual_review")) is Decision.REJECT


@pytest.mark.parametrize(
    ("table", "message"),
    [({"unknown": "accept"}, "citeaudit.toml: policy.unknown: expected one of manual_review, regenerate_or_abstain, got 'accept'"),
     ({"require_review": "yes"}, "citeaudit.toml: policy.require_review: expected one of true, false, got 'yes'"),
     ({"unchecked": True}, "citeaudit.toml: policy.unchecked: expected one of manual_review, regenerate_or_abstain, reject, got True"),
     ({"average": True}, "citeaudit.toml: policy.average: unknown setting"),
     ({"retrieved": "reject"}, "citeaudit.toml: policy.retrieved: expected one of manual_review, accept, got 'reject'"),
     ({"accept_probability": 0.2}, "citeaudit.toml: policy.accept_probability: expected a number from 0.5 to 1, got 0.2"),
     ({"accept_probability": True}, "citeaudit.toml: policy.accept_probability: expected a number from 0.5 to 1, got True")],
)  # fmt: skip
def test_policy_table_errors_name_the_setting(table: dict[str, Any], message: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        Policy.from_table(table, "citeaudit.toml")
    assert str(err.value) == message


def test_policy_from_the_configuration_file_reaches_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "response.json").write_text(json.dumps(_response(), ensure_ascii=False), "utf-8")
    (tmp_path / "citeaudit.toml").write_text('[policy]\nunknown = "regenerate_or_abstain"\n', "utf-8")
    result = run_cli(
        "check",
        "response.json",
        "--corpus",
        str(CASE / "documents.json"),
        "--offline",
        "--fail-on",
        "decision",
    )
    report = json.loads((tmp_path / "report.json").read_text("utf-8"))
    assert (result.code, report["decision"]) == (5, "regenerate_or_abstain")
    assert report["settings"]["policy"] == {
        "accept_probability": 0.9,
        "require_review": False,
        "retrieved": "manual_review",
        "unchecked": "manual_review",
        "unknown": "regenerate_or_abstain",
    }
    (tmp_path / "citeaudit.toml").write_text("[policy]\nrequire_review = 1\n", "utf-8")
    result = run_cli("check", "response.json", "--offline")
    assert (result.code, result.stderr) == (
        2,
        "citeaudit: error: citeaudit.toml: policy.require_review: expected one of true, false, got 1\n",
    )


def test_an_entailed_verdict_below_the_policys_probability_goes_to_a_person(tmp_path: Path) -> None:
    """An answer of one claim is held to the threshold too: a verdict near the judge's edge is not
    enough to accept it alone."""
    report = _report(tmp_path, _response())
    assert decide(report, {"c1": "entailed"}, scores={"c1": 0.82}) is Decision.MANUAL_REVIEW
    assert decide(report, {"c1": "entailed"}, scores={"c1": 0.95}) is Decision.ACCEPT
    assert decide(report, {"c1": "entailed"}) is Decision.ACCEPT  # a judge with no score (rules)
    lenient = Policy(accept_probability=0.8)
    assert decide(report, {"c1": "entailed"}, policy=lenient, scores={"c1": 0.82}) is Decision.ACCEPT
    assert Policy.from_table({"accept_probability": 1}, "t").accept_probability == 1.0


def test_an_entailed_verdict_on_retrieved_passages_is_not_accepted_by_default(tmp_path: Path) -> None:
    report = _report(tmp_path, _response())
    assert decide(report, {"c1": "entailed"}, retrieved={"c1"}) is Decision.MANUAL_REVIEW
    allowed = Policy(retrieved="accept")
    assert decide(report, {"c1": "entailed"}, policy=allowed, retrieved={"c1"}) is Decision.ACCEPT
    assert decide(report, {"c1": "insufficient"}, retrieved={"c1"}) is Decision.REGENERATE_OR_ABSTAIN


def test_one_claim_with_two_names_swapped_is_never_accepted(tmp_path: Path) -> None:
    """The issue's case through the CLI: one claim quoting its page verbatim, the two actresses
    swapped; whatever the judge says, the answer is not accepted, even with --fail-on decision."""
    quote = (
        "In the film, Meryl Streep plays the editor of a fashion magazine and Anne Hathaway plays her "
        "new assistant."
    )
    corpus = {"film": {"version": "1", "text": f"Review. {quote} It opened in 2006."}}
    (tmp_path / "documents.json").write_text(json.dumps(corpus), "utf-8")
    start = corpus["film"]["text"].index(quote)
    claim = "In the film, Anne Hathaway plays the editor of a fashion magazine and Meryl Streep plays her new assistant."
    response = {
        "claims": [{"id": "c1", "text": claim, "citation_ids": ["q1"]}],
        "citations": [{"id": "q1", "document_id": "film", "document_version": "1", "start": start,
                       "end": start + len(quote), "quote": quote}],
    }  # fmt: skip
    (tmp_path / "response.json").write_text(json.dumps(response), "utf-8")
    for judge in ("rules", "learned", "learned:attribution", "learned:wice", "learned:climate"):
        result = run_cli(
            "check", str(tmp_path / "response.json"), "--corpus", str(tmp_path / "documents.json"), "--offline",
            "--judge", judge, "--fail-on", "decision", "--out", str(tmp_path / "report.json"),
        )  # fmt: skip
        report = json.loads((tmp_path / "report.json").read_text("utf-8"))
        assert report["decision"] != "accept", (judge, report["claims"][0]["verdict"])
        assert result.code != 0, judge
