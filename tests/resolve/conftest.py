"""The local replay registry (real recorded answers, faults on demand) for the resolve tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from citeaudit.resolve.cache import DoiCache
from citeaudit.resolve.http import HttpClient, RetryPolicy
from citeaudit.resolve.registry import Endpoints, RegistryResolver
from tests.conftest import shared_data
from tests.registry_server import RegistryServer


@pytest.fixture(scope="module")
def replay_server() -> Iterator[RegistryServer]:
    srv = RegistryServer(shared_data("registry")).start()
    yield srv
    srv.stop()


@pytest.fixture
def replay(replay_server: RegistryServer) -> RegistryServer:
    """The server with no faults, no aliases, an empty log and its limits enforced."""
    replay_server.faults.clear()
    replay_server.aliases.clear()
    replay_server.redirects.clear()
    replay_server.log.clear()
    replay_server.enforce_limits = True
    return replay_server


def endpoints_of(server: RegistryServer) -> Endpoints:
    return Endpoints(
        crossref=f"{server.url}/crossref",
        datacite=f"{server.url}/datacite",
        doi=f"{server.url}/doi",
        arxiv=f"{server.url}/arxiv",
    )


def environment_of(server: RegistryServer) -> dict[str, str]:
    """The variables that point the CLI's resolvers at the server."""
    names = {"CROSSREF": "crossref", "DATACITE": "datacite", "DOI": "doi", "ARXIV": "arxiv"}
    return {f"CITEAUDIT_{name}_URL": f"{server.url}/{path}" for name, path in names.items()}


def resolver_for(server: RegistryServer, cache: Path, **policy: float) -> RegistryResolver:
    """A resolver on the server with short backoff (Retry-After still honoured)."""
    retry = RetryPolicy(**{"timeout": 5.0, "base_delay": 0.05, "max_delay": 0.2, **policy})  # type: ignore[arg-type]
    return RegistryResolver(
        DoiCache(cache),
        mailto="tests@example.org",
        endpoints=endpoints_of(server),
        client_factory=lambda: HttpClient(mailto="tests@example.org", policy=retry),
    )
