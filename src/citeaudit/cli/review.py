"""``citeaudit review``: a person's verdict on one claim, recorded in the evidence store;
``citeaudit reviews``: the log of a report's reviews.

This is the only way a review enters citeaudit from the command line; the
audited input can never carry one (its unknown fields are input errors).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, TextIO

from citeaudit.cli.common import (
    EXIT_CLEAN,
    Parser,
    add_format_options,
    add_store_options,
    refuse_to_overwrite,
    store_and_scope,
)
from citeaudit.cli.render import emit
from citeaudit.errors import InputError
from citeaudit.model import Review
from citeaudit.policy import ReviewError, check_review

__all__ = ["add_parser", "run", "run_list"]

VERDICTS = ("supported", "insufficient", "contradicted")


def add_parser(commands: argparse._SubParsersAction[Parser]) -> None:
    cmd = commands.add_parser(
        "review",
        help="record a person's verdict on one claim of a report, bound to its exact submission",
        description="Record a review in the evidence store. `check --reviews` applies it to the same "
        "submission only; any change to the answer leaves it behind.",
    )
    cmd.add_argument("report", type=Path, help="a report.json written by citeaudit check")
    cmd.add_argument("--claim", required=True, help="the claim's id")
    cmd.add_argument("--verdict", required=True, choices=VERDICTS, help="what the reviewer found")
    cmd.add_argument("--note", required=True, help="why (at most 1,000 characters)")
    cmd.add_argument("--reviewer", required=True, help="who reviewed it")
    cmd.add_argument(
        "--input",
        type=Path,
        help="the claims file as it is now: the review is refused as stale if it is no longer "
        "the submission the report was made from",
    )
    add_store_options(cmd)
    cmd.set_defaults(func=run)

    log = commands.add_parser(
        "reviews",
        help="list the reviews recorded for a report's exact submission, oldest first",
        description="Every review of the submission the report was made from, in this scope's tenant; "
        "the latest per claim is the one `check --reviews` applies.",
    )
    log.add_argument("report", type=Path, help="a report.json written by citeaudit check")
    add_format_options(log, ["table", "json"], default="table")
    add_store_options(log)
    log.set_defaults(func=run_list)


def _submission_digest(path: Path, report: dict[str, Any]) -> str:
    digest = report.get("submission_sha256")
    if not isinstance(digest, str) or len(digest) != 64:
        raise InputError(str(path), "$.submission_sha256", "missing: the report predates reviews")
    return digest


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from citeaudit.config import load_config
    from citeaudit.report.read import load_report

    config = load_config(Path.cwd(), args.config)
    report = load_report(args.report)
    digest = _submission_digest(args.report, report)
    claim_ids = {c["id"] for c in report["claims"] if isinstance(c, dict) and isinstance(c.get("id"), str)}
    review = Review(digest, args.claim, args.verdict, args.note, args.reviewer)
    check_review(review, digest, claim_ids)
    if args.input is not None:
        from citeaudit.formats import load_submission

        current = load_submission(args.input, max_bytes=config.max_input_bytes, max_depth=config.max_depth)
        if current.digest != digest:
            raise ReviewError(
                f"review of claim {args.claim!r} is stale: {args.input} is no longer the submission "
                f"{digest[:12]}… the report was made from (now {current.digest[:12]}…); check it again first"
            )
    from citeaudit.store.evidence import Scope, open_store
    from citeaudit.store.reviews import ReviewBook

    target, scope_text = store_and_scope(config, args)
    record = ReviewBook(open_store(target)).record(Scope.parse(scope_text).tenant, review)
    shown = f"claim {args.claim} {args.verdict} by {args.reviewer} for submission {digest[:12]}…"
    print(f"review {record}: {shown}", file=stdout)
    return EXIT_CLEAN


def run_list(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from citeaudit.config import load_config
    from citeaudit.report.read import load_report

    refuse_to_overwrite(args.output, args.report)
    config = load_config(Path.cwd(), args.config)
    digest = _submission_digest(args.report, load_report(args.report))
    from citeaudit.store.evidence import Scope, open_store
    from citeaudit.store.reviews import ReviewBook

    target, scope_text = store_and_scope(config, args)
    log = ReviewBook(open_store(target)).log_for(Scope.parse(scope_text).tenant, digest)
    latest = {r.review.claim_id: r.id for r in log}
    if args.format == "json":
        entries = [
            {"applied": latest[r.review.claim_id] == r.id, "claim": r.review.claim_id, "id": r.id,
             "note": r.review.note, "recorded_at": r.recorded_at, "reviewer": r.review.reviewer,
             "verdict": r.review.verdict}
            for r in log
        ]  # fmt: skip
        text = json.dumps(entries, ensure_ascii=False, sort_keys=True, indent=2) + "\n"
    else:
        row = "{:<4} {:<21} {:<12} {:<13} {:<8} {:<16} {}"  # one line per review: a note's line breaks fold
        lines = [row.format("id", "recorded_at", "claim", "verdict", "applied", "reviewer", "note")]
        lines += [
            row.format(r.id, r.recorded_at, r.review.claim_id, r.review.verdict,
                       "yes" if latest[r.review.claim_id] == r.id else "no", r.review.reviewer,
                       " ".join(r.review.note.split()))
            for r in log
        ]  # fmt: skip
        text = "\n".join(lines) + "\n"
    emit(text.encode("utf-8"), args.output, stdout)
    return EXIT_CLEAN
