"""``citeaudit mcp``: the read-only MCP server over stdio."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

from citeaudit.cli.common import EXIT_CLEAN, Parser, add_store_options
from citeaudit.config import load_config

__all__ = ["add_parser", "run"]


def add_parser(commands: argparse._SubParsersAction[Parser]) -> None:
    cmd = commands.add_parser(
        "mcp",
        help="serve audit_claims, locate_quote and get_source_excerpt to agents over MCP (stdio), read-only",
    )
    cmd.add_argument(
        "--cache", type=Path, help="registry cache directory, read only [CITEAUDIT_CACHE; ./cache]"
    )
    cmd.add_argument("--sources", type=Path, help="snapshot directory [CITEAUDIT_SOURCES; ./sources]")
    cmd.add_argument("--corpus", type=Path, help="corpus for document citations [CITEAUDIT_CORPUS]")
    cmd.add_argument(
        "--judge",
        help="judge for audit_claims: rules, nli:MODEL, llm:MODEL@URL, rules+SPEC or none; "
        "its verdicts are not cached, as the server writes nothing [CITEAUDIT_JUDGE; rules]",
    )
    add_store_options(cmd)


def run(args: argparse.Namespace, stdout: TextIO) -> int:
    from citeaudit.semantic.judge import make_judge
    from citeaudit.service.mcp import McpOptions, build_server
    from citeaudit.sources.corpus import load_corpus

    config = load_config(Path.cwd(), args.config)
    store: Any = None
    scope: Any = None
    target, scope_text = args.store or config.store, args.scope or config.scope
    if target and scope_text:
        from citeaudit.sources.store import Scope, open_store

        store, scope = open_store(target, read_only=True), Scope.parse(scope_text)
    corpus_path = args.corpus or config.corpus
    # Registries are read offline; a judge's own model or endpoint is the operator's explicit choice.
    spec = args.judge or config.judge
    options = McpOptions(
        cache=args.cache or config.cache,
        sources=args.sources or config.sources,
        corpus=load_corpus(corpus_path) if corpus_path else None,
        store=store,
        scope=scope,
        min_quote_length=config.min_quote_length,
        judge=None if spec == "none" else make_judge(spec),
    )
    build_server(options).run("stdio")
    return EXIT_CLEAN
