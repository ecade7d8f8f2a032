"""The semantic stage, reviews and the decision through ``citeaudit check``:
judges on the claims that passed, reviews recorded by ``citeaudit review`` and
applied by ``check --reviews`` to the exact submission only, and
``--fail-on decision``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import GOLDEN, run_cli

CASE = GOLDEN / "seed003_real_range"


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(CASE, tmp_path / "case")
    monkeypatch.chdir(tmp_path / "case")
    return tmp_path / "case"


def _check(*extra: str) -> tuple[int, dict[str, Any], str]:
    result = run_cli("check", "response.json", "--corpus", "documents.json", "--offline", *extra)
    report = json.loads(Path("report.json").read_text("utf-8")) if Path("report.json").exists() else {}
    return result.code, report, result.stdout + result.stderr


def test_rules_judge_by_default_and_none_skips_the_stage(work: Path) -> None:
    code, report, out = _check()
    assert (code, report["decision"], report["claims"][0]["verdict"]["label"]) == (
        0,
        "manual_review",
        "unknown",
    )
    assert out.splitlines()[2] == "decision=manual_review status=needs_review"
    code, report, _ = _check("--judge", "none")
    assert (code, report["decision"], report["claims"][0]["verdict"]) == (0, "manual_review", None)
    assert report["settings"]["judge"] is None


def test_fail_on_decision_gives_each_decision_its_exit_code(work: Path) -> None:
    assert _check("--fail-on", "decision")[0] == 6  # manual review: rules never says entailed
    response = json.loads(Path("response.json").read_text("utf-8"))
    response["claims"][0]["text"] = "Сервис хранит журнал операций 90 дней."  # a number the quote lacks
    Path("response.json").write_text(json.dumps(response, ensure_ascii=False), "utf-8")
    code, report, _ = _check("--fail-on", "decision")
    assert code == 1  # a deterministic error (E_NUMBER_UNSUPPORTED) rejects whatever the judge says
    assert report["decision"] == "reject"
    assert _check()[0] == 1


def test_a_review_applies_to_the_exact_submission_only(work: Path) -> None:
    store = ["--store", "store.db", "--scope", "acme/alice"]
    _check()
    recorded = run_cli("review", "report.json", "--claim", "c1", "--verdict", "supported",
                       "--note", "30 days is in the quote", "--reviewer", "ana", "--input", "response.json", *store)  # fmt: skip
    digest = json.loads(Path("report.json").read_text("utf-8"))["submission_sha256"]
    assert (recorded.code, recorded.stdout) == (
        0,
        f"review 1: claim c1 supported by ana for submission {digest[:12]}…\n",
    )
    code, report, _ = _check("--reviews", *store, "--fail-on", "decision")
    assert (code, report["decision"], report["status"]) == (0, "accept", "reviewed_candidate")
    assert report["claims"][0]["review_status"] == "supported"
    assert report["reviews"] == [
        {"claim": "c1", "note": "30 days is in the quote", "reviewer": "ana", "verdict": "supported"}
    ]
    # The same submission reformatted keeps its digest; a changed one leaves the review behind.
    response = json.loads(Path("response.json").read_text("utf-8"))
    Path("response.json").write_text(json.dumps(response, indent=4, ensure_ascii=False), "utf-8")
    assert _check("--reviews", *store)[1]["decision"] == "accept"
    response["claims"][0]["text"] = "Журнал операций хранится 30 дней."
    Path("response.json").write_text(json.dumps(response, ensure_ascii=False), "utf-8")
    code, report, _ = _check("--reviews", *store)
    assert (report["decision"], report["reviews"], report["claims"][0]["review_status"]) == (
        "manual_review",
        [],
        "pending_review",
    )
    stale = run_cli("review", "report.json", "--claim", "c1", "--verdict", "supported", "--note", "x",
                    "--reviewer", "ana", "--input", "response.json", *store)  # fmt: skip
    assert stale.code == 0  # report.json was just rewritten for the new submission
    Path("response.json").write_text(
        json.dumps({**response, "answer": "edited"}, ensure_ascii=False), "utf-8"
    )
    stale = run_cli("review", "report.json", "--claim", "c1", "--verdict", "supported", "--note", "x",
                    "--reviewer", "ana", "--input", "response.json", *store)  # fmt: skip
    assert stale.code == 2
    assert stale.stderr.startswith(
        "citeaudit: error: review of claim 'c1' is stale: response.json is no longer the submission "
    )


def test_the_review_log_lists_every_review_and_which_one_applies(work: Path) -> None:
    store = ["--store", "store.db", "--scope", "acme/alice"]
    _check()
    for verdict, reviewer in (("insufficient", "ana"), ("supported", "bob")):
        recorded = run_cli("review", "report.json", "--claim", "c1", "--verdict", verdict, "--note",
                           f"{reviewer} read\nsection 2", "--reviewer", reviewer, *store)  # fmt: skip
        assert recorded.code == 0
    listed = run_cli("reviews", "report.json", "--format", "json", *store)
    entries = json.loads(listed.stdout)
    assert [{k: v for k, v in e.items() if k != "recorded_at"} for e in entries] == [
        {"applied": False, "claim": "c1", "id": 1, "note": "ana read\nsection 2", "reviewer": "ana",
         "verdict": "insufficient"},
        {"applied": True, "claim": "c1", "id": 2, "note": "bob read\nsection 2", "reviewer": "bob",
         "verdict": "supported"},
    ]  # fmt: skip
    table = run_cli("reviews", "report.json", *store).stdout.splitlines()
    assert table[0].split() == ["id", "recorded_at", "claim", "verdict", "applied", "reviewer", "note"]
    assert [line.split()[2:] for line in table[1:]] == [
        ["c1", "insufficient", "no", "ana", "ana", "read", "section", "2"],
        ["c1", "supported", "yes", "bob", "bob", "read", "section", "2"],
    ]  # a note's line break does not break the table
    other = run_cli(
        "reviews", "report.json", "--format", "json", "--store", "store.db", "--scope", "globex/eve"
    )
    assert (other.code, other.stdout) == (0, "[]\n")  # another tenant sees none of them
    _check("--reviews", *store)
    assert json.loads(Path("report.json").read_text("utf-8"))["reviews"][0]["reviewer"] == "bob"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--claim", "c9", "--verdict", "supported", "--note", "n", "--reviewer", "ana"],
         "citeaudit: error: review names claim 'c9', which is not in the report\n"),
        (["--claim", "c1", "--verdict", "supported", "--note", " ", "--reviewer", "ana"],
         "citeaudit: error: review note must be non-empty and at most 1000 characters\n"),
        (["--claim", "c1", "--verdict", "supported", "--note", "n", "--reviewer", ""],
         "citeaudit: error: review must name its reviewer\n"),
        (["--claim", "c1", "--verdict", "supported", "--note", "n", "--reviewer", "ana", "--scope", ""],
         "citeaudit: error: no scope: give --scope TENANT/USER\n"),
    ],
)  # fmt: skip
def test_bad_reviews_are_refused_with_exit_2(work: Path, args: list[str], message: str) -> None:
    _check()
    base = ["--store", "store.db", "--scope", "acme/alice"]
    result = run_cli("review", "report.json", *base, *args)
    assert (result.code, result.stderr) == (2, message)
    assert not Path("store.db").exists() or "c1" not in Path("store.db").read_bytes().decode("latin-1")


@pytest.mark.parametrize(
    "command",
    [["review", "report.json", "--claim", "c1", "--verdict", "supported", "--note", "n", "--reviewer", "ana"],
     ["reviews", "report.json"]],
)  # fmt: skip
def test_a_report_from_before_reviews_is_refused(work: Path, command: list[str]) -> None:
    _check()
    report = json.loads(Path("report.json").read_text("utf-8"))
    del report["submission_sha256"]
    Path("report.json").write_text(json.dumps(report), "utf-8")
    result = run_cli(*command, "--store", "store.db", "--scope", "acme/alice")
    assert (result.code, result.stderr) == (
        2,
        "citeaudit: error: report.json: $.submission_sha256: missing: the report predates reviews\n",
    )


def test_review_of_something_that_is_not_a_report(work: Path) -> None:
    result = run_cli("review", "response.json", "--claim", "c1", "--verdict", "supported", "--note", "n",
                     "--reviewer", "ana", "--store", "s.db", "--scope", "a/b")  # fmt: skip
    assert (result.code, result.stderr) == (
        2,
        "citeaudit: error: response.json: $.schema: not a citeaudit report (expected 'citeaudit-report/1')\n",
    )


def test_the_input_cannot_carry_a_review_or_a_verdict(work: Path) -> None:
    response = json.loads(Path("response.json").read_text("utf-8"))
    response["claims"][0]["review"] = {"verdict": "supported"}
    Path("response.json").write_text(json.dumps(response, ensure_ascii=False), "utf-8")
    code, _, out = _check()
    assert code == 2
    assert "$.claims[0].review" in out


def test_nli_judge_in_check_can_accept(work: Path, tmp_path: Path) -> None:
    from tests.semantic.tiny_nli import build_tiny_nli

    model = build_tiny_nli(
        tmp_path / "supports", {0: "entailment", 1: "neutral", 2: "contradiction"}, force=0
    )
    code, report, _ = _check("--judge", f"nli:{model}", "--fail-on", "decision")
    assert (code, report["decision"], report["status"]) == (0, "accept", "needs_review")
    verdict = report["claims"][0]["verdict"]
    assert (verdict["label"], verdict["relied_on"], verdict["judge"].split("@")[0]) == (
        "entailed",
        ["q1"],
        "nli/supports",
    )
    assert len(list((Path("cache") / "verdicts").rglob("*.json"))) == 1  # a rerun is free
    first = Path("report.json").read_bytes()
    assert _check("--judge", f"nli:{model}")[0] == 0
    assert Path("report.json").read_bytes() == first


def test_an_llm_judge_offline_needs_its_cache(work: Path) -> None:
    code, _, _ = _check("--judge", "llm:m@http://127.0.0.1:9/v1", "--verdict-cache", "verdicts")
    assert code == 0  # offline: a miss is unknown, no socket opened
    report = json.loads(Path("report.json").read_text("utf-8"))
    assert report["claims"][0]["verdict"]["signals"] == ["J_NOT_CACHED"]
    assert report["decision"] == "manual_review"
