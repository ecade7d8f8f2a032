"""``citeaudit mirror``: import rate from DBLP XML and Crossref JSON, peak memory at 100k and 1M
records, title look-up latency on the 1M mirror, bytes on disk per record, and from those the
full dumps on paper. ``python -m bench.mirror_bench [--records N] [--record]``."""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "bench" / "work" / "mirror"
FULL = {"dblp": 7_000_000, "crossref": 160_000_000}


def _generate(n: int) -> tuple[Path, Path]:
    sys.path.insert(0, str(ROOT))
    from tests.mirror.dumps import write_crossref, write_dblp

    dblp, crossref = WORK / f"dblp-{n}", WORK / f"crossref-{n}"
    if not (dblp / "dblp.xml.gz").exists():
        write_dblp(dblp, n, www_every=0)
    if not (crossref / "done").exists():
        write_crossref(crossref, n)
        (crossref / "done").write_text("")
    return dblp / "dblp.xml.gz", crossref


def _import(fmt: str, source: Path, mirror: Path) -> dict[str, float]:
    for p in (mirror, Path(f"{mirror}-wal"), Path(f"{mirror}-shm")):
        p.unlink(missing_ok=True)
    command = [sys.executable, "-m", "citeaudit", "mirror", "import", "--format", fmt, str(source),
               "--mirror", str(mirror)]  # fmt: skip
    script = (
        "import resource, runpy, sys; sys.argv = ['citeaudit', *sys.argv[1:]]; "
        "code = 0\ntry: runpy.run_module('citeaudit', run_name='__main__')\n"
        "except SystemExit as e: code = e.code or 0\n"
        "print('MAXRSS', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr); sys.exit(code)"
    )
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", script, *command[3:]], capture_output=True, text=True, check=True
    )
    wall = time.perf_counter() - start
    rss = int(done.stderr.rsplit("MAXRSS", 1)[1].split()[0])
    records = sum(
        int(line.rsplit(": ", 1)[1].split()[0].replace(",", "")) for line in done.stdout.splitlines()
    )
    size = sum(p.stat().st_size for p in (mirror, Path(f"{mirror}-wal")) if p.exists())
    return {"records": records, "seconds": wall, "per_second": records / wall, "peak_rss_mb": rss / 1024,
            "bytes": size, "bytes_per_record": size / records}  # fmt: skip


def _lookups(mirror: Path, n: int, count: int = 2000) -> dict[str, float]:
    sys.path.insert(0, str(ROOT))
    from tests.mirror.dumps import works

    from citeaudit.mirror import open_mirror
    from citeaudit.resolve.indexes.interface import WorkQuery

    index = open_mirror(mirror)
    step = max(n // count, 1)
    queries = []
    for w in works(n):
        if w.i % step:
            continue
        words = list(w.words)
        if w.i % 2:  # a near miss: one word wrong, with the first author and year
            words[len(words) // 2] = "qqwordqq"
            queries.append((w, WorkQuery(" ".join(words), w.authors[0][1], w.year)))
        else:
            queries.append((w, WorkQuery(w.title)))
    times, cpu, found = [], [], 0
    for w, q in queries:
        t, c = time.perf_counter(), time.process_time()
        answer = index.search_many([q])[q.key]
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
        found += any(c.key == f"conf/gen/W{w.i}" for c in answer.candidates)
    times.sort()
    cpu.sort()
    return {
        "cpu_p50_ms": 1000 * statistics.median(cpu),
        "cpu_p99_ms": 1000 * cpu[int(0.99 * (len(cpu) - 1))],
        "queries": len(times),
        "p50_ms": 1000 * statistics.median(times),
        "p99_ms": 1000 * times[int(0.99 * (len(times) - 1))],
        "max_ms": 1000 * times[-1],
        "found": found / len(times),
    }


def run(quick: bool = False, records: int | None = None) -> dict[str, Any]:
    n = records or (100_000 if quick else 1_000_000)
    small = n // 10
    WORK.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    dblp_small, _ = _generate(small)
    dblp, crossref = _generate(n)
    result: dict[str, Any] = {"records": n, "generate_seconds": time.perf_counter() - t}
    result["dblp_small"] = _import("dblp", dblp_small, WORK / f"dblp-{small}.sqlite")
    result["dblp"] = _import("dblp", dblp, WORK / f"dblp-{n}.sqlite")
    result["crossref"] = _import("crossref", crossref, WORK / f"crossref-{n}.sqlite")
    result["memory_ratio"] = result["dblp"]["peak_rss_mb"] / result["dblp_small"]["peak_rss_mb"]
    result["lookups"] = _lookups(WORK / f"dblp-{n}.sqlite", n)
    for fmt, total in FULL.items():
        r = result[fmt]
        result[f"{fmt}_full"] = {"records": total, "hours": total / r["per_second"] / 3600,
                                 "gigabytes": total * r["bytes_per_record"] / 1e9}  # fmt: skip
    return result


def markdown(r: dict[str, Any]) -> str:
    d, c, s, q = r["dblp"], r["crossref"], r["dblp_small"], r["lookups"]
    rows = [
        "| measure | DBLP XML (`dblp.xml.gz`) | Crossref JSON (`*.json.gz`) | goal |",
        "|---|---:|---:|---|",
        f"| import, records/s ({r['records']:,} records) | {d['per_second']:,.0f} | {c['per_second']:,.0f} | ≥ 20,000 |",
        f"| import wall time, s | {d['seconds']:,.1f} | {c['seconds']:,.1f} | |",
        f"| peak memory at {r['records']:,}, MB | {d['peak_rss_mb']:,.0f} | {c['peak_rss_mb']:,.0f} | |",
        f"| peak memory at {r['records'] // 10:,} (DBLP), MB; ratio | {s['peak_rss_mb']:,.0f}; "
        f"{r['memory_ratio']:.2f}× | | ≤ 1.2× |",
        f"| bytes on disk per record | {d['bytes_per_record']:,.0f} | {c['bytes_per_record']:,.0f} | |",
        f"| full dump on paper: records | ~{FULL['dblp']:,} | ~{FULL['crossref']:,} | |",
        f"| full dump on paper: import time, h | {r['dblp_full']['hours']:,.1f} | {r['crossref_full']['hours']:,.1f} | |",
        f"| full dump on paper: disk, GB | {r['dblp_full']['gigabytes']:,.1f} | {r['crossref_full']['gigabytes']:,.1f} | |",
    ]
    look = (
        f"Title look-ups on the {r['records']:,}-record DBLP mirror, {q['queries']:,} queries (half exact titles, "
        f"half near misses with one word wrong plus first author and year), one `search_many` each: "
        f"p50 {q['p50_ms']:.2f} ms, p99 {q['p99_ms']:.2f} ms (goal ≤ 10 ms), max {q['max_ms']:.1f} ms "
        f"(CPU time: p50 {q.get('cpu_p50_ms', 0):.2f} ms, p99 {q.get('cpu_p99_ms', 0):.2f} ms); the "
        f"record looked for was among the candidates for {100 * q['found']:.1f} %."
    )
    return "\n".join(rows) + "\n\n" + look + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.mirror_bench")
    parser.add_argument("--records", type=int, default=None)
    parser.add_argument("--record", action="store_true", help="write the section of bench/RESULTS.md")
    args = parser.parse_args(argv)
    result = run(records=args.records)
    print(json.dumps(result, indent=2))
    print(markdown(result))
    if args.record:
        from bench.results_file import write_section

        write_section(
            "mirror", "`citeaudit mirror`: import and title look-ups at 1M records", markdown(result)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
