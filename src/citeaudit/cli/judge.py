"""``citeaudit judge train``: a model for the ``learned`` judge from labelled pairs
(public data sets, citeaudit's own JSONL, or the reviews in an evidence store)."""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path
from typing import Any, TextIO

from citeaudit.cli.common import (
    EXIT_CLEAN,
    Parser,
    add_scope_option,
    refuse_to_overwrite,
    require_extra,
    write_file,
)
from citeaudit.errors import ConfigError

__all__ = ["add_parser", "run"]


def _precision(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number between 0.5 and 1, got {value!r}") from None
    if not 0.5 <= number < 1.0:
        raise argparse.ArgumentTypeError(f"expected a number from 0.5 up to (not including) 1, got {value!r}")
    return number


def _features(value: str) -> tuple[str, ...]:
    names = tuple(v.strip() for v in value.split(",") if v.strip())
    if not names:
        raise argparse.ArgumentTypeError(f"expected feature names separated by commas, got {value!r}")
    return names


def add_parser(commands: argparse._SubParsersAction[Parser]) -> None:
    from citeaudit.semantic.datasets import DATASETS

    group = commands.add_parser("judge", help="train a model for the learned judge")
    sub = group.add_subparsers(dest="judge_command", required=True, parser_class=Parser)
    train = sub.add_parser(
        "train",
        help="fit a learned-judge model to labelled pairs and print its cross-validated figures",
        description="Train a model for --judge learned:MODEL.json. FILE may be written NAME=FILE to read "
        "it as another data set than --dataset names.",
    )
    train.add_argument("files", type=str, nargs="*", metavar="FILE", help="labelled pairs ([NAME=]FILE)")
    train.add_argument("--dataset", choices=sorted(DATASETS), help="how to read FILE")
    train.add_argument("--out", type=Path, required=True, help="the model file to write (JSON)")
    train.add_argument(
        "--target-precision",
        type=_precision,
        default=0.8,
        metavar="P",
        help="the Wilson lower bound of each verdict's precision on pairs not trained on must reach P "
        "(insufficient, and entailed unless --entailed-precision) [0.8]",
    )
    train.add_argument(
        "--entailed-precision",
        type=_precision,
        metavar="P",
        help="the same bound for entailed, the verdict an accept rests on [the larger of 0.85 and "
        "--target-precision]",
    )
    train.add_argument(
        "--passages",
        type=int,
        metavar="K",
        help="train on what the audit gives the judge for a citation with no quote: each pair's "
        "fragments taken as the cited texts, and their K best passages for the claim",
    )
    train.add_argument(
        "--encoder",
        action="store_true",
        help="add the sentence encoder's features (the encoder extra): the model reads meaning too, and "
        "needs the extra wherever it is used",
    )
    train.add_argument(
        "--without",
        type=_features,
        default=(),
        metavar="FEATURE,…",
        help="features held at weight 0 (to measure what each adds, or to leave the encoder's features "
        "that add nothing uncomputed)",
    )
    train.add_argument("--from-reviews", metavar="STORE", help="also learn from the reviews in this store")
    add_scope_option(train)  # with --from-reviews: the tenant whose reviews are read
    train.add_argument(
        "--reports",
        type=Path,
        nargs="+",
        default=[],
        metavar="REPORT",
        help="the report.json files the reviews were made on (with --from-reviews)",
    )
    train.set_defaults(func=run)


def _sets(args: argparse.Namespace) -> list[Any]:
    from citeaudit.semantic.datasets import DATASETS, load_pairs
    from citeaudit.semantic.training import TrainingSet

    sets: list[TrainingSet] = []
    for given in args.files:
        name, eq, rest = given.partition("=")
        dataset, file = (name, Path(rest)) if eq and name in DATASETS else (args.dataset, Path(given))
        if dataset is None:
            raise ConfigError(f"{given}: give --dataset NAME or write the file as NAME=FILE")
        pairs = load_pairs(dataset, file)
        data = file.read_bytes()
        record = {"dataset": dataset, "file": file.name, "bytes": len(data), "pairs": len(pairs),
                  "sha256": hashlib.sha256(data).hexdigest()}  # fmt: skip
        if args.passages is not None:
            pairs = _as_retrieved(pairs, args.passages)
            record["passages"] = args.passages
        sets.append(TrainingSet(dataset, tuple(pairs), record))
    if args.from_reviews:
        from citeaudit.config import load_config

        scope = args.scope or load_config(Path.cwd()).scope
        if not scope:
            raise ConfigError("--from-reviews needs --scope TENANT/USER")
        if not args.reports:
            raise ConfigError(
                "--from-reviews needs --reports: the report.json files the reviews were made on"
            )
        from citeaudit.semantic.reviewed import reviewed_pairs

        reviewed, record = reviewed_pairs(args.from_reviews, scope, args.reports)
        if not reviewed:
            raise ConfigError(
                f"{args.from_reviews}: no reviewed claim of these reports that a judge would see"
            )
        sets.append(TrainingSet("reviews", tuple(reviewed), record))
    elif args.scope or args.reports:
        raise ConfigError("--scope and --reports go with --from-reviews")
    if not sets:
        raise ConfigError("nothing to train on: give labelled FILEs or --from-reviews")
    return sets


def _as_retrieved(pairs: list[Any], k: int) -> list[Any]:
    """Each pair read as the audit reads a quote-less citation: its fragments' K best passages."""
    from dataclasses import replace

    from citeaudit.semantic.stage import as_retrieved

    if k < 1:
        raise ConfigError(f"--passages {k}: expected a number of passages of at least 1")
    return [replace(p, fragments=as_retrieved(p.claim, p.fragments, k)) for p in pairs]


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _table(document: dict[str, Any]) -> str:
    cv = document["cross_validation"]
    training = document["training"]
    lines = [
        "cross-validated on pairs not trained on "
        f"({training['folds']} folds, nested; target precision {training['target_precision']}, "
        f"entailed {training['entailed_precision']}):",
        f"{'set':<18} {'pairs':>6} {'bal.acc':>8} {'coverage':>9} {'entailed':>9} {'not sup.':>9} "
        f"{'insuff.':>9} {'sup.recall':>10}",
    ]
    for name in ["all", *sorted(k for k in cv if k != "all")]:
        f = cv[name]
        band = f["band"]
        lines.append(
            f"{name:<18} {f['pairs']:>6} {_pct(f['no_abstain']['balanced_accuracy']):>8} "
            f"{_pct(band['coverage']):>9} {_pct(band['precision']['entailed']):>9} "
            f"{_pct(band['precision_supported_vs_not']['not_entailed']):>9} "
            f"{_pct(band['precision']['insufficient']):>9} {_pct(band['supported_recall']):>10}"
        )
    t = document["thresholds"]
    lines.append(
        "bal.acc: supported vs not with the band off (--no-abstain); entailed: share supported when it says "
        "so; not sup. / insuff.: share of its insufficient verdicts that are not supported / labelled "
        "insufficient (contradicted counted wrong); thresholds: "
        f"entailed at p >= {t['entailed']:.4f}, insufficient at p <= {t['insufficient']:.4f}"
    )
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    require_extra("train", "judge train")
    from citeaudit.semantic.learned import model_bytes
    from citeaudit.semantic.training import train_model

    inputs = [Path(f.partition("=")[2] or f) for f in args.files] + list(args.reports)
    refuse_to_overwrite(args.out, *inputs)
    document = train_model(
        _sets(args),
        target_precision=args.target_precision,
        entailed_precision=args.entailed_precision,
        encoder_features=args.encoder,
        without=args.without,
    )
    write_file(args.out, model_bytes(document))
    stdout.write(_table(document))
    stdout.write(f"model={args.out} sha256={hashlib.sha256(model_bytes(document)).hexdigest()}\n")
    return EXIT_CLEAN
