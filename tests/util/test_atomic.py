"""Writing files: the umask is honoured, a temporary file left by a killed writer is ignored by
readers and removed by the next writer (never a live one's), and files a person names are
replaced atomically only when they are regular files."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from citeaudit.resolve.cache import DoiCache
from citeaudit.resolve.interface import Resolution
from citeaudit.util.atomic import atomic_write, check_writable, write_output
from tests.conftest import ROOT


@pytest.fixture
def umask() -> Iterator[object]:
    old = os.umask(0o022)

    def set_mask(mask: int) -> None:
        os.umask(mask)

    yield set_mask
    os.umask(old)


@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_new_files_get_the_mode_the_umask_gives(tmp_path: Path, umask: object, mask: int, mode: int) -> None:
    umask(mask)  # type: ignore[operator]
    atomic_write(tmp_path / "entry.json", b"{}")
    write_output(tmp_path / "report.json", b"{}")
    assert stat.S_IMODE(os.stat(tmp_path / "entry.json").st_mode) == mode
    assert stat.S_IMODE(os.stat(tmp_path / "report.json").st_mode) == mode


def test_a_replaced_file_keeps_its_mode(tmp_path: Path, umask: object) -> None:
    target = tmp_path / "entry.json"
    target.write_bytes(b"old")
    target.chmod(0o640)
    atomic_write(target, b"new")
    assert (target.read_bytes(), stat.S_IMODE(target.stat().st_mode)) == (b"new", 0o640)


# A writer that dies (SIGKILL, as kill -9) at its fsync, or hangs there: the moment between the
# temporary file and the rename.
_WRITER = """
import os, signal, sys, time
from pathlib import Path
from citeaudit.util.atomic import atomic_write
if sys.argv[2] == "die":
    os.fsync = lambda fd: os.kill(os.getpid(), signal.SIGKILL)
else:
    os.fsync = lambda fd: (print("writing", flush=True), time.sleep(60))
atomic_write(Path(sys.argv[1]), b'{"half": "written"}')
"""


def _writer(target: Path, how: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(target), how], env=env, stdout=subprocess.PIPE, text=True
    )


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith(".tmp-"))


def test_a_killed_writers_file_is_ignored_then_removed_by_the_next_writer(tmp_path: Path) -> None:
    cache = DoiCache(tmp_path)
    cache.put("10.1/kept", Resolution.not_found("crossref"))
    dying = _writer(cache.path_for("10.1/dying"), "die")
    assert dying.wait(60) == -signal.SIGKILL
    (left,) = _leftovers(tmp_path)
    assert left.endswith(".partial")
    assert cache.dois() == ["10.1/kept"]  # no glob of the cache sees it
    assert cache.get("10.1/dying") is None
    time.sleep(1.1)  # younger ones may be a writer's between its mkstemp and its lock
    subprocess.run(
        [sys.executable, "-c", "import sys; from pathlib import Path; from citeaudit.util.atomic import "
         "atomic_write; atomic_write(Path(sys.argv[1]), b'{}')", str(cache.path_for("10.1/next"))],
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, check=True, timeout=60,
    )  # fmt: skip
    assert _leftovers(tmp_path) == []


def test_a_live_writers_file_is_left_alone(tmp_path: Path) -> None:
    live = _writer(tmp_path / "slow.json", "hang")
    try:
        assert live.stdout is not None
        assert live.stdout.readline() == "writing\n"
        (left,) = _leftovers(tmp_path)
        old = time.time() - 3600
        os.utime(tmp_path / left, (old, old))
        atomic_write(tmp_path / "other.json", b"{}")
        assert _leftovers(tmp_path) == [left]
    finally:
        live.kill()
        live.wait(30)
        if live.stdout:
            live.stdout.close()


def test_a_symlink_is_kept_and_its_target_replaced(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "report.json").write_bytes(b"old")
    link = tmp_path / "report.json"
    link.symlink_to(Path("real") / "report.json")
    write_output(link, b"new")
    assert link.is_symlink()
    assert (tmp_path / "real" / "report.json").read_bytes() == b"new"
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(Path("real") / "new.json")
    write_output(dangling, b"created")
    assert dangling.is_symlink()
    assert (tmp_path / "real" / "new.json").read_bytes() == b"created"


def test_a_fifo_is_written_through_not_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    write_output(fifo, b"through the pipe")
    reader.join(10)
    assert got == [b"through the pipe"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_dev_full_is_written_to_and_fails_not_replaced(tmp_path: Path) -> None:
    (tmp_path / "full").symlink_to("/dev/full")  # were it replaced, the link would be, not the device
    with pytest.raises(OSError, match="No space left on device") as caught:
        write_output(tmp_path / "full", b"{}")
    assert caught.value.strerror == "No space left on device"
    assert (tmp_path / "full").is_symlink()


@pytest.mark.parametrize(
    ("name", "problem"),
    [("file.txt/out.md", "Not a directory"), ("dir", "Is a directory"), ("new/deeper/out.md", None)],
)
def test_check_writable_says_what_the_write_would_meet(
    tmp_path: Path, name: str, problem: str | None
) -> None:
    (tmp_path / "file.txt").write_bytes(b"")
    (tmp_path / "dir").mkdir()
    if problem is None:
        check_writable(tmp_path / name)
        return
    with pytest.raises(OSError, match=problem) as caught:
        check_writable(tmp_path / name)
    assert caught.value.strerror == problem


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into a read-only directory")
def test_check_writable_refuses_a_read_only_directory(tmp_path: Path) -> None:
    (tmp_path / "ro").mkdir(mode=0o555)
    with pytest.raises(OSError, match="Permission denied") as caught:
        check_writable(tmp_path / "ro" / "report.md")
    assert caught.value.strerror == "Permission denied"
