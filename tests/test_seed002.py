"""Seed 002's demo end to end through the CLI, on SQLite and PostgreSQL:
sources ingested, fragments located, a candidate report checked, and the
report status through a gap, a conflict, an update, a removal and a re-ingest."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import run_cli

TEXTS = {
    "plan_a": "# 人工测试资料\n方案 A 支持离线整理。\n",
    "plan_b": "# 人工测试资料\n方案 B 需要联网检索。\n",
}
SCOPE = "teaching/reader"


def _cli(store: str, *argv: str | Path) -> Any:
    result = run_cli(*argv, "--store", store, "--scope", SCOPE)
    return result


def _setup(tmp_path: Path, store: str) -> dict[str, Any]:
    for source_id, text in TEXTS.items():
        path = tmp_path / f"{source_id}.md"
        path.write_text(text, "utf-8")
        added = _cli(store, "sources", "add", path, "--id", source_id, "--title", f"方案 {source_id[-1].upper()} 教学说明",
                     "--locator", f"fixture:{source_id}", "--kind", "fixture")  # fmt: skip
        assert added.code == 0, added.stderr
    cite_a = _cli(store, "locate", "plan_a", "方案 A 支持离线整理。", "--id", "citation_a")
    cite_b = _cli(store, "locate", "plan_b", "方案 B 需要联网检索。", "--id", "citation_b")
    assert (cite_a.code, cite_b.code) == (0, 0)
    a, b = json.loads(cite_a.stdout), json.loads(cite_b.stdout)

    def seed_form(c: dict[str, Any]) -> dict[str, Any]:
        ref = {k: c[k] for k in ("source_id", "revision", "digest")}
        return {"citation_id": c["id"], "ref": ref, "start": c["start"], "end": c["end"], "quote": c["quote"]}

    return {
        "title": "方案资料的教学核对报告",
        "claims": [
            {"claim_id": "claim_a", "text": "教学说明称方案 A 支持离线整理。", "kind": "fact", "citations": [seed_form(a)]},
            {"claim_id": "claim_b", "text": "教学说明称方案 B 需要联网检索。", "kind": "fact", "citations": [seed_form(b)]},
            {"claim_id": "choice", "text": "若当前任务不能联网,可先核查方案 A。", "kind": "inference",
             "rationale": "离线整理说明支持这一候选方向,但没有验证其他前提。", "citations": [seed_form(a)]},
        ],
        "gaps": ["缺少功能验证和实际使用条件,不能据此宣布某方案整体更优。"],
    }  # fmt: skip


def _check(tmp_path: Path, store: str, report: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    path = tmp_path / "candidate.json"
    path.write_text(json.dumps(report, ensure_ascii=False), "utf-8")
    out = tmp_path / "report.json"
    result = _cli(store, "check", path, "--offline", "--out", out)
    assert result.code in (0, 1), result.stderr
    return result.code, json.loads(out.read_text("utf-8"))


def _statuses(report: dict[str, Any]) -> dict[str, str]:
    return {c["id"]: c["status"] for c in report["claims"]}


def test_seed_002_demo(tmp_path: Path, store_target: str) -> None:
    candidate = _setup(tmp_path, store_target)

    code, report = _check(tmp_path, store_target, candidate)
    assert code == 0
    assert report["input_format"] == "seed-002"
    assert set(_statuses(report).values()) == {"requires_entailment_check"}  # pending review
    assert report["status"] == "partial"  # the registered gap
    located = report["results"][0]
    assert located["location"] == {"start": 9, "end": 21, "line_start": 2, "line_end": 2}
    assert located["record"]["title"] == "方案 A 教学说明"

    code, report = _check(tmp_path, store_target, {**candidate, "gaps": []})
    assert report["status"] == "needs_review"

    opposite = {"claim_id": "opposite", "text": "方案 A 不支持离线整理。", "kind": "fact",
                "citations": candidate["claims"][0]["citations"]}  # fmt: skip
    conflicted = {
        "title": "显式冲突教学例",
        "claims": [candidate["claims"][0], opposite],
        "conflicts": [{"claim_ids": ["claim_a", "opposite"], "reason": "两个论断方向相反,需要重新审阅。"}],
    }
    code, report = _check(tmp_path, store_target, conflicted)
    assert report["status"] == "partial"
    assert _statuses(report) == {"claim_a": "disputed", "opposite": "disputed"}

    updated = tmp_path / "plan_a_v2.md"
    updated.write_text("# 更新后的人工资料\n原有说明已修订。\n", "utf-8")
    assert _cli(store_target, "sources", "add", updated, "--id", "plan_a").code == 0
    code, report = _check(tmp_path, store_target, candidate)
    assert (code, report["status"]) == (1, "invalid")
    assert report["results"][0]["errors"] == ["E_VERSION_MISMATCH"]

    assert _cli(store_target, "sources", "remove", "plan_a").code == 0
    code, report = _check(tmp_path, store_target, candidate)
    assert report["results"][0]["errors"] == ["E_SOURCE_REVOKED"]

    original = tmp_path / "plan_a.md"
    readded = _cli(store_target, "sources", "add", original, "--id", "plan_a")
    assert json.loads(readded.stdout)["revision"] == 3  # the same text, a new revision
    code, report = _check(tmp_path, store_target, candidate)
    assert (code, report["status"]) == (1, "invalid")  # never resurrected
    assert report["results"][0]["errors"] == ["E_VERSION_MISMATCH"]


def test_locate_needs_a_unique_fragment(tmp_path: Path) -> None:
    store = str(tmp_path / "s.db")
    path = tmp_path / "t.txt"
    path.write_text("alpha beta alpha", "utf-8")
    assert _cli(store, "sources", "add", path, "--id", "t").code == 0
    twice = _cli(store, "locate", "t", "alpha")
    assert (twice.code, twice.stderr) == (
        1,
        "citeaudit: the fragment occurs 2 times in t revision 1; it must occur exactly once\n",
    )
    assert _cli(store, "locate", "t", "gamma").code == 1
    once = json.loads(_cli(store, "locate", "t", "beta").stdout)
    assert (once["start"], once["end"], once["revision"]) == (6, 10, 1)


def test_sources_list_show_export(tmp_path: Path) -> None:
    store = str(tmp_path / "s.db")
    path = tmp_path / "t.md"
    path.write_text("some text\n", "utf-8")
    _cli(store, "sources", "add", path, "--id", "t", "--title", "T")
    (listed,) = json.loads(_cli(store, "sources", "list").stdout)
    assert (listed["source_id"], listed["title"], listed["current"]["revision"]) == ("t", "T", 1)
    shown = json.loads(_cli(store, "sources", "show", "t", "--text").stdout)
    assert shown["revision"]["text"] == "some text\n"
    out = tmp_path / "export.json"
    assert _cli(store, "sources", "export", "t", "--out", out).code == 0
    assert json.loads(out.read_text("utf-8"))["revision"]["digest"] == listed["current"]["digest"]
    missing = _cli(store, "sources", "show", "nope")
    assert (missing.code, missing.stderr) == (
        2,
        "citeaudit: error: source 'nope' is not registered in scope teaching/reader\n",
    )


def test_a_store_citation_without_a_store_is_could_not_check(tmp_path: Path) -> None:
    candidate = {"title": "t", "claims": [{"claim_id": "c", "text": "x", "kind": "fact", "citations": [
        {"citation_id": "q", "ref": {"source_id": "s", "revision": 1, "digest": "0" * 64},
         "start": 0, "end": 1, "quote": "x"}]}]}  # fmt: skip
    path = tmp_path / "c.json"
    path.write_text(json.dumps(candidate))
    result = run_cli("check", path, "--offline", "--out", tmp_path / "r.json")
    assert result.code == 3


def _review(tmp_path: Path, store: str, claim: str, verdict: str) -> None:
    recorded = _cli(store, "review", tmp_path / "report.json", "--claim", claim, "--verdict", verdict,
                    "--note", "教学审阅:引用片段与论断一致。", "--reviewer", "teacher")  # fmt: skip
    assert recorded.code == 0, recorded.stderr


def _check_reviewed(tmp_path: Path, store: str, report: dict[str, Any]) -> dict[str, Any]:
    path = tmp_path / "candidate.json"
    path.write_text(json.dumps(report, ensure_ascii=False), "utf-8")
    out = tmp_path / "report.json"
    result = _cli(store, "check", path, "--offline", "--out", out, "--reviews")
    assert result.code in (0, 1), result.stderr
    return dict(json.loads(out.read_text("utf-8")))


def test_seed_002_reviews(tmp_path: Path, store_target: str) -> None:
    """Teaching reviews: with the gap still partial; without it a reviewed candidate;
    an uncited claim marked supported stays out; a changed report leaves the reviews behind."""
    candidate = _setup(tmp_path, store_target)
    report = _check_reviewed(tmp_path, store_target, candidate)
    assert {c["review_status"] for c in report["claims"]} == {"pending_review"}
    for claim in ("claim_a", "claim_b", "choice"):
        _review(tmp_path, store_target, claim, "supported")
    report = _check_reviewed(tmp_path, store_target, candidate)
    assert (report["status"], report["decision"]) == ("partial", "accept")  # the gap keeps it partial
    assert [r["claim"] for r in report["reviews"]] == ["choice", "claim_a", "claim_b"]

    no_gap = {**candidate, "gaps": []}
    report = _check_reviewed(tmp_path, store_target, no_gap)  # another submission: reviews do not carry over
    assert (report["status"], report["reviews"]) == ("needs_review", [])
    for claim in ("claim_a", "claim_b", "choice"):
        _review(tmp_path, store_target, claim, "supported")
    report = _check_reviewed(tmp_path, store_target, no_gap)
    assert (report["status"], report["decision"]) == ("reviewed_candidate", "accept")

    _review(tmp_path, store_target, "claim_b", "contradicted")  # a later review of the same claim counts
    report = _check_reviewed(tmp_path, store_target, no_gap)
    assert (report["status"], report["decision"]) == ("partial", "manual_review")

    uncited = {
        **no_gap,
        "claims": [
            *no_gap["claims"],
            {"claim_id": "bare", "text": "方案 A 更好。", "kind": "fact", "citations": []},
        ],
    }
    _check_reviewed(tmp_path, store_target, uncited)
    _review(tmp_path, store_target, "bare", "supported")
    report = _check_reviewed(tmp_path, store_target, uncited)
    bare = next(c for c in report["claims"] if c["id"] == "bare")
    assert (bare["review_status"], report["status"], report["decision"]) == (
        "unsupported",
        "partial",
        "reject",
    )
