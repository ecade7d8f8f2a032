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
