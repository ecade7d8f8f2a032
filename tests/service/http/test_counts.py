"""The service's counts: one row per worker, summed on reading, in memory the workers share."""

from __future__ import annotations

import multiprocessing
from collections import Counter

import pytest

from citeaudit.service.http.counts import Counts


def test_counts_are_kept_per_tenant_and_summed_over_the_workers() -> None:
    counts = Counts(["acme", "other"], workers=3)
    first, third = counts.for_worker(0), counts.for_worker(2)
    first.response("acme", 200)
    third.response("acme", 200)
    third.response("", 401)
    third.audit("acme")
    first.response("other", 599)
    first.response("other", 600)  # not an HTTP status: not counted
    first.response("nobody", 200)  # not a tenant of the key file: not counted
    assert counts.snapshot() == Counter(
        {("acme", "200"): 2, ("acme", "audits"): 1, ("", "401"): 1, ("other", "599"): 1}
    )
    assert third.snapshot() == counts.snapshot()  # any worker reads every worker's counts
    with pytest.raises(ValueError, match="worker 3 of 3"):
        counts.for_worker(3)


def _add(counts: Counts, n: int) -> None:
    for _ in range(n):
        counts.response("acme", 200)
        counts.audit("acme")


def test_counts_added_in_worker_processes_are_read_in_the_parent() -> None:
    counts = Counts(["acme"], workers=2)
    spawn = multiprocessing.get_context("spawn")  # as uvicorn starts its workers
    workers = [spawn.Process(target=_add, args=(counts.for_worker(i), 500)) for i in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert [w.exitcode for w in workers] == [0, 0]
    assert counts.snapshot() == Counter({("acme", "200"): 1000, ("acme", "audits"): 1000})


def test_one_process_counts_without_shared_memory() -> None:
    counts = Counts(["acme"])
    counts.response("acme", 404)
    counts.response("acme", 404)
    assert counts.snapshot() == Counter({("acme", "404"): 2})
