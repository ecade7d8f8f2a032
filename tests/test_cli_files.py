"""The files the command line writes and reads, run as real processes: ``--out``/``--output`` to
special files, every output checked before any is written, bounded and typed reads of snapshots,
and exit paths (Ctrl-C, unreadable input)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable
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
    assert done.stdout[len(expected) :].splitlines()[-3].startswith(b"checked=")


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


# -- item 11: snapshots are bounded and must be regular files -------------------------------


def _snapshot_path(seed: Path) -> Path:
    (found,) = [p for p in (seed / "sources").iterdir() if p.suffix == ".txt"]
    return found


@pytest.mark.parametrize("kind", ["device", "fifo", "oversize"])
def test_an_unreadable_snapshot_is_could_not_check_for_its_citations(seed: Path, kind: str) -> None:
    snapshot = _snapshot_path(seed)
    snapshot.unlink()
    if kind == "device":
        snapshot.symlink_to("/dev/zero")
        problem = f"{snapshot.relative_to(seed)}: the snapshot is not a regular file"
    elif kind == "fifo":
        os.mkfifo(snapshot)
        problem = f"{snapshot.relative_to(seed)}: the snapshot is not a regular file"
    else:
        with snapshot.open("wb") as fh:
            fh.truncate(2_000)
        (seed / "citeaudit.toml").write_text("max_document_bytes = 1000\n", "utf-8")
        problem = f"{snapshot.relative_to(seed)}: the snapshot is 2000 bytes, over the limit of 1000"
    done = subprocess.run(
        [CITEAUDIT, *_check("--out", "report.json")], capture_output=True, env=_env(), timeout=120
    )
    assert done.returncode == 1, done.stderr  # the other citations' errors still count
    report = json.loads((seed / "report.json").read_text("utf-8"))
    unreadable = [f for r in report["results"] for f in r["findings"] if f["code"] == "E_NO_SNAPSHOT"]
    assert unreadable
    assert {f["message"] for f in unreadable} == {f"the snapshot cannot be read: {problem}"}
    assert {f["outcome"] for f in unreadable} == {"could_not_check"}


# -- item 12: exit paths -----------------------------------------------------------------


def test_an_unreadable_input_is_exit_2(seed: Path) -> None:
    result = run_cli("check", "/proc/self/mem", "--offline", "--out", "report.json")
    assert (result.code, result.stderr) == (
        2,
        "citeaudit: error: /proc/self/mem: cannot read: Input/output error\n",
    )
    result = run_cli("check", "/dev/zero", "--offline", "--out", "report.json")
    assert (result.code, result.stderr) == (
        2,
        "citeaudit: error: /dev/zero: not a regular file (a device or a socket)\n",
    )
    assert not (seed / "report.json").exists()


def _interrupt_when(
    argv: list[str], cwd: Path, ready: Callable[[int], bool]
) -> subprocess.CompletedProcess[bytes]:
    """Run citeaudit in a session of its own and Ctrl-C it (SIGINT to its process group, as a
    terminal does) once ``ready(pid)`` holds."""
    proc = subprocess.Popen(
        [CITEAUDIT, *argv],
        cwd=cwd,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while not ready(proc.pid):
        assert proc.poll() is None, "it ended before the moment came"
        assert time.monotonic() < deadline
        time.sleep(0.002)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _importing(pid: int) -> bool:
    """pydantic's compiled core is loaded while citeaudit's own modules import (formats)."""
    try:
        return "pydantic_core" in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


def _workers(pid: int) -> bool:
    try:
        return bool(Path(f"/proc/{pid}/task/{pid}/children").read_text().split())
    except OSError:
        return False


@pytest.mark.parametrize("trial", range(3))
def test_ctrl_c_during_imports_is_one_line_and_130(seed: Path, trial: int) -> None:
    done = _interrupt_when(_check("--out", "report.json"), seed, _importing)
    assert (done.returncode, done.stderr) == (130, b"citeaudit: interrupted\n")


def test_ctrl_c_in_the_worker_pool_is_one_line_and_130(tmp_path: Path) -> None:
    text = "The measured rate fell from 18 to 7 percent across the sample in every trial. " * 8
    documents = {f"d{i}": {"version": "1", "text": text} for i in range(20_000)}
    claims = [
        {"id": f"c{i}", "text": "The rate fell from 18 to 7 percent.", "kind": "fact",
         "citations": [{"id": f"q{i}", "document_id": f"d{i}", "document_version": "1", "start": 4, "end": 60,
                        "quote": text[4:60]}]}
        for i in range(20_000)
    ]  # fmt: skip
    (tmp_path / "documents.json").write_text(json.dumps(documents), "utf-8")
    (tmp_path / "claims.json").write_text(json.dumps({"claims": claims}), "utf-8")
    argv = [
        "check",
        "claims.json",
        "--offline",
        "--corpus",
        "documents.json",
        "--jobs",
        "2",
        "--out",
        "r.json",
    ]
    done = _interrupt_when(argv, tmp_path, _workers)
    assert (done.returncode, done.stderr) == (130, b"citeaudit: interrupted\n")
    assert not (tmp_path / "r.json").exists()


def _unix_socket(path: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(path))
    return sock


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (_unix_socket, "not a regular file (a device or a socket)"),
        (lambda p: p.write_bytes(b"x" * 2_000), "input is 2000 bytes, over the limit of 1000"),
    ],
)
def test_a_corpus_document_is_bounded_and_must_be_a_file(
    tmp_path: Path, make: Callable[[Path], object], problem: str
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "manifest.json").write_text(json.dumps({"d1": {"version": "1", "file": "d1.txt"}}), "utf-8")
    make(corpus / "d1.txt")
    (tmp_path / "citeaudit.toml").write_text("max_document_bytes = 1000\n", "utf-8")
    claims = {"claims": [{"id": "c1", "text": "t", "kind": "fact", "citations": [
        {"id": "q1", "document_id": "d1", "document_version": "1", "start": 0, "end": 1, "quote": "x"}]}]}  # fmt: skip
    (tmp_path / "claims.json").write_text(json.dumps(claims), "utf-8")
    argv = [CITEAUDIT, "check", "claims.json", "--offline", "--corpus", "corpus", "--out", "r.json"]
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, env=_env(), timeout=120)
    target = (
        (corpus / "d1.txt").resolve() if (corpus / "d1.txt").is_symlink() else corpus.resolve() / "d1.txt"
    )
    assert (done.returncode, done.stderr.decode()) == (2, f"citeaudit: error: {target}: {problem}\n")


# -- issue 28: a FIFO nobody writes to or reads is refused, not waited for ------------------


def _refused(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    started = time.monotonic()
    done = subprocess.run([CITEAUDIT, *argv], capture_output=True, env=_env(), cwd=cwd, timeout=60)
    assert time.monotonic() - started < 30  # before: it waited for a writer (or a reader) forever
    return done


def test_claims_from_a_fifo_with_no_writer_is_exit_2(seed: Path) -> None:
    os.mkfifo(seed / "claims.fifo")
    done = _refused(["check", "claims.fifo", "--offline"], seed)
    assert (done.returncode, done.stderr) == (
        2,
        b"citeaudit: error: claims.fifo: is a FIFO that nothing writes to (not read: it would wait forever)\n",
    )


def test_a_corpus_fifo_with_no_writer_is_exit_2(tmp_path: Path) -> None:
    case = GOLDEN / "seed003_real_range"
    shutil.copy(case / "response.json", tmp_path / "response.json")
    os.mkfifo(tmp_path / "documents.json")
    done = _refused(["check", "response.json", "--corpus", "documents.json", "--offline"], tmp_path)
    assert (done.returncode, done.stderr) == (
        2,
        b"citeaudit: error: documents.json: is a FIFO that nothing writes to (not read: it would wait forever)\n",
    )


def test_out_to_a_fifo_with_no_reader_is_exit_2(seed: Path) -> None:
    os.mkfifo(seed / "out.fifo")
    done = _refused(_check("--out", "out.fifo"), seed)
    assert (done.returncode, done.stderr) == (
        2,
        b"citeaudit: error: out.fifo: cannot write: it is a FIFO that nothing reads (not written: it would "
        b"wait forever)\n",
    )
    assert stat.S_ISFIFO(os.lstat(seed / "out.fifo").st_mode)


def test_claims_through_a_process_substitution_are_still_read(seed: Path) -> None:
    script = f'"{CITEAUDIT}" check <(sleep 1.5; cat claims.json) --offline --out r.json'
    done = subprocess.run(["bash", "-c", script], capture_output=True, env=_env(), cwd=seed, timeout=120)
    assert done.returncode == 1, done.stderr  # a writer that takes its time is waited for
    assert json.loads((seed / "r.json").read_text("utf-8"))["checked"] == 4
