"""``citeaudit sources …``, ``citeaudit locate`` and ``citeaudit snapshot``:
the trusted side that fills the evidence store and the snapshot directory."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from citeaudit.cli.common import (
    EXIT_CLEAN,
    EXIT_ERRORS,
    Parser,
    add_config_option,
    add_sources_option,
    add_store_options,
    positive,
    print_json,
    require_extra,
    store_and_scope,
    write_file,
)
from citeaudit.errors import ConfigError, SourceError

if TYPE_CHECKING:
    from citeaudit.config import Config
    from citeaudit.store.evidence import EvidenceStore, Scope

__all__ = ["add_parsers", "run_locate", "run_snapshot", "run_sources"]


def add_parsers(commands: argparse._SubParsersAction[Parser]) -> None:
    sources = commands.add_parser("sources", help="manage the evidence store (trusted callers only)")
    actions = sources.add_subparsers(dest="action", required=True, parser_class=Parser)

    register = actions.add_parser(
        "register", help="register a source (or update its description), no text yet"
    )
    register.add_argument("--id", required=True, help="the source id citations will use")
    register.add_argument("--title", required=True)
    register.add_argument(
        "--locator", required=True, help="where the source lives (URL, path, catalogue number)"
    )
    register.add_argument("--kind", default="document", help="kind of source [document]")
    register.add_argument("--filename", help="the file a document server must return for it (MCP ingestion)")
    add_store_options(register)
    register.set_defaults(func=run_sources)

    add = actions.add_parser(
        "add",
        help="ingest FILE (registering the source), or a read through an MCP document server",
    )
    add.add_argument("file", type=Path, nargs="?", help=".txt, .md, .html or .pdf (not with --mcp)")
    add.add_argument("--id", required=True, help="the source id citations will use")
    add.add_argument("--title", help="title shown in reports [the file name]")
    add.add_argument("--locator", help="where the source lives (URL, path, catalogue number) [the file path]")
    add.add_argument("--kind", default="document", help="kind of source [document]")
    add.add_argument(
        "--mcp", metavar="COMMAND", help="start this MCP document server (stdio) and read through it"
    )
    add.add_argument("--tool", default="read_document", help="with --mcp: the tool to call [read_document]")
    add.add_argument(
        "--arg", action="append", default=[], metavar="KEY=VALUE", help="with --mcp: a tool argument"
    )
    add.add_argument(
        "--timeout", type=float, default=10.0, help="with --mcp: seconds to wait for the read [10]"
    )
    add_store_options(add)
    add.set_defaults(func=run_sources)

    listing = actions.add_parser("list", help="the sources of a scope with their current revisions")
    add_store_options(listing)
    listing.set_defaults(func=run_sources)

    show = actions.add_parser("show", help="one source: its description and current (or given) revision")
    show.add_argument("source_id")
    show.add_argument("--revision", type=positive, help="a revision other than the current one")
    show.add_argument("--text", action="store_true", help="include the text")
    add_store_options(show)
    show.set_defaults(func=run_sources)

    remove = actions.add_parser("remove", help="withdraw a source; its citations become invalid for good")
    remove.add_argument("source_id")
    add_store_options(remove)
    remove.set_defaults(func=run_sources)

    export = actions.add_parser("export", help="write a revision (description, digest, text) as JSON")
    export.add_argument("source_id")
    export.add_argument("--revision", type=positive, help="a revision other than the current one")
    export.add_argument("--out", type=Path, help="file to write [standard output]")
    add_store_options(export)
    export.set_defaults(func=run_sources)

    locate = commands.add_parser(
        "locate", help="the citation object for a fragment that occurs exactly once in a source"
    )
    locate.add_argument("source_id")
    locate.add_argument("fragment")
    locate.add_argument("--id", help="citation id to put in the object")
    add_store_options(locate)
    locate.set_defaults(func=run_locate)

    snapshot = commands.add_parser("snapshot", help="extract the text of a PDF/HTML/text file into --sources")
    snapshot.add_argument("file", type=Path)
    named = snapshot.add_mutually_exclusive_group(required=True)
    named.add_argument("--doi", help="the DOI the text belongs to")
    named.add_argument(
        "--url",
        help="the web page a saved HTML/PDF file is (pinned as if fetched: a page that needs a browser)",
    )
    add_sources_option(snapshot)
    snapshot.add_argument(
        "--replace", action="store_true", help="put the text in place of a different snapshot of the DOI"
    )
    add_config_option(snapshot)
    snapshot.set_defaults(func=run_snapshot)


def _open(args: argparse.Namespace, config: Config) -> tuple[EvidenceStore, Scope]:
    from citeaudit.store.evidence import Scope, StoreLimits, open_store  # SQLAlchemy only when used

    target, scope = store_and_scope(config, args)
    limits = StoreLimits(config.store_max_sources, config.store_max_text_bytes)
    return open_store(target, limits), Scope.parse(scope)


def _pair(value: str) -> tuple[str, str]:
    key, sep, val = value.partition("=")
    if not sep or not key:
        raise ConfigError(f"--arg expects KEY=VALUE, got {value!r}")
    return key, val


# Files whose text is extracted by the documents extra (pypdf, trafilatura).
_NEEDS_DOCUMENTS = (".pdf", ".html", ".htm")


def _require_reader(file: Path | None, command: str) -> None:
    """Stop before anything is opened when reading ``file`` needs an extra that is not installed."""
    if file is not None and file.suffix.lower() in _NEEDS_DOCUMENTS:
        require_extra("documents", f"{command} of a {file.suffix.lower()} file")


def run_sources(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from citeaudit.config import load_config
    from citeaudit.sources.extract import extract_file

    if args.action == "add" and args.mcp:
        require_extra("mcp", "sources add --mcp")
    elif args.action == "add":
        _require_reader(args.file, "sources add")
    config = load_config(Path.cwd(), args.config)
    store, scope = _open(args, config)
    try:
        if args.action == "register":
            store.register(scope, args.id, args.title, args.locator, args.kind, args.filename)
            print_json({"registered": args.id, "filename": args.filename}, stdout)
        elif args.action == "add" and args.mcp:
            from citeaudit.store.mcp_ingest import McpRead, ingest_from_mcp

            if args.file is not None:
                raise ConfigError("give either FILE or --mcp, not both")
            arguments = dict(_pair(a) for a in args.arg)
            read = McpRead(args.mcp, args.tool, arguments, timeout=args.timeout, env=dict(os.environ))
            added, created = ingest_from_mcp(store, scope, args.id, read)
            print_json({**added.ref(), "created": created, "entered_at": added.entered_at,
                        "size": added.size}, stdout)  # fmt: skip
        elif args.action == "add":
            if args.file is None:
                raise ConfigError("give the FILE to ingest, or --mcp to read through a document server")
            text = extract_file(args.file, config.max_document_bytes)
            store.register(
                scope, args.id, args.title or args.file.name, args.locator or str(args.file), args.kind
            )
            added, created = store.ingest(scope, args.id, text)
            print_json({**added.ref(), "created": created, "entered_at": added.entered_at,
                        "size": added.size}, stdout)  # fmt: skip
        elif args.action == "list":
            print_json([s.to_json() for s in store.list(scope)], stdout)
        elif args.action in ("show", "export"):
            source = store.get(scope, args.source_id, with_text=False)
            if source is None:
                raise ConfigError(f"source {args.source_id!r} is not registered in scope {scope}")
            number = args.revision or (source.current.revision if source.current else None)
            revision = store.revision(scope, args.source_id, number) if number else None
            if args.revision and revision is None:
                raise ConfigError(f"source {args.source_id!r} has no revision {args.revision}")
            out = source.to_json()
            if revision is not None:
                out["revision"] = {**revision.ref(), "entered_at": revision.entered_at, "size": revision.size}
                if args.action == "export" or args.text:
                    out["revision"]["text"] = revision.text
            if args.action == "export" and args.out is not None:
                data = json.dumps(out, ensure_ascii=False, sort_keys=True, indent=2) + "\n"
                write_file(args.out, data.encode("utf-8"))
            else:
                print_json(out, stdout)
        else:
            store.remove(scope, args.source_id)
            print_json({"removed": args.source_id}, stdout)
    finally:
        store.close()
    return EXIT_CLEAN


def run_locate(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Seed 002's quote(): exit 1 with the count when the fragment is not unique."""
    from citeaudit.config import load_config

    store, scope = _open(args, load_config(Path.cwd(), args.config))
    try:
        source = store.get(scope, args.source_id)
    finally:
        store.close()
    if source is None:
        raise ConfigError(f"source {args.source_id!r} is not registered in scope {scope}")
    if source.current is None or source.current.text is None:
        raise ConfigError(f"source {args.source_id!r} was removed")
    text, fragment = source.current.text, args.fragment
    count = text.count(fragment) if fragment else 0
    if count != 1:
        where = f"{args.source_id} revision {source.current.revision}"
        print(
            f"citeaudit: the fragment occurs {count} times in {where}; it must occur exactly once",
            file=stderr,
        )
        return EXIT_ERRORS
    start = text.index(fragment)
    citation = {**source.current.ref(), "start": start, "end": start + len(fragment), "quote": fragment}
    if args.id:
        citation["id"] = args.id
    print_json(citation, stdout)
    return EXIT_CLEAN


_PAGE_TYPES = {".html": "text/html", ".htm": "text/html", ".pdf": "application/pdf", ".txt": "text/plain"}


def _pin_saved_page(args: argparse.Namespace, stdout: TextIO) -> int:
    """A saved copy of a page, pinned for its URL as a fetch would pin it."""
    from citeaudit.config import load_config
    from citeaudit.identifiers.url import URL
    from citeaudit.resolve.web import PageFailure
    from citeaudit.sources.pins import PinDirectory, pin_file, same_page, utc_now

    url = URL.normalise(args.url)
    if not URL.is_valid(url):
        raise ConfigError(URL.invalid(args.url))
    content_type = _PAGE_TYPES.get(args.file.suffix.lower())
    if content_type is None:
        raise ConfigError(f"{args.file}: a saved page is .html, .htm, .pdf or .txt")
    if not args.file.is_file():
        raise ConfigError(f"{args.file}: no such file")
    config = load_config(Path.cwd(), args.config)
    directory = PinDirectory(args.sources or config.sources)
    current = directory.lookup(url).pin
    made = pin_file(url, args.file, content_type, utc_now(), config.max_document_bytes)
    if isinstance(made, PageFailure):
        raise SourceError(f"{args.file}: {made.reason}")
    if current is not None and same_page(current, made):
        status = "unchanged"
    elif current is not None and not args.replace:
        raise ConfigError(
            f"{url} already has a different pin (text_sha256={current.text_sha256}); "
            "give --replace to put this one in its place"
        )
    else:
        directory.write(made)
        status = "created" if current is None else "replaced"
    print(f"pin={directory.paths(url)[0]} text_sha256={made.text_sha256} status={status}", file=stdout)
    return EXIT_CLEAN


def run_snapshot(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from citeaudit.config import load_config
    from citeaudit.identifiers.doi import DOI
    from citeaudit.sources.directory import SnapshotDirectory
    from citeaudit.sources.extract import extract_file

    _require_reader(args.file, "snapshot")
    if args.url is not None:
        return _pin_saved_page(args, stdout)
    doi = DOI.normalise(args.doi)
    if not DOI.is_valid(doi):
        raise ConfigError(f"{args.doi!r} is not a DOI")
    config = load_config(Path.cwd(), args.config)
    sources = args.sources or config.sources
    text = extract_file(args.file, config.max_document_bytes)
    directory = SnapshotDirectory(sources)
    path = directory.path_for(doi)
    # Reports rest on these files (often committed): a different text for the DOI is not
    # put in place of the one audits read now unless asked.
    try:
        current = directory.text_for_doi(doi)
    except SourceError:  # unreadable (not UTF-8, …): only --replace may put a text in its place
        if not args.replace:
            raise
        current = ""
    if current == text:
        status = "unchanged"
    elif current is not None and not args.replace:
        raise ConfigError(
            f"{doi} already has a different snapshot in {sources} ({len(current)} characters, this one "
            f"{len(text)}); give --replace to put this one in its place"
        )
    else:
        directory.write(doi, text.encode("utf-8"))  # its digest recorded in the manifest first
        status = "created" if current is None else "replaced"
    print(f"snapshot={path} characters={len(text)} status={status}", file=stdout)
    return EXIT_CLEAN
