"""``citeaudit batch --engine ray`` on a real local Ray cluster the tests start
(two CPUs, no dashboard): the same DIR as the local engine; a worker killed by its pid
and a driver killed with SIGKILL lose nothing and duplicate nothing after a rerun."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.batch.test_inputs import write_parquet
from tests.batch.workload import Workload, make_workload, part_lines, tree
from tests.conftest import ROOT, run_cli

ray = pytest.importorskip("ray", reason="the Ray engine needs the ray extra")

PART = "5"


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A local Ray for this module; the drivers the tests start join it by its address."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    sigterm = signal.getsignal(signal.SIGTERM)
    context = ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    # ray.init leaves its own SIGTERM handler (sys.exit) in this pytest process; a later test here
    # that forks a Pool then hung in terminate(): its children inherited the handler.
    signal.signal(signal.SIGTERM, sigterm)
    try:
        yield context.address_info["gcs_address"]
    finally:
        ray.shutdown()
        signal.signal(signal.SIGTERM, sigterm)


@pytest.fixture(scope="module")
def workload(tmp_path_factory: pytest.TempPathFactory) -> Workload:
    return make_workload(tmp_path_factory.mktemp("ray"), count=90)


def _args(w: Workload, out: Path, *extra: str) -> list[str]:
    return ["batch", str(w.jsonl), "--out", str(out), "--offline", "--cache", str(w.cache), "--sources",
            str(w.sources), "--part-size", PART, *extra]  # fmt: skip


@pytest.fixture(scope="module")
def reference(workload: Workload, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ref") / "out"
    result = run_cli(*_args(workload, out, "--workers", "2"))
    assert result.code == 2, result.stderr
    return out


def test_ray_writes_the_local_engine_s_dir(
    cluster: str, workload: Workload, reference: Path, tmp_path: Path
) -> None:
    result = run_cli(*_args(workload, tmp_path / "out", "--engine", "ray", "--workers", "2"))
    assert result.code == 2, result.stderr
    assert tree(tmp_path / "out") == tree(reference)
    assert (tmp_path / "out" / "rejected.jsonl").read_bytes().count(b"\n") == 11
    # Quote-less citations of records with an abstract are judged on its passages, the same on Ray.
    retrieved = [
        c["verdict"]
        for line in part_lines(tmp_path / "out")
        for c in (line.get("report") or {}).get("claims", [])
        if (c.get("verdict") or {}).get("basis") == "retrieved"
    ]
    assert len(retrieved) > 20
    assert all(v["passages"] and v["texts"] for v in retrieved)


def test_parquet_on_ray_gives_the_jsonl_reports(cluster: str, workload: Workload, tmp_path: Path) -> None:
    import json

    envelopes = [line for line in workload.lines if line.startswith(b"{") and b'"id": "a' in line]
    jsonl, parquet = tmp_path / "e.jsonl", tmp_path / "e.parquet"
    jsonl.write_bytes(b"\n".join(envelopes) + b"\n")
    write_parquet(envelopes, parquet)
    base = [
        "--offline",
        "--cache",
        str(workload.cache),
        "--sources",
        str(workload.sources),
        "--part-size",
        PART,
    ]
    a = run_cli("batch", jsonl, "--out", tmp_path / "a", *base)
    b = run_cli("batch", parquet, "--out", tmp_path / "b", "--engine", "ray", "--workers", "2", *base)
    assert (a.code, b.code) == (1, 1), b.stderr
    reports = {k: v for k, v in tree(tmp_path / "a").items() if k.startswith("reports/")}
    assert reports == {k: v for k, v in tree(tmp_path / "b").items() if k.startswith("reports/")}
    assert [json.loads(e)["id"] for e in envelopes] == [e["id"] for e in part_lines(tmp_path / "b")]


def _driver(cluster: str, w: Workload, out: Path) -> subprocess.Popen[bytes]:
    argv = [sys.executable, "-m", "citeaudit", *_args(w, out, "--engine", "ray", "--workers", "2",
                                                       "--ray-address", cluster)]  # fmt: skip
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    return subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _wait_for_parts(out: Path, proc: subprocess.Popen[bytes], count: int) -> int:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and proc.poll() is None:
        done = len(list((out / "parts").glob("part-*.json")))
        if done >= count:
            return done
        time.sleep(0.005)
    raise AssertionError(f"the driver ended or stalled before {count} parts: {proc.poll()}")


def _worker_pids() -> list[int]:
    """Processes of the batch's actors (Ray names them after the actor class)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if cmdline.startswith(b"ray::PartWorker"):
            pids.append(int(entry.name))
    return sorted(pids)


def _ids(out: Path) -> list[Any]:
    return [e["id"] for e in part_lines(out)]


@pytest.mark.timeout(300)  # a Ray run, its retries and a rerun
def test_a_worker_killed_by_pid_loses_nothing(
    cluster: str, workload: Workload, reference: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    proc = _driver(cluster, workload, out)
    _wait_for_parts(out, proc, 2)
    pids = _worker_pids()
    assert pids, "no actor process found"
    os.kill(pids[0], signal.SIGKILL)
    _, stderr = proc.communicate(timeout=120)
    if proc.returncode != 2:  # the retries were spent: a rerun finishes the run
        assert b"run the same command again to finish" in stderr, stderr
        result = run_cli(*_args(workload, out, "--engine", "ray", "--workers", "2"))
        assert result.code == 2, result.stderr
    assert _ids(out) == _ids(reference)
    assert tree(out) == tree(reference)


def test_a_driver_killed_with_sigkill_is_finished_by_a_rerun(
    cluster: str, workload: Workload, reference: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    proc = _driver(cluster, workload, out)
    _wait_for_parts(out, proc, 3)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(30)
    done = len(list((out / "parts").glob("part-*.json")))
    total = len(list((reference / "parts").glob("part-*.json")))
    assert done < total, "the driver finished before it was killed"
    result = run_cli(*_args(workload, out, "--engine", "ray", "--workers", "2"))
    assert result.code == 2, result.stderr
    assert f"computed={total - done} " in result.stdout
    assert _ids(out) == _ids(reference)
    assert tree(out) == tree(reference)


def test_references_found_in_a_mirror_give_the_local_engine_s_reports_on_ray(
    cluster: str, tmp_path: Path
) -> None:
    """Batch lines citing works by title alone, against a DBLP mirror: the local engine with one
    and two workers and Ray with two write the same DIR, every reference matched or not found."""
    import json

    from tests.dblp_dump import sample_mirror

    mirror = sample_mirror(tmp_path)
    cited = [
        {"title": "Attention Is All You Need", "year": 2017, "first_author": "Vaswani"},
        {"title": "Long short-term memory", "year": 1997, "authors": ["Hochreiter, S.", "Schmidhuber, J."]},
        {"title": "A work nobody wrote", "year": 2020, "first_author": "Nobody"},
        {"title": "Deep Learning"},
    ]
    lines = [
        json.dumps({"claims": [{"id": f"c{i}", "text": "A claim.", "citations": [cited[(i + j) % 4]]}]})
        for i in range(12)
        for j in range(2)
    ]
    answers = tmp_path / "works.jsonl"
    answers.write_text("\n".join(lines) + "\n", "utf-8")
    base = ["batch", str(answers), "--offline", "--cache", str(tmp_path / "cache"), "--mirror", str(mirror),
            "--indexes", "", "--judge", "none", "--part-size", PART]  # fmt: skip
    outs = []
    for name, extra in (("one", ["--workers", "1"]), ("two", ["--workers", "2"]),
                        ("ray", ["--engine", "ray", "--workers", "2"])):  # fmt: skip
        result = run_cli(*base, "--out", str(tmp_path / name), *extra)
        assert result.code == 1, result.stderr
        outs.append(tree(tmp_path / name))
    assert outs[0] == outs[1] == outs[2]
    reports = [
        json.loads(line)
        for path, data in outs[0].items()
        if path.startswith("reports/")
        for line in data.splitlines()
    ]
    assert len(reports) == 24
    codes = {f["code"] for r in reports for row in r["report"]["results"] for f in row["findings"]}
    assert {"I_MATCHED_BY_SEARCH", "E_WORK_NOT_FOUND", "E_WORK_AMBIGUOUS"} <= codes
    assert outs[0]["rejected.jsonl"] == b""


# A fresh process, Ray imported by the engine as by `citeaudit batch`: the local Ray the engine
# starts, its node address read just before the engine shuts it down.
_LOCAL_RAY = """
from citeaudit.batch.engines import ray_engine
from citeaudit.batch.wiring import WorkerSpec
from citeaudit.config import Config

seen = []
imported = ray_engine._ray
def recording(*args, **kwargs):
    ray = imported(*args, **kwargs)
    shutdown = ray.shutdown
    def recorded(*args, **kwargs):
        seen.append(ray.util.get_node_ip_address())
        return shutdown(*args, **kwargs)
    ray.shutdown = recorded
    return ray
ray_engine._ray = recording
ray_engine.RayEngine(1).run(WorkerSpec(Config()), iter(()), lambda result: None)
print(*seen)
"""


@pytest.mark.timeout(150)
def test_a_local_ray_is_started_on_the_loopback_address_without_probing_a_public_one(tmp_path: Path) -> None:
    """Ray learnt the node's address by a UDP socket towards a public DNS server (8.8.8.8)."""
    import shutil

    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "PYTHONPATH": str(ROOT / "src")}
    env.pop("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", None)
    command = [sys.executable, "-c", _LOCAL_RAY]
    strace = shutil.which("strace")
    trace = tmp_path / "connects"
    if strace is not None:  # every connect() of the process and its children
        command = [strace, "-f", "-qq", "-e", "trace=connect", "-o", str(trace), *command]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=140)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["127.0.0.1"], done.stdout
    if strace is not None:
        connects = trace.read_text("utf-8", "replace")
        assert "connect(" in connects  # the trace did record
        assert "8.8.8.8" not in connects
        assert "2001:4860:4860::8888" not in connects
