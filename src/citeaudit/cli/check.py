"""``citeaudit check``: audit a claims file and write report.json."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from citeaudit.cli.common import (
    EXIT_CLEAN,
    EXIT_ERRORS,
    EXIT_UNCHECKED,
    Parser,
    Progress,
    add_store_options,
    positive,
    store_and_scope,
    write_file,
)
from citeaudit.config import Config, load_config
from citeaudit.core import AuditSettings, Suggester, audit
from citeaudit.formats import load_submission
from citeaudit.model import Report
from citeaudit.report.formats import ReportFormat, render
from citeaudit.report.json import dump_report_dict, report_outcome, report_to_dict
from citeaudit.resolve.cache import CachingResolver, DoiCache
from citeaudit.sources.corpus import load_corpus
from citeaudit.sources.directory import SnapshotDirectory
from citeaudit.sources.interface import SourceLookup

__all__ = ["add_parser", "exit_code", "resolver_for", "run"]


def _severity_pair(value: str) -> tuple[str, str]:
    code, sep, level = value.partition("=")
    if not sep or not code or not level:
        raise argparse.ArgumentTypeError(f"expected CODE=LEVEL, got {value!r}")
    return code.strip(), level.strip()


def add_parser(commands: argparse._SubParsersAction[Parser]) -> None:
    check = commands.add_parser(
        "check",
        help="audit the citations of a claims file and write report.json",
        description="Audit CLAIMS (any supported format) and write the report. "
        "Exit 0 clean, 1 errors, 2 bad input, 3 some citations could not be checked.",
    )
    check.add_argument("claims", type=Path, help="the claims file (JSON)")
    check.add_argument("--cache", type=Path, help="registry cache directory [CITEAUDIT_CACHE; ./cache]")
    check.add_argument("--sources", type=Path, help="text snapshot directory [CITEAUDIT_SOURCES; ./sources]")
    check.add_argument(
        "--corpus",
        type=Path,
        help="corpus for document citations: documents.json, a .jsonl file or a directory with "
        "manifest.json [CITEAUDIT_CORPUS]",
    )
    check.add_argument(
        "--offline",
        action="store_true",
        default=None,
        help="never touch the network; a cache miss is E_NOT_CACHED [CITEAUDIT_OFFLINE]",
    )
    check.add_argument("--mailto", help="contact address for the registries' polite pools [CITEAUDIT_MAILTO]")
    check.add_argument("--out", type=Path, help="where to write the report [CITEAUDIT_OUT; ./report.json]")
    check.add_argument(
        "--min-quote-length",
        type=positive,
        help="shortest quote accepted, in normalised characters [CITEAUDIT_MIN_QUOTE_LENGTH; 30]",
    )
    check.add_argument(
        "--severity",
        type=_severity_pair,
        action="append",
        default=[],
        metavar="CODE=LEVEL",
        help="change the severity of a finding code (error, warning, info); repeatable",
    )
    check.add_argument(
        "--jobs",
        type=positive,
        help="processes for the per-source checks; the report is the same for any value "
        "[CITEAUDIT_JOBS; the number of CPUs]",
    )
    check.add_argument(
        "--format",
        choices=[f.value for f in ReportFormat],
        help="also render the report in this format (to --output, or standard output)",
    )
    check.add_argument("--output", type=Path, help="where the --format rendering goes [standard output]")
    add_store_options(check)


def _effective(args: argparse.Namespace, config: Config) -> Config:
    """Flags win over the environment and the configuration file."""
    names = (
        "cache",
        "sources",
        "out",
        "mailto",
        "offline",
        "min_quote_length",
        "jobs",
        "corpus",
        "store",
        "scope",
    )
    changes: dict[str, object] = {
        name: getattr(args, name) for name in names if getattr(args, name) is not None
    }
    if args.severity:
        changes["severity"] = {**config.severity, **dict(args.severity)}
    return replace(config, **changes)  # type: ignore[arg-type]


def _store_lookup(config: Config, args: argparse.Namespace) -> tuple[SourceLookup, Any] | None:
    """The scoped store for citations, and the scope's audit trail (every audit is recorded)."""
    if not (config.store or config.scope):
        return None
    from citeaudit.sources.store import Scope, ScopedLookup, open_store  # SQLAlchemy only when used
    from citeaudit.sources.trail import ScopedTrail, Trail

    target, scope_text = store_and_scope(config, args)
    store, scope = open_store(target), Scope.parse(scope_text)
    return ScopedLookup(store, scope), ScopedTrail(Trail(store), scope)


def resolver_for(config: Config) -> CachingResolver:
    """Cache first; the registries only without --offline."""
    cache = DoiCache(config.cache)
    if config.offline:
        return CachingResolver(cache)
    from citeaudit.resolve.registry import RegistryResolver  # httpx only when going online

    progress = Progress("resolving DOIs", sys.stderr)
    return CachingResolver(cache, RegistryResolver(cache, mailto=config.mailto, progress=progress))


def _suggester(config: Config) -> Suggester:
    from citeaudit.resolve.search import BibliographicSearch

    return BibliographicSearch(mailto=config.mailto)


def exit_code(report: Report) -> int:
    outcome = report_outcome(report)
    return {"errors": EXIT_ERRORS, "could_not_check": EXIT_UNCHECKED}.get(outcome, EXIT_CLEAN)


def run(args: argparse.Namespace, stdout: TextIO) -> int:
    config = _effective(args, load_config(Path.cwd(), args.config))
    submission = load_submission(args.claims, max_bytes=config.max_input_bytes, max_depth=config.max_depth)
    corpus = load_corpus(config.corpus, config.max_input_bytes) if config.corpus is not None else None
    settings = AuditSettings(
        min_quote_length=config.min_quote_length,
        severity=config.severity,
        offline=config.offline,
        jobs=config.jobs,
    )
    scoped = _store_lookup(config, args)
    report = audit(
        submission,
        resolver=resolver_for(config),
        snapshots=SnapshotDirectory(config.sources),
        corpus=corpus,
        store=scoped[0] if scoped else None,
        suggester=None if config.offline else _suggester(config),
        settings=settings,
    )
    as_dict = report_to_dict(report)
    write_file(config.out, dump_report_dict(as_dict))
    if scoped is not None:
        scoped[1].append(report)
    summary = f"checked={len(report.rows)} failed={report.failed} report={config.out}"
    if args.format:
        from citeaudit.cli.render import context_for, emit

        data = render(
            ReportFormat(args.format),
            report_to_dict(report),
            context_for(report_to_dict(report), args.claims),
        )
        emit(data, args.output, stdout)
        print(summary, file=sys.stderr if args.output is None else stdout)
    else:
        print(summary, file=stdout)
        if stdout.isatty():
            stdout.write(failing_table(as_dict))
    return exit_code(report)


def failing_table(report: dict[str, Any], width: int = 60) -> str:
    """The failing and unchecked citations as a compact table, for a person at a terminal."""
    rows = [r for r in report["results"] if r["errors"]]
    if not rows:
        return ""
    table = [("claim", "citation", "codes", "reason")]
    for r in rows:
        reason = next(f["message"] for f in r["findings"] if f["severity"] == "error")
        short = reason if len(reason) <= width else reason[: width - 1] + "…"
        table.append((r["claim"] or "-", r["citation"] or "-", " ".join(r["errors"]), short))
    widths = [max(len(row[i]) for row in table) for i in range(3)]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row[:3], widths, strict=True)) + "  " + row[3]
        for row in table
    ]
    return "\n".join(lines) + "\n"
