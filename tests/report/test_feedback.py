"""Feedback for the agent: what to fix and why, what to keep, the claims found weak; and the
``citeaudit feedback`` command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from citeaudit import audit
from citeaudit.model import Review
from citeaudit.report.feedback import feedback, feedback_text
from tests.conftest import GOLDEN, run_cli

SEED = GOLDEN / "seed000"
OPTIONS: dict[str, Any] = {"cache": SEED / "cache", "sources": SEED / "sources"}


def _claims() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SEED / "claims.json").read_text("utf-8"))
    return data


def test_feedback_lists_what_to_fix_why_and_what_to_keep() -> None:
    instructions = feedback(audit(_claims(), **OPTIONS))
    assert not instructions["clean"]
    assert [(f["claim"], f["action"]) for f in instructions["fix"]] == [
        ("c2", "fix_or_delete"), ("c3", "wait_for_a_person"), ("c4", "fix_or_delete")
    ]  # fmt: skip
    c2 = instructions["fix"][0]["problems"]
    assert [p["code"] for p in c2] == ["E_YEAR_MISMATCH", "E_QUOTE_NOT_FOUND", "E_NUMBER_UNSUPPORTED:3"]
    assert c2[0]["suggestion"] == {"years": {"issued": 2024}}
    assert instructions["keep_unchanged"] == ["c1"]
    assert "Do not change, add or reword any other claim" in feedback_text(instructions)


def test_feedback_names_claims_a_judge_or_reviewer_found_weak(tmp_path: Path) -> None:
    answer = {"claims": [
        {"id": "c1", "text": "The journal is kept for 90 days.", "citations": [
            {"document_id": "d", "document_version": "1", "start": 0, "end": 37,
             "quote": "The operations journal is kept for 30"}]},
    ]}  # fmt: skip
    corpus = tmp_path / "documents.json"
    corpus.write_text(
        json.dumps({"d": {"version": "1", "text": "The operations journal is kept for 30 days."}})
    )
    report = audit(answer, corpus=corpus, cache=tmp_path / "c", sources=tmp_path / "s")
    assert report.has_errors  # the 90 is not in the quote: a deterministic error, not advice
    answer["claims"][0]["text"] = (
        "Operations journal retention lasts indefinitely across every regional archive."
    )
    report = audit(answer, corpus=corpus, cache=tmp_path / "c", sources=tmp_path / "s")
    instructions = feedback(report)
    assert instructions["clean"]
    assert instructions["weak"] == [
        {"claim": "c1", "verdict": "insufficient", "by": "rules/coverage<0.3/rules-1",
         "unsupported": ["across", "archive", "every", "indefinitely", "lasts", "regional", "retention"],
         "basis": "quote"}
    ]  # fmt: skip
    text = feedback_text(instructions)
    assert text.startswith("Every citation passed the deterministic checks.\nNot shown by their quotes")
    assert (
        "  - c1: insufficient according to rules/coverage<0.3/rules-1; not found in the quotes: across"
        in text
    )
    reviewed = audit(answer, corpus=corpus, cache=tmp_path / "c", sources=tmp_path / "s",
                     reviews=[Review(report.submission.digest, "c1", "supported", "checked", "ana")])  # fmt: skip
    assert feedback(reviewed)["weak"] == []  # a person outranks the judge


def test_feedback_command(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    report.write_bytes((SEED / "expected.json").read_bytes())
    result = run_cli("feedback", report, "--format", "json")
    assert result.code == 1
    assert json.loads(result.stdout) == feedback(json.loads(report.read_text("utf-8")))


def test_a_fix_is_a_patch_to_the_citation_the_same_in_every_format(tmp_path: Path) -> None:
    """feedback, its text, the API's Feedback and the HTML report give the same patch; merged into
    the citation, the next audit reads it and the year problem is gone."""
    from citeaudit import feedback as api_feedback
    from citeaudit import render

    claims = _claims()
    report = audit(claims, **OPTIONS)
    instructions = feedback(report)
    c2 = instructions["fix"][0]["problems"]
    assert c2[0]["fix"] == {"year": 2024}
    assert "fix" not in c2[1]  # E_QUOTE_NOT_FOUND: no field fixes it
    assert 'Fix: set {"year": 2024} in the citation.' in feedback_text(instructions)
    typed = api_feedback(report)
    assert typed.fix[0].problems[0].fix == {"year": 2024}
    html = render(report, "html").decode("utf-8")
    assert '"fix":"{\\"year\\": 2024}"' in html  # the view's JSON holds the patch as the text to paste
    claims["claims"][1]["citations"][0] |= c2[0]["fix"]
    again = feedback(audit(claims, **OPTIONS))
    assert [p["code"] for p in again["fix"][0]["problems"]] == ["E_QUOTE_NOT_FOUND", "E_NUMBER_UNSUPPORTED:3"]


def test_the_repair_loop_converges_on_the_fixes_it_gives() -> None:
    from citeaudit import Feedback, repair_loop

    def agent(instructions: Feedback | None) -> dict[str, Any]:
        claims = _claims()
        claims["claims"] = [c for c in claims["claims"] if c["id"] in ("c1", "c2")]
        claims["claims"][1]["text"] = "Метод снижает число ошибок."
        claims["claims"][1]["citations"][0]["quote"] = (
            "экспериментах привязка каждого утверждения к найденному фрагменту"
        )
        if instructions is not None:
            for item in instructions.fix:
                for problem in item.problems:
                    assert problem.fix is not None, problem
                    claims["claims"][1]["citations"][0] |= problem.fix
        return claims

    result = repair_loop(agent, max_rounds=1, **OPTIONS)
    assert (result.clean, result.rounds) == (True, 1)


def test_advice_on_a_quote_less_claim_names_the_passages_read_not_quotes() -> None:
    weak = {"claim": "c3", "verdict": "insufficient", "by": "learned/sha256:0/learned-8",
            "unsupported": ["heavy metal"], "basis": "retrieved"}  # fmt: skip
    instructions = {"clean": True, "fix": [], "keep_unchanged": [], "weak": [weak], "quote": []}
    text = feedback_text(instructions)
    assert text.splitlines()[1].startswith("Not shown by their quotes or the cited texts (a judgement")
    assert (
        "  - c3: insufficient according to learned/sha256:0/learned-8; not found in the passages read of the cited text: heavy metal"
        in text
    )
    quoted = feedback_text({**instructions, "weak": [{**weak, "basis": "quote"}]})
    assert "not found in the quotes: heavy metal" in quoted
    assert "Not shown by their quotes (" in quoted


def _report(findings: list[dict[str, Any]], verdict: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "results": [{"claim": "c1", "citation": "q1", "findings": findings}],
        "claims": [{"id": "c1", "status": "could_not_check", "verdict": verdict}],
        "input_sha256": "0" * 64,
    }


def test_a_claim_that_only_could_not_be_checked_waits_for_a_person_whatever_the_code() -> None:
    not_pinned = {"code": "E_NOT_PINNED", "label": "E_NOT_PINNED", "severity": "error",
                  "outcome": "could_not_check", "message": "offline, and no pin of https://example.org/a was found"}  # fmt: skip
    assert feedback(_report([not_pinned]))["fix"][0]["action"] == "wait_for_a_person"
    wrong = {"code": "E_YEAR_MISMATCH", "label": "E_YEAR_MISMATCH", "severity": "error", "outcome": "wrong",
             "message": "1999 is not a year of the work"}  # fmt: skip
    assert feedback(_report([not_pinned, wrong]))["fix"][0]["action"] == "fix_or_delete"


def test_a_message_ending_in_a_question_mark_gets_no_full_stop_after_it() -> None:
    undefined = {"code": "E_MARKER_UNDEFINED", "label": "E_MARKER_UNDEFINED", "severity": "error",
                 "outcome": "wrong", "message": "the marker [S1] names 'S1'; did you mean [s1] (line 7:1)?"}  # fmt: skip
    text = feedback_text(feedback(_report([undefined])))
    assert "did you mean [s1] (line 7:1)?\n" in text
    assert "?." not in text


def test_a_vetoed_unknown_verdict_is_advice_naming_the_veto() -> None:
    verdict = {"label": "unknown", "judge": "learned/sha256:0/learned-8", "unsupported": [],
               "reason": "veto S_NAME_REPLACED (River Tane / Harlow Bridge): never entailed; "
                         "triples_window=1.00 (+0.89)",
               "vetoes": ["S_NAME_REPLACED (River Tane / Harlow Bridge)"]}  # fmt: skip
    instructions = feedback(_report([], verdict))
    assert instructions["clean"]  # advice, never a failed check
    assert instructions["weak"] == [
        {"claim": "c1", "verdict": "unknown", "by": "learned/sha256:0/learned-8", "unsupported": [],
         "basis": "quote", "vetoes": ["S_NAME_REPLACED (River Tane / Harlow Bridge)"]}
    ]  # fmt: skip
    assert (
        "  - c1: unknown according to learned/sha256:0/learned-8; it says what the source does not: "
        "S_NAME_REPLACED (River Tane / Harlow Bridge)" in feedback_text(instructions)
    )
    # an unknown with no veto (the band between the thresholds) is no advice
    no_veto = {k: v for k, v in verdict.items() if k != "vetoes"}
    assert feedback(_report([], {**no_veto, "reason": "triples_window=1.00 (+0.89)"}))["weak"] == []
