"""Issue 28: ``fetch`` killed with SIGKILL keeps every answer it had been given (each entry is written,
its digest recorded, as its answer arrives), and a rerun asks only for the rest."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from citeaudit.resolve.cache import DoiCache
from citeaudit.resolve.interface import ResolutionStatus
from citeaudit.util.manifest import MANIFEST_NAME
from tests.conftest import read_jsonl, shared_data
from tests.processes import stop
from tests.registry_server import RegistryServer
from tests.resolve.conftest import environment_of

CITEAUDIT = str(Path(sys.executable).parent / "citeaudit")


@pytest.fixture
def slow_registry() -> Iterator[RegistryServer]:
    srv = RegistryServer(shared_data("registry"), latency=0.4).start()  # each answer 0.4 s late
    yield srv
    srv.stop()


def _datacite_dois() -> list[str]:
    """DataCite DOIs (one request each, four at a time) of the prefixes with a recorded agency."""
    agencies = {
        r["doi"]: r["RA"] for r in read_jsonl(shared_data("registry", "doi_registration_agency.jsonl"))
    }
    rows = read_jsonl(shared_data("registry", "datacite_dois.jsonl"))
    dois = [r["doi"].lower() for r in rows]
    return sorted(d for d in dois if agencies.get(d.split("/", 1)[0]) == "DataCite" and "arxiv" not in d)[:16]


def _entries(cache: Path) -> set[str]:
    return {p.name for p in cache.glob("*.json") if p.name != MANIFEST_NAME}


def _datacite_requests(server: RegistryServer) -> list[str]:
    return [path for path, status in server.log if path.startswith("/datacite/") and status == 200]


def test_fetch_killed_mid_way_keeps_what_it_was_given_and_the_rerun_asks_only_the_rest(
    slow_registry: RegistryServer, tmp_path: Path
) -> None:
    dois = _datacite_dois()
    assert len(dois) == 16
    claims = tmp_path / "claims.json"
    citations = [{"id": f"q{i}", "doi": doi} for i, doi in enumerate(dois)]
    claims.write_text(json.dumps({"claims": [{"id": "c1", "text": "t", "citations": citations}]}), "utf-8")
    cache = tmp_path / "cache"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEAUDIT_")}
    env.update(environment_of(slow_registry))
    command = [CITEAUDIT, "fetch", str(claims), "--cache", str(cache), "--mailto", "tests@example.org"]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while len(_datacite_requests(slow_registry)) < 6:  # six records sent, ten to go (1 s or more)
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the registry was not asked"
            time.sleep(0.02)
        time.sleep(0.1)  # the answers sent are read and written
        process.send_signal(signal.SIGKILL)
        process.wait(30)
    finally:
        stop(process)
    assert process.returncode == -signal.SIGKILL
    kept = _entries(cache)
    answered = len(_datacite_requests(slow_registry))
    assert 6 <= len(kept) < len(dois), (len(kept), answered)  # before: none at all (written at the end)
    reader = DoiCache(cache)
    found = [d for d in dois if (a := reader.get(d)) is not None and a.status is ResolutionStatus.FOUND]
    assert len(found) == len(kept)  # each one kept is whole and recorded in the manifest: trusted

    slow_registry.log.clear()
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith(f"dois=16 found=16 not_found=0 could_not_check=0 cache={cache}\n")
    asked = {
        path.rsplit("/", 1)[-1].replace("%2F", "/").lower() for path in _datacite_requests(slow_registry)
    }
    assert asked == set(dois) - set(found)  # only the rest was asked for
    assert len(_entries(cache)) == 16
