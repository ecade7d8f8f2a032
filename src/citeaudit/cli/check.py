"""``citeaudit check``: audit a claims file and write report.json."""

from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO

from citeaudit.cli.common import (
    EXIT_CLEAN,
    EXIT_ERRORS,
    EXIT_UNCHECKED,
    Parser,
    Progress,
    add_cache_option,
    add_corpus_option,
    add_fail_on_option,
    add_format_options,
    add_full_text_option,
    add_input_format_option,
    add_judge_options,
    add_mailto_option,
    add_min_quote_length_option,
    add_mirror_option,
    add_offline_option,
    add_severity_option,
    add_sources_option,
    add_store_options,
    add_web_options,
    check_outputs,
    effective_config,
    input_format,
    positive,
    refuse_mismatched_extension,
    refuse_to_overwrite,
    straight_through,
    write_file,
)
from citeaudit.errors import ConfigError
from citeaudit.report.formats import FORMAT_CHOICES, RenderContext, ReportFormat

if TYPE_CHECKING:
    from citeaudit.config import Config
    from citeaudit.model import Report, Submission

# The audit's own modules (the input formats, the checks, the report) are imported by run():
# building the parser for --help, --version or another command needs none of them.

__all__ = ["EXIT_MANUAL_REVIEW", "EXIT_REGENERATE", "add_parser", "exit_code", "run"]


def add_parser(commands: argparse._SubParsersAction[Parser]) -> None:
    check = commands.add_parser(
        "check",
        help="audit the citations of a claims file and write report.json",
        description="Audit CLAIMS (any supported format) and write the report. "
        "Exit 0 clean, 1 errors, 2 bad input, 3 some citations could not be checked.",
    )
    check.add_argument(
        "claims",
        type=Path,
        help="the claims file (JSON, BibTeX or a Markdown report); - reads standard input",
    )
    add_input_format_option(check)
    add_cache_option(check)
    add_sources_option(check)
    add_mirror_option(check)
    add_corpus_option(check)
    add_offline_option(check)
    add_mailto_option(check)
    add_web_options(check)
    add_full_text_option(check)
    check.add_argument(
        "--out", type=Path, help="where to write the report; - prints it [CITEAUDIT_OUT; ./report.json]"
    )
    add_min_quote_length_option(check)
    add_severity_option(check)
    check.add_argument(
        "--jobs",
        type=positive,
        help="processes for the per-source checks; the report is the same for any value "
        "[CITEAUDIT_JOBS; the number of CPUs]",
    )
    add_format_options(
        check,
        FORMAT_CHOICES,
        help="also render the report in this format (to --output, or standard output)",
    )
    add_judge_options(check)
    check.add_argument(
        "--reviews",
        action="store_true",
        default=None,
        help="apply the reviews recorded in the store (--store, --scope) for this exact submission "
        "[CITEAUDIT_REVIEWS]",
    )
    add_fail_on_option(check)
    add_store_options(check)
    check.set_defaults(func=run)


# With --fail-on decision: an answer that is not accepted fails, each decision with its own code.
EXIT_REGENERATE = 5
EXIT_MANUAL_REVIEW = 6


def exit_code(report: Report, fail_on: str = "error") -> int:
    from citeaudit.model import Decision
    from citeaudit.report.json import report_outcome

    outcome = report_outcome(report)
    deterministic = {"errors": EXIT_ERRORS, "could_not_check": EXIT_UNCHECKED}.get(outcome, EXIT_CLEAN)
    if fail_on == "error" or deterministic != EXIT_CLEAN:
        return deterministic
    return {
        Decision.ACCEPT: EXIT_CLEAN,
        Decision.REGENERATE_OR_ABSTAIN: EXIT_REGENERATE,
        Decision.MANUAL_REVIEW: EXIT_MANUAL_REVIEW,
    }.get(report.decision, EXIT_ERRORS)


STDIN_NAME = "<stdin>"


def _read_claims(
    args: argparse.Namespace, config: Config, stdin: BinaryIO
) -> tuple[Submission, RenderContext | None]:
    """The submission, and for standard input what a rendering needs of it (a file is read again)."""
    from citeaudit.formats import load_submission, submission_from_bytes
    from citeaudit.util.jsonload import read_stream

    forced = input_format(config)
    if str(args.claims) != "-":
        bounds = {"max_bytes": config.max_input_bytes, "max_depth": config.max_depth}
        return load_submission(args.claims, **bounds, input_format=forced), None
    data = read_stream(stdin, STDIN_NAME, config.max_input_bytes)
    submission = submission_from_bytes(data, STDIN_NAME, max_depth=config.max_depth, input_format=forced)
    return submission, RenderContext(input_uri="stdin", input_text=data.decode("utf-8", "replace"))


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from citeaudit.report.json import dump_report_dict, report_to_dict
    from citeaudit.wiring import build_auditor, open_evidence

    config = effective_config(args)
    to_stdout = str(config.out) == "-"
    if to_stdout and args.format and args.output is None:
        raise ConfigError("--out - and --format without --output would both write to standard output")
    refuse_to_overwrite(config.out, args.claims, config.corpus)
    refuse_to_overwrite(args.output, args.claims, config.corpus)
    if args.output is not None and not to_stdout and args.output.resolve() == config.out.resolve():
        raise ConfigError(
            f"--output and --out are both {args.output}: the rendering would replace the report"
        )
    refuse_mismatched_extension(None if to_stdout else config.out, "json", "--out")
    if args.format:
        refuse_mismatched_extension(args.output, ReportFormat(args.format).value, "--output")
    check_outputs(None if to_stdout else config.out, args.output)  # exit 2 writes nothing at all
    submission, stdin_context = _read_claims(args, config, sys.stdin.buffer)
    from citeaudit.formats.interface import cache_folder_missing

    named = getattr(args, "cache", None) is not None or config.cache != Path("cache")
    if cache_folder_missing(submission, config.cache, offline=config.offline, named=named):
        raise ConfigError(
            f"--cache {config.cache}: no such folder; offline, every citation would be E_NOT_CACHED "
            "(give the cache folder, or run `citeaudit fetch` online to fill it)"
        )
    gc.freeze()  # the parsed input lives to the end: collections need not traverse it again and again
    auditor = build_auditor(config, progress=Progress("resolving DOIs", stderr))
    evidence = open_evidence(config)  # every audit with a store is recorded in its scope's trail
    if evidence is None:
        report = auditor.audit(submission)
    else:
        reviews = evidence.reviews_for(submission) if config.reviews else []
        report = auditor.audit(submission, store=evidence.lookup(), reviews=reviews)
    as_dict = report_to_dict(report)
    rendering = None
    if args.format:  # rendered before anything is written: a failure here leaves no report behind
        from citeaudit.cli.render import context_for
        from citeaudit.report.formats import render

        rendering = render(
            ReportFormat(args.format), as_dict, stdin_context or context_for(as_dict, args.claims)
        )
    from citeaudit.cli.render import emit

    # An output written straight through (a device, a FIFO) can fail only when written: it goes
    # first, so that the report file is not replaced when the rendering cannot be written.
    rendering_first = rendering is not None and straight_through(args.output)
    if rendering_first:
        assert rendering is not None
        emit(rendering, args.output, stdout)
    if to_stdout:
        stdout.write(dump_report_dict(as_dict).decode("utf-8"))
    else:
        write_file(config.out, dump_report_dict(as_dict))
    if evidence is not None:
        evidence.trail().append(report)
    summary = summary_lines(report, as_dict, config.out)
    if rendering is not None:
        if not rendering_first:
            emit(rendering, args.output, stdout)
        print_summary(summary, as_dict, stderr if args.output is None else stdout)
    else:
        print_summary(summary, as_dict, stderr if to_stdout else stdout)
    return exit_code(report, config.fail_on)


def summary_lines(report: Report, as_dict: dict[str, Any], out: object) -> str:
    """The seed's summary line as it was (its ``failed`` counts every result with an error, the
    could-not-check ones too), then those results apart in the words of the JSON report's
    ``summary.results_by_status``, then the decision."""
    by_status = as_dict["summary"]["results_by_status"]
    return (
        f"checked={len(report.rows)} failed={report.failed} report={out}\n"
        f"pass={by_status['pass']} fail={by_status['fail']} could_not_check={by_status['could_not_check']}\n"
        f"decision={report.decision.value} status={report.status.value}"
    )


def print_summary(summary: str, report: dict[str, Any], stream: TextIO) -> None:
    """The summary, and which citations failed or could not be checked: at a terminal as a table
    after the summary; in a log, a pipe or a hook one line a citation before it, so that the
    summary stays the last thing printed."""
    if stream.isatty():
        print(summary, file=stream)
        stream.write(failing_table(report))
    else:
        stream.write(failing_lines(report))
        print(summary, file=stream)


# How many failing citations a log gets one line each; the rest are counted.
MAX_FAILING_LINES = 50
# A citation named by at most this many characters, a message (other than a fix) by this many.
NAME_WIDTH = 60
MESSAGE_WIDTH = 200
# Their messages say how to fix them (the command to run): never cut, never left out.
_FIX_CODES = frozenset({"E_NOT_CACHED", "E_NO_SNAPSHOT"})


def printable(text: object, width: int | None = None) -> str:
    """External text as one printable line: runs of whitespace (line breaks, U+2028) as one
    space, cut to ``width`` characters with "…", and display controls (an override, ESC, a
    zero-width space) written out as ``<U+202E>``, never echoed raw to a terminal or a log."""
    from citeaudit.normalize import show_controls

    flat = " ".join(str(text).split())
    if width is not None and len(flat) > width:
        flat = flat[: width - 1] + "…"
    return "".join(c if c.isprintable() else f"<U+{ord(c):04X}>" for c in show_controls(flat))


def citation_name(row: dict[str, Any]) -> str:
    """How a line names a result's citation: its identifier (the DOI, URL, arXiv id, corpus
    document or stored source), else the title as cited, else its id; ``-`` for none."""
    source = row.get("source") or {}
    named = source.get(source.get("kind") or "")
    for name in (named, source.get("document_id"), source.get("source_id"), source.get("title")):
        if isinstance(name, str) and name.strip():
            return printable(name, NAME_WIDTH)
    return printable(row.get("citation") or "-", NAME_WIDTH)


def _failing_line(row: dict[str, Any]) -> str:
    errors = [f for f in row["findings"] if f["severity"] == "error"]
    first, rest = errors[0], errors[1:]

    def said(finding: dict[str, Any]) -> str:
        width = None if finding["code"] in _FIX_CODES else MESSAGE_WIDTH
        return f"{printable(finding['label'])}: {printable(finding['message'], width)}"

    line = f"{printable(row['claim'] or '-')} {citation_name(row)} {said(first)}"
    also = [printable(f["label"]) for f in rest if f["code"] not in _FIX_CODES]
    if also:
        line += f"; also {', '.join(also)}"
    return line + "".join(f"; {said(f)}" for f in rest if f["code"] in _FIX_CODES)


def failing_lines(report: dict[str, Any], limit: int = MAX_FAILING_LINES) -> str:
    """One line a failed or unchecked citation, in the report's order, for a log or a hook: the
    claim, the citation, its first error's code and message, its other codes, and the fix where
    the error has one (``E_NOT_CACHED``, ``E_NO_SNAPSHOT``); the first ``limit``, then how many more."""
    rows = [r for r in report["results"] if r["errors"]]
    lines = [_failing_line(r) for r in rows[:limit]]
    if len(rows) > limit:
        more = len(rows) - limit
        citations = "citation" if more == 1 else "citations"
        lines.append(f"… and {more} more {citations} that failed or could not be checked")
    return "".join(line + "\n" for line in lines)


def failing_table(report: dict[str, Any], width: int = 60) -> str:
    """The failing and unchecked citations as a compact table, for a person at a terminal."""
    rows = [r for r in report["results"] if r["errors"]]
    if not rows:
        return ""
    table = [("claim", "citation", "codes", "reason")]
    for r in rows:
        reason = next(f["message"] for f in r["findings"] if f["severity"] == "error")
        table.append(
            (printable(r["claim"] or "-"), printable(r["citation"] or "-"),
             printable(" ".join(r["errors"])), printable(reason, width))
        )  # fmt: skip
    widths = [max(len(row[i]) for row in table) for i in range(3)]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row[:3], widths, strict=True)) + "  " + row[3]
        for row in table
    ]
    return "\n".join(lines) + "\n"
