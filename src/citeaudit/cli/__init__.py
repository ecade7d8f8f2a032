"""The command line: argument parsing, exit codes, output. Nothing else.

Each command is a module that registers its parser and, with
``set_defaults(func=...)``, the function that runs it; the audits they run are
built by the composition root (:mod:`citeaudit.wiring`).

Exit codes: 0 clean; 1 citation errors found (for ``locate``: the fragment is
not unique); 2 usage, configuration or input error; 3 nothing wrong was found
but some citations could not be checked; 4 internal error (a bug); with
``check --fail-on decision``, 5 regenerate or abstain and 6 manual review.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Sequence
from typing import TextIO

from citeaudit import _interrupted_while_starting
from citeaudit.cli import (
    batch,
    cache,
    check,
    completion,
    evaluate,
    feedback,
    fetch,
    history,
    judge,
    mcp,
    mirror,
    render,
    review,
    serve,
    sources,
)
from citeaudit.cli.common import (
    EXIT_CLEAN,
    EXIT_ERRORS,
    EXIT_INTERNAL,
    EXIT_UNCHECKED,
    EXIT_USAGE,
    Command,
    Parser,
)
from citeaudit.errors import CiteauditError
from citeaudit.util.version import __version__

__all__ = [
    "EXIT_CLEAN",
    "EXIT_ERRORS",
    "EXIT_INTERNAL",
    "EXIT_UNCHECKED",
    "EXIT_USAGE",
    "build_parser",
    "main",
    "main_entry",
]


def build_parser() -> Parser:
    parser = Parser(prog="citeaudit", description="Deterministic audits of the citations agents write.")
    parser.add_argument("--version", action="version", version=f"citeaudit {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    check.add_parser(commands)
    batch.add_parser(commands)
    fetch.add_parser(commands)
    cache.add_parser(commands)
    sources.add_parsers(commands)
    render.add_parsers(commands)
    feedback.add_parser(commands)
    mcp.add_parser(commands)
    serve.add_parsers(commands)
    history.add_parsers(commands)
    evaluate.add_parser(commands)
    judge.add_parser(commands)
    review.add_parser(commands)
    mirror.add_parsers(commands)
    completion.add_parser(commands)
    return parser


def _dispatch(argv: list[str] | None, stdout: TextIO, stderr: TextIO) -> int:
    args = build_parser().parse_args(argv)
    command: Command = args.func  # every command sets it (set_defaults), the subparsers are required
    return command(args, stdout, stderr)


def main(
    argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    if signal.getsignal(signal.SIGINT) is _interrupted_while_starting:  # imports done: Python's own
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return _dispatch(list(argv) if argv is not None else None, stdout, stderr)
    except CiteauditError as e:
        print(f"citeaudit: error: {e.diagnostics()}", file=stderr)
        return EXIT_USAGE
    except SystemExit as e:  # --help and --version
        return int(e.code or 0)
    except KeyboardInterrupt:
        print("citeaudit: interrupted", file=stderr)
        return 130
    except Exception:  # a bug: keep the traceback, but never exit as if citations failed
        import traceback

        print("citeaudit: internal error (please report it):", file=stderr)
        traceback.print_exc(file=stderr)
        return EXIT_INTERNAL


def main_entry() -> None:
    """Console-script entry point."""
    sys.exit(main())
