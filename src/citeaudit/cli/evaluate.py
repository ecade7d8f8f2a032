"""``citeaudit eval``: measure a judge on a labelled public benchmark."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TextIO

from citeaudit.cli.common import EXIT_CLEAN, Parser, add_judge_options, refuse_to_overwrite, write_file
from citeaudit.errors import ConfigError

__all__ = ["add_parser", "run"]


def add_parser(commands: argparse._SubParsersAction[Parser]) -> None:
    from citeaudit.semantic.datasets import DATASETS

    parser = commands.add_parser("eval", help="measure a semantic judge on a labelled dataset")
    parser.add_argument("file", type=Path, help="the dataset's JSONL file")
    parser.add_argument("--dataset", required=True, choices=sorted(DATASETS), help="how to read FILE")
    add_judge_options(parser, configured=False)
    parser.add_argument("--out", type=Path, help="also write the JSON result here")
    parser.add_argument(
        "--no-abstain",
        action="store_true",
        help="switch the abstention band off: every verdict on its likelier side (learned judges only)",
    )
    parser.add_argument(
        "--probes",
        action="store_true",
        help="also edit each claim to make it wrong (negated, a name replaced or swapped, a number "
        "changed) and report per edit how often an entailed verdict survives",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from citeaudit.semantic import make_judge
    from citeaudit.semantic.datasets import load_pairs
    from citeaudit.semantic.evaluate import evaluate

    refuse_to_overwrite(args.out, args.file)
    judge = make_judge(args.judge, args.verdict_cache)
    if args.no_abstain:
        without = getattr(judge, "without_abstention", None)
        if without is None:
            raise ConfigError(
                f"--no-abstain needs a judge with a probability of support (learned), not {args.judge!r}"
            )
        judge = without()
    pairs = load_pairs(args.dataset, args.file)
    result = {"dataset": args.dataset, **evaluate(judge, pairs)}
    if args.probes:
        from citeaudit.semantic.probes import probe

        result["probes"] = probe(judge, pairs)
        without = getattr(judge, "without_vetoes", None)
        if without is not None:  # what the vetoes change: the same model on its probability alone
            result["probes_without_vetoes"] = probe(without(), pairs)
    text = json.dumps(result, indent=2, ensure_ascii=False) + "\n"
    if args.out is not None:
        write_file(args.out, text.encode("utf-8"))
    stdout.write(text)
    return EXIT_CLEAN
