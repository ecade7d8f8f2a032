"""What every command shares: exit codes, the parser class, argument types,
the options several commands take (each defined once, with one help text),
the configuration they make, and output helpers."""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from citeaudit.errors import ConfigError
from citeaudit.model import Severity
from citeaudit.policy import FAIL_ON
from citeaudit.semantic.factory import JUDGE_SPECS

if TYPE_CHECKING:
    from citeaudit.config import Config
    from citeaudit.formats import InputFormat

__all__ = [
    "EXIT_CLEAN",
    "EXIT_ERRORS",
    "EXIT_INTERNAL",
    "EXIT_UNCHECKED",
    "EXIT_USAGE",
    "Command",
    "Parser",
    "Progress",
    "add_cache_option",
    "add_config_option",
    "add_corpus_option",
    "add_fail_on_option",
    "add_format_options",
    "add_full_text_option",
    "add_input_format_option",
    "add_judge_option",
    "add_judge_options",
    "add_mailto_option",
    "add_min_quote_length_option",
    "add_mirror_option",
    "add_offline_option",
    "add_severity_option",
    "add_sources_option",
    "add_store_option",
    "add_store_options",
    "add_verdict_cache_option",
    "add_web_options",
    "check_outputs",
    "effective_config",
    "input_format",
    "positive",
    "print_json",
    "refuse_mismatched_extension",
    "refuse_report_name_for_directory",
    "refuse_to_overwrite",
    "require_extra",
    "severity_pair",
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


# The modules each extra of the package installs that a command needs (pyproject.toml's
# [project.optional-dependencies]); one missing: the extra is not installed.
EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "documents": ("pypdf", "trafilatura"),
    "web": ("protego", "pypdf", "trafilatura"),
    "mirror": ("lxml",),
    "mcp": ("mcp", "mcp_types"),
    "service": ("fastapi", "uvicorn"),
    "postgres": ("psycopg",),
    "nli": ("transformers", "torch"),
    "train": ("numpy", "scipy", "threadpoolctl"),
    "parquet": ("pyarrow",),
    "ray": ("ray", "pyarrow"),
}


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def require_extra(extra: str, what: str) -> None:
    """Stop with exit 2 naming the extra when ``what`` (a command, a file type) needs one that is
    not installed; called before the command opens, creates or changes any file."""
    missing = [m for m in EXTRA_MODULES[extra] if not _installed(m)]
    if missing:
        raise ConfigError(
            f"{what} needs the {extra} extra ({', '.join(missing)} not installed): "
            f"pip install 'citeaudit[{extra}]'"
        )


def positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value!r}")
    return number


# What a command's ``set_defaults(func=...)`` names: it gets the arguments and both streams.
Command = Callable[[argparse.Namespace, TextIO, TextIO], int]


def add_config_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, help="configuration file [CITEAUDIT_CONFIG]")


def add_store_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--store", help="evidence store: a SQLite file or a postgresql:// URL [CITEAUDIT_STORE]"
    )


def add_scope_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scope", help="TENANT/USER whose sources are used [CITEAUDIT_SCOPE]")


def add_store_options(parser: argparse.ArgumentParser) -> None:
    """--store, --scope and --config."""
    add_store_option(parser)
    add_scope_option(parser)
    add_config_option(parser)


def add_cache_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cache", type=Path, help="registry cache directory [CITEAUDIT_CACHE; ./cache]")


def add_sources_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sources", type=Path, help="text snapshot directory [CITEAUDIT_SOURCES; ./sources]")


def add_mirror_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--mirror",
        dest="mirrors",
        type=Path,
        action="append",
        metavar="PATH",
        help="a local mirror of the bibliographic dumps (`citeaudit mirror import`), searched first for "
        "references without an identifier; repeat for several [CITEAUDIT_MIRROR; [search] mirrors]",
    )
    parser.add_argument(
        "--indexes",
        type=_index_names,
        metavar="NAMES",
        help="the online indexes searched after the mirrors, in order, comma-separated (crossref, dblp, "
        'arxiv, openalex; "" for none) [CITEAUDIT_INDEXES; [search] indexes; all four]',
    )


def _index_names(value: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in value.split(",") if v.strip())


# citeaudit.formats.INPUT_FORMAT_CHOICES, without importing the formats for --help (a test holds
# the two equal).
INPUT_FORMATS = ("auto", "native", "seed-000", "seed-002", "seed-003", "bibtex", "markdown-report")


def add_input_format_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--input-format",
        choices=INPUT_FORMATS,
        help="read the input as this format instead of detecting it (auto: .bib and .md by their "
        "suffix, then by the content) [CITEAUDIT_INPUT_FORMAT; auto]",
    )


def input_format(config: Config) -> InputFormat | None:
    """The format the configuration forces the input to be read as; None: detected."""
    from citeaudit.formats import input_format_of

    return input_format_of(config.input_format)


def add_corpus_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--corpus",
        type=Path,
        help="corpus for document citations: documents.json, a .jsonl file or a directory with "
        "manifest.json [CITEAUDIT_CORPUS]",
    )


def add_mailto_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--mailto", help="contact address for the registries' polite pools [CITEAUDIT_MAILTO]"
    )


def add_offline_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--offline",
        action="store_true",
        default=None,
        help="never touch the network; a cache miss is E_NOT_CACHED [CITEAUDIT_OFFLINE]",
    )


def add_min_quote_length_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--min-quote-length",
        type=positive,
        help="shortest quote accepted, in normalised characters [CITEAUDIT_MIN_QUOTE_LENGTH; 30]",
    )


def severity_pair(value: str) -> tuple[str, str]:
    code, sep, level = value.partition("=")
    if not sep or not code or not level:
        raise argparse.ArgumentTypeError(f"expected CODE=LEVEL, got {value!r}")
    return code.strip(), level.strip()


def add_severity_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--severity",
        type=severity_pair,
        action="append",
        default=[],
        metavar="CODE=LEVEL",
        help=f"change the severity of a finding code ({', '.join(s.value for s in Severity)}); repeatable",
    )


def add_fail_on_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        help="what the exit code follows: deterministic findings (error) or the decision "
        "[CITEAUDIT_FAIL_ON; error]",
    )


def add_web_options(parser: argparse.ArgumentParser) -> None:
    """--allow-private-urls and --ignore-robots: how cited web pages may be fetched."""
    parser.add_argument(
        "--allow-private-urls",
        action="store_true",
        default=None,
        help="let cited URLs reach loopback, private, link-local and multicast addresses "
        "(an intranet, a test server) [CITEAUDIT_ALLOW_PRIVATE_URLS]",
    )
    parser.add_argument(
        "--ignore-robots",
        action="store_true",
        default=None,
        help="fetch pages the site's robots.txt disallows (for sites you own) [CITEAUDIT_IGNORE_ROBOTS]",
    )


def add_full_text_option(parser: argparse.ArgumentParser) -> None:
    """--full-text: what a command going online may fetch beyond the registries' answers."""
    parser.add_argument(
        "--full-text",
        action="store_true",
        default=None,
        help="also fetch and pin the open full text a cited work's record names (its arXiv PDF, "
        "Crossref's text-mining links), for citations with no quote [CITEAUDIT_FULL_TEXT]",
    )


JUDGE_HELP = "semantic judge: " + " | ".join(JUDGE_SPECS.values())


def add_judge_option(parser: argparse.ArgumentParser, *, configured: bool = True) -> None:
    """--judge; ``configured``: it has a setting and an environment variable (``eval`` has neither)."""
    if configured:
        parser.add_argument("--judge", help=f"{JUDGE_HELP} [CITEAUDIT_JUDGE; rules]")
    else:
        parser.add_argument("--judge", default="rules", help=f"{JUDGE_HELP} [rules]")


def add_verdict_cache_option(parser: argparse.ArgumentParser, *, configured: bool = True) -> None:
    default = " [CITEAUDIT_VERDICT_CACHE; CACHE/verdicts for nli and llm]" if configured else ""
    parser.add_argument(
        "--verdict-cache", type=Path, metavar="DIR", help=f"directory of cached verdicts{default}"
    )


def add_judge_options(parser: argparse.ArgumentParser, *, configured: bool = True) -> None:
    """--judge and --verdict-cache."""
    add_judge_option(parser, configured=configured)
    add_verdict_cache_option(parser, configured=configured)


def add_format_options(
    parser: argparse.ArgumentParser,
    choices: Iterable[str],
    *,
    default: str | None = None,
    required: bool = False,
    help: str = "output format",
) -> None:
    """--format (from the table of formats the command renders) and --output."""
    names = list(choices)
    shown = f"{help} [{default}]" if default is not None else help
    parser.add_argument("--format", choices=names, default=default, required=required, help=shown)
    parser.add_argument("--output", type=Path, help="file to write [standard output]")


# The settings a flag of the same name overrides (flags win over the environment and the file).
_FLAG_SETTINGS = (
    "cache",
    "sources",
    "out",
    "mailto",
    "offline",
    "min_quote_length",
    "jobs",
    "corpus",
    "store",
    "scope",
    "judge",
    "verdict_cache",
    "reviews",
    "fail_on",
    "allow_private_urls",
    "ignore_robots",
    "full_text",
    "input_format",
)


def effective_config(args: argparse.Namespace, cwd: Path | None = None) -> Config:
    """The configuration file and the environment (``load_config``), then the command's flags."""
    from citeaudit.config import index_names, load_config  # the audit's modules: not for --help

    config = load_config(cwd or Path.cwd(), getattr(args, "config", None))
    changes: dict[str, object] = {
        name: value for name in _FLAG_SETTINGS if (value := getattr(args, name, None)) is not None
    }
    if getattr(args, "severity", None):
        changes["severity"] = {**config.severity, **dict(args.severity)}
    if getattr(args, "mirrors", None):
        changes["mirrors"] = tuple(args.mirrors)
    if getattr(args, "indexes", None) is not None:
        changes["indexes"] = index_names(args.indexes, "--indexes")
    config = replace(config, **changes)  # type: ignore[arg-type]
    if config.judge and _NLI_SPEC.search(config.judge):
        require_extra("nli", "the nli judge")
    if config.store and config.store.startswith("postgres"):
        require_extra("postgres", "an evidence store on PostgreSQL")
    return config


_NLI_SPEC = re.compile(r"(?:^|[^\w-])nli:")


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


# What a file's extension names: a file named so holds that format and no other.
_EXTENSION_FORMATS = {
    ".json": "json",
    ".md": "md",
    ".markdown": "md",
    ".sarif": "sarif",
    ".xml": "junit",
    ".junit": "junit",
    ".html": "html",
    ".htm": "html",
}
_FORMAT_NAMES = {
    "json": "JSON",
    "md": "Markdown",
    "sarif": "SARIF",
    "junit": "JUnit XML",
    "html": "HTML",
    "table": "a text table",  # citeaudit stats
    "prometheus": "Prometheus text",
}
WHICH_FLAG_WRITES_WHAT = (
    "--out FILE writes the JSON report; --format FORMAT --output FILE writes the report rendered "
    "as md, sarif, junit or html"
)


def refuse_mismatched_extension(
    path: Path | None, fmt: str, flag: str, hint: str = WHICH_FLAG_WRITES_WHAT
) -> None:
    """Stop before ``flag`` writes ``fmt`` into a file whose extension names another format
    (``--format html --out report.html`` wrote the JSON report into report.html). SARIF is JSON:
    ``.sarif.json`` and ``.json`` are SARIF's names too."""
    if path is None or str(path) == "-":
        return
    named = _EXTENSION_FORMATS.get(path.suffix.lower())
    if named is None or named == fmt or (fmt == "sarif" and named == "json"):
        return
    raise ConfigError(
        f"{flag} {path}: {path.suffix} names {_FORMAT_NAMES[named]}, but {flag} writes "
        f"{_FORMAT_NAMES.get(fmt, fmt)} there ({hint})"
    )


def refuse_report_name_for_directory(path: Path, flag: str, hint: str) -> None:
    """Stop before ``flag`` makes a directory named like one report file (``batch --out
    report.json`` made a directory report.json). A directory already there is a run to resume."""
    named = _EXTENSION_FORMATS.get(path.suffix.lower())
    if named is None or path.is_dir():
        return
    raise ConfigError(
        f"{flag} {path}: {path.suffix} names {_FORMAT_NAMES[named]}, but {flag} is a directory ({hint})"
    )


def straight_through(path: Path | None) -> bool:
    """Whether ``path`` is written straight through (a device, a FIFO): a failure is known only by
    writing, so such outputs are written before the files that are replaced."""
    from citeaudit.util.atomic import output_target

    if path is None or str(path) == "-":
        return False
    try:
        return not output_target(path)[1]
    except OSError:
        return False


def check_outputs(*paths: Path | None) -> None:
    """Before a command writes anything: every file it will write can be written (``-`` and
    None are standard output). A command with two outputs writes neither when one would fail."""
    from citeaudit.util.atomic import check_writable

    for path in paths:
        if path is None or str(path) == "-":
            continue
        try:
            check_writable(path)
        except OSError as e:
            raise ConfigError(f"{path}: cannot write: {e.strerror}") from None


def write_file(path: Path, data: bytes) -> None:
    """A file the user named: atomically when it is a regular file (a symlink's target is
    replaced, the link kept) or new; straight through to a FIFO, a device, ``/dev/stdout``."""
    from citeaudit.util.atomic import write_output

    try:
        write_output(path, data)
    except OSError as e:
        raise ConfigError(f"{path}: cannot write: {e.strerror}") from None
