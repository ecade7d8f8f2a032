"""Benchmark: start-up. Wall time of ``citeaudit --version`` and of ``citeaudit check`` of the
README's example (``make demo``: 4 claims, offline), each in a fresh process, against the
interpreter's own start-up (``python -c pass``) in the same run.

The commands run in rounds, one of each per round, so that a busy moment of a shared machine falls
on all of them alike; the figures are medians. Byte-code is written and read as an installed tool's
is (``PYTHONDONTWRITEBYTECODE`` is dropped for the children, and the first round is a warm-up that
is not counted). The largest imports of each command, from ``python -X importtime``, come with it.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.measure import measure

BENCH = Path(__file__).resolve().parent
WORK = BENCH / "work" / "startup"
EXAMPLE = BENCH.parent / "examples" / "seed000"
GOALS = {"version": 0.15, "check": 0.25}  # seconds, wall (issue 22)


def _citeaudit() -> list[str]:
    """The console script beside this interpreter, as a user runs it; else ``python -m``."""
    script = Path(sys.executable).with_name("citeaudit")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "citeaudit"]


def _environment() -> dict[str, str]:
    drop = ("PYTHONDONTWRITEBYTECODE", "PYTHONPROFILEIMPORTTIME")
    return {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("CITEAUDIT_")}


# What each timed command passes to citeaudit; None: the interpreter alone.
ARGS: dict[str, list[str] | None] = {
    "python": None,
    "version": ["--version"],
    "check": ["check", "claims.json", "--offline", "--out", "report.json"],
}


def _argv(args: list[str] | None) -> list[str]:
    return [sys.executable, "-c", "pass"] if args is None else [*_citeaudit(), *args]


def _largest_imports(
    args: list[str] | None, cwd: Path, env: dict[str, str], runs: int, top: int = 6
) -> list[tuple[str, float]]:
    """The top-level imports that took longest (cumulative ms, the median of ``runs`` runs of
    ``python -X importtime``)."""
    what = ["-c", "pass"] if args is None else ["-m", "citeaudit", *args]
    seen: dict[str, list[float]] = {}
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", *what],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        for line in done.stderr.splitlines():
            if not line.startswith("import time:") or "self [us]" in line:
                continue
            _, cumulative, name = line[len("import time:") :].split("|")
            if name.startswith("  ") or not name.strip():  # nested: counted in its parent
                continue
            seen.setdefault(name.strip(), []).append(int(cumulative) / 1000)
    rows = [(name, statistics.median(values)) for name, values in seen.items()]
    return sorted(rows, key=lambda r: -r[1])[:top]


def run(quick: bool = False) -> dict[str, Any]:
    rounds = 3 if quick else 15
    if WORK.exists():
        shutil.rmtree(WORK)
    example = WORK / "example"
    shutil.copytree(EXAMPLE, example, ignore=shutil.ignore_patterns("report.json"))
    env = _environment()
    commands = {name: _argv(args) for name, args in ARGS.items()}
    load_before = os.getloadavg()[0]
    times: dict[str, list[float]] = {name: [] for name in commands}
    exits: dict[str, set[int]] = {name: set() for name in commands}
    for index in range(rounds + 1):  # round 0 writes the byte-code and fills the page cache
        for name, argv in commands.items():
            m = measure(argv, cwd=example, env=env)
            exits[name].add(m.exit_code)
            if index:
                times[name].append(m.seconds)
    load_after = os.getloadavg()[0]
    medians = {name: statistics.median(values) for name, values in times.items()}
    result: dict[str, Any] = {
        "rounds": rounds,
        "cpus": os.cpu_count(),
        "load_average_before": load_before,
        "load_average_after": load_after,
        "commands": {
            name: "python -c pass" if a is None else " ".join(["citeaudit", *a]) for name, a in ARGS.items()
        },
        "runs": times,
        "median": medians,
        "min": {name: min(values) for name, values in times.items()},
        "exit_codes": {name: sorted(codes) for name, codes in exits.items()},
        "ratio_to_python": {name: medians[name] / medians["python"] for name in commands},
        "goals": GOALS,
        "largest_imports": {
            name: _largest_imports(args, example, env, 1 if quick else 5) for name, args in ARGS.items()
        },
    }
    shutil.rmtree(WORK)
    return result


def markdown(r: dict[str, Any]) -> str:
    label = {
        "python": "`python -c pass` (the interpreter alone)",
        "version": "`citeaudit --version`",
        "check": "`citeaudit check claims.json --offline` (README example, 4 claims)",
    }
    lines = [
        f"Each command in a fresh process, {r['rounds']} rounds of one run each after a warm-up round; "
        f"{r['cpus']} CPUs shared with other work (1-minute load average {r['load_average_before']:.1f} "
        f"at the start, {r['load_average_after']:.1f} at the end). Byte-code cached, as installed.",
        "",
        "| command | median wall (s) | fastest (s) | ÷ `python -c pass` | goal (s) | exit |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name in ("python", "version", "check"):
        goal = r["goals"].get(name)
        shown = "—" if goal is None else f"≤ {goal:.2f} ({'met' if r['median'][name] <= goal else 'missed'})"
        lines.append(
            f"| {label[name]} | {r['median'][name]:.3f} | {r['min'][name]:.3f} | "
            f"{r['ratio_to_python'][name]:.1f}× | {shown} | {', '.join(map(str, r['exit_codes'][name]))} |"
        )
    lines += [
        "",
        "The largest imports of each (cumulative ms, the median of 5 runs of `python -X importtime`, which adds "
        "its own overhead):",
        "",
    ]
    for name in ("version", "check"):
        parts = ", ".join(f"`{module}` {ms:.0f}" for module, ms in r["largest_imports"][name])
        lines.append(f"- {label[name]}: {parts}")
    return "\n".join(lines)


if __name__ == "__main__":
    import json

    print(json.dumps(run(quick="--quick" in sys.argv), indent=2))
