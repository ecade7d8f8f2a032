"""Issue 28: what a registry or a site that fails is reported as — the real reason, never a parse
error or another site's rule."""

from __future__ import annotations

import asyncio
from pathlib import Path

from citeaudit.resolve.interface import Resolution
from citeaudit.resolve.web import PageFailure
from tests.registry_server import RegistryServer
from tests.resolve.conftest import resolver_for
from tests.resolve.test_web import fetcher, one


def test_a_500_from_doi_org_ra_says_what_happened(replay: RegistryServer, tmp_path: Path) -> None:
    replay.fault("10.5061", "500")  # the agency lookup of the prefix
    answer = asyncio.run(resolver_for(replay, tmp_path).resolve_async(["10.5061/dryad.8515"]))
    assert answer["10.5061/dryad.8515"] == Resolution.unavailable(
        "E_REGISTRY_UNAVAILABLE", "doi.org answered HTTP 500 for the agency of prefix 10.5061"
    )
    assert ("/doi/ra/10.5061", 500) in replay.log


def test_a_name_that_does_not_resolve_is_unreachable_not_a_robots_refusal() -> None:
    # .invalid never resolves (RFC 6761): the system resolver says so at once.
    answer = one(fetcher(), "http://nowhere.invalid/page")
    assert isinstance(answer, PageFailure)
    assert answer.code == "E_URL_UNREACHABLE"
    assert answer.reason.startswith(
        "http://nowhere.invalid/robots.txt: the name nowhere.invalid could not be resolved ("
    )
    assert answer.reason.endswith(") after 3 attempts")
