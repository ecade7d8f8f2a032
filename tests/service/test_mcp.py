"""The MCP server through the SDK's real client over stdio: the tool list, each
tool's happy path, oversize input, bad input, and no way to write."""

from __future__ import annotations

import asyncio
import hashlib
import json
import shutil
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from tests.conftest import GOLDEN, run_cli

TOOLS = {"audit_claims", "locate_quote", "get_source_excerpt"}


@pytest.fixture
def world(tmp_path: Path) -> Path:
    """A cache and snapshots (seed 000) and an evidence store with one source."""
    shutil.copytree(GOLDEN / "seed000", tmp_path / "seed")
    plan = tmp_path / "plan_a.md"
    plan.write_text("# Plan A\nPlan A works offline. Plan A needs no account.\n", "utf-8")
    assert (
        run_cli(
            "sources", "add", plan, "--id", "plan_a", "--store", tmp_path / "s.db", "--scope", "team/agent"
        ).code
        == 0
    )
    return tmp_path


def _digest(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(root)).encode() + path.read_bytes())
    return h.hexdigest()


def _session(world: Path, body: Callable[[Client], Awaitable[Any]], *extra: str) -> Any:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "citeaudit", "mcp", "--cache", str(world / "seed" / "cache"), "--sources",
              str(world / "seed" / "sources"), "--store", str(world / "s.db"), "--scope", "team/agent",
              *extra],
    )  # fmt: skip

    async def run() -> Any:
        async with Client(params, read_timeout_seconds=30) as client:
            return await body(client)

    return asyncio.run(run())


def _data(result: Any) -> Any:
    if result.structured_content is not None:
        content = result.structured_content
        return content.get("result", content) if set(content) == {"result"} else content
    return json.loads(result.content[0].text)


def test_tools_and_happy_paths(world: Path) -> None:
    before = _digest(world)
    claims = json.loads((world / "seed" / "claims.json").read_text("utf-8"))

    async def body(client: Client) -> dict[str, Any]:
        listed = await client.list_tools()
        audit = await client.call_tool("audit_claims", {"claims": claims})
        located = await client.call_tool(
            "locate_quote", {"source_id": "plan_a", "fragment": "Plan A works offline."}
        )
        excerpt = await client.call_tool(
            "get_source_excerpt", {"source_id": "plan_a", "start": 9, "end": 30, "context": 5}
        )
        return {
            "tools": {t.name for t in listed.tools},
            "audit": audit,
            "located": located,
            "excerpt": excerpt,
        }

    out = _session(world, body)
    assert out["tools"] == TOOLS
    assert not out["audit"].is_error
    report = _data(out["audit"])
    assert [r["errors"] for r in report["results"]] == [[], ["E_YEAR_MISMATCH", "E_QUOTE_NOT_FOUND",
                                                        "E_NUMBER_UNSUPPORTED:3"], ["E_NOT_CACHED"], ["E_UNCITED"]]  # fmt: skip
    assert (report["settings"]["judge"], report["decision"]) == ("rules/coverage<0.3/rules-1", "reject")
    located = _data(out["located"])
    assert (located["start"], located["end"], located["revision"]) == (9, 30, 1)
    excerpt = _data(out["excerpt"])
    assert (excerpt["text"], excerpt["before"], excerpt["after"]) == (
        "Plan A works offline.",
        "an A\n",
        " Plan",
    )
    assert _digest(world) == before  # nothing it is checked against changed


def test_the_judge_is_the_operators_choice(world: Path) -> None:
    claims = json.loads((world / "seed" / "claims.json").read_text("utf-8"))

    async def body(client: Client) -> Any:
        return await client.call_tool("audit_claims", {"claims": claims})

    report = _data(_session(world, body, "--judge", "none"))
    assert report["settings"]["judge"] is None
    assert [c["verdict"] for c in report["claims"]] == [None, None, None, None]
    bad = run_cli("mcp", "--judge", "oracle")
    assert bad.code == 2
    assert bad.stderr.strip() == (
        "citeaudit: error: unknown judge 'oracle'; expected 'rules', 'nli:MODEL', 'llm:MODEL@URL' "
        "or 'rules+' and one of these"
    )


def test_errors_are_structured_and_nothing_can_be_written(world: Path) -> None:
    before = _digest(world)

    async def body(client: Client) -> list[Any]:
        return [
            await client.call_tool(
                "audit_claims", {"claims": {"claims": [{"id": "c", "text": "t", "status": "ok"}]}}
            ),
            await client.call_tool(
                "audit_claims", {"claims": {"claims": [{"id": "c", "text": "x" * 1_100_000}]}}
            ),
            await client.call_tool("audit_claims", {"claims": "not an object"}),
            await client.call_tool("locate_quote", {"source_id": "plan_a", "fragment": "Plan A"}),
            await client.call_tool("locate_quote", {"source_id": "other_tenants_doc", "fragment": "x"}),
            await client.call_tool(
                "get_source_excerpt", {"source_id": "plan_a", "start": 0, "end": 10, "context": 9000}
            ),
            await client.call_tool(
                "sources_add", {"source_id": "plan_a", "text": "Plan A cures everything."}
            ),
        ]

    unknown_field, oversize, not_object, twice, missing, window, write = _session(world, body)
    for result in (unknown_field, oversize, not_object, twice, missing, window, write):
        assert result.is_error
    text = [r.content[0].text for r in (unknown_field, oversize, twice, missing, window)]
    assert "claims: $.claims[0].status: unknown field (not part of the contract)" in text[0]
    assert "the claims is" in text[1]
    assert "over the limit of 1000000" in text[1]
    assert "the fragment occurs 3 times in plan_a; it must occur exactly once" in text[2]
    assert "no source 'other_tenants_doc' in this scope" in text[3]
    assert "the window is over the limit of 8000 characters" in text[4]
    assert _digest(world) == before
