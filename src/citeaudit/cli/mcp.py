"""``citeaudit mcp``: the read-only MCP server over stdio."""

from __future__ import annotations

import argparse
from typing import TextIO

from citeaudit.cli.common import (
    EXIT_CLEAN,
    Parser,
    add_cache_option,
    add_corpus_option,
    add_judge_option,
    add_mirror_option,
    add_sources_option,
    add_store_options,
    effective_config,
    require_extra,
)
from citeaudit.errors import ConfigError

__all__ = ["TOOLS", "add_parser", "run"]

# The tools the server lists (citeaudit.service.mcp, in its order), named here without importing
# the SDK for --help; a test holds the two equal.
TOOLS = ("list_sources", "get_source_excerpt", "locate_quote", "audit_claims", "audit_report", "feedback")


def add_parser(commands: argparse._SubParsersAction[Parser]) -> None:
    cmd = commands.add_parser(
        "mcp",
        help=f"serve the {len(TOOLS)} tools {', '.join(TOOLS[:-1])} and {TOOLS[-1]} to agents over MCP "
        "(stdio), read-only",
        description="The registry cache, the snapshots, the corpus and the store are only read; the "
        "judge's verdicts are not cached, as the server writes nothing.",
    )
    add_cache_option(cmd)
    add_sources_option(cmd)
    add_mirror_option(cmd)
    add_corpus_option(cmd)
    add_judge_option(cmd)
    add_store_options(cmd)
    cmd.set_defaults(func=run)


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    require_extra("mcp", "citeaudit mcp")
    import anyio

    from citeaudit.service.mcp import McpOptions, build_server, serve_stdio
    from citeaudit.wiring import open_evidence, read_only_auditor

    config = effective_config(args)
    # A store without a scope (or a scope without a store) is refused before serving: the server
    # would start and then answer every store tool that none is configured.
    evidence = open_evidence(config, read_only=True, required=bool(config.store or config.scope))
    if evidence is None and (config.store or config.scope):
        raise ConfigError(
            "no scope: give --scope TENANT/USER"
            if config.store
            else "no evidence store: give --store (a SQLite file or a postgresql:// URL)"
        )
    options = McpOptions(auditor=read_only_auditor(config), evidence=evidence)
    server = build_server(options)
    anyio.run(serve_stdio, server, options)
    return EXIT_CLEAN
