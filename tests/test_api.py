"""The Python API: audit on a dict, a path or a model; feedback for the agent;
and the repair loop driven by scripted agents."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import citeaudit
from citeaudit import InputError, audit, repair_loop
from citeaudit.report.json import render_json
from citeaudit.semantic.factory import make_judge
from tests.conftest import GOLDEN, run_cli

SEED = GOLDEN / "seed000"
OPTIONS: dict[str, Any] = {"cache": SEED / "cache", "sources": SEED / "sources"}


def _claims() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SEED / "claims.json").read_text("utf-8"))
    return data


def test_audit_on_a_dict_a_path_and_a_model_agree() -> None:
    from_path = audit(SEED / "claims.json", **OPTIONS)
    from_dict = audit(_claims(), **OPTIONS)
    from_model = audit(citeaudit.load_submission(SEED / "claims.json"), **OPTIONS)
    assert [c.status for c in from_path.claims] == [c.status for c in from_dict.claims]
    assert render_json(from_path) == render_json(from_model) == (SEED / "expected.json").read_bytes()
    assert render_json(audit(_claims(), **OPTIONS)) == render_json(from_dict)  # a dict's digest is stable


def test_audit_raises_input_error_on_bad_input() -> None:
    with pytest.raises(InputError, match=r"\$\.claims\[0\]\.status: unknown field"):
        audit({"claims": [{"id": "c1", "text": "t", "status": "ok"}]}, **OPTIONS)


LLM = "llm:m@http://127.0.0.1:9/v1"  # nothing listens there: offline, no socket may be opened


def test_a_judge_spec_is_built_as_check_builds_it(tmp_path: Path) -> None:
    # Offline, an llm judge answers only from its verdict cache: by default CACHE/verdicts, as in check.
    for verdict_cache in (None, tmp_path):
        report = audit(SEED / "claims.json", judge=LLM, verdict_cache=verdict_cache, **OPTIONS)
        verdict = report.claims[0].verdict
        assert verdict is not None
        assert (verdict.label, verdict.signals, str(verdict.judge)) == (
            "unknown",
            ("J_NOT_CACHED",),
            "llm/m/llm-1",
        )
    assert not (SEED / "cache" / "verdicts").exists()  # a miss offline is never written
    assert audit(SEED / "claims.json", judge="none", **OPTIONS).claims[0].verdict is None
    with pytest.raises(citeaudit.ConfigError, match=r"^verdict_cache applies to a judge given by spec"):
        audit(SEED / "claims.json", judge=make_judge("rules"), verdict_cache=tmp_path, **OPTIONS)


def test_the_repair_loop_runs_a_judge_spec_in_every_round(tmp_path: Path) -> None:
    result = repair_loop(lambda _: _claims(), max_rounds=1, judge=LLM, verdict_cache=tmp_path, **OPTIONS)
    verdict = result.report.claims[0].verdict
    assert verdict is not None
    assert verdict.signals == ("J_NOT_CACHED",)


def _good_c2(claims: dict[str, Any]) -> None:
    c2 = next(c for c in claims["claims"] if c["id"] == "c2")
    c2["text"] = "Привязка снизила число неподтверждённых утверждений с 18 до 7 на сотню ответов."
    c2["citations"][0].update(
        year=2024, quote="снизила число неподтверждённых утверждений с 18 до 7 на сотню ответов"
    )


class FixesOneClaimPerRound:
    """Fixes the first claim named in the feedback each round (deleting what it cannot fix)."""

    def __init__(self) -> None:
        self.answer = _claims()
        self.answer["claims"] = [c for c in self.answer["claims"] if c["id"] != "c3"]  # no uncheckable claim

    def __call__(self, instructions: Mapping[str, Any] | None) -> dict[str, Any]:
        if instructions is not None and instructions["fix"]:
            target = instructions["fix"][0]["claim"]
            if target == "c2":
                _good_c2(self.answer)
            else:
                self.answer["claims"] = [c for c in self.answer["claims"] if c["id"] != target]
        return copy.deepcopy(self.answer)


def test_an_agent_that_fixes_one_claim_per_round_ends_clean() -> None:
    result = repair_loop(FixesOneClaimPerRound(), max_rounds=2, **OPTIONS)
    assert (result.clean, result.needs_person, result.rounds) == (True, False, 2)
    assert [len(h["feedback"]["fix"]) for h in result.history] == [2, 1, 0]


def test_an_agent_that_ignores_the_feedback_goes_to_a_person() -> None:
    result = repair_loop(lambda _: _claims(), max_rounds=2, **OPTIONS)
    assert (result.clean, result.needs_person, result.rounds) == (False, True, 2)
    assert len(result.history) == 3
    assert result.report.failed == 3  # the audit is handed over with the result


def test_an_agent_that_changes_claims_it_was_told_to_keep_is_caught() -> None:
    def meddler(instructions: Mapping[str, Any] | None) -> dict[str, Any]:
        answer = FixesOneClaimPerRound()(None)
        if instructions is not None:
            _good_c2(answer)
            answer["claims"] = [c for c in answer["claims"] if c["id"] != "c4"]
            answer["claims"][0]["text"] += " Also, it cured everything."  # c1 was to be kept
        return answer

    result = repair_loop(meddler, max_rounds=2, **OPTIONS)
    assert result.clean
    assert result.needs_person
    assert result.history[1]["changed_claims_it_was_told_to_keep"] == ["c1"]


def test_every_form_of_an_answer_gives_the_same_report() -> None:
    """bytes raised TypeError before, and a JSON string was taken for a path."""
    data = (SEED / "claims.json").read_bytes()
    expected = (SEED / "expected.json").read_bytes()
    from_bytes = audit(data, **OPTIONS)
    assert render_json(from_bytes) == expected  # the same bytes as the file: the same input digest
    assert render_json(audit(bytearray(data), **OPTIONS)) == expected
    assert render_json(audit(data.decode("utf-8"), **OPTIONS)) == expected  # a str opening with {
    padded = audit("  \n" + data.decode("utf-8"), **OPTIONS)  # white space first: still a document
    assert [c.status for c in padded.claims] == [c.status for c in from_bytes.claims]
    assert render_json(audit(str(SEED / "claims.json"), **OPTIONS)) == expected  # any other str: a path
    bibtex = "@article{k, title={T}, doi={10.1000/none}, year={2020}}"
    for answer in (bibtex, bibtex.encode("utf-8")):
        report = audit(answer, **OPTIONS)
        assert (report.submission.format, [r.doi for r in report.rows]) == ("bibtex", ["10.1000/none"])


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (42, "<answer>: expected bytes, a JSON or BibTeX document (str), a path, a mapping or a Submission, got int"),
        ('{"claims": [', "<answer>: invalid JSON at line 1 column 13: Expecting value"),
        ("", "<answer>: not a path nor a document: ''"),
        ("no/such/claims.json", "no/such/claims.json: no such file"),
        ("x" * 5000, "x" * 77 + "...: cannot read: File name too long"),
        ({"claims": [{"id": "c1", "text": "t", "year": float("nan")}]},
         "<answer>: not a JSON document: Out of range float values are not JSON compliant"),
        ({"claims": object()}, "<answer>: not a JSON document: Object of type object is not JSON serializable"),
    ],
)  # fmt: skip
def test_a_bad_answer_is_an_input_error_of_one_line(answer: Any, message: str) -> None:
    with pytest.raises(InputError) as caught:
        audit(answer, **OPTIONS)
    assert caught.value.diagnostics() == message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"jobs": 0}, "jobs: expected a positive integer, got 0"),
        ({"min_quote_length": "3"}, "min_quote_length: expected a positive integer, got '3'"),
        ({"offline": "yes"}, "offline: expected True or False, got 'yes'"),
        ({"cache": 3}, "cache: expected a path, got 3"),
        ({"severity": {"E_UNCITED": 1}}, 'severity: expected a mapping of CODE to "error", "warning" or "info"'),
        ({"severity": {"E_NOPE": "info"}}, "severity: unknown finding code 'E_NOPE'"),
        ({"judge": "oracle"}, "unknown judge 'oracle'; expected 'rules', 'learned[:NAME|MODEL.json]', 'nli:MODEL', 'llm:MODEL@URL' or 'rules+' and one of these ('none' skips the semantic stage)"),
        ({"judge": 3}, "judge: expected a spec or a judge object, got int"),
        ({"store": 3}, "store: expected a path, a URL or a SourceLookup, got int"),
        ({"store": "ev.db"}, "store: give scope='TENANT/USER' too (the scope its sources are read in)"),
        ({"scope": "acme/alice"}, "scope: applies to a store given as a path or URL"),
        ({"store": "ev.db", "scope": "acme"}, "scope 'acme' is not TENANT/USER (letters, digits, _ . -)"),
        ({"config": {"offline": True}}, "config: expected a citeaudit.config.Config, got dict"),
        ({"corpus": 1}, "corpus: expected a path or a Corpus, got int"),
    ],
)  # fmt: skip
def test_a_bad_option_is_a_config_error_of_one_line(
    options: dict[str, Any], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(citeaudit.ConfigError) as caught:
        audit(SEED / "claims.json", **{**OPTIONS, **options})
    assert caught.value.diagnostics() == message
    assert not (tmp_path / "ev.db").exists()  # nothing created on the way to the error


def test_a_store_is_given_by_path_or_url_and_scope(tmp_path: Path) -> None:
    """store="ev.db" raised AttributeError before."""
    text = tmp_path / "policy.md"
    text.write_text("Journals are kept 30 days.", "utf-8")
    db = tmp_path / "ev.db"
    added = run_cli("sources", "add", text, "--id", "policy", "--store", db, "--scope", "acme/alice")
    assert added.code == 0, added.stderr
    ref = json.loads(added.stdout)
    claim = {"id": "c1", "text": "Journals are kept 30 days.", "citations": [
        {"source_id": "policy", "revision": ref["revision"], "digest": ref["digest"], "start": 0, "end": 26,
         "quote": "Journals are kept 30 days."}]}  # fmt: skip
    for store in (db, str(db)):
        report = audit({"claims": [claim]}, store=store, scope="acme/alice")
        assert [r.findings for r in report.rows] == [()], store
    elsewhere = audit({"claims": [claim]}, store=db, scope="acme/bob")  # another scope sees nothing
    assert [f.code for f in elsewhere.rows[0].findings] == ["E_DOCUMENT_MISSING"]
    missing = tmp_path / "none.db"
    with pytest.raises(citeaudit.ConfigError) as caught:
        audit({"claims": [claim]}, store=missing, scope="acme/alice")
    assert "\n" not in caught.value.diagnostics()
    assert not missing.exists()  # opened read-only: never created


def test_the_result_types_are_exported_from_the_package_root() -> None:
    report = audit(SEED / "claims.json", **OPTIONS)
    assert isinstance(report, citeaudit.Report)
    assert isinstance(report.submission.claims[0], citeaudit.Claim)
    assert isinstance(report.rows[0], citeaudit.Row)
    assert isinstance(report.rows[1].findings[0], citeaudit.Finding)
    assert isinstance(report.claims[0], citeaudit.ClaimResult)
    assert report.status is citeaudit.ReportStatus.INVALID
    assert report.decision is citeaudit.Decision.REJECT
    assert {c.status for c in report.claims} <= set(citeaudit.ClaimStatus)
    assert all(isinstance(c.verdict, citeaudit.Verdict) for c in report.claims if c.verdict is not None)
    assert citeaudit.Review.__module__ == "citeaudit.model"
    for name in (
        "Report",
        "Claim",
        "Row",
        "Finding",
        "Verdict",
        "Review",
        "Decision",
        "ReportStatus",
        "ClaimStatus",
    ):
        assert name in citeaudit.__all__


def test_feedback_is_a_typed_value() -> None:
    from citeaudit.report.feedback import feedback as feedback_dict

    report = audit(SEED / "claims.json", **OPTIONS)
    instructions = citeaudit.feedback(report)
    assert isinstance(instructions, citeaudit.Feedback)
    assert (instructions.clean, instructions.keep_unchanged) == (False, ("c1",))
    assert [(f.claim, f.action) for f in instructions.fix] == [
        ("c2", "fix_or_delete"), ("c3", "wait_for_a_person"), ("c4", "fix_or_delete")]  # fmt: skip
    assert isinstance(instructions.fix[0].problems[0], citeaudit.Problem)
    assert instructions.fix[0].problems[0].code == "E_YEAR_MISMATCH"
    # As a mapping it is the JSON object `citeaudit feedback --format json` prints.
    assert instructions.to_dict() == dict(instructions) == feedback_dict(report)
    assert citeaudit.feedback_text(instructions) == citeaudit.feedback_text(feedback_dict(report))
    with pytest.raises(InputError) as caught:
        citeaudit.feedback({"results": []})
    assert caught.value.diagnostics() == "<report>: not a citeaudit report: KeyError 'claims'"


def test_render_gives_every_format() -> None:
    from citeaudit.report.formats import ReportFormat

    report = audit(SEED / "claims.json", **OPTIONS)
    for fmt in ReportFormat:
        if fmt is not ReportFormat.SARIF:  # the golden SARIF places results with the input's text
            assert citeaudit.render(report, fmt.value) == (SEED / f"expected.{fmt.value}").read_bytes(), fmt
    assert citeaudit.render(report) == (SEED / "expected.json").read_bytes()
    from_dict = json.loads(citeaudit.render(report, "json"))
    assert citeaudit.render(from_dict, "html") == citeaudit.render(report, "html")
    assert json.loads(citeaudit.render(report, "sarif"))["version"] == "2.1.0"
    with pytest.raises(citeaudit.ConfigError) as caught:
        citeaudit.render(report, "pdf")
    assert (
        caught.value.diagnostics()
        == "unknown report format 'pdf'; expected one of json, md, sarif, junit, html"
    )


def test_repair_loop_refuses_an_unknown_option() -> None:
    with pytest.raises(citeaudit.ConfigError) as caught:
        repair_loop(lambda _: _claims(), max_rounds=1, cahce="x", **OPTIONS)
    assert caught.value.diagnostics() == "repair_loop: unknown option 'cahce'"


def test_a_reference_without_an_identifier_is_searched_in_the_mirror_given(tmp_path: Path) -> None:
    from tests.dblp_dump import sample_mirror

    mirror = sample_mirror(tmp_path)
    (tmp_path / "cache").mkdir(exist_ok=True)  # offline, a cache folder that does not exist is refused
    answer = {"claims": [{"id": "c1", "text": "LSTMs.", "citations": [
        {"title": "Long Short-Term Memory", "year": 1997, "first_author": "Hochreiter"}]}]}  # fmt: skip
    report = audit(answer, cache=tmp_path / "cache", mirror=mirror, indexes=[], judge=None)
    codes = [f.code for f in report.rows[0].findings]
    assert codes == ["I_MATCHED_BY_SEARCH", "I_QUOTE_ABSENT"]
    assert report.rows[0].findings[0].suggestion == {"doi": "10.1162/neco.1997.9.8.1735"}
    unsearched = audit(answer, cache=tmp_path / "cache", indexes=[], judge=None)
    assert [f.code for f in unsearched.rows[0].findings] == ["E_NO_INDEX"]
    with pytest.raises(citeaudit.ConfigError, match="indexes: unknown online search index 'scholar'"):
        audit(answer, indexes=["scholar"])
    with pytest.raises(citeaudit.ConfigError, match="no mirror there"):
        audit(answer, mirror=tmp_path / "missing.mirror")


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda r: r.pop("results"), "<report>: $.results: required field is missing"),
        (lambda r: r["results"][0].pop("findings"), "<report>: $.results[0].findings: required field is missing"),
        (lambda r: r["results"][1]["findings"][0].pop("code"),
         "<report>: $.results[1].findings[0].code: required field is missing"),
        (lambda r: r.pop("schema"), "<report>: $.schema: not a citeaudit report (expected 'citeaudit-report/1')"),
    ],
)  # fmt: skip
def test_render_refuses_a_damaged_report_in_every_format(damage: Any, message: str) -> None:
    """Each raised a bare KeyError in a renderer before, and json wrote the damaged report as it was."""
    from citeaudit.report.formats import ReportFormat

    damaged = json.loads(citeaudit.render(audit(SEED / "claims.json", **OPTIONS)))
    damage(damaged)
    for fmt in ReportFormat:
        with pytest.raises(InputError) as caught:
            citeaudit.render(damaged, fmt.value)
        assert caught.value.diagnostics() == message, fmt


def test_feedback_text_and_repair_loop_refuse_what_is_not_their_argument() -> None:
    """feedback_text(None) raised AttributeError, repair_loop(None) TypeError, before."""
    with pytest.raises(citeaudit.ConfigError) as caught:
        citeaudit.feedback_text(None)  # type: ignore[arg-type]
    assert caught.value.diagnostics() == (
        "instructions: expected what citeaudit.feedback returns (a Feedback or its dict), got NoneType"
    )
    with pytest.raises(InputError) as damaged:
        citeaudit.feedback_text({"fix": []})
    assert damaged.value.diagnostics() == "<feedback>: not citeaudit feedback: KeyError 'clean'"
    with pytest.raises(citeaudit.ConfigError) as looped:
        repair_loop(None, **OPTIONS)  # type: ignore[arg-type]
    assert looped.value.diagnostics() == (
        "generate: expected a function that takes the feedback (None at first) and returns the answer, "
        "got NoneType"
    )


def test_a_cache_folder_that_does_not_exist_is_refused_as_check_refuses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Given in a Config, it was accepted before: every citation became E_NOT_CACHED."""
    from citeaudit.config import Config

    monkeypatch.chdir(tmp_path)
    message = (
        "cache: nope is not a folder; offline, every citation would be E_NOT_CACHED "
        "(give the cache folder, or fetch online to fill it)"
    )
    for options in ({"cache": "nope"}, {"config": Config(cache=Path("nope"), offline=True)}):
        with pytest.raises(citeaudit.ConfigError) as caught:
            audit(SEED / "claims.json", sources=SEED / "sources", **options)
        assert caught.value.diagnostics() == message
        with pytest.raises(citeaudit.ConfigError) as looped:
            repair_loop(lambda _: _claims(), sources=SEED / "sources", **options)
        assert looped.value.diagnostics() == message
    # As in check: the default folder, not named, and a submission that needs no cache, are not refused.
    assert [f.code for f in audit(SEED / "claims.json").rows[0].findings] == ["E_NOT_CACHED"]
    assert audit({"claims": [{"id": "c1", "text": "t", "citations": []}]}, cache="nope").rows


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ('{"claims": [{"id": "c1", "text": "\ud800", "citations": []}]}',
         "<answer>: $.claims[0].text: not valid Unicode text (a lone surrogate): '\\ud800'"),
        ({"claims": [{"id": "c1", "text": "\ud800", "citations": []}]},
         "<answer>: $.claims[0].text: not valid Unicode text (a lone surrogate): '\\ud800'"),
        ('{"claims": [{"\udc80": 1}]}',
         "<answer>: $.claims[0]: a key is not valid Unicode text (a lone surrogate): '\\udc80'"),
        ("@article{k,\n  title = {T\ud800},\n  doi = {10.1000/x}\n}",
         "<answer>: line 2: not valid Unicode text (a lone surrogate): '\\ud800'"),
        ('{"claims": \ud800', "<answer>: line 1: not valid Unicode text (a lone surrogate): '\\ud800'"),
    ],
)  # fmt: skip
def test_a_lone_surrogate_is_the_input_error_check_gives(answer: Any, message: str) -> None:
    """A str answer raised UnicodeEncodeError before (a mapping's error named the codec)."""
    with pytest.raises(InputError) as caught:
        audit(answer, **OPTIONS)
    assert caught.value.diagnostics() == message
