"""A batch worker's auditor: the composition root's, cache-only, with the driver's answers."""

from __future__ import annotations

from pathlib import Path

from citeaudit.batch.wiring import WorkerSpec, build_worker
from citeaudit.config import Config
from citeaudit.resolve.interface import Resolution, ResolutionStatus
from citeaudit.wiring import Auditor
from tests.batch.workload import make_workload
from tests.conftest import run_cli


def test_a_worker_of_an_online_run_audits_from_the_cache_only(tmp_path: Path) -> None:
    config = Config(cache=tmp_path / "cache", sources=tmp_path / "sources", offline=False, jobs=4)
    worker = build_worker(WorkerSpec(config))
    assert isinstance(worker.auditor, Auditor)
    assert worker.auditor.resolver.upstream is None  # no registry: the driver resolved before
    assert worker.auditor.suggester is None  # no bibliographic search either
    assert worker.auditor.settings.jobs == 1  # the batch spreads answers over workers
    assert worker.auditor.settings.offline is False  # the report states the run's setting
    assert worker.store is None


def test_the_driver_s_unavailable_answers_reach_the_worker(tmp_path: Path) -> None:
    down = Resolution.unavailable("E_REGISTRY_UNAVAILABLE", "crossref: 503 after 3 tries")
    spec = WorkerSpec(Config(cache=tmp_path / "cache", offline=False), unavailable=(("10.1000/down", down),))
    answers = build_worker(spec).auditor.resolver.resolve_many(["10.1000/down", "10.1000/other"])
    assert answers["10.1000/down"] == down
    assert answers["10.1000/other"].status is ResolutionStatus.UNAVAILABLE
    assert answers["10.1000/other"].code == "E_NOT_CACHED"
    assert answers["10.1000/other"].reason == (
        "offline and not in the cache: run `citeaudit fetch` on this input online (same --cache) "
        "to pin the registry's answer"
    )


def test_the_store_is_read_only_and_needs_a_scope(tmp_path: Path) -> None:
    w = make_workload(tmp_path / "w", count=2, bad=False)
    missing = tmp_path / "nosuch.db"
    result = run_cli("batch", w.jsonl, "--out", tmp_path / "o1", "--offline", "--cache", w.cache,
                     "--store", missing, "--scope", "acme/alice", "--workers", "1")  # fmt: skip
    assert (result.code, result.stderr) == (2, f"citeaudit: error: {missing}: no such evidence store\n")
    assert not missing.exists()
    result = run_cli("batch", w.jsonl, "--out", tmp_path / "o2", "--offline", "--store", missing)
    assert (result.code, result.stderr) == (
        2,
        "citeaudit: error: --store and --scope go together: the store, and whose sources in it\n",
    )
