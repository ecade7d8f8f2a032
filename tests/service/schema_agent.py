"""An agent-like MCP client that knows nothing of citeaudit: it builds every call from
``tools/list`` alone — the input schema, its example and its descriptions — and from what
earlier answers told it, the way a model with tool use does.

Rules, none of them about a particular tool:

- tools with no required arguments are called first, then the others in the order listed;
- when a schema carries an example, the example is the call;
- otherwise each required property gets the value of the same name from an earlier answer, or,
  for a string whose description speaks of a source's text, the last text read; failing that,
  the least value its type and bounds allow;
- no optional property is sent (the defaults are the schema's).

Every call is checked against its schema (JSON Schema 2020-12) before it is sent.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import jsonschema
from mcp import Client

__all__ = ["build_call", "run_agent"]


def _remember(known: dict[str, Any], value: Any) -> None:
    """Every scalar field of an answer, by its name (the last one seen wins)."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(item, (str, int)) and not isinstance(item, bool):
                known[key] = item
            else:
                _remember(known, item)
    elif isinstance(value, list):
        for item in value:
            _remember(known, item)


def _value(name: str, prop: Mapping[str, Any], known: Mapping[str, Any]) -> Any:
    kind = prop.get("type")
    seen = known.get(name)
    if kind == "integer":
        low = prop.get("minimum", 0)
        return seen if isinstance(seen, int) and not isinstance(seen, bool) and seen >= low else low
    if kind == "string":
        if isinstance(seen, str):
            return seen
        if "text" in str(prop.get("description", "")).lower() and isinstance(known.get("text"), str):
            return known["text"]
        if "enum" in prop:
            return prop["enum"][0]
        return "x" * max(1, int(prop.get("minLength", 1)))
    if kind == "array":
        return []
    if kind == "boolean":
        return False
    return {}


def build_call(schema: Mapping[str, Any], known: Mapping[str, Any]) -> dict[str, Any]:
    if schema.get("examples"):
        call = copy.deepcopy(schema["examples"][0])
    else:
        props = schema.get("properties", {})
        call = {name: _value(name, props[name], known) for name in schema.get("required", [])}
    jsonschema.Draft202012Validator(dict(schema)).validate(call)
    return dict(call)


async def run_agent(client: Client) -> list[tuple[str, dict[str, Any], Any]]:
    """One first try at every tool: (name, arguments, result) in the order called."""
    listed = (await client.list_tools()).tools
    order = [t for t in listed if not t.input_schema.get("required")] + [
        t for t in listed if t.input_schema.get("required")
    ]
    known: dict[str, Any] = {}
    calls = []
    for tool in order:
        arguments = build_call(tool.input_schema, known)
        result = await client.call_tool(tool.name, arguments)
        if not result.is_error and result.structured_content is not None:
            _remember(known, result.structured_content)
        calls.append((tool.name, arguments, result))
    return calls
