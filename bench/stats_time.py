"""Benchmark: ``citeaudit stats`` over 1,000 reports of real audits (1 to 6
claims each), in every output format."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.report.test_stats import make_reports

from bench.measure import measure


def run(quick: bool = False) -> dict[str, Any]:
    count = 100 if quick else 1000
    with tempfile.TemporaryDirectory() as tmp:
        paths = make_reports(count, Path(tmp))
        size = sum(p.stat().st_size for p in paths)
        out: dict[str, Any] = {"reports": count, "bytes": size}
        for fmt in ("json", "table", "prometheus"):
            argv = [sys.executable, "-m", "citeaudit", "stats", *map(str, paths), "--format", fmt,
                    "--output", str(Path(tmp) / f"stats.{fmt}")]  # fmt: skip
            m = measure(argv)
            out[fmt] = {"seconds": m.seconds, "peak_mib": m.peak_mib, "exit_code": m.exit_code}
    return out


def markdown(r: dict[str, Any]) -> str:
    lines = [
        f"{r['reports']:,} reports ({r['bytes'] / 1e6:.1f} MB) of real audits, each aggregated by labels and "
        "checker version; one process per format, start-up included.",
        "",
        "| format | wall time (s) | peak memory (MiB) |",
        "|---|---:|---:|",
    ]
    for fmt in ("json", "table", "prometheus"):
        lines.append(f"| {fmt} | {r[fmt]['seconds']:.2f} | {r[fmt]['peak_mib']:.0f} |")
    return "\n".join(lines)
