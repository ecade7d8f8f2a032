"""``citeaudit fetch``: fill the cache from the registries and do nothing else
(the explicit "fill the cache, then commit it" step of seed 000)."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from citeaudit.cli.common import (
    EXIT_CLEAN,
    EXIT_UNCHECKED,
    Parser,
    Progress,
    add_cache_option,
    add_config_option,
    add_mailto_option,
    effective_config,
)
from citeaudit.formats import load_submission
from citeaudit.identifiers import resolver_key
from citeaudit.resolve.interface import ResolutionStatus
from citeaudit.wiring import build_resolver

__all__ = ["add_parser", "run"]


def add_parser(commands: argparse._SubParsersAction[Parser]) -> None:
    fetch = commands.add_parser(
        "fetch",
        help="resolve every DOI of a claims file into the cache (then commit the cache)",
        description="Exit 0 when every DOI got a final answer, 3 when some could not be looked up.",
    )
    fetch.add_argument("claims", type=Path, help="the claims file (JSON)")
    add_cache_option(fetch)
    add_mailto_option(fetch)
    add_config_option(fetch)
    fetch.set_defaults(func=run)


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    config = replace(effective_config(args), offline=False)  # fetching is going online
    submission = load_submission(args.claims, max_bytes=config.max_input_bytes, max_depth=config.max_depth)
    citations = [c for claim in submission.claims for c in claim.citations] + list(submission.citations)
    dois = sorted({key for c in citations if (key := resolver_key(c.source)) is not None})
    answers = build_resolver(config, Progress("resolving DOIs", stderr)).resolve_many(dois)
    counts = dict.fromkeys(ResolutionStatus, 0)
    for answer in answers.values():
        counts[answer.status] += 1
    print(
        f"dois={len(dois)} found={counts[ResolutionStatus.FOUND]} "
        f"not_found={counts[ResolutionStatus.NOT_FOUND]} "
        f"could_not_check={counts[ResolutionStatus.UNAVAILABLE]} cache={config.cache}",
        file=stdout,
    )
    return EXIT_UNCHECKED if counts[ResolutionStatus.UNAVAILABLE] else EXIT_CLEAN
