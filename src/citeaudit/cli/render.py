"""``citeaudit render`` and ``citeaudit stats``: other formats of a report,
and metrics over many reports. Nothing is recomputed: both read report.json."""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path
from typing import Any, TextIO

from citeaudit.cli.common import (
    EXIT_CLEAN,
    EXIT_ERRORS,
    Parser,
    add_format_options,
    refuse_mismatched_extension,
    refuse_to_overwrite,
    write_file,
)
from citeaudit.errors import InputError
from citeaudit.report.formats import FORMAT_CHOICES, FORMAT_NAMES, RenderContext, ReportFormat

__all__ = ["add_parsers", "emit", "run_render", "run_stats"]

FORMATS = FORMAT_CHOICES
STATS_FORMATS = ["table", "json", "prometheus"]


def add_parsers(commands: argparse._SubParsersAction[Parser]) -> None:
    render_cmd = commands.add_parser(
        "render", help="render a report.json as " + ", ".join(FORMAT_NAMES.values())
    )
    render_cmd.add_argument("report", type=Path, help="a report.json written by citeaudit check")
    add_format_options(render_cmd, FORMATS, required=True)
    render_cmd.add_argument(
        "--input",
        type=Path,
        help="the claims file the report was made from (SARIF: results at line and column)",
    )
    render_cmd.add_argument(
        "--verify",
        type=Path,
        metavar="ARTIFACT",
        help="check that ARTIFACT is exactly this rendering, intact",
    )
    render_cmd.set_defaults(func=run_render)
    stats = commands.add_parser(
        "stats", help="metrics over many reports, grouped by labels and checker version"
    )
    stats.add_argument(
        "reports", type=Path, nargs="+", help="report.json files, or output directories of citeaudit batch"
    )
    add_format_options(stats, STATS_FORMATS, default="table")
    stats.set_defaults(func=run_stats)


def emit(data: bytes, output: Path | None, stdout: TextIO) -> None:
    if output is not None:
        write_file(output, data)
    else:
        stdout.write(data.decode("utf-8"))


def context_for(report: dict[str, Any], claims: Path | None) -> RenderContext:
    from citeaudit.util.jsonload import read_input

    if claims is None:
        return RenderContext()
    data = read_input(claims)
    if hashlib.sha256(data).hexdigest() != report["input_sha256"]:
        raise InputError(str(claims), "", "this is not the input the report was made from (SHA-256 differs)")
    return RenderContext(input_uri=claims.as_posix(), input_text=data.decode("utf-8", "replace"))


def run_render(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from citeaudit.report.formats import render
    from citeaudit.report.markdown import verify_markdown
    from citeaudit.report.read import load_report
    from citeaudit.util.jsonload import read_input

    refuse_to_overwrite(args.output, args.report, args.input)
    fmt = ReportFormat(args.format)
    refuse_mismatched_extension(
        args.output, fmt.value, "--output", "render writes the format that --format names into --output"
    )
    report = load_report(args.report)
    data = render(fmt, report, context_for(report, args.input))
    if args.verify is not None:
        artifact = read_input(args.verify)
        intact = fmt is not ReportFormat.MARKDOWN or verify_markdown(artifact)
        same = artifact == data
        print(
            f"artifact={args.verify} intact={str(intact).lower()} matches_report={str(same).lower()}",
            file=stdout,
        )
        return EXIT_CLEAN if intact and same else EXIT_ERRORS
    emit(data, args.output, stdout)
    return EXIT_CLEAN


def run_stats(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from citeaudit.batch.output import batch_reports
    from citeaudit.report.read import load_report
    from citeaudit.report.stats import Tally, to_json, to_prometheus, to_table

    refuse_to_overwrite(args.output, *args.reports)
    refuse_mismatched_extension(
        args.output, args.format, "--output", "stats writes the format that --format names into --output"
    )
    tally = Tally()
    for path in args.reports:
        if path.is_dir():
            for labels, report in batch_reports(path):
                tally.add(report, labels)
        else:
            tally.add(load_report(path))
    groups = tally.groups()
    text = {"table": to_table, "json": to_json, "prometheus": to_prometheus}[args.format](groups)
    emit(text.encode("utf-8"), args.output, stdout)
    return EXIT_CLEAN
