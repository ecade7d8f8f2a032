"""Ingesting a source through an MCP document server (seed 002 §6.5), with
citeaudit as the trusted host — the MCP *client*.

A read becomes a revision only if every one of these holds; otherwise nothing
is stored and the reason is given:

* the source id was registered by the host beforehand, with the file name the
  host maps to it, and the read asks for exactly that file;
* the call completed (no error result, within the timeout);
* the structured result validates: ``status`` "ok", ``data.filename`` the
  mapped file, a text content type when one is given, the content within the
  size bound, and the whole answer within the response bound.

A model therefore can never register a source by naming a title or a URL it
did not read. The server process always ends: the client context closes it,
on success, on error and on timeout alike.
"""

from __future__ import annotations

import asyncio
import json
import shlex
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from citeaudit.errors import SourceError
from citeaudit.sources.interface import Revision
from citeaudit.store.evidence import EvidenceStore, Scope

__all__ = ["McpRead", "ingest_from_mcp"]

_TEXT_TYPES = {"text/plain", "text/markdown", "text/x-markdown"}


class _Payload(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    filename: Annotated[str, Field(min_length=1, max_length=255)]
    content: Annotated[str, Field(min_length=1)]
    content_type: str | None = None


class _ReadResult(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    status: Literal["ok"]
    message: Annotated[str, Field(max_length=1000)] = ""
    data: _Payload


@dataclass(frozen=True)
class McpRead:
    command: str  # the server command line, as one string
    tool: str
    arguments: dict[str, str]
    timeout: float = 10.0
    max_response_bytes: int = 4 * 1024 * 1024
    env: dict[str, str] | None = None  # the server's environment (the host's, as the CLI passes it)


async def _call(read: McpRead) -> Any:
    from mcp import Client, StdioServerParameters

    argv = shlex.split(read.command)
    if not argv:
        raise SourceError("--mcp needs a command to start the document server")
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=read.env)
    async with Client(params, read_timeout_seconds=read.timeout) as client:
        return await client.call_tool(read.tool, read.arguments)


def ingest_from_mcp(
    store: EvidenceStore, scope: Scope, source_id: str, read: McpRead
) -> tuple[Revision, bool]:
    source = store.get(scope, source_id, with_text=False)
    if source is None:
        raise SourceError(
            f"source {source_id!r} is not registered in scope {scope}: the host registers it first"
        )
    if not source.filename:
        raise SourceError(f"source {source_id!r} has no file mapped to it: register it with --filename")
    asked = read.arguments.get("filename")
    if asked != source.filename:
        raise SourceError(f"the host maps {source_id!r} to {source.filename!r}; the read asks for {asked!r}")
    try:
        result = asyncio.run(asyncio.wait_for(_call(read), timeout=read.timeout + 5))
    except TimeoutError:
        raise SourceError(f"the document server did not answer within {read.timeout:g} s") from None
    except SourceError:
        raise
    except Exception as e:  # the server could not be started or spoke nonsense: refuse, never crash
        leaf: BaseException = e
        while isinstance(leaf, BaseExceptionGroup) and leaf.exceptions:
            leaf = leaf.exceptions[0]
        if "timed out" in str(leaf).lower():
            raise SourceError(f"the document server did not answer within {read.timeout:g} s") from None
        raise SourceError(f"the document server failed: {type(leaf).__name__}: {leaf}") from None
    if result.is_error:
        text = " ".join(getattr(c, "text", "") for c in result.content or ()).strip()
        raise SourceError(f"the read ended in an error: {text or 'no message'}")
    size = len(json.dumps(result.model_dump(by_alias=True, mode="json"), ensure_ascii=False).encode("utf-8"))
    if size > read.max_response_bytes:
        raise SourceError(f"the answer is {size} bytes, over the limit of {read.max_response_bytes}")
    content = result.structured_content
    if isinstance(content, dict) and set(content) == {"result"}:
        content = content["result"]
    try:
        parsed = _ReadResult.model_validate(content)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise SourceError(f"the read's result is not a document: {where}: {first['msg']}") from None
    if parsed.data.filename != source.filename:
        raise SourceError(f"the server returned {parsed.data.filename!r}, not the mapped {source.filename!r}")
    if (
        parsed.data.content_type is not None
        and parsed.data.content_type.split(";")[0].strip() not in _TEXT_TYPES
    ):
        raise SourceError(f"the content type {parsed.data.content_type!r} is not text")
    return store.ingest(scope, source_id, parsed.data.content)
