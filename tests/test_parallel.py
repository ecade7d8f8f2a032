"""Work spread over forked processes: results in item order for any number of jobs, and no pool
for a handful of items (forking one costs more than they take)."""

from __future__ import annotations

import os

import pytest

from citeaudit.parallel import MIN_ITEMS_TO_FORK, can_fork, run_items


def _where(i: int) -> tuple[int, int]:
    return i * i, os.getpid()


@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_a_handful_of_items_stays_in_process(jobs: int) -> None:
    count = MIN_ITEMS_TO_FORK - 1
    results = run_items(_where, count, jobs)
    assert [square for square, _ in results] == [i * i for i in range(count)]
    assert {pid for _, pid in results} == {os.getpid()}


@pytest.mark.skipif(not can_fork(), reason="work is spread over processes only where fork is safe")
def test_enough_items_are_spread_over_processes_in_order() -> None:
    count = 4 * MIN_ITEMS_TO_FORK
    results = run_items(_where, count, 2)
    assert [square for square, _ in results] == [i * i for i in range(count)]
    assert os.getpid() not in {pid for _, pid in results}
