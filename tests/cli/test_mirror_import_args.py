"""``citeaudit mirror import`` of a dump that is not there: one line, and no empty mirror left
behind (which ``check`` then reported as E_MIRROR_INCOMPLETE)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_cli


@pytest.mark.parametrize("fmt", ["crossref", "openalex", "arxiv", "dblp"])
def test_a_missing_dump_leaves_no_mirror(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_cli("mirror", "import", "--format", fmt, "no-such-dump.json", "--mirror", "m.sqlite")
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr == "citeaudit: error: no-such-dump.json: no such file or folder\n"
    assert list(tmp_path.iterdir()) == []
