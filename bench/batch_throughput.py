"""Benchmark: ``citeaudit batch`` on generated answers, against a shell loop of ``check``
and the Python API in a loop.

Workload (``--answers N``, default 100,000): seed-000-shaped answers of 1–5 DOI citations
each (a claim per citation, the quote taken from the work's snapshot, with seed 000's
mix of exact, normalised, fabricated quotes and wrong years), citing 200 shared snapshots
of 20 KB; offline, the default ``rules`` judge. Runs, in one process tree each and in one
benchmark run: ``batch`` local with 1 and 2 workers and ray with 2 workers over all N
answers (and local with 1 worker over N/4, to show memory flat in N); ``check`` in a shell
loop over the first answers (a process per answer); ``citeaudit.api.audit`` in a loop in
one process. Peak memory is the largest sum of the resident sets of the command's whole
process tree (driver, workers, Ray's own processes), sampled every 0.1 s.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.workload import (
    _COMMON_EN,
    _COMMON_RU,
    _EN_SYLLABLES,
    _RU_SYLLABLES,
    _quote_at,
    _snapshot,
    _variant,
    _vocabulary,
)

BENCH = Path(__file__).resolve().parent
WORK = BENCH / "work" / "batch"
ANSWERS = 100_000  # the scale parameter: `python -m bench.batch_throughput --answers N`
SHELL_LOOP = 1_000
SNAPSHOTS = 200
SNAPSHOT_BYTES = 20_000


def make_batch_workload(root: Path, answers: int, snapshots: int = SNAPSHOTS, seed: int = 11) -> Path:
    """Write the cache, the snapshots and ``answers.jsonl`` (one answer a line, streamed)."""
    rng = random.Random(seed)
    en = _vocabulary(rng, _EN_SYLLABLES, _COMMON_EN)
    ru = _vocabulary(rng, _RU_SYLLABLES, _COMMON_RU)
    cache, sources = root / "cache", root / "sources"
    cache.mkdir(parents=True, exist_ok=True)
    sources.mkdir(parents=True, exist_ok=True)
    texts = []
    for i in range(snapshots):
        slug = f"10.5555_batch.{i}"
        text = _snapshot(rng, SNAPSHOT_BYTES, en, ru)
        texts.append(text)
        (sources / f"{slug}.txt").write_text(text, "utf-8")
        entry = {"status": "found", "title": f"Batch Work {i}", "year": 2000 + i % 25,
                 "authors": [f"Author{i}", "Second"]}  # fmt: skip
        (cache / f"{slug}.json").write_text(json.dumps(entry), "utf-8")
    with (root / "answers.jsonl").open("w", encoding="utf-8") as fh:
        for n in range(answers):
            claims = []
            for j in range(1 + n % 5):
                i = rng.randrange(snapshots)
                quote = _quote_at(rng, texts[i])
                roll, year = rng.random(), 2000 + i % 25
                if roll < 0.15:
                    quote = _variant(rng, quote)
                elif roll < 0.25:
                    quote = "the authors never wrote this sentence about " + quote[:60]
                elif roll < 0.30:
                    year += 1
                numbers = re.findall(r"\d+", quote)[:2]
                text = "The source states it" + (" with " + " and ".join(numbers) if numbers else "") + "."
                citation = {"doi": f"10.5555/batch.{i}", "title": f"Batch Work {i}", "year": year,
                            "first_author": f"Author{i}", "quote": quote}  # fmt: skip
                claims.append({"id": f"c{j}", "text": text, "citations": [citation]})
            fh.write(json.dumps({"claims": claims}, ensure_ascii=False) + "\n")
    return root / "answers.jsonl"


@dataclass(frozen=True)
class Run:
    seconds: float
    peak_mib: float
    exit_code: int
    cpu_seconds: float = 0.0  # user + system of the command and the descendants it waited for


def _tree_rss(root: int) -> int:
    """Resident bytes of ``root`` and all its descendants, from /proc."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        pid = int(entry)
        parents[pid] = int(fields[1])
        rss[pid] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
    total, stack, seen = 0, [root], set()
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        total += rss.get(pid, 0)
        stack.extend(children.get(pid, []))
    return total


def measure_tree(argv: list[str], cwd: Path | None = None, shell: bool = False) -> Run:
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, shell=shell, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    peak = 0
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        peak = max(peak, _tree_rss(proc.pid))
        time.sleep(0.1)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Run(seconds, peak / 2**20, proc.returncode, usage.ru_utime + usage.ru_stime)


def _batch(w: Path, jsonl: Path, out: Path, *extra: str) -> Run:
    if out.exists():
        shutil.rmtree(out)
    return measure_tree([sys.executable, "-m", "citeaudit", "batch", str(jsonl), "--out", str(out), "--offline",
                         "--cache", str(w / "cache"), "--sources", str(w / "sources"), *extra])  # fmt: skip


def _tree_bytes(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


_API_LOOP = """
import json, sys, time
from citeaudit.api import audit
from citeaudit.report.json import report_to_dict
path, cache, sources, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
start = time.perf_counter()
with open(path, encoding="utf-8") as fh:
    for n, line in enumerate(fh):
        if n == count:
            break
        report_to_dict(audit(json.loads(line), cache=cache, sources=sources, offline=True))
print(time.perf_counter() - start)
"""


def _count(run: str, total: int, loop: int) -> int:
    return total // 4 if run.endswith("quarter") else loop if run == "check_loop" else total


def run(
    quick: bool = False, answers: int | None = None, shell_loop: int | None = None, repeats: int = 3
) -> dict[str, Any]:
    """``answers`` (default 100,000) and ``shell_loop`` (default 1,000) are the scale; each
    engine runs ``repeats`` times."""
    load_before = os.getloadavg()[0]
    total = answers or (ANSWERS // 10 if quick else ANSWERS)
    loop = min(shell_loop or (SHELL_LOOP // 10 if quick else SHELL_LOOP), total)
    if WORK.exists():
        shutil.rmtree(WORK)
    WORK.mkdir(parents=True)
    subprocess.run([sys.executable, "-c", "from pathlib import Path; from bench.batch_throughput import "
                    f"make_batch_workload as m; m(Path({str(WORK)!r}), {total})"], check=True, cwd=BENCH.parent)  # fmt: skip
    jsonl = WORK / "answers.jsonl"
    quarter = WORK / "quarter.jsonl"
    with jsonl.open("rb") as src, quarter.open("wb") as dst:
        for n, line in enumerate(src):
            if n == total // 4:
                break
            dst.write(line)
    # Rounds interleave the three engines, so that a burst of other work on the shared machine
    # falls on all of them alike; each figure is the median of its rounds.
    rounds: dict[str, list[Run]] = {"local_1": [], "local_2": [], "ray_2": []}
    for _ in range(repeats):
        rounds["local_1"].append(_batch(WORK, jsonl, WORK / "out-local-1", "--workers", "1"))
        rounds["local_2"].append(_batch(WORK, jsonl, WORK / "out-local-2", "--workers", "2"))
        rounds["ray_2"].append(_batch(WORK, jsonl, WORK / "out-ray-2", "--engine", "ray", "--workers", "2"))
    runs: dict[str, Run] = {k: sorted(v, key=lambda m: m.seconds)[len(v) // 2] for k, v in rounds.items()}
    runs["local_1_quarter"] = _batch(WORK, quarter, WORK / "out-quarter", "--workers", "1")
    reference = _tree_bytes(WORK / "out-local-1")
    same = {
        name: _tree_bytes(WORK / f"out-{name.replace('_', '-')}") == reference
        for name in ("local_2", "ray_2")
    }
    # A process per answer: `citeaudit check` over the first answers, one file each.
    files = WORK / "files"
    files.mkdir()
    with jsonl.open("rb") as src:
        for n, line in enumerate(src):
            if n == loop:
                break
            (files / f"{n:05d}.json").write_bytes(line.rstrip(b"\n"))
    script = (f'for f in {files}/*.json; do {sys.executable} -m citeaudit check "$f" --offline --cache {WORK / "cache"} '
              f'--sources {WORK / "sources"} --out "$f.report" --jobs 1; done')  # fmt: skip
    runs["check_loop"] = measure_tree(["bash", "-c", script])
    api = subprocess.run([sys.executable, "-c", _API_LOOP, str(jsonl), str(WORK / "cache"), str(WORK / "sources"),
                          str(loop * 5)], check=True, capture_output=True, text=True, cwd=BENCH.parent)  # fmt: skip
    api_seconds = float(api.stdout.strip())
    summary = json.loads((WORK / "out-local-1" / "summary.json").read_text("utf-8"))
    result: dict[str, Any] = {
        "answers": total,
        "citations": summary["totals"]["citations"],
        "shell_loop_answers": loop,
        "api_loop_answers": loop * 5,
        "runs": {
            k: v.__dict__ | {"answers_per_second": _count(k, total, loop) / v.seconds}
            for k, v in runs.items()
        },
        "api_loop": {"seconds": api_seconds, "answers_per_second": loop * 5 / api_seconds},
        "same_dir_as_local_1": same,
        "speedup_2_over_1": runs["local_1"].seconds / runs["local_2"].seconds,
        "best_speedup_2_over_1": min(m.seconds for m in rounds["local_1"])
        / min(m.seconds for m in rounds["local_2"]),
        # What two free cores would give: the work of one worker twice over, against the CPU
        # the two-worker run spent (its driver included); the machine's other load cannot enter it.
        "cpu_bound_speedup_2_over_1": 2 * runs["local_1"].cpu_seconds / runs["local_2"].cpu_seconds,
        "answers_per_cpu_second_local_1": total / runs["local_1"].cpu_seconds,
        "ray_over_local_2": runs["ray_2"].seconds / runs["local_2"].seconds,
        "peak_mib_n_over_quarter": runs["local_1"].peak_mib / runs["local_1_quarter"].peak_mib,
        "cpus": os.cpu_count(),
        "repeats": repeats,
        "seconds_of_each_round": {k: [round(m.seconds, 2) for m in v] for k, v in rounds.items()},
        "load_average_before": load_before,
        "load_average_after": os.getloadavg()[0],
    }
    result["batch_over_check_loop"] = (
        result["runs"]["local_1"]["answers_per_second"] / result["runs"]["check_loop"]["answers_per_second"]
    )
    result["batch_over_api_loop"] = (
        result["runs"]["local_1"]["answers_per_second"] / result["api_loop"]["answers_per_second"]
    )
    shutil.rmtree(WORK)
    (BENCH / "work" / "batch-result.json").write_text(json.dumps(result, indent=2), "utf-8")
    return result


def markdown(r: dict[str, Any]) -> str:
    runs = r["runs"]
    lines = [
        f"{r['answers']:,} generated answers ({r['citations']:,} DOI citations, 1–5 per answer, seed 000's mix) "
        f"citing {SNAPSHOTS} shared snapshots of {SNAPSHOT_BYTES // 1000} KB, offline, `rules` judge; "
        f"{r['cpus']} CPUs shared with other work (1-minute load average {r['load_average_before']:.1f} at the start, "
        f"{r['load_average_after']:.1f} at the end). "
        f"Each engine ran {r['repeats']} times, interleaved; the table shows the median run "
        "(every round's seconds: "
        + "; ".join(f"{k} {', '.join(map(str, v))}" for k, v in r["seconds_of_each_round"].items())
        + "). "
        "Peak memory: the largest sum of resident sets over the whole process tree.",
        "",
        "| run | answers | wall time (s) | answers/s | CPU time (s) | peak memory (MiB) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    names = {
        "local_1": "`batch` local, 1 worker",
        "local_2": "`batch` local, 2 workers",
        "ray_2": "`batch` ray, 2 workers",
        "local_1_quarter": "`batch` local, 1 worker, a quarter of the answers",
        "check_loop": "shell loop of `check`, a process per answer",
    }
    for key, label in names.items():
        m = runs[key]
        count = (
            r["answers"] // 4
            if key.endswith("quarter")
            else r["shell_loop_answers"]
            if key == "check_loop"
            else r["answers"]
        )
        cpu = (
            f"{m['cpu_seconds']:.1f}" if key != "ray_2" else "—"
        )  # Ray's workers are not the driver's children
        lines.append(
            f"| {label} | {count:,} | {m['seconds']:.1f} | {m['answers_per_second']:.0f} | {cpu} "
            f"| {m['peak_mib']:.0f} |"
        )
    api = r["api_loop"]
    lines.append(f"| `citeaudit.api.audit` in a loop, one process | {r['api_loop_answers']:,} | {api['seconds']:.1f} | "
                 f"{api['answers_per_second']:.0f} | — | — |")  # fmt: skip
    same = r["same_dir_as_local_1"]
    lines += [
        "",
        f"- speed-up of 2 workers over 1 (local, medians): **{r['speedup_2_over_1']:.2f}×** (goal ≥ 1.7×); "
        f"best round against best round: {r['best_speedup_2_over_1']:.2f}×; what the CPU time allows on two free "
        f"cores (2 × CPU of 1 worker / CPU of 2 workers): {r['cpu_bound_speedup_2_over_1']:.2f}×",
        f"- per core: {r['answers_per_cpu_second_local_1']:.0f} answers per CPU-second (local, 1 worker, driver included)",
        f"- Ray over local at 2 workers (wall time): **{r['ray_over_local_2']:.2f}×** (goal ≤ 1.3×)",
        f"- peak memory at N over N/4 (local, 1 worker): **{r['peak_mib_n_over_quarter']:.2f}×** (flat is 1×)",
        f"- `batch` (1 worker) over the shell loop of `check`: {r['batch_over_check_loop']:.0f}×; over the API loop: "
        f"{r['batch_over_api_loop']:.2f}×",
        f"- DIR byte-identical to local 1 worker: local 2 workers {same['local_2']}, ray 2 workers {same['ray_2']}",
    ]
    return "\n".join(lines)


def record(outcome: dict[str, Any]) -> None:
    from bench.results_file import write_section

    write_section(
        "batch", "`citeaudit batch`: local and Ray engines against a loop of `check`", markdown(outcome)
    )


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=ANSWERS, help=f"answers generated [{ANSWERS:,}]")
    parser.add_argument(
        "--shell-loop", type=int, default=SHELL_LOOP, help=f"answers for the check loop [{SHELL_LOOP:,}]"
    )
    parser.add_argument("--repeats", type=int, default=3, help="rounds of the three engines [3]")
    parser.add_argument("--record", action="store_true", help="write the section of RESULTS.md")
    options = parser.parse_args()
    outcome = run(answers=options.answers, shell_loop=options.shell_loop, repeats=options.repeats)
    print(json.dumps(outcome, indent=2))
    if options.record:
        record(outcome)
