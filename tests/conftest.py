"""Shared fixtures: the real third-party data, and the CLI run in-process."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from citeaudit.cli import main

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"
GOLDEN = Path(__file__).resolve().parent / "golden"


def shared_data(*parts: str) -> Path:
    """A file of the shared real data set; skips the test when it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"real test data not present: ../shared/data/{'/'.join(parts)}")
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str


def run_cli(*argv: str | Path) -> CliResult:
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in argv], stdout=out, stderr=err)
    return CliResult(code, out.getvalue(), err.getvalue())


@pytest.fixture
def cli() -> Any:
    return run_cli
