"""The Python API: audit on a dict, a path or a model; feedback for the agent;
and the repair loop driven by scripted agents."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

import citeaudit
from citeaudit import InputError, audit, repair_loop
from citeaudit.report.json import render_json
from citeaudit.semantic.factory import make_judge
from tests.conftest import GOLDEN

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
    with pytest.raises(ValueError, match=r"^verdict_cache applies to a judge given by spec"):
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

    def __call__(self, instructions: dict[str, Any] | None) -> dict[str, Any]:
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
    def meddler(instructions: dict[str, Any] | None) -> dict[str, Any]:
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
