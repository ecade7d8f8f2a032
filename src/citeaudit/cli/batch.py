"""``citeaudit batch``: audit many answers (JSONL or Parquet) into a resumable directory."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from citeaudit.batch.engines import ENGINES
from citeaudit.batch.options import DEFAULT_PART_SIZE
from citeaudit.cli.common import (
    Parser,
    Progress,
    add_cache_option,
    add_corpus_option,
    add_fail_on_option,
    add_input_format_option,
    add_judge_options,
    add_mailto_option,
    add_min_quote_length_option,
    add_mirror_option,
    add_offline_option,
    add_severity_option,
    add_sources_option,
    add_store_options,
    effective_config,
    positive,
    refuse_report_name_for_directory,
    require_extra,
)
from citeaudit.errors import ConfigError

if TYPE_CHECKING:
    from citeaudit.batch.wiring import WorkerSpec
    from citeaudit.config import Config

__all__ = ["BATCH_WRITES_WHAT", "add_parser", "run"]

BATCH_WRITES_WHAT = (
    "batch --out DIR writes reports/part-NNNNN.jsonl, rejected.jsonl and summary.json into DIR; "
    "check --out FILE writes one JSON report"
)


def add_parser(commands: argparse._SubParsersAction[Parser]) -> None:
    batch = commands.add_parser(
        "batch",
        help="audit many answers (JSONL or Parquet) into a resumable output directory",
        description="Audit every answer of INPUT files into DIR: reports/part-NNNNN.jsonl, rejected.jsonl, "
        "summary.json. Run the same command again to finish an interrupted run. Exit codes as check's, "
        "by the worst answer; 2 also when some lines are not valid answers.",
    )
    batch.add_argument(
        "inputs", type=Path, nargs="+", metavar="INPUT", help="JSONL (.jsonl) or Parquet files"
    )
    batch.add_argument("--out", type=Path, required=True, metavar="DIR", help="the output directory")
    batch.add_argument("--engine", choices=ENGINES, default="local", help="where the audits run [local]")
    batch.add_argument(
        "--workers", type=positive, help="worker processes or Ray actors [the number of CPUs of this machine]"
    )
    batch.add_argument("--ray-address", help="an existing Ray cluster (with --engine ray) [a local Ray]")
    batch.add_argument(
        "--part-size",
        type=positive,
        default=DEFAULT_PART_SIZE,
        help=f"answers per output part; part of the run's identity [{DEFAULT_PART_SIZE}]",
    )
    batch.add_argument(
        "--fresh", action="store_true", help="replace a run of other inputs or settings in DIR"
    )
    add_input_format_option(batch)
    add_cache_option(batch)
    add_sources_option(batch)
    add_mirror_option(batch)
    add_corpus_option(batch)
    add_offline_option(batch)
    add_mailto_option(batch)
    add_min_quote_length_option(batch)
    add_severity_option(batch)
    add_judge_options(batch)
    add_fail_on_option(batch)
    add_store_options(batch)
    batch.set_defaults(func=run)


def _spec(config: Config) -> WorkerSpec:
    from citeaudit.batch.wiring import WorkerSpec

    if config.input_format == "bibtex":
        raise ConfigError("--input-format bibtex: batch reads JSONL or Parquet answers, not BibTeX")
    if bool(config.store) != bool(config.scope):
        raise ConfigError("--store and --scope go together: the store, and whose sources in it")
    return WorkerSpec(config)


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from citeaudit.batch.options import BatchOptions
    from citeaudit.batch.run import run_batch
    from citeaudit.parallel import available_cpus

    refuse_report_name_for_directory(args.out, "--out", BATCH_WRITES_WHAT)
    if args.engine == "ray":
        require_extra("ray", "batch --engine ray")
    if any(p.suffix.lower() in (".parquet", ".pq") for p in args.inputs):
        require_extra("parquet", "Parquet input")
    config = effective_config(args)
    options = BatchOptions(
        inputs=tuple(args.inputs),
        out=args.out,
        spec=_spec(config),
        engine=args.engine,
        workers=args.workers or available_cpus(),
        ray_address=args.ray_address,
        part_size=args.part_size,
        fresh=args.fresh,
    )
    outcome = run_batch(options, stderr, Progress("resolving DOIs", stderr))
    summary = outcome.summary
    decisions = " ".join(f"{k}={v}" for k, v in summary["totals"]["reports_by_decision"].items())
    print(
        f"answers={summary['answers']} rejected={summary['rejected']} parts={summary['parts']} "
        f"computed={outcome.computed} out={args.out}",
        file=stdout,
    )
    print(f"decisions {decisions or '-'} exit={summary['exit_code']}", file=stdout)
    return int(summary["exit_code"])
