"""What every command shares: exit codes, the parser class, argument types,
store options, and output helpers."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any, TextIO

from citeaudit.config import Config
from citeaudit.errors import ConfigError
from citeaudit.resolve.cache import atomic_write

__all__ = [
    "EXIT_CLEAN",
    "EXIT_ERRORS",
    "EXIT_INTERNAL",
    "EXIT_UNCHECKED",
    "EXIT_USAGE",
    "Parser",
    "Progress",
    "add_store_options",
    "positive",
    "print_json",
    "refuse_to_overwrite",
    "write_file",
]

EXIT_CLEAN = 0
EXIT_ERRORS = 1
EXIT_USAGE = 2
EXIT_UNCHECKED = 3
EXIT_INTERNAL = 4


class Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so main() owns every exit."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise ConfigError(f"usage: {message} (see '{self.prog} --help')")


def positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value!r}")
    return number


def add_store_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--store", help="evidence store: a SQLite file or a postgresql:// URL [CITEAUDIT_STORE]"
    )
    parser.add_argument("--scope", help="TENANT/USER whose sources are used [CITEAUDIT_SCOPE]")
    parser.add_argument("--config", type=Path, help="configuration file [CITEAUDIT_CONFIG]")


def store_and_scope(config: Config, args: argparse.Namespace) -> tuple[str, str]:
    store = getattr(args, "store", None) or config.store
    scope = getattr(args, "scope", None) or config.scope
    if not store:
        raise ConfigError("no evidence store: give --store (a SQLite file or a postgresql:// URL)")
    if not scope:
        raise ConfigError("no scope: give --scope TENANT/USER")
    return store, scope


class Progress:
    """A one-line counter on stderr, only on a terminal and for more than a handful of items."""

    def __init__(self, label: str, stream: TextIO, minimum: int = 10) -> None:
        self.label = label
        self.stream = stream
        self.minimum = minimum
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        if total <= self.minimum or not self.stream.isatty():
            return
        self.shown = True
        end = "\n" if done >= total else ""
        print(f"\r{self.label}: {done}/{total}", end=end, file=self.stream, flush=True)


def print_json(value: Any, out: TextIO) -> None:
    print(json.dumps(value, ensure_ascii=False, sort_keys=True, indent=2), file=out)


def refuse_to_overwrite(target: Path | None, *inputs: Path | None) -> None:
    """Stop before a command writes over one of its own inputs (``--out claims.json`` replaced
    the answer being audited with its report; ``render r.json --output r.json`` the report)."""
    if target is None or str(target) == "-" or not target.exists():
        return
    for source in inputs:
        if source is None or str(source) == "-" or not source.exists():
            continue
        try:
            same = os.path.samefile(target, source)
        except OSError:
            continue
        if same:
            raise ConfigError(f"{target}: that is the input {source}; writing there would destroy it")


def write_file(path: Path, data: bytes) -> None:
    try:
        atomic_write(path, data)
    except OSError as e:
        raise ConfigError(f"{path}: cannot write: {e.strerror}") from None
