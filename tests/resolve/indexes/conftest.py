"""The local index server (real sample answers, faults on demand) and indexes pointed at it, with
short timeouts and backoff, so that no test waits for seconds."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from citeaudit.resolve.http import HttpClient, RetryPolicy
from citeaudit.resolve.indexes.finder import ONLINE_INDEXES
from citeaudit.resolve.indexes.online import IndexEndpoints, OnlineIndex
from tests.resolve.indexes.replay import IndexServer

MAILTO = "tests@example.org"


class FastClock:
    """Real time for pacing; backoff and Retry-After waits recorded and shortened."""

    def __init__(self) -> None:
        self.slept: list[float] = []

    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        await asyncio.sleep(min(seconds, 0.02))


@pytest.fixture(scope="module")
def index_server() -> Iterator[IndexServer]:
    srv = IndexServer().start()
    yield srv
    srv.stop()


@pytest.fixture
def server(index_server: IndexServer) -> IndexServer:
    index_server.reset()
    return index_server


def endpoints_of(server: IndexServer) -> IndexEndpoints:
    url = server.url
    return IndexEndpoints(
        crossref=f"{url}/crossref", dblp=f"{url}/dblp", arxiv=f"{url}/arxiv", openalex=f"{url}/openalex"
    )


class Indexes:
    """Builds indexes on the server; every client it made, for its clock and counters."""

    def __init__(self, server: IndexServer, cache: Path) -> None:
        self.server = server
        self.cache = cache
        self.clocks: list[FastClock] = []

    def client(self) -> HttpClient:
        clock = FastClock()
        self.clocks.append(clock)
        policy = RetryPolicy(attempts=3, timeout=0.5, base_delay=0.01, max_delay=0.05)
        client = HttpClient(mailto=MAILTO, policy=policy, clock=clock)
        for route in ("crossref-list", "dblp", "arxiv", "openalex"):  # faster than the real limits
            client.limits_for(route, rate=200.0, concurrency=4)
        return client

    def make(self, name: str, cache: Path | None = None) -> OnlineIndex:
        cls = ONLINE_INDEXES[name]
        return cls(MAILTO, endpoints_of(self.server), cache or self.cache, self.client)

    @property
    def slept(self) -> list[float]:
        return [s for clock in self.clocks for s in clock.slept]


@pytest.fixture
def indexes(server: IndexServer, tmp_path: Path) -> Indexes:
    return Indexes(server, tmp_path / "cache")


Factory = Callable[[str], OnlineIndex]
