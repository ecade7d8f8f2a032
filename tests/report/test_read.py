"""Reading a report back: every command that takes a report.json refuses a
damaged one with exit 2 and the JSON path of the fault (it crashed inside a
renderer before), and accepts every report check writes."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from citeaudit.report.read import load_report
from tests.conftest import GOLDEN, run_cli

READERS = [
    ["render", "report.json", "--format", "md"],
    ["render", "report.json", "--format", "sarif"],
    ["render", "report.json", "--format", "html"],
    ["stats", "report.json"],
    ["feedback", "report.json"],
    ["review", "report.json", "--claim", "c1", "--verdict", "supported", "--note", "n", "--reviewer", "ana",
     "--store", "store.db", "--scope", "a/b"],
    ["reviews", "report.json", "--store", "store.db", "--scope", "a/b"],
]  # fmt: skip


def _set(path: list[str | int], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(report: dict[str, Any]) -> None:
        parent: Any = report
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = value

    return change


def _drop(key: str) -> Callable[[dict[str, Any]], None]:
    return lambda report: report.pop(key) and None


DAMAGE = [
    (_set(["claims"], "10.1000/x"), "$.claims: expected an array, got string '10.1000/x'"),
    (_set(["checker"], "2026-01"), "$.checker: expected an object, got string '2026-01'"),
    (_set(["claims", 1, "verdict"], {"label": "maybe"}), "$.claims[1].verdict.confidence: required field is missing"),
    (_set(["claims", 0, "status"], "fine"),
     "$.claims[0].status: expected 'invalid_reference', 'unsupported', 'could_not_check', 'disputed' or "
     "'requires_entailment_check', got 'fine'"),
    (_set(["results", 1, "findings", 0, "code"], "E_YEAR_MISSMATCH"),
     "$.results[1].findings[0].code: unknown finding code 'E_YEAR_MISSMATCH'"),
    (_set(["results", 1, "findings", 0, "severity"], "fatal"),
     "$.results[1].findings[0].severity: expected 'error', 'warning' or 'info', got 'fatal'"),
    (_set(["results", 0, "location", "start"], True), "$.results[0].location.start: expected an integer, got boolean True"),
    (_set(["results", 0, "extra"], 1), "$.results[0].extra: unknown field (not part of the contract)"),
    (_set(["settings", "policy"], None), "$.settings.policy: expected an object, got null"),
    (_drop("summary"), "$.summary: required field is missing"),
]  # fmt: skip


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(GOLDEN / "seed000", tmp_path / "w")
    monkeypatch.chdir(tmp_path / "w")
    assert run_cli("check", "claims.json", "--offline", "--out", "report.json").code == 1
    return tmp_path / "w"


@pytest.mark.parametrize("command", READERS, ids=lambda c: "-".join(c[:1] + c[2:4]))
@pytest.mark.parametrize(("damage", "problem"), DAMAGE, ids=[p.split(":")[0] for _, p in DAMAGE])
def test_a_damaged_report_is_refused_by_every_reader(
    work: Path, command: list[str], damage: Callable[[dict[str, Any]], None], problem: str
) -> None:
    report = json.loads(Path("report.json").read_text("utf-8"))
    damage(report)
    Path("report.json").write_text(json.dumps(report, ensure_ascii=False), "utf-8")
    result = run_cli(*command)
    assert (result.code, result.stdout, result.stderr) == (
        2,
        "",
        f"citeaudit: error: report.json: {problem}\n",
    )
    assert not Path("store.db").exists()


def test_every_golden_report_reads_back() -> None:
    for expected in sorted(GOLDEN.glob("*/expected.json")):
        assert load_report(expected) == json.loads(expected.read_text("utf-8"))
