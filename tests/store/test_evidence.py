"""The evidence store, run against SQLite and PostgreSQL alike."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from citeaudit.store.evidence import Scope, StoreError, StoreLimits, open_store

A = Scope("acme", "alice")
B = Scope("acme", "bob")


def _clock() -> object:
    ticks = itertools.count(1)
    return lambda: f"2026-01-01T00:00:{next(ticks):02d}Z"


def test_revisions_digests_and_first_entry_time(store_target: str) -> None:
    store = open_store(store_target, clock=_clock())  # type: ignore[arg-type]
    store.register(A, "plan_a", "Plan A", "fixture:plan-a", "fixture")
    first, created = store.ingest(A, "plan_a", "# Plan A\r\nworks offline.\r\n")
    assert (first.revision, created, first.entered_at) == (1, True, "2026-01-01T00:00:01Z")
    same, created = store.ingest(A, "plan_a", "# Plan A\nworks offline.\n")  # same once newlines are LF
    assert (same, created) == (first, False)
    second, created = store.ingest(A, "plan_a", "# Plan A\nneeds a network.\n")
    assert (second.revision, created) == (2, True)
    assert second.digest != first.digest
    stored = store.get(A, "plan_a")
    assert stored is not None
    assert stored.current is not None
    assert stored.current.text == "# Plan A\nneeds a network.\n"
    old = store.revision(A, "plan_a", 1)
    assert old is not None
    assert old.text == "# Plan A\nworks offline.\n"
    store.close()


def test_removal_keeps_the_counter(store_target: str) -> None:
    store = open_store(store_target)
    store.register(A, "s", "S", "loc", "document")
    store.ingest(A, "s", "text one")
    store.remove(A, "s")
    removed = store.get(A, "s")
    assert removed is not None
    assert removed.current is None
    assert removed.revisions == 1
    again, created = store.ingest(A, "s", "text one")
    assert (again.revision, created) == (2, True)


def test_scopes_never_see_each_other(store_target: str) -> None:
    store = open_store(store_target)
    for i in range(10):
        store.register(A, f"doc{i}", f"Doc {i}", "loc", "document")
        store.ingest(A, f"doc{i}", f"alice's text {i}")
    succeeded = 0
    for attempt in range(1000):
        source_id = f"doc{attempt % 10}"
        if store.get(B, source_id) is not None:
            succeeded += 1
        if store.revision(B, source_id, 1) is not None:
            succeeded += 1
        if store.fetch(B, [source_id]):
            succeeded += 1
    assert succeeded == 0
    assert store.list(B) == []
    with pytest.raises(StoreError, match="not registered in scope acme/bob"):
        store.ingest(B, "doc0", "bob overwrites")
    with pytest.raises(StoreError, match="not registered in scope acme/bob"):
        store.remove(B, "doc0")
    stored = store.get(A, "doc0")
    assert stored is not None
    assert stored.current is not None
    assert stored.current.text == "alice's text 0"


def test_limits_are_enforced(store_target: str) -> None:
    store = open_store(store_target, limits=StoreLimits(max_sources_per_scope=2, max_text_bytes=10))
    store.register(A, "a", "A", "l", "k")
    store.register(A, "b", "B", "l", "k")
    with pytest.raises(StoreError, match="already has 2 sources, the limit"):
        store.register(A, "c", "C", "l", "k")
    with pytest.raises(StoreError, match="the text is 11 bytes, over the limit of 10"):
        store.ingest(A, "a", "x" * 11)
    with pytest.raises(StoreError, match="the text is empty"):
        store.ingest(A, "a", "  \n")


@pytest.mark.parametrize("bad", ["", "a/b", "../x", "x" * 201, " lead"])
def test_source_ids_are_checked(tmp_path: Path, bad: str) -> None:
    store = open_store(str(tmp_path / "s.db"))
    with pytest.raises(StoreError, match="source id"):
        store.register(A, bad, "T", "l", "k")


@pytest.mark.parametrize("bad", ["acme", "acme/", "/bob", "a b/c", "acme/bob/x"])
def test_scopes_are_checked(bad: str) -> None:
    with pytest.raises(StoreError, match="is not TENANT/USER"):
        Scope.parse(bad)


def _journal_mode(target: str) -> str:
    store = open_store(target, read_only=True)
    try:
        with store.engine.connect() as conn:
            return str(conn.exec_driver_sql("PRAGMA journal_mode").scalar())
    finally:
        store.close()


def test_a_sqlite_store_is_put_in_wal_mode_only_when_asked(tmp_path: Path) -> None:
    """The HTTP service asks (its workers write one store); the file keeps the mode, and what it
    holds reads the same in both."""
    plain, served = str(tmp_path / "plain.db"), str(tmp_path / "served.db")
    for target, write_ahead in ((plain, False), (served, True)):
        store = open_store(target, write_ahead=write_ahead)
        store.register(A, "s1", "Title", "loc", "document")
        store.ingest(A, "s1", "Some text.\n")
        store.close()
    assert (_journal_mode(plain), _journal_mode(served)) == ("delete", "wal")
    reopened = open_store(served)  # without asking: still WAL
    try:
        found = reopened.get(A, "s1", with_text=True)
        assert found is not None
        assert found.current is not None
        assert found.current.text == "Some text.\n"
    finally:
        reopened.close()
    assert _journal_mode(served) == "wal"
