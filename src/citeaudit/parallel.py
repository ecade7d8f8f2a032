"""Spread independent work items over processes forked from this one.

Used by the audit for its per-source groups: each item reads and searches one
source text, which is CPU-bound Python, so threads would not help. Workers are
forked after the inputs are in memory, so nothing but the results crosses a
process boundary, and results come back in item order: the report does not
depend on the number of jobs.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["MIN_ITEMS_TO_FORK", "available_cpus", "can_fork", "run_items"]

R = TypeVar("R")

# Forking a pool and joining it costs 20-40 ms on a 2-CPU machine, more than a few claims or
# sources take in-process (the README example's 4 claims: 0.23 s with a pool of two workers,
# 0.20 s without): fewer items than this stay in-process, whatever the number of jobs.
MIN_ITEMS_TO_FORK = 16

_WORK: Callable[[int], object] | None = None


def available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


def can_fork() -> bool:
    """Fork is safe and cheap on Linux; elsewhere the work stays in-process."""
    import multiprocessing  # only where there is work to spread

    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def _ignore_interrupt() -> None:
    """Workers leave Ctrl-C to the parent, which stops them: no traceback from each of them.
    They are forked with SIGINT blocked (see run_items), so none is hit before this runs."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _run_chunk(bounds: tuple[int, int]) -> list[object]:
    assert _WORK is not None
    return [_WORK(i) for i in range(*bounds)]


def run_items(work: Callable[[int], R], count: int, jobs: int, chunks_per_job: int = 16) -> Sequence[R]:
    """``[work(0), …, work(count - 1)]``, computed by up to ``jobs`` processes."""
    global _WORK
    if jobs <= 1 or count < max(2 * jobs, MIN_ITEMS_TO_FORK) or not can_fork():
        return [work(i) for i in range(count)]
    import multiprocessing

    size = max(1, -(-count // (jobs * chunks_per_job)))
    bounds = [(start, min(count, start + size)) for start in range(0, count, size)]
    _WORK = work
    # Everything the workers read is in memory now: frozen out of the collector's scans, it is
    # not traversed by collections in the workers (which would also copy every page it is on),
    # nor in this process while the results come in. Left frozen if the caller froze objects.
    frozen_before = gc.get_freeze_count()
    gc.freeze()
    try:
        # SIGINT is blocked while the workers are forked (and in the pool's threads, which fork the
        # replacements): a Ctrl-C then waits for the parent, which stops the pool, instead of
        # killing a worker before it ignores SIGINT and leaving the map waiting for it forever.
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            pool = multiprocessing.get_context("fork").Pool(jobs, initializer=_ignore_interrupt)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        with pool:
            parts = pool.map(_run_chunk, bounds, chunksize=1)
    finally:
        _WORK = None
        if not frozen_before:
            gc.unfreeze()
    return [item for part in parts for item in part]  # type: ignore[misc]
