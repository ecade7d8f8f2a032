"""Verdict integrity of online resolution, on the replay registry with faults
injected and on mock transports: an answer for another DOI is never a match, a
"not registered" comes only from a final answer of the DOI's own agency, and
every route retries an answer that is not complete JSON."""

from __future__ import annotations

import json
import posixpath
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, unquote

import httpx
import pytest

from citeaudit.resolve.cache import CachingResolver, DoiCache
from citeaudit.resolve.http import HttpClient, RetryPolicy
from citeaudit.resolve.interface import Resolution, ResolutionStatus
from citeaudit.resolve.registry import Endpoints, RegistryResolver
from tests.conftest import run_cli
from tests.registry_server import RegistryServer
from tests.resolve.conftest import environment_of, resolver_for

WORK = "10.1002/ece3.2314"  # a recorded Crossref work
UNREGISTERED = "10.7554/elife.01567x"  # Crossref's recorded 404
DATASET = "10.5061/dryad.8515"  # a recorded DataCite record
JALC = "10.11367/grsj1979.1.15"  # a JaLC prefix (recorded /ra answer); no CSL answer recorded


def _claims(path: Path, citations: list[dict[str, Any]]) -> Path:
    claims = [{"id": f"c{i}", "text": "t", "citations": [c]} for i, c in enumerate(citations, 1)]
    path.write_text(json.dumps({"claims": claims}), "utf-8")
    return path


def _check(tmp_path: Path, cache: Path, name: str) -> tuple[int, dict[str, Any]]:
    out = tmp_path / f"{name}.json"
    result = run_cli("check", tmp_path / "claims.json", "--cache", cache, "--out", out, "--judge", "none")
    assert result.code in (0, 1, 3), result.stderr
    return result.code, json.loads(out.read_text("utf-8"))


def _findings(report: dict[str, Any]) -> dict[str, list[tuple[str, str]]]:
    """The error findings of each DOI (a citation without a quote also gets an info note)."""
    return {
        r["doi"]: [(f["code"], f["message"]) for f in r["findings"] if f["severity"] == "error"]
        for r in report["results"]
    }


# -- 1. an answer for another DOI ---------------------------------------------------------


@pytest.mark.parametrize(
    "written",
    [
        "10.1241/../10.5438/jwvf-8a66",  # a JaLC prefix: doi.org content negotiation
        "https://doi.org/10.1392%2F..%2F10.5438%2Fjwvf-8a66",  # a mEDRA prefix, percent-encoded URL
    ],
)
def test_a_doi_with_dot_segments_never_resolves_to_another_work(
    replay: RegistryServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, written: str
) -> None:
    for name, value in environment_of(replay).items():
        monkeypatch.setenv(name, value)
    # A careful citation of the real work the dot segments lead to: it must not pass.
    citation = {"doi": written, "title": "Introducing the PID Graph", "year": 2019, "first_author": "Fenner"}
    _claims(tmp_path / "claims.json", [citation])
    cache = tmp_path / "cache"
    code, report = _check(tmp_path, cache, "report")
    (doi,) = _findings(report)
    assert (code, _findings(report)) == (1, {doi: [("E_DOI_NOT_FOUND", f"{doi} is not registered")]})
    asked = [path for path, _ in replay.log]
    assert not [p for p in asked if p.endswith("/10.5438/jwvf-8a66")]  # never asked for the other work
    assert [p for p in asked if p.startswith("/doi/10.")] == ["/doi/" + quote(doi, safe="")]
    cached = DoiCache(cache).get(doi)
    assert cached is not None
    assert (cached.status, cached.record) == (ResolutionStatus.NOT_FOUND, None)


class NormalisingServer:
    """A registry that decodes the path (twice, as some proxies do) and removes dot segments
    before it looks the DOI up, answering from the replay server's real recorded data."""

    def __init__(self, replay: RegistryServer) -> None:
        self.replay = replay
        self.asked: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        raw = request.url.raw_path.decode("ascii")
        path, _, query = raw.partition("?")
        path = posixpath.normpath(unquote(unquote(path)))
        self.asked.append(path)
        status, content_type, body = self.replay.answer(
            path, parse_qs(query), request.headers.get("accept", "")
        )
        return httpx.Response(status, content=body, headers={"content-type": content_type})


def _normalising_resolver(replay: RegistryServer, cache: Path) -> tuple[RegistryResolver, NormalisingServer]:
    server = NormalisingServer(replay)
    base = "http://registry.test"
    endpoints = Endpoints(f"{base}/crossref", f"{base}/datacite", f"{base}/doi", f"{base}/arxiv")
    policy = RetryPolicy(base_delay=0.0, max_delay=0.0)
    resolver = RegistryResolver(
        DoiCache(cache),
        endpoints=endpoints,
        client_factory=lambda: HttpClient(policy=policy, transport=httpx.MockTransport(server)),
    )
    return resolver, server


@pytest.mark.parametrize(
    ("asked", "agency", "served"),
    [
        ("10.7554/../10.1002/ece3.2314", "Crossref", WORK),
        ("10.5061/../10.5061/dryad.8515", "DataCite", DATASET),
        ("10.1241/../10.5438/jwvf-8a66", "JaLC", "10.5438/JWVF-8A66"),
        ("10.1392/%2e%2e/10.5438/jwvf-8a66", "mEDRA", "10.5438/JWVF-8A66"),
    ],
    ids=["crossref", "datacite", "content-negotiation", "double-encoded"],
)
def test_an_answer_for_another_doi_is_could_not_check_on_every_route(
    replay: RegistryServer, tmp_path: Path, asked: str, agency: str, served: str
) -> None:
    resolver, server = _normalising_resolver(replay, tmp_path)
    cache = DoiCache(tmp_path)
    answer = CachingResolver(cache, resolver).resolve_many([asked])[asked]
    reason = f"{agency} answered with the record of {served.lower()}, not of {asked}"
    assert answer == Resolution.unavailable("E_REGISTRY_UNAVAILABLE", reason)
    assert [p for p in server.asked if p.lower().endswith(served.lower())]  # the server did serve it
    assert cache.get(asked) is None


def test_the_batch_route_never_takes_an_item_for_another_doi(replay: RegistryServer, tmp_path: Path) -> None:
    resolver, server = _normalising_resolver(replay, tmp_path)
    fake = ["10.7554/../10.1002/ece3.2314", "10.7554/../10.1002/eng2.12059"]
    answers = resolver.resolve_many(fake)
    assert {d: a.status for d, a in answers.items()} == dict.fromkeys(fake, ResolutionStatus.UNAVAILABLE)
    assert any(p == "/crossref/works" for p in server.asked)


def test_a_cache_entry_holding_another_dois_record_is_not_trusted(tmp_path: Path) -> None:
    """The entry an older version wrote for the dot-segment DOI: the other work's record under the fake DOI."""
    fake = "10.1241/../10.5438/jwvf-8a66"
    cache = DoiCache(tmp_path)
    entry = {
        "doi": fake,
        "schema": "citeaudit-cache/1",
        "status": "found",
        "record": {"agency": "jalc", "doi": "10.5438/jwvf-8a66", "titles": ["Introducing the PID Graph"]},
    }
    cache.path_for(fake).write_text(json.dumps(entry), "utf-8")
    answer = cache.get(fake)
    assert answer == Resolution.unavailable(
        "E_CACHE_CORRUPT",
        f"cache entry {cache.path_for(fake).name} is not valid and was not trusted: "
        "its record is for DOI '10.5438/jwvf-8a66'",
    )


# -- 2. a transient failure never becomes "not registered" ----------------------------------


def test_a_404_after_a_transient_failure_is_could_not_check_and_not_cached(
    replay: RegistryServer, tmp_path: Path
) -> None:
    """A registry in trouble: 503, then a 404 for a work it holds. A clean rerun finds the work."""
    replay.fault(WORK, "503", "404")
    cache = DoiCache(tmp_path)
    answer = CachingResolver(cache, resolver_for(replay, tmp_path)).resolve_many([WORK])[WORK]
    assert answer == Resolution.unavailable(
        "E_REGISTRY_UNAVAILABLE", 'Crossref answered 404 after HTTP 503: not trusted as "not registered"'
    )
    assert cache.get(WORK) is None
    again = CachingResolver(cache, resolver_for(replay, tmp_path)).resolve_many([WORK])[WORK]
    assert again.status is ResolutionStatus.FOUND


def test_a_failed_batch_route_leaves_no_cached_not_registered(
    replay: RegistryServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Crossref's batch route answers 503 until the retries run out: the works are still found on
    their own routes, but nothing reached after the failure is called "not registered"."""
    for name, value in environment_of(replay).items():
        monkeypatch.setenv(name, value)
    other = "10.1002/eng2.12059"
    _claims(tmp_path / "claims.json", [{"doi": d} for d in (WORK, other, UNREGISTERED, JALC)])
    cache = tmp_path / "cache"
    replay.fault("crossref-list", *["503"] * 5)  # the batch route's five attempts
    code, report = _check(tmp_path, cache, "first")
    reason = "after Crossref's batch route failed (HTTP 503 after 5 attempts)"
    assert (code, _findings(report)) == (
        3,
        {
            WORK: [],
            other: [],
            UNREGISTERED: [("E_REGISTRY_UNAVAILABLE", f'Crossref answered 404 {reason}: not trusted as "not registered"')],
            JALC: [("E_REGISTRY_UNAVAILABLE", f'JaLC answered 404 {reason}: not trusted as "not registered"')],
        },
    )  # fmt: skip
    entries = DoiCache(cache)
    assert entries.get(UNREGISTERED) is None
    assert entries.get(JALC) is None
    assert [entries.get(d).status for d in (WORK, other)] == [ResolutionStatus.FOUND] * 2  # type: ignore[union-attr]
    code, report = _check(tmp_path, cache, "clean")  # the registry is well again
    assert (code, [f[0][0] for f in _findings(report).values() if f]) == (1, ["E_DOI_NOT_FOUND"] * 2)
    assert [entries.get(d).status for d in (UNREGISTERED, JALC)] == [ResolutionStatus.NOT_FOUND] * 2  # type: ignore[union-attr]


def _mock_resolver(tmp_path: Path, handler: Any) -> RegistryResolver:
    return RegistryResolver(
        DoiCache(tmp_path),
        endpoints=Endpoints("https://api.crossref.test", "https://api.datacite.test", "https://doi.test"),
        client_factory=lambda: HttpClient(
            policy=RetryPolicy(base_delay=0.0, max_delay=0.0), transport=httpx.MockTransport(handler)
        ),
    )


def test_a_404_from_where_doi_org_sent_the_request_is_not_not_registered(tmp_path: Path) -> None:
    """doi.org redirects a registered DOI to its agency's service, which answers 404: the DOI exists."""

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/ra/10.1241":
            return httpx.Response(200, json=[{"DOI": "10.1241", "RA": "JaLC"}])
        if request.url.host == "doi.test":
            return httpx.Response(302, headers={"location": "https://data.jalc.test/x"})
        return httpx.Response(404, text="not here")

    doi = "10.1241/abc"
    answer = CachingResolver(DoiCache(tmp_path), _mock_resolver(tmp_path, handler)).resolve_many([doi])[doi]
    assert answer == Resolution.unavailable(
        "E_REGISTRY_UNAVAILABLE", 'JaLC answered 404 from data.jalc.test, not from doi.test: not trusted as "not registered"'
    )  # fmt: skip
    assert DoiCache(tmp_path).get(doi) is None


def test_a_prefix_said_not_to_exist_after_a_transient_failure_is_not_cached(tmp_path: Path) -> None:
    calls: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request.url.path)
        if len(calls) == 1:
            return httpx.Response(503)
        return httpx.Response(200, json=[{"DOI": "10.0137", "status": "DOI does not exist"}])

    doi = "10.0137/xyz"
    cache = DoiCache(tmp_path)
    answer = CachingResolver(cache, _mock_resolver(tmp_path, handler)).resolve_many([doi])[doi]
    assert answer == Resolution.unavailable(
        "E_REGISTRY_UNAVAILABLE", 'doi.org said prefix 10.0137 does not exist after HTTP 503: not trusted as "not registered"'
    )  # fmt: skip
    assert (cache.get(doi), cache.get_agency("10.0137")) == (None, None)


# -- 3. DataCite retries an answer that is not complete JSON --------------------------------


@pytest.mark.parametrize("fault", ["truncate", "html"])
def test_the_datacite_route_retries_a_200_that_is_not_complete_json(
    replay: RegistryServer, tmp_path: Path, fault: str
) -> None:
    replay.fault(DATASET, fault)
    answer = resolver_for(replay, tmp_path).resolve_many([DATASET])[DATASET]
    assert answer.status is ResolutionStatus.FOUND
    assert answer.record is not None
    assert (answer.record.doi, answer.record.agency) == (DATASET, "datacite")
    assert replay.count(prefix="/datacite/dois/") == 2


def test_a_datacite_answer_truncated_every_time_is_could_not_check(
    replay: RegistryServer, tmp_path: Path
) -> None:
    replay.fault(DATASET, *["truncate"] * 5)
    cache = DoiCache(tmp_path)
    answer = CachingResolver(cache, resolver_for(replay, tmp_path)).resolve_many([DATASET])[DATASET]
    assert answer == Resolution.unavailable(
        "E_REGISTRY_UNAVAILABLE", "DataCite: the answer was not complete JSON after 5 attempts"
    )
    assert cache.get(DATASET) is None


@pytest.mark.parametrize(
    ("doi", "moved", "agency", "route"),
    [
        ("10.1002/mmce.20056", "10.1002/mmce.merged", "Crossref", "crossref/works"),
        ("10.5061/dryad.moved", "10.5061/dryad.merged", "DataCite", "datacite/dois"),
        ("10.11367/grsj1979.moved", "10.11367/grsj1979.merged", "JaLC", "doi"),  # doi.org's own route
    ],
)
def test_a_404_reached_through_a_redirect_on_the_same_host_is_could_not_check_and_not_cached(
    replay: RegistryServer, tmp_path: Path, doi: str, moved: str, agency: str, route: str
) -> None:
    """The registry sends the DOI on to another DOI, which it does not hold: the 404 is about the
    other DOI, so it is no "not registered" of this one, now or in any later offline check."""
    replay.redirects[doi] = moved
    cache = DoiCache(tmp_path)
    answer = CachingResolver(cache, resolver_for(replay, tmp_path)).resolve_many([doi])[doi]
    where = f"{replay.url}/{route}/{quote(moved, safe='')}"
    assert answer == Resolution.unavailable(
        "E_REGISTRY_UNAVAILABLE", f'{agency} answered 404 after a redirect to {where}: not trusted as "not registered"'
    )  # fmt: skip
    assert cache.get(doi) is None
    assert replay.count(301) == 1
    assert replay.count(404) == 1
