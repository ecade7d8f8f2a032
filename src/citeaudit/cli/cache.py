"""``citeaudit cache refresh``: re-resolve what the cache holds and say what
changed since it was pinned (retractions, corrected years or titles) — the
one thing ``--offline`` cannot see. Files change only with ``--write``."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from citeaudit.cli.common import (
    EXIT_CLEAN,
    EXIT_ERRORS,
    EXIT_UNCHECKED,
    Parser,
    add_cache_option,
    add_config_option,
    add_mailto_option,
    effective_config,
)
from citeaudit.resolve.cache import DoiCache
from citeaudit.resolve.interface import Resolution, ResolutionStatus

__all__ = ["add_parser", "describe_change", "run"]


def add_parser(commands: argparse._SubParsersAction[Parser]) -> None:
    cache = commands.add_parser("cache", help="maintain the registry cache")
    actions = cache.add_subparsers(dest="action", required=True, parser_class=Parser)
    refresh = actions.add_parser(
        "refresh",
        help="re-resolve every cached DOI and print what changed",
        description="Exit 0: nothing changed; 1: something changed; 3: some DOIs could not be looked up.",
    )
    add_cache_option(refresh)
    add_mailto_option(refresh)
    refresh.add_argument("--write", action="store_true", help="update the cache files with the new answers")
    add_config_option(refresh)
    refresh.set_defaults(func=run)


def _view(answer: Resolution) -> dict[str, Any]:
    if answer.record is None:
        return {"status": answer.status.value}
    r = answer.record
    return {
        "status": answer.status.value,
        "titles": list(r.titles) + list(r.subtitles),
        "years": sorted(r.year_values),
        "authors": [a.family or a.name for a in r.authors],
        "relations": sorted(f"{x.relation}:{x.type or ''}:{x.doi or ''}" for x in r.relations),
    }


def describe_change(doi: str, old: Resolution, new: Resolution) -> list[str]:
    """One line per field that differs between the pinned and the current answer."""
    before, after = _view(old), _view(new)
    lines = []
    for key in ("status", "titles", "years", "authors", "relations"):
        if before.get(key) != after.get(key):
            lines.append(f"{doi}: {key}: {before.get(key)!r} -> {after.get(key)!r}")
    return lines


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from citeaudit.resolve.registry import RegistryResolver

    config = effective_config(args)
    cache = DoiCache(config.cache)
    dois = cache.dois()
    pinned = {doi: cache.get(doi) for doi in dois}
    current = RegistryResolver(cache, mailto=config.mailto).resolve_many(dois)
    changed = unchecked = 0
    for doi in dois:
        old, new = pinned[doi], current[doi]
        if new.status is ResolutionStatus.UNAVAILABLE:
            unchecked += 1
            print(f"{doi}: could not check: {new.reason}", file=stdout)
            continue
        if old is None:
            continue
        lines = describe_change(doi, old, new)
        if lines:
            changed += 1
            print("\n".join(lines), file=stdout)
            if args.write:
                cache.put(doi, new)
    print(
        f"cached={len(dois)} changed={changed} could_not_check={unchecked} "
        f"written={changed if args.write else 0}",
        file=stdout,
    )
    if changed:
        return EXIT_ERRORS
    return EXIT_UNCHECKED if unchecked else EXIT_CLEAN
