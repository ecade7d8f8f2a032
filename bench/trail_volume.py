"""Benchmark: the audit trail with 10,000 audits appended, then queried by
label and by code, on SQLite and on a throwaway PostgreSQL cluster."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from citeaudit.api import audit
from citeaudit.store.evidence import Scope, ScopedLookup, open_store
from citeaudit.store.trail import ScopedTrail, Trail

SCOPE = Scope("bench", "trail")


def _one(target: str, count: int, tmp: Path) -> dict[str, Any]:
    store = open_store(target)
    store.register(SCOPE, "doc", "Doc", "loc", "document")
    ref, _ = store.ingest(SCOPE, "doc", "The journal is kept for 30 days. Backups are deleted separately.")
    trail = Trail(store)
    scoped, lookup = ScopedTrail(trail, SCOPE), ScopedLookup(store, SCOPE)
    good = "The journal is kept for 30 days."
    audit_seconds = append_seconds = 0.0
    for i in range(count):
        quote = good if i % 4 else "The journal is kept for 31 days."
        answer = {"claims": [{"id": "c1", "text": "Kept 30 days.", "citations": [
            {**ref.ref(), "start": 0, "end": len(quote), "quote": quote}]}],
            "labels": {"generator": f"gen-{i % 5}"}}  # fmt: skip
        t0 = time.perf_counter()
        report = audit(answer, cache=tmp, sources=tmp, store=lookup)
        t1 = time.perf_counter()
        scoped.append(report)
        append_seconds += time.perf_counter() - t1
        audit_seconds += t1 - t0
    t = time.perf_counter()
    by_label = trail.query(SCOPE, labels=[("generator", "gen-3")])
    label_seconds = time.perf_counter() - t
    t = time.perf_counter()
    by_code = trail.query(SCOPE, code="E_QUOTE_MISMATCH")
    code_seconds = time.perf_counter() - t
    store.close()
    return {"appended": count, "append_seconds": append_seconds, "audit_seconds": audit_seconds,
            "label_matches": len(by_label), "label_seconds": label_seconds,
            "code_matches": len(by_code), "code_seconds": code_seconds}  # fmt: skip


def run(quick: bool = False) -> dict[str, Any]:
    count = 1000 if quick else 10_000
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        out["sqlite"] = _one(str(Path(tmp) / "trail.db"), count, Path(tmp))
        from tests.postgres import PostgresCluster

        cluster = PostgresCluster()
        try:
            out["postgresql"] = _one(cluster.start(), count, Path(tmp))
        finally:
            cluster.stop()
    return out


def markdown(r: dict[str, Any]) -> str:
    lines = [
        "10,000 audits of a one-claim answer citing an evidence-store source (a quarter of them with a wrong "
        "quote), each appended to the trail; then one query by label (a fifth match) and one by code.",
        "",
        "| database | appends/s | append total (s) | label query (s), matches | code query (s), matches |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, x in r.items():
        lines.append(
            f"| {name} | {x['appended'] / x['append_seconds']:,.0f} | {x['append_seconds']:.2f} | "
            f"{x['label_seconds']:.3f}, {x['label_matches']:,} | {x['code_seconds']:.3f}, {x['code_matches']:,} |"
        )
    return "\n".join(lines)
