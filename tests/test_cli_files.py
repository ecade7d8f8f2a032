"""The files the command line writes and reads, run as real processes: ``--out``/``--output`` to
special files, every output checked before any is written, bounded and typed reads of snapshots,
and exit paths (Ctrl-C, unreadable input)."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.conftest import GOLDEN, run_cli

CITEAUDIT = str(Path(sys.executable).parent / "citeaudit")


@pytest.fixture
def seed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    work = tmp_path / "seed"
    shutil.copytree(GOLDEN / "seed000", work)
    monkeypatch.chdir(work)
    for var in [v for v in os.environ if v.startswith("CITEAUDIT_")]:
        monkeypatch.delenv(var)
    return work


def _check(*extra: str) -> list[str]:
    return ["check", "claims.json", "--offline", "--cache", "cache", "--sources", "sources", *extra]


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("CITEAUDIT_")}


def _report(seed: Path) -> bytes:
    assert run_cli(*_check("--out", "plain.json")).code == 1
    data = (seed / "plain.json").read_bytes()
    (seed / "plain.json").unlink()
    return data


# -- item 9: --out and --output write through to what is not a regular file ------------------


def test_out_through_a_symlink_keeps_the_link(seed: Path) -> None:
    expected = _report(seed)
    (seed / "reports").mkdir()
    (seed / "reports" / "report.json").write_bytes(b"old")
    (seed / "report.json").symlink_to(Path("reports") / "report.json")
    assert run_cli(*_check("--out", "report.json")).code == 1
    assert (seed / "report.json").is_symlink()
    assert (seed / "reports" / "report.json").read_bytes() == expected


def test_out_to_a_fifo_writes_into_it(seed: Path) -> None:
    expected = _report(seed)
    os.mkfifo(seed / "fifo")
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append((seed / "fifo").read_bytes()), daemon=True)
    reader.start()
    done = subprocess.run([CITEAUDIT, *_check("--out", "fifo")], capture_output=True, env=_env(), timeout=120)
    assert (done.returncode, done.stderr) == (1, b"")
    reader.join(30)
    assert got == [expected]
    assert stat.S_ISFIFO(os.lstat(seed / "fifo").st_mode)


@pytest.mark.parametrize("target", ["/dev/stdout", "/proc/self/fd/1"])
def test_out_to_standard_output_by_name(seed: Path, target: str) -> None:
    expected = _report(seed)
    done = subprocess.run([CITEAUDIT, *_check("--out", target)], capture_output=True, env=_env(), timeout=120)
    assert (done.returncode, done.stderr) == (1, b"")
    assert done.stdout.startswith(expected)
    assert done.stdout[len(expected) :].startswith(b"checked=")


def test_out_to_a_process_substitution(seed: Path) -> None:
    expected = _report(seed)
    script = (
        f'"{CITEAUDIT}" ' + " ".join(_check("--out", ">(cat > got.json)")) + "; code=$?; wait; exit $code"
    )
    done = subprocess.run(["bash", "-c", script], capture_output=True, env=_env(), timeout=120)
    assert (done.returncode, done.stderr) == (1, b"")
    assert (seed / "got.json").read_bytes() == expected


def test_out_to_dev_full_is_exit_2_and_the_device_stays(seed: Path) -> None:
    result = run_cli(*_check("--out", "/dev/full"))
    assert (result.code, result.stderr) == (
        2,
        "citeaudit: error: /dev/full: cannot write: No space left on device\n",
    )
    assert stat.S_ISCHR(os.lstat("/dev/full").st_mode)


def test_render_output_through_a_symlink_keeps_the_link(seed: Path) -> None:
    _report(seed)
    assert run_cli(*_check("--out", "report.json")).code == 1
    (seed / "out").mkdir()
    (seed / "report.md").symlink_to(Path("out") / "report.md")
    result = run_cli("render", "report.json", "--format", "md", "--output", "report.md")
    assert result.code == 0, result.stderr
    assert (seed / "report.md").is_symlink()
    assert (seed / "out" / "report.md").read_bytes().startswith(b"#")


# -- item 12: every output is checked before any is written -------------------------------


def test_an_unwritable_output_writes_nothing(seed: Path) -> None:
    (seed / "a-file").write_bytes(b"")
    result = run_cli(*_check("--out", "report.json", "--format", "md", "--output", "a-file/report.md"))
    assert (result.code, result.stderr) == (
        2,
        "citeaudit: error: a-file/report.md: cannot write: Not a directory\n",
    )
    assert not (seed / "report.json").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into a read-only directory")
def test_a_read_only_output_directory_writes_nothing(seed: Path) -> None:
    (seed / "ro").mkdir(mode=0o555)
    result = run_cli(*_check("--out", "report.json", "--format", "md", "--output", "ro/report.md"))
    assert (result.code, result.stderr) == (
        2,
        "citeaudit: error: ro/report.md: cannot write: Permission denied\n",
    )
    assert not (seed / "report.json").exists()
