"""Benchmark: resolve 300 distinct DOIs against the local replay server with
Crossref's limits enforced (10 requests/s and 3 at a time on the single
route, 3 requests/s on the list route) and 20 ms of latency per answer.

The records are the real recorded Crossref works, re-served under distinct
DOIs. In the same run, the seed script's sequential resolver (its
``fetch_crossref``) is pointed at the same server.
"""

from __future__ import annotations

import asyncio
import importlib.util
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.conftest import SHARED_DATA
from tests.registry_server import LIMITS, RegistryServer

from citeaudit.resolve.cache import DoiCache
from citeaudit.resolve.http import HttpClient
from citeaudit.resolve.registry import BATCH_SIZE, Endpoints, RegistryResolver

BASELINE = Path(__file__).resolve().parent / "baseline" / "citation_audit.py"
DOIS = 300


def _seed_resolver(server: RegistryServer, dois: list[str]) -> dict[str, Any]:
    """The seed's fetch_crossref, one DOI after another, its URL pointed at the server."""
    spec = importlib.util.spec_from_file_location("seed_audit", BASELINE)
    assert spec is not None
    assert spec.loader is not None
    seed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(seed)
    real_urlopen = urllib.request.urlopen

    def redirected(request: Any, *args: Any, **kwargs: Any) -> Any:
        request.full_url = request.full_url.replace("https://api.crossref.org", f"{server.url}/crossref")
        return real_urlopen(request, *args, **kwargs)

    seed.urllib.request.urlopen = redirected  # the seed's own module reference
    done, outcome = 0, "resolved every DOI"
    start = time.perf_counter()
    try:
        for doi in dois:
            seed.fetch_crossref(doi, "bench@example.org")
            done += 1
    except urllib.error.HTTPError as e:
        outcome = f"stopped with an uncaught HTTPError {e.code} after {done} DOIs"
    finally:
        seed.urllib.request.urlopen = real_urlopen
    return {"seconds": time.perf_counter() - start, "resolved": done, "outcome": outcome}


def run(quick: bool = False) -> dict[str, Any]:
    count = 60 if quick else DOIS
    server = RegistryServer(SHARED_DATA / "registry", latency=0.02).start()
    try:
        recorded = sorted(server.data.works)
        dois = [f"10.5555/citeaudit-bench.{i}" for i in range(count)]
        for i, doi in enumerate(dois):
            server.aliases[doi] = recorded[i % len(recorded)]
        endpoints = Endpoints(crossref=f"{server.url}/crossref", datacite=f"{server.url}/datacite",
                              doi=f"{server.url}/doi")  # fmt: skip
        with tempfile.TemporaryDirectory() as tmp:
            resolver = RegistryResolver(
                DoiCache(Path(tmp)),
                mailto="bench@example.org",
                endpoints=endpoints,
                client_factory=lambda: HttpClient(mailto="bench@example.org"),
            )
            start = time.perf_counter()
            answers = asyncio.run(resolver.resolve_async(dois))
            seconds = time.perf_counter() - start
        found = sum(1 for a in answers.values() if a.record is not None)
        ours = {
            "seconds": seconds,
            "found": found,
            "requests": server.count(),
            "throttled": server.count(429),
        }
        server.log.clear()
        seed = _seed_resolver(server, dois)
        seed["throttled"] = server.count(429)
    finally:
        server.stop()
    list_limit, list_interval, _ = LIMITS["crossref-list"]
    single_limit, single_interval, _ = LIMITS["crossref-single"]
    batches = -(-count // BATCH_SIZE)
    minimum = (batches - 1) * list_interval / list_limit + server.latency
    single_minimum = (count - 1) * single_interval / single_limit + server.latency
    return {
        "dois": count,
        "citeaudit": ours,
        "minimum_seconds_list_route": minimum,
        "minimum_seconds_single_route_only": single_minimum,
        "ratio_to_minimum": seconds / minimum,
        "speedup_over_single_route_minimum": single_minimum / seconds,
        "seed": seed,
    }


def markdown(r: dict[str, Any]) -> str:
    c, s = r["citeaudit"], r["seed"]
    ours = f"| citeaudit (batch route, {BATCH_SIZE} DOIs a request) | {c['seconds']:.2f} | {c['requests']} | "
    seed = f"| seed script's sequential `fetch_crossref` | {s['seconds']:.2f} | — | {s['throttled']} | "
    return "\n".join(
        [
            f"Workload: {r['dois']} distinct DOIs (the recorded Crossref works re-served under distinct "
            "DOIs) against the local replay server: 10 requests/s and 3 at a time on the single route, "
            "3 requests/s on the list route, enforced with 429; 20 ms of latency per answer.",
            "",
            "| client | wall time (s) | requests | 429 answers | result |",
            "|---|---:|---:|---:|---|",
            ours + f"{c['throttled']} | {c['found']} of {r['dois']} found |",
            seed + f"{s['outcome']} |",
            "",
            "Minimum the announced limits allow for the route citeaudit used: "
            f"{r['minimum_seconds_list_route']:.2f} s; citeaudit took **{r['ratio_to_minimum']:.2f}×** that "
            "(goal: within 1.5×). The best client limited to the single-DOI route needs at least "
            f"{r['minimum_seconds_single_route_only']:.1f} s: citeaudit is "
            f"**{r['speedup_over_single_route_minimum']:.1f}×** faster (goal: at least 10×).",
        ]
    )
