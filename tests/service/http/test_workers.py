"""``citeaudit serve --workers 2`` run for real: a subprocess on a free port, concurrent audits on
connections of their own, every one answered, the reports stored once each in the shared store, the
counts summed over the workers, each worker answering (the worker that holds a connection read
from /proc: nothing new is exposed for it), SIGTERM and SIGINT stopping every worker, a killed
worker replaced."""

from __future__ import annotations

import http.client
import io
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import GOLDEN, ROOT, run_cli
from tests.processes import wait_until_healthy

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads the workers' connections from Linux's /proc"
)

CONNECTIONS = 24  # two posts of each of 12 answers, each on a connection of its own
ANSWERS = 12


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _workers(pid: int) -> set[int]:
    """The parent's worker processes (multiprocessing's resource tracker is a child too)."""
    out = set()
    for child in _children(pid):
        try:
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if b"resource_tracker" not in cmdline:
            out.add(child)
    return out


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting to be reaped."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


def _holder(server_port: int, client_port: int, pids: set[int]) -> int | None:
    """The process that holds the server's end of the connection from ``client_port``; None when
    it cannot be read (no such connection, or its end no longer held by a file)."""
    inode = None
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            local, remote = fields[1].rsplit(":", 1)[1], fields[2].rsplit(":", 1)[1]
            if int(local, 16) == server_port and int(remote, 16) == client_port:
                inode = fields[9]
    if inode is None or inode == "0":
        return None
    for pid in pids:
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(fd) == f"socket:[{inode}]":
                    return pid
            except OSError:
                continue
    return None


@dataclass
class Serving:
    process: subprocess.Popen[bytes]
    port: int
    store: str
    keys: dict[str, str]
    stderr: Path
    workers: set[int] = field(default_factory=set)

    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def _wait_for_workers(serving: Serving, count: int, deadline: float) -> set[int]:
    while True:
        found = _workers(serving.process.pid)
        if len(found) == count:
            return found
        assert serving.process.poll() is None, serving.stderr.read_text()
        assert time.monotonic() < deadline, (found, serving.stderr.read_text())
        time.sleep(0.1)


@pytest.fixture
def serving(store_target: str, tmp_path: Path) -> Iterator[Serving]:
    shutil.copytree(GOLDEN / "seed000", tmp_path / "seed")
    keys_file = tmp_path / "keys.toml"
    keys = {}
    for role in ("auditor", "operator"):
        added = run_cli("keys", "add", "--keys", keys_file, "--tenant", "acme", "--role", role)
        assert added.code == 0
        keys[role] = added.stdout.strip()
    port = _free_port()
    stderr = tmp_path / "serve.err"
    argv = [sys.executable, "-m", "citeaudit", "serve", "--store", store_target, "--keys", str(keys_file),
            "--cache", str(tmp_path / "seed" / "cache"), "--sources", str(tmp_path / "seed" / "sources"),
            "--port", str(port), "--workers", "2"]  # fmt: skip
    with stderr.open("wb") as err:
        process = subprocess.Popen(
            argv, stdout=subprocess.DEVNULL, stderr=err, env={**os.environ, "PYTHONPATH": str(ROOT / "src")}
        )
    serving = Serving(process, port, store_target, keys, stderr)
    try:
        deadline = time.monotonic() + 90
        serving.workers = _wait_for_workers(serving, 2, deadline)
        wait_until_healthy(serving.process, serving.url(), deadline, serving.stderr.read_text)
        yield serving
    finally:
        everyone = serving.workers | _workers(process.pid)
        if process.poll() is None:
            process.kill()
            process.wait(30)
        for pid in everyone:  # nothing may outlive a failed test either
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def _answer(i: int) -> bytes:
    claims: dict[str, Any] = json.loads((GOLDEN / "seed000" / "claims.json").read_text("utf-8"))
    return json.dumps({"title": f"answer {i}", **claims}).encode("utf-8")


def _rows(target: str) -> tuple[int, int]:
    """(reports, trail records) in the store."""
    from sqlalchemy import text

    from citeaudit.store.evidence import open_store

    store = open_store(target)
    try:
        with store.engine.connect() as conn:
            reports = conn.execute(text("SELECT COUNT(*) FROM citeaudit_reports")).scalar_one()
            records = conn.execute(text("SELECT COUNT(*) FROM citeaudit_trail")).scalar_one()
    finally:
        store.close()
    return int(reports), int(records)


def _metric(serving: Serving, name: str) -> int:
    headers = {"Authorization": f"Bearer {serving.keys['operator']}"}
    text = httpx.get(f"{serving.url()}/metrics", headers=headers, timeout=30).text
    (line,) = [line for line in text.splitlines() if line.startswith(name + " ")]
    return int(line.split()[-1])


BOTH_SECONDS = 120.0  # for both workers to answer a connection: two or three connections, normally


def _until_both_answer(serving: Serving, seconds: float = BOTH_SECONDS) -> dict[int, int]:
    """New connections to /healthz, one after another, until each worker has answered one, or
    ``seconds``; how many each answered. The kernel hands a connection to a worker by a hash of its
    ports, not by load, so no fixed number of connections is sure to reach both (any few may all
    reach one), but each new one reaches either with about even odds: what bounds this is time."""
    started = time.monotonic()
    deadline = started + seconds
    answered = dict.fromkeys(serving.workers, 0)
    unread = 0
    while not all(answered.values()):
        assert time.monotonic() < deadline, (
            f"not every worker answered one of {sum(answered.values()) + unread} connections in "
            f"{seconds:g} s: connections answered by each worker {answered}, {unread} by a worker "
            f"that could not be read; {serving.stderr.read_text()}"
        )
        conn = http.client.HTTPConnection(
            "127.0.0.1", serving.port, timeout=max(1.0, deadline - time.monotonic())
        )
        try:
            conn.request("GET", "/healthz")
            response = conn.getresponse()
            response.read()
            assert response.status == 200
            holder = _holder(serving.port, conn.sock.getsockname()[1], serving.workers)
        finally:
            conn.close()
        if holder is None:
            unread += 1
        else:
            answered[holder] += 1
    print(f"each worker answered: {answered} in {time.monotonic() - started:.2f} s")
    return answered


@pytest.mark.parametrize("store_target", ["sqlite", "postgresql"], indirect=True)
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_two_workers_answer_store_once_and_stop_together(serving: Serving, stop: signal.Signals) -> None:
    """It read which worker held each of the 24 connections once all were answered, and failed on
    a loaded machine: which worker gets a connection is the kernel's choice, and a connection left
    idle (uvicorn closes one after 5 s) is no longer held by either. What is sure is asserted: every
    audit answered, each report stored once, both workers answering, both stopping with the parent."""
    assert all(_until_both_answer(serving).values())
    headers = {"Authorization": f"Bearer {serving.keys['auditor']}", "Content-Type": "application/json"}
    connections = [
        http.client.HTTPConnection("127.0.0.1", serving.port, timeout=120) for _ in range(CONNECTIONS)
    ]
    start = threading.Barrier(CONNECTIONS, timeout=120)

    def post(i: int) -> tuple[int, str]:
        conn = connections[i]
        conn.connect()
        start.wait()  # every connection open before any audit: the 24 audits run at once
        conn.request("POST", "/v1/audit", body=_answer(i % ANSWERS), headers=headers)
        response = conn.getresponse()
        body = response.read()
        return response.status, json.loads(body)["digest"]

    try:
        with ThreadPoolExecutor(CONNECTIONS) as pool:
            results = list(pool.map(post, range(CONNECTIONS)))
    finally:
        for conn in connections:
            conn.close()
    assert [status for status, _ in results] == [200] * CONNECTIONS
    digests = [digest for _, digest in results]
    assert len(set(digests)) == ANSWERS
    assert all(digests[i] == digests[i + ANSWERS] for i in range(ANSWERS))  # the same answer twice
    assert _metric(serving, 'citeaudit_audits{tenant="acme"}') == CONNECTIONS  # summed over both

    signalled = time.monotonic()
    serving.process.send_signal(stop)
    assert serving.process.wait(60) == 0
    print(f"{stop.name}: both workers and the parent stopped in {time.monotonic() - signalled:.2f} s")
    assert [pid for pid in serving.workers if _alive(pid)] == []
    assert _workers(serving.process.pid) == set()
    assert _rows(serving.store) == (ANSWERS, CONNECTIONS)  # each report once, each audit recorded
    assert serving.stderr.read_text() == ""


@pytest.mark.parametrize("store_target", ["sqlite"], indirect=True)
def test_a_killed_worker_is_replaced_and_said_so(serving: Serving) -> None:
    victim = min(serving.workers)
    os.kill(victim, signal.SIGKILL)
    deadline = time.monotonic() + 90
    while True:
        now = _workers(serving.process.pid)
        if len(now) == 2 and victim not in now:
            break
        assert serving.process.poll() is None, serving.stderr.read_text()
        assert time.monotonic() < deadline, serving.stderr.read_text()
        time.sleep(0.1)
    headers = {"Authorization": f"Bearer {serving.keys['auditor']}"}
    with ThreadPoolExecutor(8) as pool:  # on eight connections, to whichever worker the kernel picks
        statuses = list(
            pool.map(
                lambda i: httpx.post(f"{serving.url()}/v1/audit", content=_answer(i), headers=headers,
                                     timeout=60).status_code,
                range(8),
            )
        )  # fmt: skip
    assert statuses == [200] * 8
    assert serving.stderr.read_text() == (
        f"citeaudit serve: worker {victim} was killed by signal 9; starting another\n"
    )
    serving.process.send_signal(signal.SIGTERM)
    assert serving.process.wait(60) == 0
    assert [pid for pid in now if _alive(pid)] == []


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("0", "expected a positive integer, got '0'"),
        ("-2", "expected a positive integer, got '-2'"),
        ("two", "expected a positive integer, got 'two'"),
        ("65", "expected 1 to 64 worker processes, got '65'"),
    ],
)
def test_serve_refuses_a_number_of_workers_that_is_not_one(tmp_path: Path, value: str, message: str) -> None:
    keys = tmp_path / "keys.toml"
    assert run_cli("keys", "add", "--keys", keys, "--tenant", "acme", "--role", "auditor").code == 0
    result = run_cli("serve", "--store", tmp_path / "s.db", "--keys", keys, "--workers", value)
    assert (result.code, result.stderr) == (
        2,
        f"citeaudit: error: usage: argument --workers: {message} (see 'citeaudit serve --help')\n",
    )
    assert not (tmp_path / "s.db").exists()  # refused before anything was opened


def test_a_worker_that_cannot_start_stops_the_service(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Every replacement would fail the same way: the service stops, exit 2, after the worker's
    own line (a worker's app is built where it runs; here its store cannot be opened)."""
    from citeaudit.config import Config
    from citeaudit.service.http import ApiKey, ServiceSettings, hash_key
    from citeaudit.service.http.workers import Workers

    settings = ServiceSettings(
        store=str(tmp_path / "no such folder" / "s.db"),
        keys=[ApiKey(hash_key("k"), "acme", "auditor")],
        config=Config(judge="none"),
    )
    sock = socket.create_server(("127.0.0.1", _free_port()))
    told = io.StringIO()
    try:
        code = Workers(settings, [sock], 2, told, log_level="warning").run()
    finally:
        sock.close()
    assert code == 2
    assert re.fullmatch(
        r"citeaudit serve: worker \d+ could not start; stopping the service\n", told.getvalue()
    )
    worker_lines = [line for line in capfd.readouterr().err.splitlines() if line.startswith("citeaudit")]
    assert worker_lines
    assert all(
        re.fullmatch(
            r"citeaudit: error: worker \d+: cannot open the evidence store: unable to open database file",
            line,
        )
        for line in worker_lines
    ), worker_lines
