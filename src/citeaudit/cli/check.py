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
    refuse_to_overwrite,
    store_and_scope,
    write_file,
)
from citeaudit.config import FAIL_ON, Config, load_config
from citeaudit.core import AuditSettings, Suggester, audit
from citeaudit.errors import ConfigError
from citeaudit.formats import load_submission, submission_from_bytes
from citeaudit.formats.jsonload import read_stream
from citeaudit.model import Decision, Report, Review, Submission
from citeaudit.report.formats import RenderContext, ReportFormat, render
from citeaudit.report.json import dump_report_dict, report_outcome, report_to_dict
from citeaudit.resolve.cache import CachingResolver, DoiCache
from citeaudit.semantic.judge import Judge
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
    check.add_argument("claims", type=Path, help="the claims file (JSON or BibTeX); - reads standard input")
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
    check.add_argument(
        "--out", type=Path, help="where to write the report; - prints it [CITEAUDIT_OUT; ./report.json]"
    )
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
    check.add_argument(
        "--judge",
        help="semantic judge for the claims that pass every check: rules, nli:MODEL[?OPTIONS][#LABELS], "
        "rules+SPEC, llm:MODEL@URL, or none [CITEAUDIT_JUDGE; rules]",
    )
    check.add_argument(
        "--verdict-cache",
        type=Path,
        help="directory of cached verdicts [CITEAUDIT_VERDICT_CACHE; CACHE/verdicts for nli and llm]",
    )
    check.add_argument(
        "--reviews",
        action="store_true",
        default=None,
        help="apply the reviews recorded in the store (--store, --scope) for this exact submission "
        "[CITEAUDIT_REVIEWS]",
    )
    check.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        help="what the exit code follows: deterministic findings (error) or the decision "
        "[CITEAUDIT_FAIL_ON; error]",
    )
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
        "judge",
        "verdict_cache",
        "reviews",
        "fail_on",
    )
    changes: dict[str, object] = {
        name: getattr(args, name) for name in names if getattr(args, name) is not None
    }
    if args.severity:
        changes["severity"] = {**config.severity, **dict(args.severity)}
    return replace(config, **changes)  # type: ignore[arg-type]


def _open_scope(config: Config, args: argparse.Namespace) -> tuple[Any, Any] | None:
    """The evidence store and scope, opened once for its citations, its trail and its reviews."""
    if not (config.store or config.scope or config.reviews):
        return None
    from citeaudit.sources.store import Scope, open_store  # SQLAlchemy only when used

    target, scope_text = store_and_scope(config, args)
    return open_store(target), Scope.parse(scope_text)


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


# With --fail-on decision: an answer that is not accepted fails, each decision with its own code.
EXIT_REGENERATE = 5
EXIT_MANUAL_REVIEW = 6


def exit_code(report: Report, fail_on: str = "error") -> int:
    outcome = report_outcome(report)
    deterministic = {"errors": EXIT_ERRORS, "could_not_check": EXIT_UNCHECKED}.get(outcome, EXIT_CLEAN)
    if fail_on == "error" or deterministic != EXIT_CLEAN:
        return deterministic
    return {
        Decision.ACCEPT: EXIT_CLEAN,
        Decision.REGENERATE_OR_ABSTAIN: EXIT_REGENERATE,
        Decision.MANUAL_REVIEW: EXIT_MANUAL_REVIEW,
    }.get(report.decision, EXIT_ERRORS)


def judge_for(config: Config) -> Judge | None:
    """The configured judge, its verdicts cached for the backends that cost something."""
    from citeaudit.semantic.judge import configured_judge

    return configured_judge(
        config.judge, verdict_cache=config.verdict_cache, cache=config.cache, offline=config.offline
    )


def _reviews(config: Config, store: Any, scope: Any, submission: Submission) -> list[Review]:
    if not config.reviews:
        return []
    from citeaudit.sources.reviews import ReviewBook

    return ReviewBook(store).latest_for(scope.tenant, submission.digest)


STDIN_NAME = "<stdin>"


def _read_claims(args: argparse.Namespace, config: Config) -> tuple[Submission, RenderContext | None]:
    """The submission, and for standard input what a rendering needs of it (a file is read again)."""
    if str(args.claims) != "-":
        bounds = {"max_bytes": config.max_input_bytes, "max_depth": config.max_depth}
        return load_submission(args.claims, **bounds), None
    data = read_stream(sys.stdin.buffer, STDIN_NAME, config.max_input_bytes)
    submission = submission_from_bytes(data, STDIN_NAME, max_depth=config.max_depth)
    return submission, RenderContext(input_uri="stdin", input_text=data.decode("utf-8", "replace"))


def run(args: argparse.Namespace, stdout: TextIO) -> int:
    config = _effective(args, load_config(Path.cwd(), args.config))
    to_stdout = str(config.out) == "-"
    if to_stdout and args.format and args.output is None:
        raise ConfigError("--out - and --format without --output would both write to standard output")
    refuse_to_overwrite(config.out, args.claims, config.corpus)
    refuse_to_overwrite(args.output, args.claims, config.corpus)
    if args.output is not None and not to_stdout and args.output.resolve() == config.out.resolve():
        raise ConfigError(
            f"--output and --out are both {args.output}: the rendering would replace the report"
        )
    submission, stdin_context = _read_claims(args, config)
    corpus = load_corpus(config.corpus, config.max_input_bytes) if config.corpus is not None else None
    settings = AuditSettings(
        min_quote_length=config.min_quote_length,
        severity=config.severity,
        offline=config.offline,
        jobs=config.jobs,
        policy=config.policy,
    )
    opened = _open_scope(config, args)
    lookup: SourceLookup | None = None
    trail: Any = None  # every audit with a store is recorded in its scope's trail
    reviews: list[Review] = []
    if opened is not None:
        from citeaudit.sources.store import ScopedLookup
        from citeaudit.sources.trail import ScopedTrail, Trail

        store, scope = opened
        lookup, trail = ScopedLookup(store, scope), ScopedTrail(Trail(store), scope)
        reviews = _reviews(config, store, scope, submission)
    judge = judge_for(config)
    report = audit(
        submission,
        resolver=resolver_for(config),
        snapshots=SnapshotDirectory(config.sources),
        corpus=corpus,
        store=lookup,
        suggester=None if config.offline else _suggester(config),
        settings=settings,
        judge=judge,
        reviews=reviews,
    )
    as_dict = report_to_dict(report)
    if to_stdout:
        stdout.write(dump_report_dict(as_dict).decode("utf-8"))
    else:
        write_file(config.out, dump_report_dict(as_dict))
    if trail is not None:
        trail.append(report)
    # The seed's summary line as it was, then the decision on a line of its own.
    summary = f"checked={len(report.rows)} failed={report.failed} report={config.out}\n"
    summary += f"decision={report.decision.value} status={report.status.value}"
    if args.format:
        from citeaudit.cli.render import context_for, emit

        context = stdin_context or context_for(as_dict, args.claims)
        emit(render(ReportFormat(args.format), as_dict, context), args.output, stdout)
        print(summary, file=sys.stderr if args.output is None else stdout)
    elif to_stdout:
        print(summary, file=sys.stderr)
    else:
        print(summary, file=stdout)
        if stdout.isatty():
            stdout.write(failing_table(as_dict))
    return exit_code(report, config.fail_on)


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
