"""Online resolution against a local server replaying the real recorded
registry answers, with Crossref's limits enforced and faults injected."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citeaudit.resolve.cache import CachingResolver, DoiCache
from citeaudit.resolve.crossref import record_from_message
from citeaudit.resolve.http import HttpClient, RetryPolicy, SystemClock
from citeaudit.resolve.interface import Resolution, ResolutionStatus
from citeaudit.resolve.registry import Endpoints, RegistryResolver
from tests.conftest import read_jsonl, run_cli, shared_data
from tests.registry_server import RegistryServer


class FastClock:
    """Real time for pacing, but backoff waits shortened: tests need not sleep for seconds."""

    def __init__(self) -> None:
        self.slept: list[float] = []

    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        await asyncio.sleep(min(seconds, 0.02))


@pytest.fixture(scope="module")
def server() -> Iterator[RegistryServer]:
    srv = RegistryServer(shared_data("registry")).start()
    yield srv
    srv.stop()


@pytest.fixture
def registry(server: RegistryServer) -> RegistryServer:
    server.faults.clear()
    server.aliases.clear()
    server.log.clear()
    server.enforce_limits = False
    return server


def _resolver(
    server: RegistryServer, cache: Path, clock: Any = None, timeout: float = 5.0
) -> RegistryResolver:
    endpoints = Endpoints(
        crossref=f"{server.url}/crossref",
        datacite=f"{server.url}/datacite",
        doi=f"{server.url}/doi",
        arxiv=f"{server.url}/arxiv",
    )
    policy = RetryPolicy(timeout=timeout, base_delay=0.05, max_delay=0.2)
    return RegistryResolver(
        DoiCache(cache),
        mailto="tests@example.org",
        endpoints=endpoints,
        client_factory=lambda: HttpClient(
            mailto="tests@example.org", policy=policy, clock=clock or FastClock()
        ),
    )


def _point_at(server: RegistryServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's resolvers read their base URLs from the environment."""
    for name, path in (
        ("CROSSREF", "crossref"),
        ("DATACITE", "datacite"),
        ("DOI", "doi"),
        ("ARXIV", "arxiv"),
    ):
        monkeypatch.setenv(f"CITEAUDIT_{name}_URL", f"{server.url}/{path}")


def _works() -> dict[str, dict[str, Any]]:
    rows = read_jsonl(shared_data("registry", "crossref_works.jsonl"))
    return {r["doi"].lower(): r["message"] for r in rows if not r["partial_select"]}


def test_every_recorded_work_resolves_online_to_its_record(registry: RegistryServer, tmp_path: Path) -> None:
    works = _works()
    answers = _resolver(registry, tmp_path).resolve_many(sorted(works))
    assert {d: a.status for d, a in answers.items()} == dict.fromkeys(sorted(works), ResolutionStatus.FOUND)
    assert all(answers[d].record == record_from_message(m) for d, m in works.items())
    assert registry.count(prefix="/crossref/works/") == 0  # the batch route answered for all of them


def test_datacite_doi_is_resolved_not_called_missing(registry: RegistryServer, tmp_path: Path) -> None:
    doi = "10.5061/dryad.8515"
    answer = _resolver(registry, tmp_path).resolve_many([doi])[doi]
    assert answer.status is ResolutionStatus.FOUND
    assert answer.record is not None
    assert answer.record.agency == "datacite"
    assert registry.count(prefix="/doi/ra/") == 1


def test_jalc_doi_goes_through_content_negotiation(registry: RegistryServer, tmp_path: Path) -> None:
    # The recorded data holds JaLC's real /ra answer for prefix 10.11367 but no JaLC CSL answer,
    # so a recorded CSL-JSON answer is re-served under a JaLC DOI to exercise the route.
    registry.aliases["10.11367/grsj1979.1.15"] = next(iter(registry.data.csl))
    answer = _resolver(registry, tmp_path).resolve_many(["10.11367/grsj1979.1.15"])["10.11367/grsj1979.1.15"]
    assert answer.status is ResolutionStatus.FOUND
    assert answer.record is not None
    assert answer.record.agency == "jalc"
    assert registry.count(prefix="/doi/10.11367%2F") == 1  # the DOI is one encoded path segment


def test_arxiv_ids_go_through_the_arxiv_api(registry: RegistryServer, tmp_path: Path) -> None:
    from citeaudit.formats import parse_document
    from citeaudit.identifiers import resolver_key

    sub = parse_document(
        {"claims": [{"id": "c", "text": "t", "citations": [{"arxiv": "arXiv:1902.02534v2"}]}]}, "x"
    )
    (doi,) = [resolver_key(c.source) for c in sub.claims[0].citations]
    assert doi == "10.48550/arxiv.1902.02534"
    answers = _resolver(registry, tmp_path).resolve_many(
        [doi, "10.48550/arxiv.2311.16162", "10.48550/arxiv.0000.00000"]
    )
    record = answers[doi].record
    assert record is not None
    assert record.agency == "arxiv"
    assert record.titles[0].startswith("Crowdsourcing open citations with CROCI")
    assert [a.family for a in record.authors] == ["Heibi", "Peroni", "Shotton"]
    assert answers["10.48550/arxiv.2311.16162"].status is ResolutionStatus.FOUND
    assert answers["10.48550/arxiv.0000.00000"].status is ResolutionStatus.NOT_FOUND
    assert registry.count(prefix="/arxiv/query") == 1  # all identifiers in one request


def test_unknown_prefix_is_not_registered(registry: RegistryServer, tmp_path: Path) -> None:
    answer = _resolver(registry, tmp_path).resolve_many(["10.0137/xyz"])["10.0137/xyz"]
    assert (answer.status, answer.agency) == (ResolutionStatus.NOT_FOUND, "doi.org")


def test_crossref_404_is_not_registered_and_cached(registry: RegistryServer, tmp_path: Path) -> None:
    cache = DoiCache(tmp_path)
    caching = CachingResolver(cache, _resolver(registry, tmp_path))
    answer = caching.resolve_many(["10.7554/elife.01567x"])["10.7554/elife.01567x"]
    assert (answer.status, answer.agency) == (ResolutionStatus.NOT_FOUND, "crossref")
    again = cache.get("10.7554/elife.01567x")
    assert again is not None
    assert again.status is ResolutionStatus.NOT_FOUND


@pytest.mark.parametrize(
    "faults",
    [("429",), ("503", "503"), ("reset",), ("truncate",), ("short",), ("slow",), ("429", "503", "reset")],
)
def test_transient_faults_are_retried_and_resolved(
    registry: RegistryServer, tmp_path: Path, faults: tuple[str, ...]
) -> None:
    doi = "10.1002/ece3.2314"
    registry.fault(doi, *faults)
    clock = FastClock()
    answer = _resolver(registry, tmp_path, clock, timeout=1.0).resolve_many([doi])[doi]
    assert answer.status is ResolutionStatus.FOUND
    assert len(clock.slept) >= len(faults)


def test_a_500_is_not_retried_and_is_could_not_check(registry: RegistryServer, tmp_path: Path) -> None:
    """500 is not in the retry list (only 429, 502, 503, 504): one request, then "could not check"."""
    doi = "10.1002/ece3.2314"
    registry.fault(doi, "500")
    cache = DoiCache(tmp_path)
    resolver = _resolver(registry, tmp_path)
    resolver.client_factory = lambda: HttpClient(policy=RetryPolicy(), clock=FastClock())
    answer = CachingResolver(cache, resolver).resolve_many([doi])[doi]
    assert (answer.status, answer.reason) == (ResolutionStatus.UNAVAILABLE, "Crossref answered HTTP 500")
    assert registry.count(prefix="/crossref/works/") == 1
    assert cache.get(doi) is None


def test_retry_after_is_honoured(registry: RegistryServer, tmp_path: Path) -> None:
    doi = "10.1002/ece3.2314"
    registry.fault(doi, "429")
    clock = FastClock()
    _resolver(registry, tmp_path, clock).resolve_many([doi])
    assert max(clock.slept) >= 1.0  # the server's Retry-After: 1


def test_a_fault_that_outlasts_the_retries_is_could_not_check_and_not_cached(
    registry: RegistryServer, tmp_path: Path
) -> None:
    doi = "10.1002/ece3.2314"
    registry.fault(doi, *["503"] * 10)
    cache = DoiCache(tmp_path / "cache")
    answer = CachingResolver(cache, _resolver(registry, tmp_path / "cache")).resolve_many([doi])[doi]
    assert answer.status is ResolutionStatus.UNAVAILABLE
    assert answer.code == "E_REGISTRY_UNAVAILABLE"
    assert answer.reason == "Crossref: HTTP 503 after 5 attempts"
    assert cache.get(doi) is None


def test_a_truncated_answer_forever_is_could_not_check(registry: RegistryServer, tmp_path: Path) -> None:
    doi = "10.1002/ece3.2314"
    registry.fault(doi, *["truncate"] * 10)
    answer = _resolver(registry, tmp_path).resolve_many([doi])[doi]
    assert answer.reason == "Crossref: the answer was not complete JSON after 5 attempts"


def test_an_answer_over_the_size_limit_is_could_not_check(registry: RegistryServer, tmp_path: Path) -> None:
    """A real record (a few kilobytes) from the replay server through a 500-byte limit."""
    doi = "10.1002/ece3.2314"
    resolver = _resolver(registry, tmp_path)
    policy = RetryPolicy(base_delay=0.05, max_delay=0.2, max_answer_bytes=500)
    resolver.client_factory = lambda: HttpClient(mailto="tests@example.org", policy=policy, clock=FastClock())
    before = len(registry.log)
    answer = resolver.resolve_many([doi])[doi]
    assert (answer.status, answer.reason) == (
        ResolutionStatus.UNAVAILABLE,
        "Crossref: the answer was over 500 bytes",
    )
    asked = [path for path, _ in registry.log[before:] if path.startswith("/crossref/")]
    assert len(asked) == 1  # refused, not asked again


def test_announced_limits_are_kept(registry: RegistryServer, tmp_path: Path) -> None:
    """Single-route lookups (batching off by giving the DOIs one at a time) under enforced limits: no 429."""
    registry.enforce_limits = True
    dois = sorted(_works())[:40]
    resolver = _resolver(registry, tmp_path, clock=SystemClock())  # real pacing

    async def one_by_one() -> list[Resolution]:
        client = resolver.client_factory()
        resolver._configure(client)
        try:
            return list(await asyncio.gather(*(resolver._one(client, d, "Crossref") for d in dois)))
        finally:
            await client.aclose()

    answers = asyncio.run(one_by_one())
    assert all(a.status is ResolutionStatus.FOUND for a in answers)
    assert registry.count(status=429) == 0


def test_check_and_fetch_online_fill_the_cache_then_offline_is_identical(
    registry: RegistryServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _point_at(registry, monkeypatch)
    message = _works()["10.1002/ece3.2314"]
    citation = {
        "doi": "10.1002/ece3.2314",
        "title": message["title"][0],
        "year": 2016,
        "first_author": "Boettiger",
    }
    claims = {"claims": [
        {"id": "c1", "text": "Dispersal attenuates after range expansion.", "citations": [citation]},
        {"id": "c2", "text": "A dataset exists.", "citations": [{"doi": "10.5061/dryad.8515"}]},
        {"id": "c3", "text": "A made-up work.", "citations": [{"doi": "10.1002/not-a-real-doi-xyz"}]},
    ]}  # fmt: skip
    path = tmp_path / "claims.json"
    path.write_text(json.dumps(claims))
    fetched = run_cli("fetch", path, "--cache", tmp_path / "cache", "--mailto", "tests@example.org")
    assert (fetched.code, fetched.stdout) == (
        0,
        f"dois=3 found=2 not_found=1 could_not_check=0 cache={tmp_path / 'cache'}\n",
    )
    online = run_cli("check", path, "--cache", tmp_path / "cache", "--out", tmp_path / "online.json")
    offline = run_cli(
        "check", path, "--cache", tmp_path / "cache", "--offline", "--out", tmp_path / "offline.json"
    )
    assert online.code == offline.code == 1
    report = json.loads((tmp_path / "offline.json").read_text())
    assert [r["errors"] for r in report["results"]] == [[], [], ["E_DOI_NOT_FOUND"]]
    online_report = json.loads((tmp_path / "online.json").read_text())
    assert online_report["results"] == report["results"]


def test_cache_refresh_reports_a_retraction_after_pinning(
    registry: RegistryServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _point_at(registry, monkeypatch)
    doi = "10.1002/ece3.2314"
    claims = tmp_path / "claims.json"
    claims.write_text(json.dumps({"claims": [{"id": "c1", "text": "t", "citations": [{"doi": doi}]}]}))
    cache = tmp_path / "cache"
    assert run_cli("fetch", claims, "--cache", cache).code == 0
    assert (
        run_cli("cache", "refresh", "--cache", cache).stdout
        == "cached=1 changed=0 could_not_check=0 written=0\n"
    )

    # The registry now says the work was retracted (an update that happened after the cache was pinned).
    original = registry.data.works[doi]
    registry.data.works[doi] = {
        **original,
        "updated-by": [{"DOI": "10.1002/ece3.9999", "type": "retraction"}],
    }
    try:
        assert run_cli("check", claims, "--cache", cache, "--offline", "--out", tmp_path / "r.json").code == 0
        seen = run_cli("cache", "refresh", "--cache", cache)
        assert seen.code == 1
        assert "10.1002/ece3.2314: relations: [" in seen.stdout
        assert "updated-by:retraction:10.1002/ece3.9999" in seen.stdout
        assert run_cli("cache", "refresh", "--cache", cache, "--write").code == 1
        result = run_cli("check", claims, "--cache", cache, "--offline", "--out", tmp_path / "r.json")
        assert result.code == 1
        assert json.loads((tmp_path / "r.json").read_text())["results"][0]["errors"] == ["E_RETRACTED"]
    finally:
        registry.data.works[doi] = original


def test_a_wrong_doi_gets_the_right_work_as_a_suggestion_only(
    registry: RegistryServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _point_at(registry, monkeypatch)
    title = _works()["10.1002/ece3.2314"]["title"][0]
    claims = tmp_path / "claims.json"
    citation = {
        "doi": "10.1002/ece3.2341",
        "title": title,
        "year": 2016,
        "first_author": "Boettiger",
    }  # digits swapped
    claims.write_text(json.dumps({"claims": [{"id": "c1", "text": "t", "citations": [citation]}]}))
    out = tmp_path / "r.json"
    assert run_cli("check", claims, "--cache", tmp_path / "cache", "--out", out).code == 1
    (finding,) = json.loads(out.read_text())["results"][0]["findings"]
    assert finding["code"] == "E_DOI_NOT_FOUND"  # the verdict stays: this DOI is not registered
    assert finding["suggestion"]["candidate"]["doi"] == "10.1002/ece3.2314"


def test_progress_is_reported_as_answers_arrive(registry: RegistryServer, tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []
    resolver = _resolver(registry, tmp_path)
    resolver.progress = lambda done, total: seen.append((done, total))
    dois = [*sorted(_works())[:20], "10.5061/dryad.8515", "10.7554/elife.01567x"]
    resolver.resolve_many(dois)
    assert seen[0] == (20, 22)  # the batch answered for the Crossref works at once
    assert seen[-1] == (22, 22)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_progress_line_only_on_a_terminal() -> None:
    import io

    from citeaudit.cli.common import Progress

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    plain, tty = io.StringIO(), Tty()
    for stream in (plain, tty):
        progress = Progress("resolving DOIs", stream)
        for done in range(0, 21, 10):
            progress(done, 20)
    assert plain.getvalue() == ""
    assert tty.getvalue() == "\rresolving DOIs: 0/20\rresolving DOIs: 10/20\rresolving DOIs: 20/20\n"


def test_the_four_perturbations_are_caught_online_too(registry: RegistryServer, tmp_path: Path) -> None:
    """The core issue's perturbations, every full record, resolved through the replay server."""
    from citeaudit.core import AuditSettings, audit
    from citeaudit.formats import parse_document
    from citeaudit.sources.directory import SnapshotDirectory
    from tests.test_registry_real import careful_citation, perturbations

    records = [record_from_message(m) for m in _works().values()]
    claims, expected = [], {}
    for i, record in enumerate(records):
        for kind, (citation, code) in perturbations(record, careful_citation(record, i)).items():
            claims.append(
                {"id": f"r{i}-{kind}", "text": "The work reports its findings.", "citations": [citation]}
            )
            expected[f"r{i}-{kind}"] = [code]
    submission = parse_document({"claims": claims}, "perturbed.json")
    cache = DoiCache(tmp_path)
    resolver = CachingResolver(cache, _resolver(registry, tmp_path))
    report = audit(
        submission, resolver=resolver, snapshots=SnapshotDirectory(tmp_path), settings=AuditSettings()
    )
    got = {row.claim_id: [f.code for f in row.errors] for row in report.rows}
    assert len(got) > 1500
    assert got == expected
