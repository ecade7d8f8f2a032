"""Benchmark: verdict integrity of online resolution under injected faults.

Every recorded DOI (the full Crossref works and the DataCite records of
``../shared/data/registry/``) is resolved against the local replay server
while Crossref's batch route answers 503 until its retries run out (so each
DOI goes to its own agency's route) and each DOI's own route serves one fault
in turn: none, a registry in trouble (503, then a 404 for a work it holds), a
truncated 200, a 200 with an HTML page, a reset connection, a 429. Beside
them, each DOI whose CSL-JSON answer was recorded, written with dot segments
before it (``10.1241/../<doi>``, a JaLC prefix, so doi.org content negotiation),
must never pass as that work. Then
the same DOIs are resolved again on the same cache with the registry well:
whatever the faults left in the cache shows there.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from tests.conftest import SHARED_DATA
from tests.registry_server import RegistryServer

from citeaudit.resolve.cache import CachingResolver, DoiCache
from citeaudit.resolve.interface import Resolution, ResolutionStatus
from citeaudit.resolve.registry import BATCH_SIZE, Endpoints, RegistryResolver

FAULTS: dict[str, tuple[str, ...]] = {
    "none": (),
    "503, then a 404 for a work it holds": ("503", "404"),
    "a truncated 200": ("truncate",),
    "a 200 with an HTML page": ("html",),
    "connection reset": ("reset",),
    "429": ("429",),
}
DOT_SEGMENTS = "10.1241/../"


def _resolver(server: RegistryServer, cache: Path) -> CachingResolver:
    endpoints = Endpoints(
        crossref=f"{server.url}/crossref",
        datacite=f"{server.url}/datacite",
        doi=f"{server.url}/doi",
        arxiv=f"{server.url}/arxiv",
    )
    upstream = RegistryResolver(DoiCache(cache), mailto="bench@example.org", endpoints=endpoints)
    return CachingResolver(DoiCache(cache), upstream)


def _right(answer: Resolution, doi: str) -> bool:
    """Found, with the record of that very DOI."""
    return answer.record is not None and answer.record.doi == doi


def run(quick: bool = False) -> dict[str, Any]:
    server = RegistryServer(SHARED_DATA / "registry").start()
    server.enforce_limits = False  # the faults are the subject; the client keeps its own pacing
    try:
        existing = sorted(server.data.works) + sorted(
            d
            for d in server.data.datacite
            if not d.startswith("10.48550/")  # arXiv DOIs: the arXiv API
        )
        if quick:
            existing = existing[::10]
        kinds = list(FAULTS)
        kind_of = {doi: kinds[i % len(kinds)] for i, doi in enumerate(existing)}
        for doi, kind in kind_of.items():
            server.fault(doi, *FAULTS[kind])
        batches = -(-len(existing) // BATCH_SIZE) + 1
        server.fault("crossref-list", *["503"] * 5 * batches)
        fakes = {DOT_SEGMENTS + doi: doi for doi in sorted(server.data.csl)}  # works doi.org would serve
        with tempfile.TemporaryDirectory() as tmp:
            cache = Path(tmp)
            start = time.perf_counter()
            answers = _resolver(server, cache).resolve_many([*existing, *fakes])
            seconds = time.perf_counter() - start
            requests = server.count()
            server.faults.clear()
            again = _resolver(server, cache).resolve_many(existing)
    finally:
        server.stop()
    rows = []
    for kind in kinds:
        dois = [d for d in existing if kind_of[d] == kind]
        got = [answers[d] for d in dois]
        rows.append(
            {
                "fault": kind,
                "dois": len(dois),
                "found": sum(1 for d, a in zip(dois, got, strict=True) if _right(a, d)),
                "could_not_check": sum(1 for a in got if a.status is ResolutionStatus.UNAVAILABLE),
                "false_not_found": sum(1 for a in got if a.status is ResolutionStatus.NOT_FOUND),
            }
        )
    fake_answers = [answers[f] for f in fakes]
    return {
        "dois": len(existing),
        "seconds": seconds,
        "requests": requests,
        "rows": rows,
        "fakes": len(fakes),
        "fake_passes": sum(1 for a in fake_answers if a.status is ResolutionStatus.FOUND),
        "fake_not_found": sum(1 for a in fake_answers if a.status is ResolutionStatus.NOT_FOUND),
        "fake_could_not_check": sum(1 for a in fake_answers if a.status is ResolutionStatus.UNAVAILABLE),
        "rerun_found": sum(1 for d in existing if _right(again[d], d)),
        "rerun_not_found": sum(1 for d in existing if again[d].status is ResolutionStatus.NOT_FOUND),
        "rerun_could_not_check": sum(1 for d in existing if again[d].status is ResolutionStatus.UNAVAILABLE),
    }


def markdown(r: dict[str, Any]) -> str:
    lines = [
        f"Workload: the {r['dois']} recorded DOIs (full Crossref works and DataCite records) resolved "
        "online against the local replay server while Crossref's batch route answers 503 until its "
        "retries run out, so each DOI is asked on its own agency's route, which serves it one fault; "
        f"beside them the {r['fakes']} DOIs with a recorded CSL-JSON answer, written with dot segments "
        f"before them (`{DOT_SEGMENTS}<doi>`). Then the same DOIs again, on the same cache, with the registry well. "
        f"{r['requests']:,} requests, {r['seconds']:.1f} s.",
        "",
        "| fault on the DOI's own route | DOIs | found, the right record | could not check | "
        "called not registered (false) |",
        "|---|---:|---:|---:|---:|",
    ]
    for row in r["rows"]:
        lines.append(
            f"| {row['fault']} | {row['dois']} | {row['found']} | {row['could_not_check']} | "
            f"{row['false_not_found']} |"
        )
    lines += [
        "",
        f"DOIs with dot segments: **{r['fake_passes']} of {r['fakes']} passed as another work** "
        f"({r['fake_not_found']} not registered, {r['fake_could_not_check']} could not check). "
        f"Clean rerun on the same cache: {r['rerun_found']} of {r['dois']} found with the right record, "
        f"**{r['rerun_not_found']} not registered** (a false not-found left in the cache), "
        f"{r['rerun_could_not_check']} could not check. Goal: zero false passes and zero false not-found.",
    ]
    return "\n".join(lines)
