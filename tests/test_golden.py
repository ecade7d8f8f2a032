"""Golden cases: one folder per case, the report compared byte for byte."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from citeaudit.report.formats import RenderContext, ReportFormat, render
from tests.conftest import GOLDEN, run_cli

CASES = sorted(p.parent for p in GOLDEN.glob("*/case.json"))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden_case(case: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = json.loads((case / "case.json").read_text("utf-8"))
    work = tmp_path / case.name
    shutil.copytree(case, work)
    monkeypatch.chdir(work)
    result = run_cli(*spec["args"], "--out", "report.json")
    assert result.code == spec["exit"], result.stderr
    if "stdout" in spec:
        assert result.stdout == spec["stdout"]
    produced = (work / "report.json").read_bytes()
    report = json.loads(produced)
    if "errors" in spec:
        assert {r["claim"]: r["errors"] for r in report["results"]} == spec["errors"]
    expected = case / "expected.json"
    if os.environ.get("UPDATE_GOLDEN"):
        expected.write_bytes(produced)
    assert produced == expected.read_bytes()
    # Every other format, rendered from that report, has its golden file too.
    claims_file = spec["args"][1]
    context = RenderContext(input_uri=claims_file, input_text=(work / claims_file).read_text("utf-8"))
    for fmt in ReportFormat:
        if fmt is ReportFormat.JSON:
            continue
        rendered = render(fmt, report, context)
        golden = case / f"expected.{fmt.value}"
        if os.environ.get("UPDATE_GOLDEN"):
            golden.write_bytes(rendered)
        assert rendered == golden.read_bytes(), f"{case.name}: {fmt.value} differs from {golden.name}"


def test_there_are_golden_cases() -> None:
    assert len(CASES) >= 1
