"""``citeaudit feedback``: a failing report turned into instructions for the agent."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TextIO

from citeaudit.cli.common import EXIT_CLEAN, EXIT_ERRORS, Parser, add_format_options, refuse_to_overwrite
from citeaudit.cli.render import emit

__all__ = ["add_parser", "run"]


def add_parser(commands: argparse._SubParsersAction[Parser]) -> None:
    cmd = commands.add_parser(
        "feedback",
        help="turn a report into instructions for the agent: what to fix, why, what to keep",
        description="Exit 0 when there is nothing to fix, 1 when there is.",
    )
    cmd.add_argument("report", type=Path, help="a report.json written by citeaudit check")
    add_format_options(cmd, ["text", "json"], default="text")
    cmd.set_defaults(func=run)


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from citeaudit.report.feedback import feedback, feedback_text
    from citeaudit.report.read import load_report

    refuse_to_overwrite(args.output, args.report)
    instructions = feedback(load_report(args.report))
    if args.format == "json":
        text = json.dumps(instructions, ensure_ascii=False, sort_keys=True, indent=2) + "\n"
    else:
        text = feedback_text(instructions)
    emit(text.encode("utf-8"), args.output, stdout)
    return EXIT_CLEAN if instructions["clean"] else EXIT_ERRORS
