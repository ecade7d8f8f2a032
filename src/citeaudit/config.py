"""Settings from a configuration file and the environment.

Precedence, strongest first: command-line flags, ``CITEAUDIT_*`` environment
variables, the configuration file (``citeaudit.toml``, else ``[tool.citeaudit]``
in ``pyproject.toml``, in the working directory, or ``--config FILE``), defaults.
Relative paths in a configuration file are relative to that file.
"""

from __future__ import annotations

import difflib
import os
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citeaudit.core import DEFAULT_MIN_QUOTE_LENGTH
from citeaudit.errors import ConfigError
from citeaudit.parallel import available_cpus
from citeaudit.policy import FAIL_ON, Policy
from citeaudit.util.jsonload import DEFAULT_MAX_BYTES, DEFAULT_MAX_DEPTH

__all__ = ["DEFAULT_INDEXES", "ENV_VARS", "FAIL_ON", "OTHER_ENV_VARS", "Config", "index_names", "load_config"]

# The online indexes a reference without an identifier is searched in, in this order, after the
# local mirrors (``[search] indexes`` changes it; an empty list searches the mirrors alone).
DEFAULT_INDEXES: tuple[str, ...] = ("crossref", "dblp", "arxiv", "openalex")


@dataclass(frozen=True)
class Config:
    cache: Path = Path("cache")
    sources: Path = Path("sources")
    out: Path = Path("report.json")
    mailto: str = ""
    offline: bool = False
    corpus: Path | None = None
    store: str | None = None  # a SQLite file or a postgresql:// URL
    scope: str | None = None  # TENANT/USER
    min_quote_length: int = DEFAULT_MIN_QUOTE_LENGTH
    max_input_bytes: int = DEFAULT_MAX_BYTES
    max_depth: int = DEFAULT_MAX_DEPTH
    jobs: int = field(default_factory=available_cpus)
    store_max_sources: int = 100_000  # per scope
    store_max_text_bytes: int = 64 * 1024 * 1024  # per revision
    max_document_bytes: int = 256 * 1024 * 1024  # a PDF/HTML/text file given to sources add or snapshot
    severity: Mapping[str, str] = field(default_factory=dict)
    judge: str = "rules"  # the semantic stage's judge spec; "none" skips the stage
    verdict_cache: Path | None = None  # default: <cache>/verdicts for the nli and llm judges
    reviews: bool = False  # apply the reviews recorded in the store
    fail_on: str = "error"  # "error": exit code follows deterministic findings; "decision": the decision
    policy: Policy = field(default_factory=Policy)  # only from a configuration file's [policy] table
    allow_private_urls: bool = False  # cited URLs may reach loopback, private, link-local addresses
    ignore_robots: bool = False  # fetch pages robots.txt disallows (for sites you own)
    full_text: bool = False  # fetch and pin the open full text a work's record names (arXiv, text mining)
    max_page_bytes: int = 16 * 1024 * 1024  # a fetched page over this is not read
    host_delay_ms: int = 1000  # between two requests to one web host (0: none)
    mirrors: tuple[Path, ...] = ()  # local mirrors of the bibliographic dumps, searched first
    indexes: tuple[str, ...] = DEFAULT_INDEXES  # online indexes, searched in order after them
    input_format: str = "auto"  # the format the input is read as ("auto": its suffix, then its content)
    origin: str = "defaults"  # where the file settings came from, for messages


# Setting name → environment variable; every flag of `check` has one.
ENV_VARS = {
    "cache": "CITEAUDIT_CACHE",
    "sources": "CITEAUDIT_SOURCES",
    "out": "CITEAUDIT_OUT",
    "mailto": "CITEAUDIT_MAILTO",
    "offline": "CITEAUDIT_OFFLINE",
    "min_quote_length": "CITEAUDIT_MIN_QUOTE_LENGTH",
    "max_input_bytes": "CITEAUDIT_MAX_INPUT_BYTES",
    "max_depth": "CITEAUDIT_MAX_DEPTH",
    "jobs": "CITEAUDIT_JOBS",
    "corpus": "CITEAUDIT_CORPUS",
    "store": "CITEAUDIT_STORE",
    "scope": "CITEAUDIT_SCOPE",
    "store_max_sources": "CITEAUDIT_STORE_MAX_SOURCES",
    "store_max_text_bytes": "CITEAUDIT_STORE_MAX_TEXT_BYTES",
    "max_document_bytes": "CITEAUDIT_MAX_DOCUMENT_BYTES",
    "judge": "CITEAUDIT_JUDGE",
    "verdict_cache": "CITEAUDIT_VERDICT_CACHE",
    "reviews": "CITEAUDIT_REVIEWS",
    "fail_on": "CITEAUDIT_FAIL_ON",
    "allow_private_urls": "CITEAUDIT_ALLOW_PRIVATE_URLS",
    "ignore_robots": "CITEAUDIT_IGNORE_ROBOTS",
    "full_text": "CITEAUDIT_FULL_TEXT",
    "max_page_bytes": "CITEAUDIT_MAX_PAGE_BYTES",
    "host_delay_ms": "CITEAUDIT_HOST_DELAY_MS",
    "mirrors": "CITEAUDIT_MIRROR",
    "indexes": "CITEAUDIT_INDEXES",
    "input_format": "CITEAUDIT_INPUT_FORMAT",
}
_PATHS = {"cache", "sources", "out", "corpus", "verdict_cache"}
_INTS = {
    "min_quote_length",
    "max_input_bytes",
    "max_depth",
    "jobs",
    "store_max_sources",
    "store_max_text_bytes",
    "max_document_bytes",
    "max_page_bytes",
}


def _find_file(cwd: Path) -> tuple[Path, dict[str, Any]] | None:
    own = cwd / "citeaudit.toml"
    if own.is_file():
        return own, _read_toml(own, own.name)
    project = cwd / "pyproject.toml"
    if project.is_file():
        table = _read_toml(project, project.name).get("tool", {}).get("citeaudit")
        if isinstance(table, dict):
            return project, table
    return None


def _read_toml(path: Path, shown: str | None = None) -> dict[str, Any]:
    shown = shown or str(path)
    try:
        return tomllib.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{shown}: no such configuration file") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"{shown}: not valid TOML: {e}") from None
    except ValueError:  # tomllib converts an integer of more digits than Python allows: its own words
        limit = sys.get_int_max_str_digits()
        raise ConfigError(f"{shown}: not valid TOML: a number with more than {limit} digits") from None


def _bool(value: str, where: str) -> bool:
    lowered = value.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off", ""}:
        return False
    raise ConfigError(f"{where}: {value!r} is not a boolean (true/false)")


def _int(value: Any, where: str) -> int:
    """A whole number from TOML, or digits from the environment; a float (3.5, 1e400) is refused,
    not truncated."""
    if type(value) is int:
        number = value
    elif isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        number = int(value)
    else:
        raise ConfigError(f"{where}: expected a positive integer, got {value!r}")
    if number < 1:
        raise ConfigError(f"{where}: expected a positive integer, got {value!r}")
    return number


def _path(value: Any, here: str, base: Path | None) -> Path:
    if not isinstance(value, str):
        raise ConfigError(f"{here}: expected a path string")
    if "\0" in value:  # the operating system cannot take it: every open would fail
        raise ConfigError(f"{here}: a path cannot contain a NUL character")
    path = Path(value)
    return base / path if base is not None and not path.is_absolute() else path


def _words(value: Any, here: str, separator: str) -> list[Any]:
    """A TOML list, or one string of items joined by ``separator`` (the environment's form)."""
    if isinstance(value, str):
        return [v.strip() for v in value.split(separator) if v.strip()]
    if not isinstance(value, list):
        raise ConfigError(f"{here}: expected a list")
    return value


def index_names(names: list[Any] | tuple[Any, ...], here: str) -> tuple[str, ...]:
    """Online index names as configured: each known, none twice."""
    for name in names:
        if name not in DEFAULT_INDEXES:
            known = ", ".join(DEFAULT_INDEXES)
            raise ConfigError(f"{here}: unknown online search index {name!r}: the online indexes are {known}")
    if len(set(names)) < len(names):
        raise ConfigError(f"{here}: an online search index is named twice")
    return tuple(names)


def _apply_search(values: dict[str, Any], table: Any, here: str, base: Path | None) -> None:
    """``[search]``: ``mirrors`` (paths) and ``indexes`` (online index names, in order)."""
    if not isinstance(table, dict):
        raise ConfigError(f"{here}: expected a table (mirrors, indexes)")
    for key, value in table.items():
        if key == "mirrors":
            values["mirrors"] = tuple(
                _path(v, f"{here}.mirrors", base) for v in _words(value, here, os.pathsep)
            )
        elif key == "indexes":
            names = _words(value, here, ",")
            if not all(isinstance(n, str) for n in names):
                raise ConfigError(f"{here}.indexes: expected a list of index names")
            values["indexes"] = index_names(names, here)
        else:
            raise ConfigError(f"{here}.{key}: unknown setting (mirrors, indexes)")


def _apply(values: dict[str, Any], table: Mapping[str, Any], where: str, base: Path | None) -> None:
    for key, value in table.items():
        name = key.replace("-", "_")
        here = where if where.startswith("CITEAUDIT_") else f"{where}: {key}"
        if name == "search":
            _apply_search(values, value, here, base)
        elif name == "mirrors":  # CITEAUDIT_MIRROR: paths joined as PATH is
            _apply_search(values, {"mirrors": value}, here, base)
        elif name == "indexes":  # CITEAUDIT_INDEXES: names joined by commas
            _apply_search(values, {"indexes": value}, here, base)
        elif name == "policy":
            if not isinstance(value, dict):
                keys = "unchecked, unknown, require_review, retrieved, accept_probability"
                raise ConfigError(f"{here}: expected a table ({keys})")
            values["policy"] = Policy.from_table(value, where)
        elif name == "severity":
            if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
                raise ConfigError(f'{here}: expected a table of CODE = "error|warning|info"')
            values["severity"] = {**values.get("severity", {}), **value}
        elif name in _PATHS:
            values[name] = _path(value, here, base)
        elif name in _INTS:
            values[name] = _int(value, here)
        elif name == "host_delay_ms":  # zero allowed: a local test server, a site you own
            values[name] = 0 if value in (0, "0") else _int(value, here)
        elif name in ("offline", "reviews", "allow_private_urls", "ignore_robots", "full_text"):
            values[name] = value if isinstance(value, bool) else _bool(str(value), here)
        elif name == "fail_on":
            if value not in FAIL_ON:
                raise ConfigError(f"{here}: expected one of {', '.join(FAIL_ON)}, got {value!r}")
            values[name] = value
        elif name == "store":
            if not isinstance(value, str):
                raise ConfigError(f"{here}: expected a path or a postgresql:// URL")
            if "\0" in value:
                raise ConfigError(f"{here}: a path cannot contain a NUL character")
            is_url = "://" in value or value.startswith("sqlite:")
            values[name] = value if is_url or base is None else str(base / value)
        elif name == "input_format":
            from citeaudit.formats.interface import INPUT_FORMAT_CHOICES

            if value not in INPUT_FORMAT_CHOICES:
                raise ConfigError(f"{here}: expected one of {', '.join(INPUT_FORMAT_CHOICES)}, got {value!r}")
            values[name] = value
        elif name in ("mailto", "scope", "judge"):
            if not isinstance(value, str):
                raise ConfigError(f"{here}: expected a string")
            values[name] = value
        else:
            raise ConfigError(f"{here}: unknown setting")


# Read elsewhere: the configuration file's path, the llm judge's key (semantic/llm.py) and the
# registry endpoints (resolve/registry.py).
OTHER_ENV_VARS = (
    "CITEAUDIT_CONFIG",
    "CITEAUDIT_LLM_API_KEY",
    "CITEAUDIT_CROSSREF_URL",
    "CITEAUDIT_DATACITE_URL",
    "CITEAUDIT_DOI_URL",
    "CITEAUDIT_ARXIV_URL",
    "CITEAUDIT_NCBI_URL",
    "CITEAUDIT_NCBI_IDCONV_URL",
    "CITEAUDIT_DBLP_URL",
    "CITEAUDIT_OPENALEX_URL",
)


def _refuse_unknown_variables(environ: Mapping[str, str]) -> None:
    """A mistyped variable would be ignored in silence (OFFLINE spelt OFLINE in CI went online)."""
    known = sorted({*ENV_VARS.values(), *OTHER_ENV_VARS})
    for var in sorted(v for v in environ if v.startswith("CITEAUDIT_") and v not in known):
        close = difflib.get_close_matches(var, known, n=1)
        raise ConfigError(f"{var}: unknown setting" + (f"; did you mean {close[0]}?" if close else ""))


def load_config(cwd: Path, explicit: Path | None = None, environ: Mapping[str, str] | None = None) -> Config:
    """Defaults, then the file, then the environment (flags are applied by the CLI)."""
    environ = os.environ if environ is None else environ
    _refuse_unknown_variables(environ)
    values: dict[str, Any] = {}
    origin = "defaults"
    explicit = explicit or (Path(environ["CITEAUDIT_CONFIG"]) if environ.get("CITEAUDIT_CONFIG") else None)
    if explicit is not None:
        data = _read_toml(explicit)
        table = data.get("tool", {}).get("citeaudit", {}) if explicit.name == "pyproject.toml" else data
        found: tuple[Path, dict[str, Any]] | None = (explicit, table)
    else:
        found = _find_file(cwd)
    if found is not None:
        path, table = found
        origin = path.name
        _apply(values, table, path.name, path.parent)
    for key, var in ENV_VARS.items():
        if environ.get(var) is not None:
            _apply(values, {key: environ[var]}, var, None)
    return Config(origin=origin, **values)
