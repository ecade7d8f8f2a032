"""Benchmark: offline DOI audit, citeaudit against the seed's script.

Workload: 10,000 citations over 1,000 snapshots of 100 KB (see workload.py
for the mix), both tools offline on identical inputs, in the same run. Then
two series for linearity: citations (with snapshots in proportion) and
snapshot size.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.measure import Measurement, measure
from bench.workload import Workload
from citeaudit.parallel import available_cpus

BENCH = Path(__file__).resolve().parent
WORK = BENCH / "work" / "check"
BASELINE = BENCH / "baseline" / "citation_audit.py"


def _citeaudit(w: Workload, out: Path, jobs: int | None = None, *extra: str) -> Measurement:
    extra = (*extra, "--jobs", str(jobs)) if jobs else extra
    return measure(
        [sys.executable, "-m", "citeaudit", "check", str(w.claims), "--offline", "--cache", str(w.cache),
         "--sources", str(w.sources), "--out", str(out), *extra]
    )  # fmt: skip


def _seed(w: Workload, out: Path) -> Measurement:
    return measure(
        [sys.executable, str(BASELINE), str(w.claims), "--offline", "--cache", str(w.cache),
         "--sources", str(w.sources), "--out", str(out)]
    )  # fmt: skip


def _failing(report: Path) -> set[str]:
    data = json.loads(report.read_text("utf-8"))
    return {r["claim"] for r in data["results"] if r["errors"]}


def _workload(name: str, citations: int, snapshots: int, size: int) -> Workload:
    """Generated in a child process: the driver stays small, so the peak memory a child
    inherits from it (Linux carries the high-water mark across exec) is below the child's own."""
    root = WORK / name
    if root.exists():
        shutil.rmtree(root)
    code = (
        "from pathlib import Path; from bench.workload import make_check_workload as m; "
        f"m(Path({str(root)!r}), {citations}, {snapshots}, {size})"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=BENCH.parent)
    return Workload(root, root / "claims.json", root / "cache", root / "sources", citations, snapshots, size)


def _median(runs: list[Measurement]) -> Measurement:
    return sorted(runs, key=lambda m: m.seconds)[len(runs) // 2]


def run(quick: bool = False) -> dict[str, Any]:
    scale = 10 if quick else 1
    main = _workload("main", 10_000 // scale, 1_000 // scale, 100_000)
    # The machine is shared and noisy: citeaudit's times are the median of three runs.
    ours_runs = [_citeaudit(main, main.root / "citeaudit.json") for _ in range(3)]
    single_runs = [_citeaudit(main, main.root / "citeaudit-1.json", jobs=1) for _ in range(3)]
    # The seed has no semantic stage: the like-for-like run skips citeaudit's (the rules judge).
    bare_runs = [
        _citeaudit(main, main.root / "citeaudit-bare.json", None, "--judge", "none") for _ in range(3)
    ]
    single_bare_runs = [
        _citeaudit(main, main.root / "citeaudit-1-bare.json", 1, "--judge", "none") for _ in range(3)
    ]
    ours, single, bare = _median(ours_runs), _median(single_runs), _median(bare_runs)
    single_bare = _median(single_bare_runs)
    seed = _seed(main, main.root / "seed.json")
    same = (main.root / "citeaudit.json").read_bytes() == (main.root / "citeaudit-1.json").read_bytes()
    ours_fail, seed_fail = _failing(main.root / "citeaudit.json"), _failing(main.root / "seed.json")
    result: dict[str, Any] = {
        "main": {
            "citations": main.citations,
            "snapshots": main.snapshots,
            "snapshot_bytes": main.snapshot_bytes,
            "citeaudit": ours.__dict__,
            "citeaudit_runs": [m.seconds for m in ours_runs],
            "citeaudit_one_job": single.__dict__,
            "citeaudit_one_job_runs": [m.seconds for m in single_runs],
            "citeaudit_no_judge": bare.__dict__,
            "citeaudit_no_judge_runs": [m.seconds for m in bare_runs],
            "citeaudit_one_job_no_judge": single_bare.__dict__,
            "citeaudit_one_job_no_judge_runs": [m.seconds for m in single_bare_runs],
            "cpus": available_cpus(),
            "same_report_for_any_jobs": same,
            "seed": seed.__dict__,
            "speedup": seed.seconds / ours.seconds,
            "speedup_one_job": seed.seconds / single.seconds,
            "speedup_no_judge": seed.seconds / bare.seconds,
            "speedup_one_job_no_judge": seed.seconds / single_bare.seconds,
            "failing_claims": {
                "citeaudit": len(ours_fail),
                "seed": len(seed_fail),
                "both": len(ours_fail & seed_fail),
            },
        },
        "by_citations": [],
        "by_snapshot_bytes": [],
    }
    for n in (2_500, 5_000):
        w = _workload(f"n{n}", n // scale, n // 10 // scale, 100_000)
        m = _citeaudit(w, w.root / "citeaudit.json")
        result["by_citations"].append({"citations": w.citations, "snapshots": w.snapshots, **m.__dict__})
        shutil.rmtree(w.root)
    result["by_citations"].append({"citations": main.citations, "snapshots": main.snapshots, **ours.__dict__})
    for size in (25_000, 50_000):
        w = _workload(f"s{size}", 10_000 // scale, 1_000 // scale, size)
        m = _citeaudit(w, w.root / "citeaudit.json")
        result["by_snapshot_bytes"].append({"snapshot_bytes": size, "citations": w.citations, **m.__dict__})
        shutil.rmtree(w.root)
    result["by_snapshot_bytes"].append(
        {"snapshot_bytes": 100_000, "citations": main.citations, **ours.__dict__}
    )
    shutil.rmtree(main.root)
    return result


def markdown(r: dict[str, Any]) -> str:
    m = r["main"]
    lines = [
        f"Workload: {m['citations']:,} DOI citations over {m['snapshots']:,} snapshots of "
        f"{m['snapshot_bytes'] // 1000} KB (70 % exact quotes, 15 % normalised, 10 % fabricated, "
        "5 % wrong year), offline, both tools on identical inputs in one run.",
        "",
        "| tool | wall time (s) | peak memory (MiB) | exit |",
        "|---|---:|---:|---:|",
        f"| seed script (`bench/baseline/citation_audit.py`) | {m['seed']['seconds']:.2f} | "
        f"{m['seed']['peak_mib']:.0f} | {m['seed']['exit_code']} |",
        f"| citeaudit, default `--jobs` ({m['cpus']} CPUs) | {m['citeaudit']['seconds']:.2f} | "
        f"{m['citeaudit']['peak_mib']:.0f} (main process) | {m['citeaudit']['exit_code']} |",
        f"| citeaudit, `--jobs 1` | {m['citeaudit_one_job']['seconds']:.2f} | "
        f"{m['citeaudit_one_job']['peak_mib']:.0f} | {m['citeaudit_one_job']['exit_code']} |",
        f"| citeaudit, default `--jobs`, `--judge none` (no semantic stage, like the seed) | "
        f"{m['citeaudit_no_judge']['seconds']:.2f} | {m['citeaudit_no_judge']['peak_mib']:.0f} (main process) | "
        f"{m['citeaudit_no_judge']['exit_code']} |",
        f"| citeaudit, `--jobs 1`, `--judge none` | {m['citeaudit_one_job_no_judge']['seconds']:.2f} | "
        f"{m['citeaudit_one_job_no_judge']['peak_mib']:.0f} | {m['citeaudit_one_job_no_judge']['exit_code']} |",
        "",
        "citeaudit's times are the median of three runs (default jobs: "
        + ", ".join(f"{x:.2f}" for x in m["citeaudit_runs"])
        + " s; one job: "
        + ", ".join(f"{x:.2f}" for x in m["citeaudit_one_job_runs"])
        + " s; no judge: "
        + ", ".join(f"{x:.2f}" for x in m["citeaudit_no_judge_runs"])
        + " s; one job, no judge: "
        + ", ".join(f"{x:.2f}" for x in m["citeaudit_one_job_no_judge_runs"])
        + " s); the seed ran once.",
        "",
        f"**Speed-up: {m['speedup']:.1f}×** with the default jobs, {m['speedup_one_job']:.1f}× with one, "
        f"{m['speedup_no_judge']:.1f}× without the semantic stage (goal: at least 20×), "
        f"{m['speedup_one_job_no_judge']:.1f}× with one job and without it (goal: at least 12×). "
        f"Reports of both runs byte-identical: {m['same_report_for_any_jobs']}. "
        "Claims with errors: citeaudit "
        f"{m['failing_claims']['citeaudit']:,}, seed {m['failing_claims']['seed']:,}, both "
        f"{m['failing_claims']['both']:,}.",
        "",
        "Linearity in citations (snapshots in proportion, 100 KB each):",
        "",
        "| citations | snapshots | wall time (s) | time ÷ smallest | size ÷ smallest | peak MiB |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    first = r["by_citations"][0]
    for row in r["by_citations"]:
        lines.append(
            f"| {row['citations']:,} | {row['snapshots']:,} | {row['seconds']:.2f} | "
            f"{row['seconds'] / first['seconds']:.2f} | {row['citations'] / first['citations']:.0f} | "
            f"{row['peak_mib']:.0f} |"
        )
    lines += [
        "",
        "Linearity in snapshot bytes (10,000 citations over 1,000 snapshots):",
        "",
        "| snapshot size | total MB | wall time (s) | time ÷ smallest | size ÷ smallest | peak MiB |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    first = r["by_snapshot_bytes"][0]
    for row in r["by_snapshot_bytes"]:
        total = row["snapshot_bytes"] * row["citations"] / 10 / 1e6
        lines.append(
            f"| {row['snapshot_bytes'] // 1000} KB | {total:.0f} | {row['seconds']:.2f} | "
            f"{row['seconds'] / first['seconds']:.2f} | "
            f"{row['snapshot_bytes'] / first['snapshot_bytes']:.0f} | {row['peak_mib']:.0f} |"
        )
    return "\n".join(lines)
