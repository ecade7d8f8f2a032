"""``citeaudit serve`` with one worker (the default) run for real: a subprocess on a free port,
stopped by SIGTERM, SIGINT or SIGHUP while a request is in flight — the request answered in full,
then exit 0, as with ``--workers N`` — and ``serve --openapi``, which needs no other flag and
writes no file.

The request is held in flight by the evidence store's write lock, taken by the test as another
writer would (SQLite's ``BEGIN IMMEDIATE``): the audit waits for it (up to the store's 10 s) before
it stores its report, so the signal surely arrives while the request is being answered, and the
answer comes only once the test lets go of the lock."""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import GOLDEN, ROOT, run_cli
from tests.processes import stop, wait_until_healthy

ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
START_SECONDS = 90.0  # a cold interpreter importing the service on a loaded machine
HELD_SECONDS = 0.5  # how long the stopping server is watched still answering, before the lock is let go


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Serving:
    process: subprocess.Popen[bytes]
    port: int
    store: Path
    key: str
    stderr: Path


@pytest.fixture
def serving(tmp_path: Path) -> Iterator[Serving]:
    shutil.copytree(GOLDEN / "seed000", tmp_path / "seed")
    keys = tmp_path / "keys.toml"
    added = run_cli("keys", "add", "--keys", keys, "--tenant", "acme", "--role", "auditor")
    assert added.code == 0
    port, store, stderr = _free_port(), tmp_path / "evidence.db", tmp_path / "serve.err"
    argv = [sys.executable, "-m", "citeaudit", "serve", "--store", str(store), "--keys", str(keys),
            "--cache", str(tmp_path / "seed" / "cache"), "--sources", str(tmp_path / "seed" / "sources"),
            "--port", str(port)]  # fmt: skip
    with stderr.open("wb") as err:
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err, env=ENV)
    try:
        wait_until_healthy(
            process, f"http://127.0.0.1:{port}", time.monotonic() + START_SECONDS, stderr.read_text
        )
        yield Serving(process, port, store, added.stdout.strip(), stderr)
    finally:
        stop(process)


def _queues(local_port: int, remote_port: int) -> tuple[int, int] | None:
    """(bytes sent and not yet acknowledged, bytes received and not yet read) of the TCP socket
    from ``local_port`` to ``remote_port`` on 127.0.0.1, from /proc/net/tcp; None if there is none."""
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote = int(fields[1].rsplit(":", 1)[1], 16), int(fields[2].rsplit(":", 1)[1], 16)
        if (local, remote) == (local_port, remote_port):
            tx, rx = fields[4].split(":")
            return int(tx, 16), int(rx, 16)
    return None


def _body() -> bytes:
    claims: dict[str, Any] = json.loads((GOLDEN / "seed000" / "claims.json").read_text("utf-8"))
    return json.dumps({"title": "in flight", **claims}).encode("utf-8")


class Request(threading.Thread):
    """POST /v1/audit on a connection of its own; ``sent`` is set once the whole request is with
    the kernel, ``answer`` holds (status, headers, body) or the exception. With ``rest`` (an
    event), the body is sent in two halves: ``sent`` is set after the first, and the second
    follows once ``rest`` is set."""

    def __init__(self, port: int, key: str, rest: threading.Event | None = None) -> None:
        super().__init__(daemon=True)
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self.conn.connect()
        self.key = key
        self.rest = rest
        self.sent = threading.Event()
        self.answer: tuple[int, dict[str, str], bytes] | BaseException | None = None

    @property
    def client_port(self) -> int:
        return int(self.conn.sock.getsockname()[1])

    def run(self) -> None:
        try:
            headers = {"Authorization": f"Bearer {self.key}", "Content-Type": "application/json"}
            body = _body()
            if self.rest is None:
                self.conn.request("POST", "/v1/audit", body=body, headers=headers)
                self.sent.set()
            else:
                self.conn.request("POST", "/v1/audit", headers={**headers, "Content-Length": str(len(body))})
                self.conn.send(body[: len(body) // 2])
                self.sent.set()
                self.rest.wait(60)
                self.conn.send(body[len(body) // 2 :])
            response = self.conn.getresponse()
            body = response.read()  # IncompleteRead if the body is cut short
            self.answer = (response.status, {k.lower(): v for k, v in response.getheaders()}, body)
        except BaseException as e:
            self.answer = e
        finally:
            self.conn.close()


def _wait_until_read(serving: Serving, request: Request, deadline: float) -> None:
    """Until the server has read the whole request: nothing left unacknowledged on the client's
    side, nothing unread on the server's (uvicorn parses what it reads at once)."""
    assert request.sent.wait(max(0.0, deadline - time.monotonic())), request.answer
    client = request.client_port
    while True:
        ours, theirs = _queues(client, serving.port), _queues(serving.port, client)
        if ours is not None and theirs is not None and ours[0] == 0 and theirs[1] == 0:
            return
        assert serving.process.poll() is None, serving.stderr.read_text()
        assert time.monotonic() < deadline, (ours, theirs, serving.stderr.read_text())
        time.sleep(0.01)


def _stored(store: Path) -> list[str]:
    with sqlite3.connect(store) as conn:
        return [row[0] for row in conn.execute("SELECT digest FROM citeaudit_reports")]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the connection's queues from /proc")
@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=lambda s: s.name)
def test_one_worker_answers_the_request_in_flight_then_exits_0(
    serving: Serving, stop_signal: signal.Signals
) -> None:
    """It exited 143 on SIGTERM and 130 on SIGINT after the answer, and at once with 129 on SIGHUP,
    the request dropped: only ``--workers N`` stopped gracefully."""
    writer = sqlite3.connect(serving.store, isolation_level=None, timeout=30)
    writer.execute("BEGIN IMMEDIATE")  # the store's write lock, as another writer holds it
    request = Request(serving.port, serving.key)
    try:
        request.start()
        _wait_until_read(serving, request, time.monotonic() + 60)
        assert request.answer is None  # the audit waits for the lock: no answer yet
        signalled = time.monotonic()
        serving.process.send_signal(stop_signal)
        time.sleep(HELD_SECONDS)
        assert serving.process.poll() is None, serving.stderr.read_text()  # still answering
        assert request.answer is None
    finally:
        released = time.monotonic()
        writer.execute("ROLLBACK")
        writer.close()
    request.join(60)
    assert not request.is_alive()
    assert isinstance(request.answer, tuple), request.answer
    status, headers, body = request.answer
    assert status == 200, body
    assert headers["content-length"] == str(len(body))
    answer = json.loads(body)
    assert set(answer) == {"digest", "report"}
    assert answer["report"]["title"] == "in flight"
    assert serving.process.wait(60) == 0, serving.stderr.read_text()
    stopped = time.monotonic()
    assert serving.stderr.read_text() == ""
    assert _stored(serving.store) == [answer["digest"]]  # the report the answer names, stored
    print(
        f"{stop_signal.name}: exit 0 {stopped - released:.2f} s after the lock was let go "
        f"({stopped - signalled:.2f} s after the signal)"
    )


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the connection's queues from /proc")
@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=lambda s: s.name)
def test_one_worker_waits_for_a_request_whose_body_is_still_coming(
    serving: Serving, stop_signal: signal.Signals
) -> None:
    """The server's loop is free while the body is awaited, so it sees the signal with the request
    unfinished (the store's lock, above, holds the loop itself): it stops listening, and still reads
    the rest of the body, audits it and answers in full before it exits 0."""
    rest = threading.Event()
    request = Request(serving.port, serving.key, rest)
    try:
        request.start()
        _wait_until_read(serving, request, time.monotonic() + 60)
        signalled = time.monotonic()
        serving.process.send_signal(stop_signal)
        deadline = signalled + 30
        while True:  # the signal seen: the address no longer listens
            try:
                socket.create_connection(("127.0.0.1", serving.port), timeout=1).close()
            except OSError:
                break
            assert time.monotonic() < deadline, "still accepting connections 30 s after the signal"
            time.sleep(0.05)
        refused = time.monotonic()
        time.sleep(HELD_SECONDS)
        assert serving.process.poll() is None, serving.stderr.read_text()  # still answering
        assert request.answer is None
    finally:
        released = time.monotonic()
        rest.set()
    request.join(60)
    assert not request.is_alive()
    assert isinstance(request.answer, tuple), request.answer
    status, headers, body = request.answer
    assert status == 200, body
    assert headers["content-length"] == str(len(body))
    answer = json.loads(body)
    assert answer["report"]["title"] == "in flight"
    assert serving.process.wait(60) == 0, serving.stderr.read_text()
    stopped = time.monotonic()
    assert serving.stderr.read_text() == ""
    assert _stored(serving.store) == [answer["digest"]]
    print(
        f"{stop_signal.name}: new connections refused {refused - signalled:.2f} s after the signal, "
        f"exit 0 {stopped - released:.2f} s after the rest of the body was sent"
    )


def test_one_idle_worker_stops_at_once_with_0(serving: Serving) -> None:
    signalled = time.monotonic()
    serving.process.send_signal(signal.SIGHUP)
    assert serving.process.wait(30) == 0, serving.stderr.read_text()
    print(f"SIGHUP, nothing in flight: exit 0 after {time.monotonic() - signalled:.2f} s")
    assert serving.stderr.read_text() == ""


@pytest.mark.parametrize("workers", ["1", "2"])
def test_under_nohup_sighup_stays_ignored(tmp_path: Path, workers: str) -> None:
    """Started with SIGHUP ignored (as ``nohup`` starts it), ``serve`` keeps it ignored: a hangup
    leaves it answering; SIGTERM still stops it with 0."""
    keys = tmp_path / "keys.toml"
    assert run_cli("keys", "add", "--keys", keys, "--tenant", "acme", "--role", "auditor").code == 0
    port, stderr = _free_port(), tmp_path / "serve.err"
    argv = [sys.executable, "-m", "citeaudit", "serve", "--store", str(tmp_path / "e.db"), "--keys", str(keys),
            "--port", str(port), "--workers", workers]  # fmt: skip
    with stderr.open("wb") as err:
        process = subprocess.Popen(
            argv, stdout=subprocess.DEVNULL, stderr=err, env=ENV,
            preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN),
        )  # fmt: skip
    try:
        wait_until_healthy(
            process, f"http://127.0.0.1:{port}", time.monotonic() + START_SECONDS, stderr.read_text
        )
        process.send_signal(signal.SIGHUP)
        time.sleep(1.0)
        assert process.poll() is None, stderr.read_text()
        assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10).status_code == 200
        process.send_signal(signal.SIGTERM)
        assert process.wait(60) == 0, stderr.read_text()
        assert stderr.read_text() == ""
    finally:
        stop(process)


def _openapi(cwd: Path, home: Path, *args: str) -> bytes:
    env = {k: v for k, v in ENV.items() if not k.startswith("XDG_")} | {"HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-m", "citeaudit", "serve", *args, "--openapi"],
        cwd=cwd, env=env, capture_output=True, timeout=120, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, b"")
    return done.stdout


def _tree(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        for p in sorted(root.rglob("*"))
    }


def test_openapi_needs_no_other_flag_and_writes_no_file(tmp_path: Path) -> None:
    """It needed --keys and --store, and created the store just to print the schema."""
    bare, given, home = tmp_path / "bare", tmp_path / "given", tmp_path / "home"
    for folder in (bare, given, home):
        folder.mkdir()
    assert (
        run_cli("keys", "add", "--keys", given / "keys.toml", "--tenant", "acme", "--role", "auditor").code
        == 0
    )
    before = _tree(given)
    printed = _openapi(bare, home)
    assert _tree(bare) == {}  # nothing written where it ran: no store, no cache
    assert _tree(home) == {}  # nor in the home folder
    assert printed == _openapi(given, home, "--store", "evidence.db", "--keys", "keys.toml")
    assert _tree(given) == before  # the store named is not created to print the schema either
    document = json.loads(printed)
    assert document["info"]["title"] == "citeaudit"
    assert "/v1/audit" in document["paths"]
    assert printed.endswith(b"}\n")


def test_serve_still_needs_keys_to_serve(tmp_path: Path) -> None:
    result = run_cli("serve", "--store", tmp_path / "s.db")
    assert (result.code, result.stderr) == (
        2,
        "citeaudit: error: usage: the following arguments are required: --keys "
        "(see 'citeaudit serve --help')\n",
    )
    assert not (tmp_path / "s.db").exists()
