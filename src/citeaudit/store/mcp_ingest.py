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
did not read. The server process always ends, and the read always returns by
its deadline: the server runs in a process group of its own, which is killed
when the client leaves (after a short grace on success) and, from a watchdog
thread, at the deadline, whatever the event loop is waiting on. (The SDK's own
stdio client waits on the server inside a shielded scope, which a cancelled
caller could leave waiting for good.)
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import signal
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal, TextIO

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from citeaudit.errors import SourceError
from citeaudit.sources.interface import Revision
from citeaudit.store.evidence import EvidenceStore, Scope

if TYPE_CHECKING:
    from anyio.abc import Process
    from mcp.client import Transport

__all__ = ["McpRead", "ingest_from_mcp"]

_TEXT_TYPES = {"text/plain", "text/markdown", "text/x-markdown"}
_GRACE = 2.0  # seconds a server that answered gets to exit on its own once its stdin closes
_SLACK = 5.0  # seconds beyond the read timeout for starting the server and the handshake


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


class _Group:
    """The server's process group (its id is the server's pid: it leads a new session)."""

    def __init__(self) -> None:
        self.pgid: int | None = None
        self.expired = False
        self._lock = threading.Lock()

    def kill(self) -> None:
        with self._lock:
            if self.pgid is not None:
                with suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.pgid, signal.SIGKILL)

    def expire(self) -> None:
        self.expired = True
        self.kill()


def _errlog() -> TextIO | None:
    try:
        sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # an in-memory stderr: the server's goes to ours
        return None
    return sys.stderr


async def _exited(process: Process, seconds: float) -> bool:
    import anyio

    # returncode, not wait(): asyncio's wait() also waits for the pipes, which a child may hold open.
    with anyio.move_on_after(seconds):
        while process.returncode is None:
            await anyio.sleep(0.01)
    return process.returncode is not None


def _stdio(argv: list[str], env: dict[str, str] | None, group: _Group) -> Transport:
    """A stdio transport whose server is killed, process group and all, whenever the client leaves."""

    @asynccontextmanager
    async def transport() -> AsyncIterator[Any]:
        import anyio
        import mcp_types
        from mcp.client.stdio import get_default_environment
        from mcp.shared.message import SessionMessage

        process = await anyio.open_process(
            argv, env=get_default_environment() | (env or {}), stderr=_errlog(), start_new_session=True
        )
        group.pgid = process.pid
        assert process.stdin is not None
        assert process.stdout is not None
        stdin, stdout = process.stdin, process.stdout
        to_session, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        write_stream, from_session = anyio.create_memory_object_stream[SessionMessage](0)

        async def reader() -> None:
            buffer = b""
            async with to_session:
                with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                    async for chunk in stdout:
                        *lines, buffer = (buffer + chunk).split(b"\n")
                        for line in lines:
                            message: SessionMessage | Exception
                            try:
                                parsed = mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                                message = SessionMessage(parsed)
                            except ValueError as e:
                                message = e
                            await to_session.send(message)

        async def writer() -> None:
            async with from_session:
                try:
                    async for message in from_session:
                        data = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                        await stdin.send(data.encode("utf-8"))
                except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                    await to_session.aclose()  # the session sees the connection end, not a wait

        answered = False
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(reader)
                tg.start_soon(writer)
                try:
                    yield read_stream, write_stream
                    answered = True
                finally:
                    with anyio.CancelScope(shield=True):  # every wait in here is bounded
                        with suppress(OSError, anyio.ClosedResourceError, anyio.BrokenResourceError):
                            await stdin.aclose()
                        if answered:
                            await _exited(process, _GRACE)
                        group.kill()  # also any child it left behind in its group
                        await _exited(process, _GRACE)
                    tg.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True), anyio.move_on_after(_GRACE):
                await process.aclose()  # closes the pipes and the subprocess transport

    return transport()


async def _call(read: McpRead, group: _Group) -> Any:
    import anyio
    from mcp import Client

    argv = shlex.split(read.command)
    if not argv:
        raise SourceError("--mcp needs a command to start the document server")
    # A cancel scope, not asyncio.wait_for: a task.cancel() would also break into the shielded teardown.
    with anyio.fail_after(read.timeout + _SLACK):
        async with Client(_stdio(argv, read.env, group), read_timeout_seconds=read.timeout) as client:
            return await client.call_tool(read.tool, read.arguments)


def _answer(read: McpRead) -> Any:
    group = _Group()
    # Kills the server at the deadline even if the event loop is stuck; its pipes then close.
    watchdog = threading.Timer(read.timeout + _SLACK + 1, group.expire)
    watchdog.daemon = True
    watchdog.start()
    try:
        return asyncio.run(_call(read, group))
    except Exception:
        if group.expired:
            raise TimeoutError from None
        raise
    finally:
        watchdog.cancel()
        group.kill()  # the group never outlives the read


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
        result = _answer(read)
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
