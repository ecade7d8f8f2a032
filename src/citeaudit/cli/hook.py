"""``citeaudit-hook FILE…``: the pre-commit hook — ``check --offline`` on each claims file.

pre-commit passes a hook's ``args`` and then the changed files in one argument list, so the
options are told from the files by ``check``'s own parser: an option of ``check`` keeps its value,
anything else is a file. No report file is written (the report is discarded; the summary of each
file goes to stderr), and the exit code is the worst of the files' ``check`` exit codes.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Sequence
from typing import TextIO

__all__ = ["main", "main_entry", "split_arguments"]

# How bad an exit code is: clean < could not check < decision codes < errors < bad input < a bug.
_RANK = {0: 0, 3: 1, 5: 2, 6: 3, 1: 4, 2: 5}


def _check_options() -> dict[str, bool]:
    """Every option string of ``check``, mapped to whether it takes a value."""
    from citeaudit.cli import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    check = commands.choices["check"]
    return {option: action.nargs != 0 for action in check._actions for option in action.option_strings}


def split_arguments(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """``check`` options (with their values) and the files, in their order."""
    options = _check_options()
    flags: list[str] = []
    files: list[str] = []
    items = iter(argv)
    for item in items:
        name = item.partition("=")[0]
        if item.startswith("-") and name in options:
            flags.append(item)
            if options[name] and "=" not in item:
                flags.append(next(items, ""))
        else:
            files.append(item)
    return flags, files


def worst(codes: Sequence[int]) -> int:
    return max(codes, key=lambda code: _RANK.get(code, 6), default=0)


def main(argv: Sequence[str] | None = None, stderr: TextIO | None = None) -> int:
    from citeaudit.cli import main as citeaudit_main

    stderr = stderr or sys.stderr
    flags, files = split_arguments(list(sys.argv[1:] if argv is None else argv))
    if any(flag in ("--out", "--output", "--format") for flag in flags):
        print("citeaudit-hook: error: --out, --output and --format are not for the hook", file=stderr)
        return 2
    codes = []
    for name in files:
        print(f"{name}:", file=stderr)
        # --out - keeps the report off the disk; the summary of the file goes to stderr.
        argv_check = ["check", name, "--offline", *flags, "--out", "-"]
        codes.append(citeaudit_main(argv_check, stdout=io.StringIO(), stderr=stderr))
    return worst(codes)


def main_entry() -> None:
    """Console-script entry point."""
    sys.exit(main())
