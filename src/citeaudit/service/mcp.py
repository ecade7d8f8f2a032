"""``citeaudit mcp``: an MCP server over stdio, for agents to check their own
work before they hand it in.

It is read-only with respect to everything an answer is checked against: the
registry cache (no upstream: a miss is "could not check"), the snapshots, the
corpus and the evidence store (opened read-only). No tool writes anything —
an agent can check its work but cannot make it pass by changing what it is
checked against (seed 000's main rule). Inputs and answers are bounded, and
every failure is a structured tool error, never a crash.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from citeaudit.errors import CiteauditError
from citeaudit.formats import parse_bytes
from citeaudit.report.json import report_to_dict
from citeaudit.sources.interface import StoredSource
from citeaudit.util.version import __version__
from citeaudit.wiring import Auditor, Evidence

__all__ = ["McpOptions", "build_server"]

INSTRUCTIONS = (
    "citeaudit checks citations deterministically: that sources exist, that metadata match the "
    "registry, that quotes occur verbatim in the pinned text, that numbers occur in the quotes. "
    "It never says whether a passage supports a claim. Use audit_claims on your claims before you "
    "answer, locate_quote to turn a fragment of a source into an exact citation, and "
    "get_source_excerpt to read around a range. Nothing here can change what you are checked against."
)


@dataclass(frozen=True)
class McpOptions:
    auditor: Auditor  # from citeaudit.wiring.read_only_auditor: the cache only read, no verdict written
    evidence: Evidence | None = None  # the store opened read-only, in the scope the host chose
    max_input_bytes: int = 1_000_000
    max_response_bytes: int = 2_000_000
    max_fragment_chars: int = 5_000
    max_excerpt_chars: int = 8_000


def _bounded(value: Any, limit: int, what: str) -> bytes:
    data = json.dumps(value, ensure_ascii=False, sort_keys=True).encode("utf-8")
    if len(data) > limit:
        raise ToolError(f"{what} is {len(data)} bytes, over the limit of {limit}")
    return data


def _text(source: StoredSource) -> str:
    assert source.current is not None
    assert source.current.text is not None
    return source.current.text


def _ref(source: StoredSource) -> dict[str, Any]:
    assert source.current is not None
    return source.current.ref()


def build_server(options: McpOptions) -> MCPServer:
    server = MCPServer("citeaudit", version=__version__, instructions=INSTRUCTIONS)

    def stored(source_id: str) -> StoredSource:
        if options.evidence is None:
            raise ToolError("no evidence store is configured for this server")
        try:
            source = options.evidence.store.get(options.evidence.scope, source_id)
        except CiteauditError as e:
            raise ToolError(e.diagnostics()) from None
        if source is None:
            raise ToolError(f"no source {source_id!r} in this scope")
        if source.current is None or source.current.text is None:
            raise ToolError(f"source {source_id!r} was removed")
        return source

    @server.tool(
        description="Audit claims with their citations (citeaudit's JSON formats). Returns the report: "
        "per citation the error codes, findings and suggestions; per claim its status."
    )
    def audit_claims(claims: dict[str, Any]) -> dict[str, Any]:
        raw = _bounded(claims, options.max_input_bytes, "the claims")
        try:
            submission = parse_bytes(raw, "claims")
            lookup = options.evidence.lookup() if options.evidence is not None else None
            report = options.auditor.audit(submission, store=lookup)
        except CiteauditError as e:
            raise ToolError(e.diagnostics()) from None
        result = report_to_dict(report)
        _bounded(result, options.max_response_bytes, "the report")
        return result

    @server.tool(
        description="The exact citation (source_id, revision, digest, start, end, quote) for a fragment "
        "that occurs exactly once in a source of the evidence store."
    )
    def locate_quote(source_id: str, fragment: str) -> dict[str, Any]:
        if not fragment or len(fragment) > options.max_fragment_chars:
            raise ToolError(f"the fragment must have 1 to {options.max_fragment_chars} characters")
        source = stored(source_id)
        text = _text(source)
        count = text.count(fragment)
        if count != 1:
            raise ToolError(f"the fragment occurs {count} times in {source_id}; it must occur exactly once")
        start = text.index(fragment)
        return {**_ref(source), "start": start, "end": start + len(fragment), "quote": fragment}

    @server.tool(
        description="A bounded window of a source's current text around [start, end), with the revision "
        "and digest to cite."
    )
    def get_source_excerpt(source_id: str, start: int, end: int, context: int = 200) -> dict[str, Any]:
        source = stored(source_id)
        text = _text(source)
        if not 0 <= start < end <= len(text):
            raise ToolError(f"[{start}, {end}) is not a range of {source_id} ({len(text)} characters)")
        if context < 0 or (end - start) + 2 * context > options.max_excerpt_chars:
            raise ToolError(f"the window is over the limit of {options.max_excerpt_chars} characters")
        return {
            **_ref(source),
            "start": start,
            "end": end,
            "text": text[start:end],
            "before": text[max(0, start - context) : start],
            "after": text[end : end + context],
        }

    return server
