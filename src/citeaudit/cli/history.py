"""``citeaudit history``: the audit trail, read-only ("which answers were
rejected last week and why", "which reports cited revision 3 of this source",
"which earlier reports does this change invalidate"); and ``citeaudit trail
prune``, the retention command, the one way records leave the trail."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TextIO

from citeaudit.cli.common import (
    EXIT_CLEAN,
    Parser,
    add_format_options,
    add_store_options,
    positive,
    store_and_scope,
)
from citeaudit.cli.render import emit
from citeaudit.errors import ConfigError
from citeaudit.model import Decision

__all__ = ["add_parsers", "run_history", "run_prune"]


def _label(value: str) -> tuple[str, str]:
    key, sep, val = value.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {value!r}")
    return key, val


def _moment(value: str) -> str:
    from citeaudit.store.evidence import StoreError
    from citeaudit.store.trail import moment

    try:
        return moment(value)
    except StoreError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_parsers(commands: argparse._SubParsersAction[Parser]) -> None:
    history = commands.add_parser("history", help="query the audit trail of a scope (read-only)")
    since = "only audits recorded at or after this ISO time (2026-11-23 or …T12:00:00Z)"
    history.add_argument("--since", type=_moment, help=since)
    history.add_argument("--label", type=_label, action="append", default=[], metavar="KEY=VALUE",
                         help="only audits whose submission has this label; repeatable")  # fmt: skip
    history.add_argument("--code", help="only audits with this finding code on some claim")
    history.add_argument("--decision", choices=[d.value for d in Decision],
                         help="only audits that ended with this decision")  # fmt: skip
    history.add_argument("--source", help="only audits that cited this evidence-store source")
    history.add_argument("--revision", type=positive, help="with --source: only this revision")
    history.add_argument("--affected-by", metavar="SOURCE",
                         help="audits that cited a revision of SOURCE that is no longer current")  # fmt: skip
    add_format_options(history, ["table", "json"], default="table")
    add_store_options(history)
    history.set_defaults(func=run_history)

    trail = commands.add_parser("trail", help="administer the audit trail")
    actions = trail.add_subparsers(dest="action", required=True, parser_class=Parser)
    prune = actions.add_parser("prune", help="retention: delete the scope's records older than a date")
    prune.add_argument(
        "--before", required=True, type=_moment, help="ISO date or time; older records are deleted"
    )
    add_store_options(prune)
    prune.set_defaults(func=run_prune)


def _open(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from citeaudit.config import load_config
    from citeaudit.store.evidence import Scope, open_store
    from citeaudit.store.trail import Trail

    target, scope = store_and_scope(load_config(Path.cwd(), args.config), args)
    store = open_store(target)
    return store, Trail(store), Scope.parse(scope)


def run_history(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    store, trail, scope = _open(args)
    if args.affected_by:
        source = store.get(scope, args.affected_by, with_text=False)
        if source is None:
            raise ConfigError(f"source {args.affected_by!r} is not registered in scope {scope}")
        current = source.current.revision if source.current else None
        records = trail.affected_by(scope, args.affected_by, current)
    else:
        if args.revision is not None and not args.source:
            raise ConfigError("--revision needs --source: the revision of which source?")
        wanted = (args.source, args.revision) if args.source else None
        records = trail.query(
            scope, since=args.since, labels=args.label, code=args.code, source=wanted, decision=args.decision
        )
    if args.format == "json":
        text = json.dumps([r.to_json() for r in records], ensure_ascii=False, sort_keys=True, indent=2) + "\n"
    else:
        row = "{:<3} {:<21} {:<13} {:<22} {:<16} {}"
        lines = [row.format("id", "recorded_at", "status", "decision", "outcome", "claims with errors")]
        for r in records:
            failing = sorted(c for c, codes in r.codes.items() if codes)
            lines.append(
                row.format(
                    r.id, r.recorded_at, r.status, r.decision or "-", r.outcome, ", ".join(failing) or "-"
                )
            )
        text = "\n".join(lines) + "\n"
    emit(text.encode("utf-8"), args.output, stdout)
    return EXIT_CLEAN


def run_prune(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    _, trail, scope = _open(args)
    print(f"pruned={trail.prune(scope, args.before)} before={args.before} scope={scope}", file=stdout)
    return EXIT_CLEAN
