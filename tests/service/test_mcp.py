"""The MCP server through the SDK's real client: over stdio for the tool list, each tool's
happy path, bad input and no way to write; in-process for the answer bounds; as raw JSON-RPC
lines for the transport; and through an agent-like client that builds its calls from
``tools/list`` alone."""

from __future__ import annotations

import asyncio
import hashlib
import json
import shutil
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from mcp import Client, MCPError, StdioServerParameters

from citeaudit.config import Config
from citeaudit.formats import parse_document
from citeaudit.formats.wire import _SOURCE_KEYS
from citeaudit.service.mcp import McpOptions, build_server, fit_report
from citeaudit.wiring import open_evidence, read_only_auditor
from tests.conftest import GOLDEN, run_cli
from tests.service.schema_agent import run_agent

TOOLS = ["list_sources", "get_source_excerpt", "locate_quote", "audit_claims", "audit_report", "feedback"]
PLAN_A = "# Plan A\nPlan A works offline. Plan A needs no account.\n"


@pytest.fixture
def world(tmp_path: Path) -> Path:
    """A cache and snapshots (seed 000) and an evidence store with one source."""
    shutil.copytree(GOLDEN / "seed000", tmp_path / "seed")
    plan = tmp_path / "plan_a.md"
    plan.write_text(PLAN_A, "utf-8")
    _add(tmp_path, plan, "plan_a")
    return tmp_path


def _add(world: Path, path: Path, source_id: str) -> None:
    added = run_cli(
        "sources", "add", path, "--id", source_id, "--store", world / "s.db", "--scope", "team/agent"
    )
    assert added.code == 0, added.stderr


def _digest(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(root)).encode() + path.read_bytes())
    return h.hexdigest()


def _command(world: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "citeaudit", "mcp", "--cache", str(world / "seed" / "cache"), "--sources",
            str(world / "seed" / "sources"), "--store", str(world / "s.db"), "--scope", "team/agent",
            *extra]  # fmt: skip


def _session(world: Path, body: Callable[[Client], Awaitable[Any]], *extra: str) -> Any:
    command = _command(world, *extra)
    params = StdioServerParameters(command=command[0], args=command[1:])

    async def run() -> Any:
        async with Client(params, read_timeout_seconds=60) as client:
            return await body(client)

    return asyncio.run(run())


def _in_process(world: Path, body: Callable[[Client], Awaitable[Any]], **limits: int) -> Any:
    config = Config(
        cache=world / "seed" / "cache", sources=world / "seed" / "sources", store=str(world / "s.db"),
        scope="team/agent",
    )  # fmt: skip
    options = McpOptions(
        auditor=read_only_auditor(config), evidence=open_evidence(config, read_only=True), **limits
    )

    async def run() -> Any:
        async with Client(build_server(options)) as client:
            return await body(client)

    return asyncio.run(run())


def _claims(world: Path) -> dict[str, Any]:
    claims: dict[str, Any] = json.loads((world / "seed" / "claims.json").read_text("utf-8"))
    return claims


def _many(world: Path, n: int) -> dict[str, Any]:
    """n claims: seed 000's four, repeated under new ids."""
    seed = _claims(world)["claims"]
    claims = []
    for i in range(n):
        claim = json.loads(json.dumps(seed[i % len(seed)]))
        claim["id"] = f"k{i}"
        for citation in claim.get("citations", []):
            citation.pop("id", None)
        claims.append(claim)
    return {"claims": claims}


def _sizes(result: Any) -> tuple[int, int]:
    text = result.content[0].text.encode("utf-8")
    structured = json.dumps(result.structured_content, ensure_ascii=False, separators=(",", ":"))
    return len(text), len(structured.encode("utf-8"))


def _error(result: Any) -> str:
    assert result.is_error
    assert result.structured_content is None
    (content,) = result.content
    text: str = content.text
    assert "\n" not in text
    assert "pydantic" not in text
    return text


def _walk(node: Any) -> list[tuple[str, dict[str, Any]]]:
    """Every property of every object in a schema, by name."""
    found = []
    if isinstance(node, dict):
        for name, prop in (node.get("properties") or {}).items():
            found.append((name, prop))
        for value in node.values():
            found += _walk(value)
    elif isinstance(node, list):
        for item in node:
            found += _walk(item)
    return found


def test_the_tool_list_teaches_the_contract(world: Path) -> None:
    async def body(client: Client) -> Any:
        return (await client.list_tools()).tools

    tools = {t.name: t for t in _session(world, body)}
    assert list(tools) == TOOLS
    for tool in tools.values():
        hints = tool.annotations
        assert hints is not None
        assert (
            hints.read_only_hint,
            hints.idempotent_hint,
            hints.open_world_hint,
            hints.destructive_hint,
        ) == (
            True,
            True,
            False,
            False,
        )
        assert tool.input_schema["additionalProperties"] is False
        assert tool.description
        assert len(tool.description) < 900
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)
        for name, prop in _walk(tool.input_schema):  # every field is described
            assert prop.get("description"), f"{tool.name}: {name} has no description"
    audit = tools["audit_claims"].input_schema
    assert audit == tools["feedback"].input_schema | {
        "properties": {
            **tools["feedback"].input_schema["properties"],
            "detail": audit["properties"]["detail"],
        }
    }
    assert audit["required"] == ["claims"]
    assert audit["properties"]["detail"]["enum"] == ["compact", "full"]
    claim = audit["properties"]["claims"]["items"]
    assert claim["required"] == ["id", "text"]
    assert claim["additionalProperties"] is False
    variants = audit["$defs"]["citation"]["anyOf"]
    # Every form of citation the native format reads has its variant, required key first.
    assert sorted(k for v in variants for k in v["required"] if k in _SOURCE_KEYS) == sorted(_SOURCE_KEYS)
    doi = next(v for v in variants if v["required"] == ["doi"])
    assert doi["properties"]["year"]["type"] == "integer"
    assert doi["properties"]["quote"]["description"].startswith(
        "The passage copied verbatim from the source, at least 30 characters"
    )
    store = next(v for v in variants if "source_id" in v["required"])
    assert store["properties"]["digest"]["pattern"] == "^[0-9a-f]{64}$"
    assert store["properties"]["revision"]["minimum"] == 1
    assert store["properties"]["start"]["type"] == "integer"
    excerpt = tools["get_source_excerpt"].input_schema
    assert excerpt["required"] == ["source_id", "start", "end"]
    assert excerpt["properties"]["context"]["default"] == 200
    # The example is a valid call: by the schema, and by the native format's own parser.
    (example,) = audit["examples"]
    jsonschema.Draft202012Validator(audit).validate(example)
    quotes = [c["quote"] for claim in example["claims"] for c in claim["citations"]]
    assert all(len(q) >= 30 for q in quotes), quotes  # the example keeps its own 30-character rule
    assert len(parse_document(example, "example").claims) == 2


@pytest.mark.parametrize(
    "arguments",
    [
        {"claims": [{"id": "c", "text": "t", "citations": [{"doi": "10.1/x", "year": "2024"}]}]},
        {"claims": [{"id": "c", "text": "t", "status": "ok"}]},
        {
            "claims": [
                {"id": "c", "text": "t", "citations": [{"source_id": "s", "revision": 1, "digest": "0" * 64}]}
            ]
        },
        {"claims": [{"id": "c", "text": "t"}], "offline": False},
        {"claims": []},
        {"claims": {"claims": [{"id": "c", "text": "t"}]}},
    ],
    ids=["year-string", "extra-field", "no-quote", "extra-argument", "no-claims", "nested"],
)
def test_the_schema_and_the_server_agree_on_what_is_refused(world: Path, arguments: dict[str, Any]) -> None:
    async def body(client: Client) -> Any:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        return tools["audit_claims"].input_schema, await client.call_tool("audit_claims", arguments)

    schema, result = _in_process(world, body)
    assert not jsonschema.Draft202012Validator(schema).is_valid(arguments)
    _error(result)


def test_tools_and_happy_paths(world: Path) -> None:
    before = _digest(world)
    claims = _claims(world)

    async def body(client: Client) -> dict[str, Any]:
        return {
            "sources": await client.call_tool("list_sources", {}),
            "compact": await client.call_tool("audit_claims", claims),
            "full": await client.call_tool("audit_claims", {**claims, "detail": "full"}),
            "feedback": await client.call_tool("feedback", claims),
            "located": await client.call_tool(
                "locate_quote", {"source_id": "plan_a", "fragment": "Plan A works offline."}
            ),
            "excerpt": await client.call_tool(
                "get_source_excerpt", {"source_id": "plan_a", "start": 9, "end": 30, "context": 5}
            ),
            "whole": await client.call_tool(
                "get_source_excerpt", {"source_id": "plan_a", "start": 0, "end": 8, "context": 9000}
            ),
        }

    async def with_tools(client: Client) -> dict[str, Any]:
        return {"tools": (await client.list_tools()).tools, **(await body(client))}

    out = _session(world, with_tools)
    schemas = {t.name: t.output_schema for t in out.pop("tools")}
    tool_of = {"sources": "list_sources", "compact": "audit_claims", "full": "audit_claims",
               "feedback": "feedback", "located": "locate_quote", "excerpt": "get_source_excerpt",
               "whole": "get_source_excerpt"}  # fmt: skip
    for name, result in out.items():
        assert not result.is_error
        # Every structured result is what its tool's outputSchema says it returns.
        jsonschema.Draft202012Validator(schemas[tool_of[name]]).validate(result.structured_content)
    assert out["sources"].structured_content == {
        "scope": "team/agent",
        "sources": [{"source_id": "plan_a", "title": "plan_a.md", "kind": "document", "revision": 1,
                     "digest": hashlib.sha256(PLAN_A.encode()).hexdigest(), "size": 56}],
    }  # fmt: skip
    compact = out["compact"].structured_content
    assert json.loads(out["compact"].content[0].text) == compact  # the same result, once as text
    assert (compact["detail"], compact["decision"], compact["status"]) == ("compact", "reject", "invalid")
    assert [(c["id"], c["status"], c["codes"]) for c in compact["claims"]] == [
        ("c1", "requires_entailment_check", []),
        ("c2", "invalid_reference", ["E_YEAR_MISMATCH", "E_QUOTE_NOT_FOUND", "E_NUMBER_UNSUPPORTED:3"]),
        ("c3", "could_not_check", ["E_NOT_CACHED"]),
        ("c4", "unsupported", ["E_UNCITED"]),
    ]
    c2 = compact["claims"][1]
    assert c2["messages"][0] == "E_YEAR_MISMATCH (c2#1): 2023 is not a year of the work (the record has 2024)"
    assert c2["suggestions"][0] == {  # a patch to the citation, in the input's own field names
        "citation": "c2#1",
        "code": "E_YEAR_MISMATCH",
        "fix": {"year": 2024},
    }
    assert c2["suggestions"][1]["code"] == "E_QUOTE_NOT_FOUND"
    assert "fix" not in c2["suggestions"][1]  # no field can fix it: what was found is a hint
    assert c2["suggestions"][1]["hint"]["closest"].startswith("экспериментах привязка")
    assert compact["claims"][3]["messages"] == ["E_UNCITED (the claim): the claim cites nothing"]
    assert compact["counts"]["claims_by_status"]["invalid_reference"] == 1
    full = out["full"].structured_content
    assert [r["errors"] for r in full["results"]] == [[], ["E_YEAR_MISMATCH", "E_QUOTE_NOT_FOUND",
                                                     "E_NUMBER_UNSUPPORTED:3"], ["E_NOT_CACHED"], ["E_UNCITED"]]  # fmt: skip
    assert (full["settings"]["judge"], full["decision"]) == ("rules/coverage<0.3/rules-1", "reject")
    feedback = out["feedback"].structured_content
    assert [(f["claim"], f["action"]) for f in feedback["fix"]] == [
        ("c2", "fix_or_delete"),
        ("c3", "wait_for_a_person"),
        ("c4", "fix_or_delete"),
    ]
    assert feedback["keep_unchanged"] == ["c1"]
    assert out["feedback"].content[0].text.startswith("Fix or delete only the claims listed below.")
    located = out["located"].structured_content
    assert (located["start"], located["end"], located["revision"]) == (9, 30, 1)
    excerpt = out["excerpt"].structured_content
    assert (excerpt["text"], excerpt["before"], excerpt["after"]) == (
        "Plan A works offline.",
        "an A\n",
        " Plan",
    )
    whole = out["whole"].structured_content  # a large context is cut at the text's ends
    assert (whole["before"], whole["text"], whole["after"]) == ("", "# Plan A", PLAN_A[8:])
    assert _digest(world) == before  # nothing it is checked against changed


def test_an_agent_that_reads_only_the_tool_list_calls_every_tool_right_the_first_time(world: Path) -> None:
    before = _digest(world)
    calls = _session(world, run_agent)
    assert [name for name, _, _ in calls] == TOOLS
    for name, arguments, result in calls:
        assert not result.is_error, (name, arguments, result.content[0].text)
    by_name = {name: (arguments, result) for name, arguments, result in calls}
    # What it built, from the schemas and the answers before.
    assert by_name["get_source_excerpt"][0] == {"source_id": "plan_a", "start": 0, "end": 1}
    assert by_name["locate_quote"][0] == {"source_id": "plan_a", "fragment": "#"}
    audited = by_name["audit_claims"][1].structured_content
    assert [(c["id"], c["codes"]) for c in audited["claims"]] == [("c1", ["E_NOT_CACHED"]), ("c2", [])]
    assert by_name["feedback"][1].structured_content["keep_unchanged"] == ["c2"]
    assert _digest(world) == before


def test_the_judge_is_the_operators_choice(world: Path) -> None:
    claims = _claims(world)

    async def body(client: Client) -> Any:
        return await client.call_tool("audit_claims", {**claims, "detail": "full"})

    report = _session(world, body, "--judge", "none").structured_content
    assert report["settings"]["judge"] is None
    assert [c["verdict"] for c in report["claims"]] == [None, None, None, None]
    bad = run_cli("mcp", "--judge", "oracle")
    assert bad.code == 2
    assert bad.stderr.strip() == (
        "citeaudit: error: unknown judge 'oracle'; expected 'rules', 'learned[:NAME|MODEL.json]', 'nli:MODEL', "
        "'llm:MODEL@URL' "
        "or 'rules+' and one of these ('none' skips the semantic stage)"
    )


def test_errors_are_one_line_and_nothing_can_be_written(world: Path) -> None:
    long = world / "long.txt"
    long.write_text("".join(f"word{i:05d} " for i in range(2_000)), "utf-8")  # 20,000 characters
    _add(world, long, "long")
    before = _digest(world)
    excerpt = "get_source_excerpt"

    async def body(client: Client) -> list[Any]:
        calls: list[tuple[str, dict[str, Any]]] = [
            ("audit_claims", {"claims": [{"id": "c", "text": "t", "status": "ok"}]}),
            ("audit_claims", {"claims": [{"id": "c", "text": "x" * 1_100_000}]}),
            ("audit_claims", {"claims": [{"id": "c", "text": "t"}], "offline": False, "fetch": True}),
            ("audit_claims", {"claims": {"claims": [{"id": "c", "text": "t"}]}}),
            ("audit_claims", {"claims": [{"id": "c", "text": "t"}], "detail": "everything"}),
            (
                "audit_claims",
                {"claims": [{"id": "c", "text": "t", "citations": [{"doi": "10.1/x", "year": "2024"}]}]},
            ),
            ("locate_quote", {"source_id": "plan_a", "fragment": "Plan A"}),
            ("locate_quote", {"source_id": "plan_a", "fragment": "Plan B"}),
            ("locate_quote", {"source_id": "other_tenants_doc", "fragment": "x"}),
            ("locate_quote", {"source_id": "plan_a"}),
            (excerpt, {"source_id": "plan_a", "start": True, "end": 30}),
            (excerpt, {"source_id": "plan_a", "start": 9, "end": "30"}),
            (excerpt, {"source_id": "plan_a", "start": 9, "end": 30, "context": 5.0}),
            (excerpt, {"source_id": "plan_a", "start": 9, "end": 30, "context": False}),
            (excerpt, {"source_id": "plan_a", "start": 9, "end": 300}),
            (excerpt, {"source_id": "long", "start": 10_000, "end": 10_010, "context": 4_000}),
            ("list_sources", {"scope": "other/tenant"}),
            ("sources_add", {"source_id": "plan_a", "text": "Plan A cures everything."}),
        ]
        results = [await client.call_tool(name, arguments) for name, arguments in calls]
        # The window returned is what is bounded: the same context near the text's start fits.
        results.append(
            await client.call_tool(excerpt, {"source_id": "long", "start": 10, "end": 20, "context": 4_000})
        )
        return results

    *errors, near_start = _session(world, body)
    assert [_error(r) for r in errors] == [
        "audit_claims: claims: $.claims[0].status: unknown field (not part of the contract)",
        "audit_claims: the claims are 1100037 bytes, over the limit of 1000000",
        "audit_claims: unknown arguments 'fetch', 'offline'; it takes answer, citations, claims, conflicts, "
        "detail, gaps, labels, question, title",
        "audit_claims: claims: expected an array of claims, got an object: the arguments are the claims "
        'document itself ({"claims": [...]}), not nested in claims',
        'audit_claims: $.detail: expected "compact" or "full", got \'everything\'',
        "audit_claims: claims: $.claims[0].citations[0].year: expected an integer, got string '2024'",
        "locate_quote: $.fragment: occurs 3 times in plan_a; it must occur exactly once (give more of the "
        "passage around it)",
        "locate_quote: $.fragment: occurs 0 times in plan_a; it must occur exactly once",
        "locate_quote: $.source_id: no source 'other_tenants_doc' in this scope (list_sources names them)",
        "locate_quote: $.fragment: required field is missing",
        "get_source_excerpt: $.start: expected an integer, got boolean True",
        "get_source_excerpt: $.end: expected an integer, got string '30'",
        "get_source_excerpt: $.context: expected an integer, got number 5.0",
        "get_source_excerpt: $.context: expected an integer, got boolean False",
        "get_source_excerpt: $.end: [9, 300) is not a range of plan_a (56 characters)",
        "get_source_excerpt: $.context: the window [6000, 14010) is 8010 characters, over the limit of 8000; "
        "ask for a shorter range or less context",
        "list_sources: unknown argument 'scope'; it takes no arguments",
        "no tool 'sources_add'; the tools are list_sources, get_source_excerpt, locate_quote, audit_claims, "
        "audit_report, feedback",
    ]
    window = near_start.structured_content
    assert (len(window["before"]), len(window["text"]), len(window["after"])) == (10, 10, 4_000)
    assert _digest(world) == before


def test_a_large_report_comes_back_compact_and_the_full_one_on_request(world: Path) -> None:
    sizes: dict[str, Any] = {}

    async def body(client: Client) -> None:
        for n in (200, 1_500):
            claims = _many(world, n)
            sizes[f"{n} input"] = len(json.dumps(claims).encode("utf-8"))
            for detail in ("compact", "full"):
                result = await client.call_tool("audit_claims", {**claims, "detail": detail})
                assert not result.is_error
                sizes[f"{n} {detail}"] = (_sizes(result), result.structured_content.get("detail"))
                sizes[f"{n} {detail} note"] = result.structured_content.get("note")
                assert len(result.structured_content["claims"]) == n

    _session(world, body)
    assert sizes["200 input"] < sizes["1500 input"] < 1_000_000
    (text, structured), detail = sizes["200 compact"]
    assert detail == "compact"
    assert text == structured < 70_000
    (text, structured), detail = sizes["200 full"]
    assert detail is None
    assert text == structured < 250_000
    for key in ("1500 compact", "1500 full"):
        (text, structured), detail = sizes[key]
        assert detail == "compact"
        assert text + structured <= 2_000_000
    assert sizes["1500 full note"].startswith("the full report is ")
    assert sizes["1500 full note"].endswith(
        " bytes, over the limit of 1000000 bytes for a result: the compact result follows"
    )


def test_a_report_over_the_bound_comes_back_summarised_never_as_an_error(world: Path) -> None:
    claims = _many(world, 200)

    async def body(client: Client) -> Any:
        return await client.call_tool("audit_claims", {**claims, "detail": "full"})

    result = _in_process(world, body, max_response_bytes=40_000)
    summary = result.structured_content
    assert not result.is_error
    assert sum(_sizes(result)) <= 40_000
    assert summary["detail"] == "summary"
    assert summary["counts"]["claims"] == 200  # the counts cover every claim
    assert summary["by_code"]["E_UNCITED"] == 50
    shown = summary["truncated"]["claims_shown"]
    assert 0 < shown < 150
    assert len(summary["claims"]) == shown
    assert all(c["codes"] for c in summary["claims"])  # the claims to fix come first
    assert summary["truncated"]["reason"].endswith(
        "over the limit of 20000 bytes for a result; audit the claims in smaller batches for the rest"
    )

    # Under a limit too small even for the counts' claims, still an answer.
    async def full(client: Client) -> Any:
        return (await client.call_tool("audit_claims", {**claims, "detail": "full"})).structured_content

    report = _in_process(world, full)
    tiny = fit_report(report, "full", 600)
    assert (tiny["detail"], tiny["claims"], tiny["decision"]) == ("summary", [], "reject")


def _raw(world: Path, lines: list[bytes], timeout: float = 60) -> tuple[list[dict[str, Any]], str]:
    """Lines written at once, standard input then closed: what the server answered."""
    done = subprocess.run(
        _command(world), input=b"".join(lines), capture_output=True, timeout=timeout, check=True
    )
    return [json.loads(line) for line in done.stdout.splitlines()], done.stderr.decode()


def _request(ident: int, method: str, params: dict[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": ident, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode() + b"\n"


INIT = _request(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                  "clientInfo": {"name": "raw", "version": "1"}})  # fmt: skip
INITIALIZED = b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n'


def test_a_line_that_is_not_json_rpc_gets_an_answer_and_the_session_goes_on(world: Path) -> None:
    answers, _ = _raw(
        world,
        [INIT, INITIALIZED, b"this is not json\n", b"[1, 2]\n", b'{"id": 7}\n', _request(2, "tools/list")],
    )
    assert answers[1:4] == [
        {"jsonrpc": "2.0", "id": None,
         "error": {"code": -32700, "message": "not JSON: Expecting value: line 1 column 1 (char 0)"}},
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "not a JSON-RPC 2.0 message"}},
        {"jsonrpc": "2.0", "id": 7, "error": {"code": -32600, "message": "not a JSON-RPC 2.0 message"}},
    ]  # fmt: skip
    assert answers[4]["id"] == 2
    assert [t["name"] for t in answers[4]["result"]["tools"]] == TOOLS


def test_a_message_over_the_line_bound_is_refused_unread(world: Path) -> None:
    answers, _ = _raw(
        world, [INIT, INITIALIZED, b'{"x": "' + b"x" * 4_000_000 + b'"}\n', _request(2, "tools/list")]
    )
    assert answers[1] == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": "the message is over the limit of 4000000 bytes"},
    }
    assert answers[2]["id"] == 2


def test_without_a_store_the_store_tools_say_so(world: Path) -> None:
    options = McpOptions(auditor=read_only_auditor(Config(cache=world / "seed" / "cache")))

    async def body(client: Client) -> list[Any]:
        return [
            await client.call_tool("list_sources", {}),
            await client.call_tool("locate_quote", {"source_id": "plan_a", "fragment": "Plan A"}),
        ]

    async def run() -> list[Any]:
        async with Client(build_server(options)) as client:
            return await body(client)

    listed, located = asyncio.run(run())
    assert listed.structured_content == {"scope": None, "sources": []}
    assert _error(located) == (
        "locate_quote: $.source_id: no evidence store is configured for this server (the host gives --store "
        "and --scope)"
    )


def test_requests_in_flight_when_stdin_closes_are_answered(world: Path) -> None:
    claims = _many(world, 200)
    calls = [_request(10 + i, "tools/call", {"name": "audit_claims", "arguments": claims}) for i in range(3)]
    answers, _ = _raw(world, [INIT, INITIALIZED, *calls, _request(20, "tools/list")])
    assert sorted(a["id"] for a in answers) == [1, 10, 11, 12, 20]
    for answer in answers:
        if answer["id"] in (10, 11, 12):
            assert answer["result"]["isError"] is False
            assert len(answer["result"]["structuredContent"]["claims"]) == 200


def test_the_store_needs_its_scope_at_start() -> None:
    no_scope = run_cli("mcp", "--store", "evidence.db")
    assert (no_scope.code, no_scope.stderr.strip()) == (
        2,
        "citeaudit: error: no scope: give --scope TENANT/USER",
    )
    no_store = run_cli("mcp", "--scope", "team/agent")
    assert (no_store.code, no_store.stderr.strip()) == (
        2,
        "citeaudit: error: no evidence store: give --store (a SQLite file or a postgresql:// URL)",
    )


REPORT_MD = (
    "# Grounding\n\nGrounding "
    "«снизила число неподтверждённых утверждений с 18 до 7 на сотню ответов» [1]. Another claim [2].\n\n"
    "## References\n\n1. Ivanova (2024). Demo Paper on Retrieval Grounding. https://doi.org/10.0000/demo.1\n"
)


def test_audit_report_reads_a_markdown_report(world: Path) -> None:
    async def body(client: Client) -> Any:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        return (
            tools["audit_report"],
            await client.call_tool("audit_report", {"markdown": REPORT_MD, "detail": "full"}),
            await client.call_tool("audit_report", {"markdown": ""}),
            await client.call_tool("audit_report", {"markdown": "x", "claims": []}),
        )

    tool, full, empty, extra = _in_process(world, body)
    assert tool.annotations.read_only_hint is True
    assert tool.input_schema["required"] == ["markdown"]
    report = full.structured_content
    assert report["input_format"] == "markdown-report"
    codes = {(r["claim"], r["citation"]): [f["code"] for f in r["findings"]] for r in report["results"]}
    assert codes == {("c001", "1"): [], ("c002", "2"): ["E_MARKER_UNDEFINED"]}
    assert report["claims"][0]["position"]["markers"][0]["text"] == "[1]"
    assert empty.is_error
    assert (
        empty.content[0].text
        == "audit_report: $.markdown: expected the report's Markdown, a non-empty string"
    )
    assert extra.is_error
    assert extra.content[0].text == "audit_report: unknown argument 'claims'; it takes detail, markdown"


def test_every_tool_has_an_output_schema_its_results_keep(world: Path) -> None:
    claims = _many(world, 200)

    async def body(client: Client) -> Any:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        results = [
            ("audit_report", await client.call_tool("audit_report", {"markdown": REPORT_MD})),
            (
                "audit_report",
                await client.call_tool("audit_report", {"markdown": REPORT_MD, "detail": "full"}),
            ),
            ("audit_claims", await client.call_tool("audit_claims", {**claims, "detail": "full"})),
            ("feedback", await client.call_tool("feedback", claims)),
            ("list_sources", await client.call_tool("list_sources", {})),
        ]
        return tools, results

    tools, results = _in_process(world, body, max_response_bytes=40_000)
    assert list(tools) == TOOLS
    for tool in tools.values():
        assert tool.output_schema is not None, tool.name
        assert tool.output_schema["type"] == "object"
        jsonschema.Draft202012Validator.check_schema(tool.output_schema)
    details = []
    for name, result in results:
        assert not result.is_error, result.content[0].text
        jsonschema.Draft202012Validator(tools[name].output_schema).validate(result.structured_content)
        details.append(result.structured_content.get("detail"))
    assert details == ["compact", None, "summary", "summary", None]  # each shape a result can take
    report = results[1][1].structured_content
    tiny = fit_report(report, "full", 600)  # even the smallest answer keeps the schema
    jsonschema.Draft202012Validator(tools["audit_claims"].output_schema).validate(tiny)


def test_an_oversize_request_is_answered_with_its_id(world: Path) -> None:
    """The SDK client matches the error to its request and goes on; it does not wait for ever."""
    huge = {"claims": [{"id": "c", "text": "x" * 4_100_000}]}

    async def body(client: Client) -> Any:
        with pytest.raises(MCPError) as refused:
            await asyncio.wait_for(client.call_tool("audit_claims", huge), 60)
        return refused.value, await client.call_tool("list_sources", {})

    error, after = _session(world, body)
    assert str(error) == "the message is over the limit of 4000000 bytes"
    assert not after.is_error
    # Read from the raw bytes, bounded: the top-level id, never one nested in params.
    line = json.dumps({"jsonrpc": "2.0", "method": "tools/call", "params": {"id": 3, "x": "y" * 4_000_000},
                       "id": "req-9"}).encode() + b"\n"  # fmt: skip
    answers, _ = _raw(world, [INIT, INITIALIZED, line])
    assert answers[1]["id"] is None  # the id comes after the bound: it cannot be read
    first = json.dumps({"jsonrpc": "2.0", "id": "req-9", "method": "tools/call",
                        "params": {"id": 3, "x": "y" * 4_000_000}}).encode() + b"\n"  # fmt: skip
    answers, _ = _raw(world, [INIT, INITIALIZED, first])
    assert answers[1] == {
        "jsonrpc": "2.0",
        "id": "req-9",
        "error": {"code": -32600, "message": "the message is over the limit of 4000000 bytes"},
    }


def _apply(claims: dict[str, Any], feedback: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """What an agent does with feedback: merge every fix into its citation; delete a claim with a
    problem no fix is given for; keep every other claim as it is. Returns the claims and the fixes."""
    applied = 0
    drop = set()
    for item in feedback["fix"]:
        claim = next(c for c in claims["claims"] if c["id"] == item["claim"])
        for problem in item["problems"]:
            if "fix" not in problem:
                drop.add(claim["id"])
                continue
            n = int(problem["citation"].rsplit("#", 1)[1]) - 1
            claim["citations"][n] |= problem["fix"]
            applied += 1
    claims["claims"] = [c for c in claims["claims"] if c["id"] not in drop]
    return claims, applied


def test_an_agent_that_applies_every_fix_it_is_given_reaches_a_clean_report(world: Path) -> None:
    claims = _claims(world)
    for claim in claims["claims"]:  # seed 000, with c2 citing a verbatim quote and no number
        if claim["id"] == "c2":
            claim["text"] = "Метод снижает число ошибок."
            claim["citations"][0]["quote"] = (
                "экспериментах привязка каждого утверждения к найденному фрагменту"
            )
            claim["citations"][0]["title"] = "Demo paper on retrieval"
    claims["claims"] = [c for c in claims["claims"] if c["id"] != "c3"]  # not in the cache: nobody can fix it

    async def body(client: Client) -> list[Any]:
        rounds = []
        current = json.loads(json.dumps(claims))
        for _ in range(4):
            compact = (await client.call_tool("audit_claims", current)).structured_content
            result = await client.call_tool("feedback", current)
            assert not result.is_error
            feedback = result.structured_content
            fixes = [s for c in compact["claims"] for s in c["suggestions"] if "fix" in s]
            rounds.append((compact["outcome"], feedback["clean"], fixes))
            if feedback["clean"]:
                break
            # audit_claims gives the same fixes as feedback
            assert fixes == [{"citation": p["citation"], "code": p["code"], "fix": p["fix"]}
                             for item in feedback["fix"] for p in item["problems"] if "fix" in p]  # fmt: skip
            current, _ = _apply(current, feedback)
        return rounds

    rounds = _session(world, body)
    assert rounds[0][2] == [
        {
            "citation": "c2#1",
            "code": "E_TITLE_MISMATCH",
            "fix": {"title": "Demo Paper on Retrieval Grounding"},
        },
        {"citation": "c2#1", "code": "E_YEAR_MISMATCH", "fix": {"year": 2024}},
    ]
    assert [(outcome, clean) for outcome, clean, _ in rounds] == [("errors", False), ("clean", True)]


def test_a_quote_less_claim_is_judged_on_the_works_text_and_the_passage_comes_back_as_its_fix(
    world: Path,
) -> None:
    """Through the SDK client: a claim citing the seed's DOI with no quote is judged on the passages
    of the work's snapshot; the passage comes back as a fix, and applied, proves the citation."""
    sentence = "снизила число неподтверждённых утверждений с 18 до 7 на сотню ответов"
    claims = {
        "claims": [
            {"id": "k1", "text": f"Привязка каждого утверждения к найденному фрагменту {sentence}.",
             "citations": [{"doi": "10.0000/demo.1", "title": "Demo Paper on Retrieval Grounding",
                            "year": 2024, "first_author": "Ivanova"}]},
        ]
    }  # fmt: skip

    async def body(client: Client) -> tuple[Any, Any, Any]:
        full = (await client.call_tool("audit_claims", {**claims, "detail": "full"})).structured_content
        compact = (await client.call_tool("audit_claims", claims)).structured_content
        fixed = json.loads(json.dumps(claims))
        for suggestion in compact["claims"][0]["suggestions"]:
            if suggestion["code"] == "QUOTE_THE_PASSAGE":
                fixed["claims"][0]["citations"][0] |= suggestion["fix"]
        again = (await client.call_tool("audit_claims", {**fixed, "detail": "full"})).structured_content
        return full, compact, again

    full, compact, again = _session(world, body, "--judge", "learned")
    verdict = full["claims"][0]["verdict"]
    assert (verdict["basis"], verdict["label"]) == ("retrieved", "entailed")
    assert verdict["texts"][0]["basis"] == "full_text"
    assert verdict["texts"][0]["name"] == "snapshot of 10.0000/demo.1"
    assert sentence in verdict["passages"][0]["text"].replace("\n", " ")
    assert full["decision"] == "manual_review"  # judged, not proved
    (fix,) = [s for s in compact["claims"][0]["suggestions"] if s["code"] == "QUOTE_THE_PASSAGE"]
    assert fix == {
        "citation": "k1#1",
        "code": "QUOTE_THE_PASSAGE",
        "fix": {"quote": verdict["passages"][0]["text"]},
    }
    row = again["results"][0]
    assert row["errors"] == []
    assert row["location"] is not None  # the quote is found in the snapshot
    assert again["claims"][0]["verdict"]["basis"] == "quote"
