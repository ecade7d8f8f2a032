"""Benchmark: every per-core speed goal in one run, each against its baseline in the same run.

Rows: ``check`` of 10,000 DOI citations over 1,000 snapshots of 100 KB without the semantic stage
(the seed script's scope), with the default jobs and with one, against the seed script; the RAG
``audit()`` of 10-claim, 15-citation responses against seed 003's ``verify.py``; ``citeaudit serve
--workers 2`` against the same audit in-process; ``citeaudit --version`` and ``check`` of the
README's 4-claim example against the interpreter's own start-up. The detailed benchmarks (``check``,
``rag``, ``service``, ``startup``) keep their series; this one is the table to read first.
"""

from __future__ import annotations

import gc
import random
import shutil
import statistics
from typing import Any

from bench import rag_latency, service_load, startup
from bench.check_throughput import _citeaudit, _failing, _median, _seed, _workload
from citeaudit.parallel import available_cpus
from citeaudit.sources.corpus import Corpus, Document

RUNS = 3  # citeaudit's runs per row (the median is reported); the seed script runs once: it takes a minute


def _check_rows(quick: bool) -> dict[str, Any]:
    scale = 10 if quick else 1
    w = _workload("speed", 10_000 // scale, 1_000 // scale, 100_000)
    default = [_citeaudit(w, w.root / "default.json", None, "--judge", "none") for _ in range(RUNS)]
    single = [_citeaudit(w, w.root / "one.json", 1, "--judge", "none") for _ in range(RUNS)]
    seed = _seed(w, w.root / "seed.json")
    ours, theirs = _failing(w.root / "default.json"), _failing(w.root / "seed.json")
    same_bytes = (w.root / "default.json").read_bytes() == (w.root / "one.json").read_bytes()
    shutil.rmtree(w.root)
    return {
        "citations": w.citations,
        "snapshots": w.snapshots,
        "cpus": available_cpus(),
        "seed_seconds": seed.seconds,
        "default_seconds": _median(default).seconds,
        "default_runs": [m.seconds for m in default],
        "one_job_seconds": _median(single).seconds,
        "one_job_runs": [m.seconds for m in single],
        "failing_claims_equal_to_seed": ours == theirs,
        "failing_claims": len(ours),
        "same_report_for_any_jobs": same_bytes,
    }


def _rag_row(quick: bool) -> dict[str, Any]:
    rng = random.Random(11)
    documents = responses = 100 if quick else 1000
    raw = rag_latency._corpus(rng, documents, 20_000)
    corpus = Corpus({k: Document(k, v["version"], v["text"]) for k, v in raw.items()}, "bench")
    payloads = [rag_latency._response(rng, raw, 10, 15) for _ in range(responses)]
    gc.collect()
    gc.freeze()  # the harness's prebuilt payloads, as in the rag benchmark
    try:
        measured = rag_latency._measure(payloads, raw, corpus, rag_latency.load_seed())
    finally:
        gc.unfreeze()
    return {"responses": responses, **measured}


def run(quick: bool = False) -> dict[str, Any]:
    return {
        "check": _check_rows(quick),
        "rag": _rag_row(quick),
        "service": service_load.run(quick),
        "startup": startup.run(quick),
    }


def _service_ratios(r: dict[str, Any]) -> list[float]:
    """Per round: ``serve --workers 2``'s audits a second over the in-process audit's, same round."""
    return [row["two_workers"]["per_second"] / row["in_process"]["per_second"] for row in r["rounds"]]


def _met(ok: bool) -> str:
    return "yes" if ok else "**no**"


def markdown(r: dict[str, Any]) -> str:
    c, g, s, v = r["check"], r["rag"], r["startup"], r["service"]
    ratios = _service_ratios(v)
    default_x = c["seed_seconds"] / c["default_seconds"]
    one_x = c["seed_seconds"] / c["one_job_seconds"]
    ours, seed = g["citeaudit_audit"], g["seed_verify"]
    rows = [
        (
            f"`check`, {c['citations']:,} DOI citations, {c['snapshots']:,} × 100 KB snapshots, `--judge none`, "
            f"default jobs ({c['cpus']} CPUs)",
            f"{c['default_seconds']:.2f} s; seed script {c['seed_seconds']:.1f} s: **{default_x:.1f}×**",
            "≥ 20×",
            _met(default_x >= 20),
        ),
        (
            "the same, `--jobs 1`",
            f"{c['one_job_seconds']:.2f} s: **{one_x:.1f}×**",
            "≥ 12×",
            _met(one_x >= 12),
        ),
        (
            "RAG `audit()`, 10 claims / 15 citations, one core",
            f"{ours['per_second']:,.0f} responses/s, p99 {ours['p99_ms']:.2f} ms "
            f"(seed 003's `verify.py`: {seed['per_second']:,.0f}/s, p99 {seed['p99_ms']:.2f} ms)",
            "≥ 6,000/s, p99 ≤ 0.4 ms",
            _met(ours["per_second"] >= 6000 and ours["p99_ms"] <= 0.4),
        ),
        (
            f"`citeaudit serve --workers 2`, {v['clients']} clients, `POST /v1/audit`",
            f"{statistics.median(ratios):.2f}× in-process (rounds: {', '.join(f'{x:.2f}' for x in ratios)}; "
            f"{statistics.median(row['two_workers']['per_second'] for row in v['rounds']):,.0f} audits/s; "
            f"one worker {statistics.median(row['one_worker']['per_second'] for row in v['rounds']):,.0f})",
            "≥ 0.8× in-process",
            _met(statistics.median(ratios) >= 0.8),
        ),
        (
            "`citeaudit --version` / `check` of the 4-claim example, wall",
            f"{s['median']['version']:.3f} s / {s['median']['check']:.3f} s "
            f"(`python -c pass`: {s['median']['python']:.3f} s)",
            "≤ 0.15 s / ≤ 0.25 s",
            _met(s["median"]["version"] <= 0.15 and s["median"]["check"] <= 0.25),
        ),
    ]
    lines = [
        "Each row against its baseline in the same run. `check`: the median of "
        f"{RUNS} runs (default jobs: {', '.join(f'{x:.2f}' for x in c['default_runs'])} s; one job: "
        f"{', '.join(f'{x:.2f}' for x in c['one_job_runs'])} s); the seed script once. RAG: "
        f"{g['responses']:,} distinct responses over 1,000 documents of 20 KB, each document's search "
        "forms built on first use (a cold corpus), as in the `rag` benchmark. Service: the median of "
        f"{len(v['rounds'])} rounds, each the in-process audit, then `serve` with one worker and with "
        "two, under the same load, as in the `service` benchmark. Start-up: the median of "
        f"{s['rounds']} rounds, each command in a fresh process, as in the `startup` benchmark.",
        "",
        "| workload | now | goal | met |",
        "|---|---|---|---|",
        *(f"| {a} | {b} | {goal} | {met} |" for a, b, goal, met in rows),
        "",
        f"Claims with errors: citeaudit {c['failing_claims']:,}, the same claims as the seed script's: "
        f"{c['failing_claims_equal_to_seed']}. Reports with one job and with the default byte-identical: "
        f"{c['same_report_for_any_jobs']}. Responses in which citeaudit flagged every citation the seed "
        f"flagged: {g['responses_where_citeaudit_flags_every_citation_the_seed_flags']:,} of "
        f"{g['responses']:,}.",
    ]
    return "\n".join(lines)
