"""The generated reference pages cannot drift: each is made from the code when the site is built
(docs/hooks/reference.py), and these tests hold what is made to the code. A command, flag, finding
code, configuration key, environment variable, MCP tool or HTTP operation with no entry fails here."""

from __future__ import annotations

import argparse
import dataclasses
import json
import re

import pytest

from citeaudit.checks.codes import CATALOGUE
from citeaudit.config import ENV_VARS, OTHER_ENV_VARS, Config
from citeaudit.policy import Policy
from tests.docs.support import DOCS, hook, pages, section, table_rows


def test_every_command_has_a_section_with_every_flag() -> None:
    text = hook().render("cli")
    commands = hook().cli_commands()
    assert len(commands) > 20
    for command in commands[1:]:
        body = section(text, command.name)
        subs = command.subcommands()
        if subs:
            for sub in subs:
                listed = f"[`{sub.name}`](#{sub.anchor})"
                assert listed in body, f"{sub.name} is not listed under {command.name}"
            continue
        rows = table_rows(body)
        for action in command.parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            if not action.option_strings:
                assert str(action.metavar or action.dest).upper() in rows, f"{command.name} {action.dest}"
                continue
            for flag in action.option_strings:
                assert re.search(rf"`{re.escape(flag)}[ `]", body), f"{command.name} {flag} has no entry"
            if action.help and action.help != argparse.SUPPRESS:
                entry = next(v for k, v in rows.items() if k.split()[0] == action.option_strings[0])
                assert entry[-1] not in ("", "—"), f"{command.name} {action.option_strings[0]} has no meaning"


def test_every_top_level_command_is_in_the_overview() -> None:
    text = hook().render("cli")
    overview = text.split("\n## ", 1)[0]
    for command in hook().cli_commands():
        if len(command.path) == 1:
            assert f"[`{command.name}`](#{command.anchor})" in overview


def test_every_finding_code_is_in_the_table_with_its_severity_and_status() -> None:
    rows = table_rows(hook().render("codes", {}))
    assert set(rows) - {"code"} == set(CATALOGUE)
    for code, info in CATALOGUE.items():
        severity, status, meaning = rows[code][0], rows[code][1], rows[code][2]
        assert severity == info.severity.value
        assert status == info.outcome.value.replace("_", " ")
        assert meaning


def test_every_code_is_explained_in_a_guide() -> None:
    guides = "\n".join(t for name, t in pages().items() if name.startswith(("guides/", "getting-started/")))
    for code in CATALOGUE:
        assert f"`{code}" in guides, f"{code} is named in no guide"


def test_every_setting_has_an_entry_with_its_variable_and_a_meaning() -> None:
    rows = {key: rest for key, *rest in hook().config_rows()}
    for field in dataclasses.fields(Config):
        if field.name == "origin":
            continue
        if field.name == "policy":
            for sub in dataclasses.fields(Policy):
                assert rows[f"[policy] {sub.name}"][-1], sub.name
            continue
        key = {"mirrors": "[search] mirrors", "indexes": "[search] indexes", "severity": "[severity]"}.get(
            field.name, field.name
        )
        assert key in rows, f"the setting {field.name} has no entry"
        assert rows[key][2] == ENV_VARS.get(field.name, ""), field.name
        assert rows[key][-1], f"the setting {field.name} has no meaning"
    text = hook().render("config")
    for key in rows:
        assert f"`{key}`" in text


def test_every_environment_variable_has_an_entry() -> None:
    text = hook().render("env")
    rows = table_rows(text)
    for var in [*ENV_VARS.values(), *OTHER_ENV_VARS]:
        assert var in rows, f"{var} has no entry"
        assert rows[var][-1] not in ("", "—"), f"{var} has no meaning"
    assert set(rows) - {"variable"} == {*ENV_VARS.values(), *OTHER_ENV_VARS}


def test_every_extra_is_in_the_install_table() -> None:
    import tomllib

    project = tomllib.loads((DOCS.parent / "pyproject.toml").read_text("utf-8"))["project"]
    declared = project["optional-dependencies"]
    rows = table_rows(hook().render("extras"))
    assert set(rows) - {"extra"} == set(declared)


@pytest.mark.timeout(120)
def test_every_mcp_tool_and_argument_has_an_entry() -> None:
    text = hook().render("mcp")
    tools = hook().mcp_tools()
    assert len(tools) >= 6
    for tool in tools:
        body = section(text, tool.name)
        assert tool.description
        assert hook().prose(tool.description)[:40] in body
        for name in tool.input_schema.get("properties", {}):
            assert f"| `{name}` |" in body, f"{tool.name}: argument {name} has no entry"
        assert "readOnlyHint: true" in body


def test_every_http_operation_and_schema_has_an_entry() -> None:
    spec = json.loads((DOCS / "openapi.json").read_text("utf-8"))
    text = hook().render("http")
    for path, item in spec["paths"].items():
        for method, op in item.items():
            body = section(text, f"{method.upper()} {path}")
            for status in op.get("responses", {}):
                assert f"| `{status}` |" in body, f"{method.upper()} {path}: response {status}"
            for param in op.get("parameters", []):
                assert f"| `{param['name']}` |" in body
    for name, schema in spec["components"]["schemas"].items():
        body = section(text, name)
        for field in schema.get("properties", {}):
            assert f"| `{field}` |" in body, f"schema {name}: field {field}"


def test_every_generated_part_is_asked_for_by_exactly_one_page() -> None:
    markers = [(name, m) for name, text in pages().items() for m in hook().MARKER.findall(text)]
    asked = [m for _, m in markers]
    assert sorted(asked) == sorted({*hook().GENERATORS, "codes"}), markers
    assert all(name.startswith(("reference/", "getting-started/")) for name, _ in markers)
