"""``citeaudit fetch`` when a service fails: a 500 from doi.org/ra and a host name that does not
resolve are "could not check" with the real reason, and nothing of them is cached."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from citeaudit.resolve.cache import CachingResolver, DoiCache
from citeaudit.resolve.interface import Resolution, ResolutionStatus
from citeaudit.util.manifest import MANIFEST_NAME, entry_paths
from tests.conftest import shared_data
from tests.registry_server import RegistryServer
from tests.resolve.conftest import environment_of, resolver_for

CITEAUDIT = str(Path(sys.executable).parent / "citeaudit")
DRYAD = "10.5061/dryad.8515"  # a DataCite DOI; its prefix's agency is asked of doi.org/ra


@pytest.fixture
def registry() -> Iterator[RegistryServer]:
    srv = RegistryServer(shared_data("registry")).start()
    yield srv
    srv.stop()


def _claims(tmp_path: Path, citation: dict[str, str]) -> Path:
    path = tmp_path / "claims.json"
    body = {"claims": [{"id": "c1", "text": "t", "citations": [{"id": "q1", **citation}]}]}
    path.write_text(json.dumps(body), "utf-8")
    return path


def _fetch(
    tmp_path: Path, claims: Path, server: RegistryServer | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEAUDIT_")}
    if server is not None:
        env.update(environment_of(server))
    command = [CITEAUDIT, "fetch", str(claims), "--cache", str(tmp_path / "cache"),
               "--sources", str(tmp_path / "sources"), "--mailto", "tests@example.org"]  # fmt: skip
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)


def _entries(root: Path) -> list[str]:
    """The entries of a cache or sources directory, and its manifest (not the hidden .limits/)."""
    return entry_paths(root) + ([MANIFEST_NAME] if (root / MANIFEST_NAME).exists() else [])


def test_a_500_from_doi_org_ra_is_could_not_check_and_never_cached(
    registry: RegistryServer, tmp_path: Path
) -> None:
    registry.fault("10.5061", "500")  # the agency lookup of the prefix, once
    answers = CachingResolver(
        DoiCache(tmp_path / "cache"), resolver_for(registry, tmp_path / "cache")
    ).resolve_many([DRYAD])
    assert answers == {
        DRYAD: Resolution.unavailable(
            "E_REGISTRY_UNAVAILABLE", "doi.org answered HTTP 500 for the agency of prefix 10.5061"
        )
    }
    assert [entry for entry in registry.log if entry[0].startswith("/doi/ra/")] == [("/doi/ra/10.5061", 500)]
    assert _entries(tmp_path / "cache") == []  # neither the agency nor the DOI's answer: no manifest either

    # The CLI: a rerun asks doi.org/ra again (nothing was cached) and gets the answer.
    registry.log.clear()
    registry.fault("10.5061", "500")
    claims = _claims(tmp_path, {"doi": DRYAD})
    failed = _fetch(tmp_path, claims, registry)
    assert (failed.returncode, failed.stdout) == (
        3,
        f"dois=1 found=0 not_found=0 could_not_check=1 cache={tmp_path / 'cache'}\n",
    )
    assert _entries(tmp_path / "cache") == []
    registry.log.clear()
    done = _fetch(tmp_path, claims, registry)
    assert (done.returncode, done.stdout) == (
        0,
        f"dois=1 found=1 not_found=0 could_not_check=0 cache={tmp_path / 'cache'}\n",
    )
    assert ("/doi/ra/10.5061", 200) in registry.log
    answer = DoiCache(tmp_path / "cache").get(DRYAD)
    assert answer is not None
    assert answer.status is ResolutionStatus.FOUND


def test_fetch_of_a_name_that_does_not_resolve_is_unreachable_not_a_robots_refusal(tmp_path: Path) -> None:
    # .invalid never resolves (RFC 6761): the system resolver says so with or without a network, and
    # the default guard against private addresses (no --allow-private-urls) has no address to refuse.
    done = _fetch(tmp_path, _claims(tmp_path, {"url": "http://nowhere.invalid/page"}))
    assert done.returncode == 3, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1:] == [
        f"urls=1 created=0 unchanged=0 changed=0 replaced=0 failed=1 sources={tmp_path / 'sources'}"
    ]
    assert re.fullmatch(
        r"could_not_check http://nowhere\.invalid/page E_URL_UNREACHABLE: http://nowhere\.invalid/robots\.txt: "
        r"the name nowhere\.invalid could not be resolved \(\[Errno -?\d+\] [^()]+\) after 4 attempts",
        lines[0],
    ), lines[0]
    assert "E_ROBOTS_DISALLOWED" not in done.stdout
    assert _entries(tmp_path / "sources") == []
