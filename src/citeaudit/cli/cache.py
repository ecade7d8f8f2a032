"""``citeaudit cache refresh``: re-resolve what the cache holds and re-fetch the pinned web pages,
and say what changed since they were pinned (retractions, corrected years or titles, a page gone, a
quote no longer on its page) — the one thing ``--offline`` cannot see. Files change only with
``--write``.

``citeaudit cache manifest``: record the digest of every entry of the cache and the snapshot
directory as they are now (``MANIFEST.json`` in each, :mod:`citeaudit.util.manifest`).
``citeaudit cache verify``: every entry against its recorded digest, then (unless ``--offline``)
every cached DOI re-resolved and compared with its entry — what a pull request that edited an entry
and its manifest line together cannot hide."""

from __future__ import annotations

import argparse
import tempfile
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
    add_offline_option,
    add_sources_option,
    add_web_options,
    effective_config,
)
from citeaudit.errors import ConfigError

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
    manifest = actions.add_parser(
        "manifest",
        help="record the digest of every cache entry, snapshot and pin as they are now (MANIFEST.json)",
        description="Writes MANIFEST.json in the cache and in the snapshot directory. Exit 0; 1 when "
        "some file could not be read (a link, a FIFO, over the bound): it stays untrusted.",
    )
    add_cache_option(manifest)
    add_sources_option(manifest)
    add_config_option(manifest)
    manifest.set_defaults(func=run_manifest)
    verify = actions.add_parser(
        "verify",
        help="check every cache entry, snapshot and pin against MANIFEST.json, then re-resolve every "
        "cached DOI online and list what differs",
        description="Exit 0: every entry is the one recorded and (online) what the registry says; 1: "
        "something differs; 3: no manifest to check against, or some DOIs could not be looked up.",
    )
    add_cache_option(verify)
    add_sources_option(verify)
    add_mailto_option(verify)
    add_offline_option(verify)
    add_config_option(verify)
    verify.set_defaults(func=run_verify)


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


def _roots(config: Any) -> list[Path]:
    """The cache and the snapshot directory, once each (they may be one directory)."""
    roots: list[Path] = []
    for root in (config.cache, config.sources):
        if not any(_same(root, seen) for seen in roots):
            roots.append(root)
    return roots


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return a == b


def run_manifest(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from citeaudit.util.manifest import Manifest, ManifestError

    config = effective_config(args)
    skipped = 0
    for root in _roots(config):
        if not root.is_dir():
            print(f"{root}: no such directory, nothing recorded", file=stdout)
            continue
        manifest = Manifest(root)
        try:
            found = manifest.rebuild()
        except ManifestError as e:
            raise ConfigError(str(e)) from None
        for relative, why in sorted(found.refused.items()):
            skipped += 1
            print(f"skipped {root / relative}: {why}; it stays untrusted", file=stdout)
        print(
            f"manifest={manifest.path} entries={len(found.files)} skipped={len(found.refused)}", file=stdout
        )
    return EXIT_ERRORS if skipped else EXIT_CLEAN


def _digests(root: Path, stdout: TextIO) -> tuple[int, int, int, bool]:
    """(entries, differing, missing, has a manifest) of one directory, a line for each difference."""
    from citeaudit.util.manifest import Manifest, ManifestError, survey

    manifest = Manifest(root)
    if not manifest.exists():
        print(
            f"{root}: no {manifest.path.name}; its entries are read unverified "
            "(citeaudit cache manifest records one)",
            file=stdout,
        )
        return 0, 0, 0, False
    try:
        recorded = manifest.files()
    except ManifestError as e:
        print(f"corrupt {manifest.path}: {e}; no entry of {root} is trusted", file=stdout)
        return 0, 1, 0, True
    found = survey(root)
    differing = missing = 0
    for relative in sorted(set(recorded) | set(found.files) | set(found.refused)):
        where = root / relative
        if relative in found.refused:
            differing += 1
            print(f"corrupt {where}: {found.refused[relative]}", file=stdout)
        elif relative not in found.files:
            missing += 1
            print(f"missing {where}: recorded, not there (a cache miss)", file=stdout)
        elif relative not in recorded:
            differing += 1
            print(f"unrecorded {where}: {manifest.path.name} records no digest for it", file=stdout)
        elif found.files[relative] != recorded[relative]:
            differing += 1
            print(
                f"corrupt {where}: its digest is {found.files[relative]}, the manifest records "
                f"{recorded[relative]}",
                file=stdout,
            )
    return len(found.files) + len(found.refused), differing, missing, True


_FIELDS = ("type", "container", "short_container", "subtitles", "volume", "issue", "pages", "article_number")


def _record_changes(doi: str, old: Resolution, new: Resolution) -> list[str]:
    """describe_change's lines, and one per other field of the record that differs."""
    lines = describe_change(doi, old, new)
    if old.record is None or new.record is None or old.record.agency == "seed-cache":
        return lines  # a seed file holds a title, a year and family names only
    before, after = old.record.to_json(), new.record.to_json()
    for key in _FIELDS:
        if before.get(key) != after.get(key):
            lines.append(f"{doi}: {key}: {before.get(key)!r} -> {after.get(key)!r}")
    return lines


def run_verify(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from citeaudit.resolve.cache import DoiCache
    from citeaudit.resolve.interface import ResolutionStatus

    config = effective_config(args)
    entries = differing = missing = 0
    unverified = False
    for root in _roots(config):
        if not root.is_dir():
            continue
        counted, bad, gone, has_manifest = _digests(root, stdout)
        entries, differing, missing = entries + counted, differing + bad, missing + gone
        unverified = unverified or not has_manifest
    changed = unchecked = 0
    if not config.offline:
        from citeaudit.resolve.registry import RegistryResolver  # httpx only when going online

        cache = DoiCache(config.cache)
        dois = cache.dois()
        cached = {doi: cache.get(doi) for doi in dois}
        trusted = [
            d for d in dois if (a := cached[d]) is not None and a.status is not ResolutionStatus.UNAVAILABLE
        ]
        with tempfile.TemporaryDirectory(prefix="citeaudit-verify-") as scratch:
            # Agencies asked afresh too, and nothing written into the cache being verified.
            resolver = RegistryResolver(DoiCache(Path(scratch)), mailto=config.mailto)
            current = resolver.resolve_many(trusted) if trusted else {}
        for doi in trusted:
            old, new = cached[doi], current[doi]
            assert old is not None
            if new.status is ResolutionStatus.UNAVAILABLE:
                unchecked += 1
                print(f"{doi}: could not check: {new.reason}", file=stdout)
                continue
            lines = _record_changes(doi, old, new)
            if lines:
                changed += 1
                print("\n".join(lines), file=stdout)
    print(
        f"entries={entries} differing={differing} missing={missing} changed={changed} "
        f"could_not_check={unchecked}" + (" offline" if config.offline else ""),
        file=stdout,
    )
    if differing or changed:
        return EXIT_ERRORS
    return EXIT_UNCHECKED if unchecked or unverified else EXIT_CLEAN
