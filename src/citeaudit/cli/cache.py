"""``citeaudit cache refresh``: re-resolve what the cache holds and re-fetch the pinned web pages,
and say what changed since they were pinned (retractions, corrected years or titles, a page gone, a
quote no longer on its page) — the one thing ``--offline`` cannot see. Files change only with
``--write``."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from citeaudit.cli.common import (
    EXIT_CLEAN,
    EXIT_ERRORS,
    EXIT_UNCHECKED,
    Parser,
    add_cache_option,
    add_config_option,
    add_mailto_option,
    add_sources_option,
    add_web_options,
    effective_config,
)

if TYPE_CHECKING:
    from citeaudit.resolve.interface import Resolution

__all__ = ["add_parser", "describe_change", "run"]


def add_parser(commands: argparse._SubParsersAction[Parser]) -> None:
    cache = commands.add_parser("cache", help="maintain the registry cache")
    actions = cache.add_subparsers(dest="action", required=True, parser_class=Parser)
    refresh = actions.add_parser(
        "refresh",
        help="re-resolve every cached DOI, re-fetch every pinned page, and print what changed",
        description="Exit 0: nothing changed; 1: something changed; 3: some DOIs or pages could not be "
        "looked up.",
    )
    add_cache_option(refresh)
    add_sources_option(refresh)
    add_mailto_option(refresh)
    add_web_options(refresh)
    refresh.add_argument(
        "--claims",
        type=Path,
        help="a claims file whose web citations' quotes are looked up in the old and the new text of "
        "their pages (a quote no longer on its page is named)",
    )
    refresh.add_argument(
        "--write", action="store_true", help="update the cache files and the pins with the new answers"
    )
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
    from citeaudit.resolve.cache import DoiCache
    from citeaudit.resolve.interface import ResolutionStatus
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
    pages_changed, pages_unchecked = _refresh_pins(args, config, stdout)
    changed += pages_changed
    unchecked += pages_unchecked
    if changed:
        return EXIT_ERRORS
    return EXIT_UNCHECKED if unchecked else EXIT_CLEAN


def _quotes_by_page(args: argparse.Namespace, config: Any) -> dict[str, list[tuple[str, str]]]:
    """(citation id, quote) of every web citation of ``--claims``, by normal URL."""
    if args.claims is None:
        return {}
    from citeaudit.formats import load_submission
    from citeaudit.identifiers import pin_key

    submission = load_submission(args.claims, max_bytes=config.max_input_bytes, max_depth=config.max_depth)
    out: dict[str, list[tuple[str, str]]] = {}
    for citation in [c for claim in submission.claims for c in claim.citations] + list(submission.citations):
        url = pin_key(citation.source)
        if url is not None and citation.quote is not None:
            out.setdefault(url, []).append((citation.id, citation.quote))
    return out


def _has(text: str | None, quote: str, min_length: int) -> bool:
    from citeaudit.checks.codes import FindingMaker
    from citeaudit.checks.quote import check_quote
    from citeaudit.locate import SourceText

    if text is None:
        return False
    return check_quote(quote, SourceText(text), min_length, FindingMaker())[1] is not None


def _refresh_pins(args: argparse.Namespace, config: Any, stdout: TextIO) -> tuple[int, int]:
    """Re-fetch every pinned page; one line per change, and per quote no longer on its page."""
    from citeaudit.sources.pins import PinDirectory, Pinner
    from citeaudit.wiring import build_fetcher

    directory = PinDirectory(config.sources)
    urls = directory.urls()
    if not urls:
        return 0, 0
    quotes = _quotes_by_page(args, config)
    outcomes = Pinner(directory, build_fetcher(config)).pin_many(urls, replace_changed=args.write)
    changed = unchecked = 0
    for url in urls:
        outcome = outcomes[url]
        if outcome.action == "failed":
            unchecked += 1
            print(f"{url}: could not check: {outcome.code}: {outcome.reason}", file=stdout)
            continue
        if outcome.previous is None or outcome.new is None:
            continue
        changed += 1
        old, new = outcome.previous, outcome.new
        for key in ("status", "text_sha256", "title", "final_url"):
            if getattr(old, key) != getattr(new, key):
                print(f"{url}: {key}: {getattr(old, key)!r} -> {getattr(new, key)!r}", file=stdout)
        for cid, quote in quotes.get(url, []):
            if _has(old.text, quote, config.min_quote_length) and not _has(
                new.text, quote, config.min_quote_length
            ):
                print(f"{url}: the quote of {cid} is no longer on the page: {quote[:80]!r}", file=stdout)
    print(
        f"pinned={len(urls)} changed={changed} could_not_check={unchecked} "
        f"written={changed if args.write else 0}",
        file=stdout,
    )
    return changed, unchecked
