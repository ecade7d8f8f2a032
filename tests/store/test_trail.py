"""The audit trail on SQLite and PostgreSQL: every check with a store is
recorded; queries by label, code and source; --affected-by finds exactly the
reports a change invalidates; records cannot be altered."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from citeaudit.api import audit
from citeaudit.store.evidence import Scope, ScopedLookup, StoreError, open_store
from citeaudit.store.trail import ScopedTrail, Trail, moment
from tests.conftest import run_cli

SCOPE = Scope("acme", "alice")


def _fill(store_target: str, tmp_path: Path, audits: int) -> tuple[Any, Trail, dict[str, Any]]:
    store = open_store(store_target)
    refs = {}
    for name in ("a", "b", "c"):
        store.register(SCOPE, name, name.upper(), f"loc:{name}", "document")
        rev, _ = store.ingest(SCOPE, name, f"Source {name} says the journal is kept for 30 days.")
        refs[name] = rev.ref()
    trail = Trail(store)
    for i in range(audits):
        cited = ["a", "b", "c"][i % 3]
        ref = refs[cited]
        quote = (
            f"Source {cited} says the journal is kept for 30 days."
            if i % 5
            else "not in the source at all, no."
        )
        answer = {
            "claims": [{"id": "c1", "text": "The journal is kept for 30 days.", "citations": [
                {**ref, "start": 0, "end": len(quote), "quote": quote}]}],
            "labels": {"generator": f"gen-{i % 2}", "retriever": "bm25"},
        }  # fmt: skip
        audit(
            answer,
            cache=tmp_path,
            sources=tmp_path,
            store=ScopedLookup(store, SCOPE),
            trail=ScopedTrail(trail, SCOPE),
        )
    return store, trail, refs


def test_records_are_queried_by_label_code_and_source(store_target: str, tmp_path: Path) -> None:
    _, trail, _ = _fill(store_target, tmp_path, 300)
    everything = trail.query(SCOPE)
    assert len(everything) == 300
    assert len(trail.query(SCOPE, labels=[("generator", "gen-1")])) == 150
    rejected = trail.query(SCOPE, code="E_QUOTE_MISMATCH")
    assert len(rejected) == 60  # every fifth quote is made up
    assert all(r.status == "invalid" and "E_QUOTE_MISMATCH" in r.codes["c1"] for r in rejected)
    assert len(trail.query(SCOPE, source=("b", 1))) == 100
    assert trail.query(Scope("acme", "bob")) == []  # another scope sees nothing
    assert trail.query(SCOPE, since="2999-01-01") == []


def test_affected_by_finds_exactly_the_reports_a_change_invalidates(
    store_target: str, tmp_path: Path
) -> None:
    store, trail, _ = _fill(store_target, tmp_path, 30)
    cited_a = {r.id for r in trail.query(SCOPE, source=("a", 1))}
    store.ingest(SCOPE, "a", "Source a now says something else.")
    assert {r.id for r in trail.affected_by(SCOPE, "a", 2)} == cited_a
    assert trail.affected_by(SCOPE, "b", 1) == []  # unchanged: nothing invalidated
    store.remove(SCOPE, "b")
    assert len(trail.affected_by(SCOPE, "b", None)) == 10


def test_records_cannot_be_altered(store_target: str, tmp_path: Path) -> None:
    store, trail, _ = _fill(store_target, tmp_path, 3)
    before = [r.status for r in trail.query(SCOPE)]
    with pytest.raises(SQLAlchemyError, match="append-only"), store.engine.begin() as conn:
        conn.execute(text("UPDATE citeaudit_trail SET status = 'reviewed_candidate'"))
    assert [r.status for r in trail.query(SCOPE)] == before == ["invalid", "needs_review", "needs_review"]
    assert trail.prune(SCOPE, "2999-01-01") == 3  # retention is the one deletion, and it is explicit
    assert trail.query(SCOPE) == []


def test_check_records_and_history_answers(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    scope = ("--store", str(db), "--scope", "acme/alice")
    doc = tmp_path / "a.txt"
    doc.write_text("Source a says the journal is kept for 30 days.", "utf-8")
    assert run_cli("sources", "add", doc, "--id", "a", *scope).code == 0
    cite = json.loads(run_cli("locate", "a", "the journal is kept for 30 days", *scope).stdout)
    claims = tmp_path / "claims.json"
    claims.write_text(json.dumps({"claims": [{"id": "c1", "text": "Kept for 30 days.", "citations": [cite]}],
                                  "labels": {"generator": "g1"}}))  # fmt: skip
    for _ in range(2):
        assert run_cli("check", claims, "--offline", "--out", tmp_path / "r.json", *scope).code == 0
    listed = json.loads(run_cli("history", "--format", "json", "--label", "generator=g1", *scope).stdout)
    assert [(r["status"], r["decision"]) for r in listed] == [("needs_review", "manual_review")] * 2
    assert (
        len(json.loads(run_cli("history", "--decision", "manual_review", "--format", "json", *scope).stdout))
        == 2
    )
    assert run_cli("history", "--decision", "accept", *scope).stdout.count("\n") == 1  # header only
    assert listed[0]["sources"] == [{"source_id": "a", "revision": 1}]
    doc.write_text("Source a was rewritten.", "utf-8")
    assert run_cli("sources", "add", doc, "--id", "a", *scope).code == 0
    affected = json.loads(run_cli("history", "--affected-by", "a", "--format", "json", *scope).stdout)
    assert [r["id"] for r in affected] == [r["id"] for r in listed]
    assert _trail_actions() == {"prune"}  # retention is the only administration there is
    assert run_cli("history", "--code", "E_QUOTE_MISMATCH", *scope).stdout.count("\n") == 1  # header only


def test_a_trail_from_before_decisions_gets_the_column(store_target: str, tmp_path: Path) -> None:
    store = open_store(store_target)
    key = "SERIAL PRIMARY KEY" if store.engine.dialect.name == "postgresql" else "INTEGER PRIMARY KEY"
    with store.engine.begin() as conn:  # the table as it was before decisions were recorded
        conn.execute(text("DROP TABLE IF EXISTS citeaudit_trail_sources"))
        conn.execute(text("DROP TABLE IF EXISTS citeaudit_trail"))
        conn.execute(text(
            f"CREATE TABLE citeaudit_trail (id {key}, tenant VARCHAR(64) NOT NULL, "
            "user_id VARCHAR(64) NOT NULL, recorded_at VARCHAR(40) NOT NULL, input_sha256 VARCHAR(64) NOT NULL, "
            "checker_version VARCHAR(32) NOT NULL, judge VARCHAR(200) NOT NULL, status VARCHAR(32) NOT NULL, "
            "outcome VARCHAR(32) NOT NULL, labels TEXT NOT NULL, codes TEXT NOT NULL, dois TEXT NOT NULL)"
        ))  # fmt: skip
        conn.execute(text(
            "INSERT INTO citeaudit_trail (tenant, user_id, recorded_at, input_sha256, checker_version, judge, "
            "status, outcome, labels, codes, dois) VALUES ('acme', 'alice', '2026-01-01T00:00:00Z', 'x', "
            "'0.1.0', '', 'needs_review', 'clean', '{}', '{}', '[]')"
        ))  # fmt: skip
    trail = Trail(store)
    (old,) = trail.query(SCOPE)
    assert (old.status, old.decision) == ("needs_review", "")
    answer = {"claims": [{"id": "c1", "text": "t"}]}
    trail.append(SCOPE, audit(answer, cache=tmp_path / "c", sources=tmp_path / "s"))
    assert [r.decision for r in trail.query(SCOPE)] == ["", "reject"]


def _trail_actions() -> set[str]:
    import argparse

    from citeaudit.cli import build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    trail = commands.choices["trail"]
    actions = next(a for a in trail._actions if isinstance(a, argparse._SubParsersAction))
    return set(actions.choices)


@pytest.mark.parametrize(
    ("value", "expected"),
    [("2026-11-23", "2026-11-23"), ("2026-11-23T12:00:00Z", "2026-11-23T12:00:00Z"),
     ("2026-11-23T14:00:00+02:00", "2026-11-23T12:00:00Z"), ("2026-11-23T12:00:00.9", "2026-11-23T12:00:00Z"),
     (" 2026-11-23 ", "2026-11-23")],
)  # fmt: skip
def test_moments_take_the_form_of_recorded_times(value: str, expected: str) -> None:
    assert moment(value) == expected


def test_a_prune_before_something_that_is_not_a_time_deletes_nothing(
    store_target: str, tmp_path: Path
) -> None:
    """As text, "x" sorts after every recorded time: the prune would have emptied the trail."""
    _, trail, _ = _fill(store_target, tmp_path, 3)
    with pytest.raises(StoreError, match=r"^'x' is not an ISO date or time"):
        trail.prune(SCOPE, "x")
    with pytest.raises(StoreError, match=r"^'2026-13-45' is not an ISO date or time"):
        trail.query(SCOPE, since="2026-13-45")
    assert len(trail.query(SCOPE)) == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["trail", "prune", "--before", "x"],
         "usage: argument --before: 'x' is not an ISO date or time (2026-11-23 or 2026-11-23T12:00:00Z) "
         "(see 'citeaudit trail prune --help')"),
        (["history", "--since", "last week"],
         "usage: argument --since: 'last week' is not an ISO date or time (2026-11-23 or 2026-11-23T12:00:00Z) "
         "(see 'citeaudit history --help')"),
        (["history", "--revision", "2"], "--revision needs --source: the revision of which source?"),
        (["history", "--source", "a", "--revision", "0"],
         "usage: argument --revision: expected a positive integer, got '0' (see 'citeaudit history --help')"),
    ],
)  # fmt: skip
def test_bad_trail_arguments_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    result = run_cli(*args, "--store", tmp_path / "s.db", "--scope", "acme/alice")
    assert (result.code, result.stderr) == (2, f"citeaudit: error: {message}\n")
