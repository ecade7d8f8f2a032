"""``citeaudit batch``: audit many answers (JSONL or Parquet) into a resumable directory."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from citeaudit.batch import BatchOptions, WorkerSpec, run_batch
from citeaudit.batch.engines import ENGINES
from citeaudit.batch.run import DEFAULT_PART_SIZE
from citeaudit.cli.check import _severity_pair
from citeaudit.cli.common import Parser, Progress, add_store_options, positive
from citeaudit.config import FAIL_ON, Config, load_config
from citeaudit.parallel import available_cpus

__all__ = ["add_parser", "run"]


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
    batch.add_argument("--cache", type=Path, help="registry cache directory [CITEAUDIT_CACHE; ./cache]")
    batch.add_argument("--sources", type=Path, help="text snapshot directory [CITEAUDIT_SOURCES; ./sources]")
    batch.add_argument("--corpus", type=Path, help="corpus for document citations [CITEAUDIT_CORPUS]")
    batch.add_argument(
        "--offline",
        action="store_true",
        default=None,
        help="never touch the network; a cache miss is E_NOT_CACHED [CITEAUDIT_OFFLINE]",
    )
    batch.add_argument("--mailto", help="contact address for the registries' polite pools [CITEAUDIT_MAILTO]")
    batch.add_argument(
        "--min-quote-length",
        type=positive,
        help="shortest quote accepted, in normalised characters [CITEAUDIT_MIN_QUOTE_LENGTH; 30]",
    )
    batch.add_argument(
        "--severity",
        type=_severity_pair,
        action="append",
        default=[],
        metavar="CODE=LEVEL",
        help="change the severity of a finding code (error, warning, info); repeatable",
    )
    batch.add_argument("--judge", help="semantic judge, as for check [CITEAUDIT_JUDGE; rules]")
    batch.add_argument(
        "--verdict-cache", type=Path, help="directory of cached verdicts [CITEAUDIT_VERDICT_CACHE]"
    )
    batch.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        help="what the exit code follows, as for check [CITEAUDIT_FAIL_ON; error]",
    )
    add_store_options(batch)


def _effective(args: argparse.Namespace, config: Config) -> Config:
    names = ("cache", "sources", "corpus", "offline", "mailto", "min_quote_length", "judge", "verdict_cache",
             "fail_on", "store", "scope")  # fmt: skip
    changes: dict[str, object] = {n: getattr(args, n) for n in names if getattr(args, n) is not None}
    if args.severity:
        changes["severity"] = {**config.severity, **dict(args.severity)}
    return replace(config, **changes)  # type: ignore[arg-type]


def _spec(config: Config) -> WorkerSpec:
    if bool(config.store) != bool(config.scope):
        from citeaudit.errors import ConfigError

        raise ConfigError("--store and --scope go together: the store, and whose sources in it")
    return WorkerSpec(
        cache=str(config.cache),
        sources=str(config.sources),
        corpus=str(config.corpus) if config.corpus is not None else None,
        store=config.store,
        scope=config.scope,
        judge=config.judge,
        verdict_cache=str(config.verdict_cache) if config.verdict_cache is not None else None,
        offline=config.offline,
        min_quote_length=config.min_quote_length,
        severity=tuple(sorted(config.severity.items())),
        policy=config.policy,
        max_input_bytes=config.max_input_bytes,
        max_depth=config.max_depth,
        fail_on=config.fail_on,
    )


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    config = _effective(args, load_config(Path.cwd(), args.config))
    options = BatchOptions(
        inputs=tuple(args.inputs),
        out=args.out,
        spec=_spec(config),
        engine=args.engine,
        workers=args.workers or available_cpus(),
        ray_address=args.ray_address,
        part_size=args.part_size,
        fresh=args.fresh,
        mailto=config.mailto,
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
