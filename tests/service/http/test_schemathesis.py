"""The OpenAPI document against the service, by schemathesis (``schemathesis run --checks all``):
every check it has, on a real ``citeaudit serve`` on 127.0.0.1 with an admin key, in every phase
(examples, coverage, fuzzing, stateful), with a fixed seed and a bounded number of examples. What the
document cannot say is in ``schemathesis_hooks.py``."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import GOLDEN, ROOT, run_cli
from tests.processes import stop, wait_until_healthy

MAX_EXAMPLES = 8  # per operation and phase; the coverage phase adds its boundary cases (~210)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, str]]:
    shutil.copytree(GOLDEN / "seed000", tmp_path / "seed")
    keys = tmp_path / "keys.toml"
    key = run_cli("keys", "add", "--keys", keys, "--tenant", "acme", "--role", "admin").stdout.strip()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    argv = [sys.executable, "-m", "citeaudit", "serve", "--store", str(tmp_path / "s.db"), "--keys", str(keys),
            "--cache", str(tmp_path / "seed" / "cache"), "--sources", str(tmp_path / "seed" / "sources"),
            "--port", str(port), "--max-body-bytes", "2000000"]  # fmt: skip
    errors = tmp_path / "serve.err"  # a file, not a pipe: read at a deadline while it still runs
    with errors.open("wb") as sink:
        server = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=sink)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(server, url, time.monotonic() + 30, errors.read_text)
        yield url, key
    finally:
        stop(server)


@pytest.mark.timeout(420)  # the schemathesis run alone is bounded at 300 s
def test_schemathesis_finds_no_failure_with_every_check(served: tuple[str, str], tmp_path: Path) -> None:
    url, key = served
    argv = [sys.executable, "-m", "schemathesis.cli", "run", f"{url}/openapi.json",
            "--header", f"Authorization: Bearer {key}", "--checks", "all", "--max-examples", str(MAX_EXAMPLES),
            "--seed", "1", "--no-color", "--continue-on-failure", "--output-sanitize", "false",
            "--generation-database", "none"]  # fmt: skip
    env = {
        **os.environ,
        "SCHEMATHESIS_HOOKS": "tests.service.http.schemathesis_hooks",
        "PYTHONPATH": str(ROOT),
    }
    run = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-20_000:]
    summary = re.search(r"Test cases:\s*\n\s*(\d+) generated, (\d+) passed", out)
    assert summary, out[-5_000:]
    generated, passed = int(summary[1]), int(summary[2])
    assert generated >= 200  # every operation, every phase
    assert re.search(r"Selected: 8/8\s+Tested: 8", out), out[-5_000:]
    for phase in ("Coverage", "Fuzzing", "Stateful"):
        assert re.search(rf"✅ {phase}", out), out[-5_000:]
    print(f"schemathesis: {generated} cases generated, {passed} passed, 0 failures")


@pytest.mark.timeout(150)
def test_a_plain_schemathesis_run_with_no_hooks(served: tuple[str, str], tmp_path: Path) -> None:
    """``schemathesis run --checks all`` as anyone would start it in the checkout: none of the
    project's hooks (no BibTeX or Markdown strategies, no document rules) and no ``--config-file``,
    bounded: 8 examples an operation and phase, 90 s at most (~25 s on 2 cores). It failed with
    ST202 on ``POST /v1/audit`` for a BibTeX body ``00``: a 422 the document gave no reason for. The
    document now says when that operation answers 422 to a body its schema admits, and the
    checkout's ``schemathesis.toml``, which schemathesis finds by itself, says it is an answer;
    0 failures, and the run adds nothing to the checkout that git would take in."""
    url, key = served
    document = httpx.get(f"{url}/openapi.json", headers={"Authorization": f"Bearer {key}"}).json()
    refused = document["paths"]["/v1/audit"]["post"]["responses"]["422"]
    assert refused["$ref"] == "#/components/responses/422"
    assert "a body its schema admits" in refused["description"], refused
    assert "BibTeX with no entry (`00`)" in refused["description"], refused
    config = tomllib.loads((ROOT / "schemathesis.toml").read_text("utf-8"))
    assert config == {"operations": [{"include-name": "POST /v1/audit", "checks": {"positive_data_acceptance": {
        "expected-statuses": ["2xx", "3xx", "401", "403", "404", "409", "422", "429", "5xx"]}}}]}  # fmt: skip
    before = _checkout_state()
    har = tmp_path / "run.har"
    argv = [sys.executable, "-m", "schemathesis.cli", "run", f"{url}/openapi.json",
            "--header", f"Authorization: Bearer {key}", "--checks", "all", "--max-examples", str(MAX_EXAMPLES),
            "--seed", "1", "--no-color", "--continue-on-failure", "--output-sanitize", "false",
            "--generation-database", "none", "--report", "har", "--report-har-path", str(har)]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "SCHEMATHESIS_HOOKS"}
    run = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=90)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-20_000:]
    assert re.search(rf"Configuration:\s+{re.escape(str(ROOT / 'schemathesis.toml'))}", out), out[:3_000]
    assert _checkout_state() == before
    summary = re.search(r"Test cases:\s*\n\s*(\d+) generated, (\d+) passed", out)
    assert summary, out[-5_000:]
    assert re.search(r"Selected: 8/8\s+Tested: 8", out), out[-5_000:]
    for phase in ("Coverage", "Fuzzing", "Stateful"):
        assert re.search(rf"✅ {phase}", out), out[-5_000:]
    assert "failure" not in out.split("SUMMARY")[-1], out[-5_000:]
    requests = json.loads(har.read_text("utf-8"))["log"]["entries"]
    assert len(requests) >= 200
    print(f"schemathesis, no hooks: {summary[1]} cases generated, {summary[2]} passed, 0 failures, "
          f"{len(requests)} requests")  # fmt: skip


def _checkout_state() -> str:
    # what a commit would take in: schemathesis writes its crash cache into .schemathesis/ (ignored)
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT,
                          capture_output=True, text=True, timeout=30, check=True).stdout  # fmt: skip
