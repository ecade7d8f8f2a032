"""``--out`` onto a symbolic link: the link is kept and its target written, but a dangling link's
missing folders are not made (they were, wherever the link pointed)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    work = tmp_path / "work"
    shutil.copytree(ROOT / "examples" / "seed000", work, ignore=shutil.ignore_patterns("report.json"))
    monkeypatch.chdir(work)
    return work


def test_a_dangling_link_s_missing_folders_are_not_made(work: Path, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere" / "deeper" / "report.json"
    (work / "link.json").symlink_to(target)
    result = run_cli("check", "claims.json", "--offline", "--out", "link.json")
    assert result.code == 2
    assert result.stderr == (
        f"citeaudit: error: link.json: cannot write: it is a symbolic link to {target}, whose folder "
        f"{target.parent} does not exist\n"
    )
    assert not (tmp_path / "elsewhere").exists()
    assert (work / "link.json").is_symlink()


def test_a_link_into_an_existing_folder_is_written_through(work: Path, tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    (work / "link.json").symlink_to(target)
    assert run_cli("check", "claims.json", "--offline", "--out", "link.json").code == 1
    assert (work / "link.json").is_symlink()
    assert target.read_bytes().startswith(b"{")
    # The output's own folders, named without a link, are still made.
    assert run_cli("check", "claims.json", "--offline", "--out", "new/dir/report.json").code == 1
    assert (work / "new" / "dir" / "report.json").is_file()
