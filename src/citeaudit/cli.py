"""The command line: argument parsing, exit codes, output. Nothing else.

Exit codes: 0 clean; 1 citation errors found; 2 usage, configuration or
input error; 3 nothing wrong was found but some citations could not be
checked; 4 internal error (a bug: please report it).
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from citeaudit import __version__
from citeaudit.audit import AuditSettings, audit
from citeaudit.config import Config, load_config
from citeaudit.errors import CiteauditError, ConfigError
from citeaudit.formats import load_submission
from citeaudit.model import Report
from citeaudit.report.json import render_json, report_outcome
from citeaudit.resolve.cache import CachingResolver, DoiCache, atomic_write
from citeaudit.sources.directory import SnapshotDirectory

__all__ = ["EXIT_CLEAN", "EXIT_ERRORS", "EXIT_INTERNAL", "EXIT_UNCHECKED", "EXIT_USAGE", "main"]

EXIT_CLEAN = 0
EXIT_ERRORS = 1
EXIT_USAGE = 2
EXIT_UNCHECKED = 3
EXIT_INTERNAL = 4


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so main() owns every exit."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise ConfigError(f"usage: {message} (see '{self.prog} --help')")


def _severity_pair(value: str) -> tuple[str, str]:
    code, sep, level = value.partition("=")
    if not sep or not code or not level:
        raise argparse.ArgumentTypeError(f"expected CODE=LEVEL, got {value!r}")
    return code.strip(), level.strip()


def _positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value!r}")
    return number


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="citeaudit", description="Deterministic audits of the citations agents write.")
    parser.add_argument("--version", action="version", version=f"citeaudit {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

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
        "--offline",
        action="store_true",
        default=None,
        help="never touch the network; a cache miss is E_NOT_CACHED [CITEAUDIT_OFFLINE]",
    )
    check.add_argument("--mailto", help="contact address for the registries' polite pools [CITEAUDIT_MAILTO]")
    check.add_argument("--out", type=Path, help="where to write the report [CITEAUDIT_OUT; ./report.json]")
    check.add_argument(
        "--min-quote-length",
        type=_positive,
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
        type=_positive,
        help="processes for the per-source checks; the report is the same for any value "
        "[CITEAUDIT_JOBS; the number of CPUs]",
    )
    check.add_argument("--config", type=Path, help="configuration file [CITEAUDIT_CONFIG]")
    return parser


def _effective(args: argparse.Namespace, config: Config) -> Config:
    """Flags win over the environment and the configuration file."""
    changes: dict[str, object] = {
        name: getattr(args, name)
        for name in ("cache", "sources", "out", "mailto", "offline", "min_quote_length", "jobs")
        if getattr(args, name) is not None
    }
    if args.severity:
        changes["severity"] = {**config.severity, **dict(args.severity)}
    return replace(config, **changes)  # type: ignore[arg-type]


def _online_resolver_unavailable(config: Config) -> None:
    if not config.offline:
        raise ConfigError(
            "online resolution is not available in this build; run with --offline "
            "against a filled cache (see the README's cache workflow)"
        )


def _run_check(args: argparse.Namespace, stdout: TextIO) -> int:
    config = _effective(args, load_config(Path.cwd(), args.config))
    submission = load_submission(args.claims, max_bytes=config.max_input_bytes, max_depth=config.max_depth)
    _online_resolver_unavailable(config)
    resolver = CachingResolver(DoiCache(config.cache), upstream=None)
    settings = AuditSettings(
        min_quote_length=config.min_quote_length,
        severity=config.severity,
        offline=config.offline,
        jobs=config.jobs,
    )
    report = audit(
        submission, resolver=resolver, snapshots=SnapshotDirectory(config.sources), settings=settings
    )
    _write(config.out, render_json(report))
    print(f"checked={len(report.rows)} failed={report.failed} report={config.out}", file=stdout)
    return exit_code(report)


def exit_code(report: Report) -> int:
    outcome = report_outcome(report)
    return {"errors": EXIT_ERRORS, "could_not_check": EXIT_UNCHECKED}.get(outcome, EXIT_CLEAN)


def _write(path: Path, data: bytes) -> None:
    try:
        atomic_write(path, data)
    except OSError as e:
        raise ConfigError(f"{path}: cannot write the report: {e.strerror}") from None


def main(
    argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    try:
        args = build_parser().parse_args(list(argv) if argv is not None else None)
        if args.command == "check":
            return _run_check(args, stdout)
        raise ConfigError(f"unknown command {args.command!r}")
    except CiteauditError as e:
        print(f"citeaudit: error: {e.diagnostics()}", file=stderr)
        return EXIT_USAGE
    except SystemExit as e:  # --help and --version
        return int(e.code or 0)
    except KeyboardInterrupt:
        print("citeaudit: interrupted", file=stderr)
        return 130
    except Exception:  # a bug: keep the traceback, but never exit as if citations failed
        print("citeaudit: internal error (please report it):", file=stderr)
        traceback.print_exc(file=stderr)
        return EXIT_INTERNAL


def main_entry() -> None:
    """Console-script entry point."""
    sys.exit(main())
