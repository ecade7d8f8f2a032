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
         "unsupported": ["across", "archive", "every", "indefinitely", "lasts", "regional", "retention"]}
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
