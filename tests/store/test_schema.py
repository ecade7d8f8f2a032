"""Many processes opening one new store at the same moment: each creates the
tables it needs (store, reviews, trail) and every one of them succeeds, on
SQLite and PostgreSQL. Before the schema lock, eight parallel ``sources add``
on a fresh SQLite file lost one to "table citeaudit_sources already exists"."""

from __future__ import annotations

import multiprocessing
from multiprocessing.synchronize import Barrier

from citeaudit.store.evidence import Scope, open_store
from citeaudit.store.reviews import ReviewBook
from citeaudit.store.trail import Trail

PROCESSES = 8


def _open_and_write(target: str, number: int, barrier: Barrier) -> str:
    barrier.wait()  # all start creating the schema together
    try:
        store = open_store(target)
        ReviewBook(store)
        Trail(store)
        store.register(Scope("acme", "ana"), f"s{number}", "T", "l", "k")
        store.ingest(Scope("acme", "ana"), f"s{number}", f"text {number}")
    except Exception as e:  # reported to the parent, which names the failure
        return f"{type(e).__name__}: {e}"
    return "ok"


def test_parallel_first_opens_all_succeed(store_target: str) -> None:
    context = multiprocessing.get_context("fork")
    barrier = context.Manager().Barrier(PROCESSES)
    with context.Pool(PROCESSES) as pool:
        results = pool.starmap(_open_and_write, [(store_target, n, barrier) for n in range(PROCESSES)])
    assert results == ["ok"] * PROCESSES
    sources = open_store(store_target).list(Scope("acme", "ana"))
    assert sorted(s.source_id for s in sources) == sorted(f"s{n}" for n in range(PROCESSES))
