"""``citeaudit fetch``: fill the cache from the registries and pin the cited web pages, and do
nothing else (the explicit "fill the cache, then commit it" step of seed 000)."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from citeaudit.cli.common import (
    EXIT_CLEAN,
    EXIT_UNCHECKED,
    Parser,
    Progress,
    add_cache_option,
    add_config_option,
    add_full_text_option,
    add_input_format_option,
    add_mailto_option,
    add_mirror_option,
    add_sources_option,
    add_web_options,
    effective_config,
    input_format,
    require_extra,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from citeaudit.config import Config
    from citeaudit.model import Citation, Source
    from citeaudit.resolve.interface import Resolution
    from citeaudit.sources.pins import PinOutcome

__all__ = ["add_parser", "print_pin_outcomes", "run"]


def add_parser(commands: argparse._SubParsersAction[Parser]) -> None:
    fetch = commands.add_parser(
        "fetch",
        help="resolve every DOI of a claims file into the cache and pin every cited web page "
        "(then commit both)",
        description="Exit 0 when every DOI and page got a final answer, 3 when some could not be "
        "looked up or fetched. A citation whose identifier is not valid (a URL with a space…) is named, "
        "with its code and why, and not fetched: check reports it as an error.",
    )
    fetch.add_argument("claims", type=Path, help="the claims file (JSON, BibTeX or a Markdown report)")
    add_input_format_option(fetch)
    add_cache_option(fetch)
    add_sources_option(fetch)
    add_mirror_option(fetch)
    add_mailto_option(fetch)
    add_web_options(fetch)
    add_full_text_option(fetch)
    fetch.add_argument(
        "--replace",
        action="store_true",
        help="replace the pin of a page whose text changed since it was pinned (kept by default)",
    )
    add_config_option(fetch)
    fetch.set_defaults(func=run)


def print_pin_outcomes(outcomes: dict[str, PinOutcome], stdout: TextIO) -> dict[str, int]:
    """One line per page (what pinning it did), and the count of each action."""
    counts = dict.fromkeys(("created", "unchanged", "changed", "replaced", "failed"), 0)
    for url, outcome in sorted(outcomes.items()):
        counts[outcome.action] += 1
        pin = outcome.pin
        if outcome.action == "failed":
            line = f"could_not_check {url} {outcome.code}: {outcome.reason}"
        elif outcome.action in ("changed", "replaced"):
            assert outcome.previous is not None
            assert outcome.new is not None
            old, new = outcome.previous, outcome.new
            kept = (
                "kept the old pin (--replace takes the new one)"
                if outcome.action == "changed"
                else "replaced"
            )
            line = (
                f"{outcome.action} {url} HTTP {old.status} text_sha256={old.text_sha256} -> "
                f"HTTP {new.status} text_sha256={new.text_sha256}; {kept}"
            )
        else:
            assert pin is not None
            line = f"{outcome.action} {url} HTTP {pin.status} text_sha256={pin.text_sha256}"
        print(line, file=stdout)
    return counts


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from citeaudit.formats import load_submission
    from citeaudit.identifiers import pin_key, resolver_key, search_key
    from citeaudit.resolve.interface import ResolutionStatus
    from citeaudit.sources.pins import PinDirectory, Pinner
    from citeaudit.wiring import build_fetcher, build_resolver

    config = replace(effective_config(args), offline=False)  # fetching is going online
    submission = load_submission(
        args.claims,
        max_bytes=config.max_input_bytes,
        max_depth=config.max_depth,
        input_format=input_format(config),
    )
    citations = [c for claim in submission.claims for c in claim.citations] + list(submission.citations)
    dois = sorted({key for c in citations if (key := resolver_key(c.source)) is not None})
    urls = sorted({key for c in citations if (key := pin_key(c.source)) is not None})
    searched = {key: c.source for c in citations if (key := search_key(c.source)) is not None}
    if urls or (config.full_text and dois):  # before any answer is written to the cache
        require_extra("web", "fetching cited web pages" if urls else "fetching full texts (--full-text)")
    invalid = _invalid(citations)
    for line in invalid:
        print(line, file=stdout)
    answers = build_resolver(config, Progress("resolving DOIs", stderr)).resolve_many(dois) if dois else {}
    if config.full_text:  # the open full text of each work cited with no quote, pinned as a page is
        urls = sorted({*urls, *_full_texts(citations, answers)})
    counts = dict.fromkeys(ResolutionStatus, 0)
    for answer in answers.values():
        counts[answer.status] += 1
    unchecked = counts[ResolutionStatus.UNAVAILABLE]
    if urls:
        pinner = Pinner(PinDirectory(config.sources), build_fetcher(config))
        outcomes = pinner.pin_many(urls, replace_changed=args.replace)
        actions = print_pin_outcomes(outcomes, stdout)
        print(
            f"urls={len(urls)} "
            + " ".join(f"{k}={v}" for k, v in actions.items())
            + f" sources={config.sources}",
            file=stdout,
        )
        unchecked += actions["failed"]
    if searched:
        missed, fixes = _search(config, searched, stdout)
        unchecked += missed
        # The identifier a matched reference is offered as its fix: its registry record pinned
        # too, so that the citation, the fix applied, is still checked offline.
        fixes = sorted(set(fixes) - set(answers))
        if fixes:
            pinned = build_resolver(config, Progress("resolving fixes", stderr)).resolve_many(fixes)
            fixed = dict.fromkeys(ResolutionStatus, 0)
            for answer in pinned.values():
                fixed[answer.status] += 1
            print(
                f"fixes={len(fixes)} found={fixed[ResolutionStatus.FOUND]} "
                f"not_found={fixed[ResolutionStatus.NOT_FOUND]} "
                f"could_not_check={fixed[ResolutionStatus.UNAVAILABLE]} cache={config.cache}",
                file=stdout,
            )
            unchecked += fixed[ResolutionStatus.UNAVAILABLE]
    if invalid:
        print(f"invalid={len(invalid)} (not fetched)", file=stdout)
    if dois or not (urls or searched or invalid):
        print(
            f"dois={len(dois)} found={counts[ResolutionStatus.FOUND]} "
            f"not_found={counts[ResolutionStatus.NOT_FOUND]} "
            f"could_not_check={counts[ResolutionStatus.UNAVAILABLE]} cache={config.cache}",
            file=stdout,
        )
    return EXIT_UNCHECKED if unchecked else EXIT_CLEAN


def _full_texts(citations: list[Citation], answers: Mapping[str, Resolution]) -> set[str]:
    """The pin keys of the full texts named by the records of the works cited with no quote."""
    from citeaudit.core import full_text_keys
    from citeaudit.identifiers import resolver_key

    keys: set[str] = set()
    for citation in citations:
        key = resolver_key(citation.source) if citation.quote is None else None
        record = answers[key].record if key is not None and key in answers else None
        if record is not None:
            keys.update(full_text_keys(record))
    return keys


def _invalid(citations: list[Citation]) -> list[str]:
    """One line per identifier that is not valid for its kind (nothing to fetch for it), sorted."""
    from citeaudit.identifiers import handler
    from citeaudit.model import WorkSource

    lines = set()
    for citation in citations:
        source = citation.source
        if not isinstance(source, WorkSource):
            continue
        kind = handler(source.kind)
        if kind.syntax_code is None or kind.is_valid(kind.normalise(source.identifier)):
            continue
        lines.add(f"invalid {source.identifier} {kind.syntax_code}: {kind.invalid(source.identifier)}")
    return sorted(lines)


def _search(config: Config, searched: dict[str, Source], stdout: TextIO) -> tuple[int, list[str]]:
    """Search every reference without an identifier (pinning each online answer); one summary
    line. Returns how many could not be searched in every index they needed, and the resolver keys
    of the identifiers the matched ones are offered as their fix (as the audit offers them)."""
    from citeaudit.checks.matching import MatchStatus, is_enough, match_reference
    from citeaudit.core import query_of
    from citeaudit.identifiers import handler, resolver_key
    from citeaudit.model import WorkSource
    from citeaudit.wiring import build_finder

    works = {k: s for k, s in sorted(searched.items()) if isinstance(s, WorkSource)}
    queries = {k: query_of(s) for k, s in works.items()}
    answers = build_finder(config).find_many(list(queries.values()), is_enough)
    counts = dict.fromkeys(("matched", "ambiguous", "not_found", "could_not_check"), 0)
    fixes: list[str] = []
    for key, query in queries.items():
        given = answers.get(query.key, ())
        candidates = [c for a in given if a.answered for c in a.candidates]
        work = works[key]
        match = match_reference(query, work.reference, candidates, container=work.container, kind=work.type)
        if match.status is MatchStatus.MATCHED:
            counts["matched"] += 1
            assert match.best is not None
            candidate = match.best.candidate
            kind, value = (
                ("doi", candidate.record.doi) if candidate.record.doi else ("arxiv", candidate.arxiv)
            )
            if value:
                fix = resolver_key(WorkSource(identifier=handler(kind).read(value), kind=kind))
                if fix is not None:
                    fixes.append(fix)
        elif not given or any(not a.answered for a in given):
            counts["could_not_check"] += 1
        else:
            counts[str(match.status)] += 1
    print(
        f"references={len(queries)} "
        + " ".join(f"{k}={v}" for k, v in counts.items())
        + f" cache={config.cache}",
        file=stdout,
    )
    return counts["could_not_check"], fixes
