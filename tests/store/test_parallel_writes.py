"""Parallel writers on one source, on SQLite and PostgreSQL alike: revisions are numbered inside
the write transaction, so every add lands (real processes through the CLI, and parallel requests
through the HTTP service run with uvicorn); a writer that cannot get the source within the wait
is told so in the store's own words, HTTP 409 through the service."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from citeaudit.config import Config
from citeaudit.service.http import ApiKey, ServiceSettings, hash_key
from citeaudit.store.evidence import Scope, StoreConflict, StoreLimits, open_store
from tests.conftest import GOLDEN, ROOT
from tests.live_service import live_service

ALICE = Scope("acme", "alice")


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT / "src")}


def _revisions(target: str, scope: Scope, source_id: str) -> list[int]:
    store = open_store(target)
    try:
        found = store.get(scope, source_id, with_text=False)
        assert found is not None
        numbers = [n for n in range(1, found.revisions + 1) if store.revision(scope, source_id, n)]
    finally:
        store.close()
    return numbers


# Each process imports the CLI, then waits for one common moment to run it: without the wait the
# imports spread the starts out and the writes rarely meet.
_AT_ONCE = """
import sys, time
from citeaudit.cli import main
time.sleep(max(0.0, float(sys.argv[1]) - time.time()))
sys.exit(main(sys.argv[2:]))
"""


def test_parallel_cli_adds_of_one_source_all_land(store_target: str, tmp_path: Path) -> None:
    files = []
    for i in range(8):
        files.append(tmp_path / f"text{i}.txt")
        files[-1].write_text(f"Revision text number {i}.\n", "utf-8")
    argv = ["sources", "add", "--id", "same", "--store", store_target, "--scope", str(ALICE)]
    start = f"{time.time() + 8:.3f}"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _AT_ONCE, start, *argv, str(f)],
            cwd=tmp_path,
            env=_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for f in files
    ]
    results = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * 8, results
    assert results == [""] * 8
    assert _revisions(store_target, ALICE, "same") == list(range(1, 9))


KEY = "key-acme-ingester"


@pytest.fixture
def service(store_target: str, tmp_path: Path) -> Iterator[tuple[str, str]]:
    seed = GOLDEN / "seed000"
    keys = [ApiKey(hash_key(KEY), "acme", "ingester", "acme-ingester")]
    config = Config(cache=seed / "cache", sources=seed / "sources")
    settings = ServiceSettings(store=store_target, keys=keys, config=config)
    with live_service(settings) as url:
        yield url, store_target


def _client(url: str) -> httpx.Client:
    return httpx.Client(base_url=url, headers={"Authorization": f"Bearer {KEY}"}, timeout=60)


def test_parallel_http_revisions_of_one_source_all_land(service: tuple[str, str]) -> None:
    url, target = service
    with _client(url) as client:
        source = {"source_id": "same", "title": "Same", "locator": "fixture:same"}
        assert client.post("/v1/sources", json=source).status_code == 201

    def post_ten(worker: int) -> list[int]:
        with _client(url) as client:
            return [
                client.post("/v1/sources/same/revisions", json={"text": f"text {worker}.{i}\n"}).status_code
                for i in range(10)
            ]

    with ThreadPoolExecutor(8) as pool:
        statuses = [s for part in pool.map(post_ten, range(8)) for s in part]
    assert statuses == [201] * 80
    assert _revisions(target, Scope("acme", "service"), "same") == list(range(1, 81))


def _hold_the_source(target: str, scope: Scope, source_id: str, seconds: float) -> threading.Thread:
    """Another writer that takes the source's lock and keeps it for ``seconds``."""
    ready = threading.Event()

    def hold() -> None:
        if target.startswith("postgresql://"):
            import psycopg

            with psycopg.connect(target) as conn:
                conn.execute(
                    "SELECT 1 FROM citeaudit_sources WHERE tenant = %s AND user_id = %s AND source_id = %s "
                    "FOR UPDATE",
                    (scope.tenant, scope.user, source_id),
                )
                ready.set()
                time.sleep(seconds)
        else:
            lite = sqlite3.connect(target, isolation_level=None)
            lite.execute("BEGIN IMMEDIATE")
            ready.set()
            time.sleep(seconds)
            lite.execute("ROLLBACK")
            lite.close()

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    assert ready.wait(30)
    return thread


def test_a_writer_that_cannot_get_the_source_is_told_so(store_target: str) -> None:
    store = open_store(store_target, StoreLimits(lock_wait_seconds=0.5))
    store.register(ALICE, "same", "Same", "fixture:same", "fixture")
    holder = _hold_the_source(store_target, ALICE, "same", 3)
    with pytest.raises(StoreConflict) as caught:
        store.ingest(ALICE, "same", "new text\n")
    assert str(caught.value) == (
        "source 'same' in scope acme/alice is being changed by another writer and stayed locked "
        "for 0.5 s; nothing was stored, try again"
    )
    holder.join()
    revision, created = store.ingest(ALICE, "same", "new text\n")
    assert (revision.revision, created) == (1, True)
    store.close()


def test_a_conflict_is_http_409_in_the_services_words(service: tuple[str, str]) -> None:
    url, target = service
    with _client(url) as client:
        source = {"source_id": "same", "title": "Same", "locator": "fixture:same"}
        assert client.post("/v1/sources", json=source).status_code == 201
        holder = _hold_the_source(target, Scope("acme", "service"), "same", 12)
        answer = client.post("/v1/sources/same/revisions", json={"text": "new text\n"})
        holder.join()
    assert answer.status_code == 409
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert answer.json() == {
        "type": "about:blank",
        "title": "Conflict",
        "status": 409,
        "detail": "source 'same' in scope acme/service is being changed by another writer and stayed "
        "locked for 10 s; nothing was stored, try again",
    }
