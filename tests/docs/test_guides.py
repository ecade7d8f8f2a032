"""The guides agree with the tools they describe: every flag table with the command's parser, the
MCP guide and ``citeaudit mcp --help`` with the server's ``tools/list``, the MCP page's commands and
client configurations with the command line, and the pages with what a new user needs (the key
header of a schemathesis run, ``--corpus`` in CI, how to serve the site for its search)."""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from citeaudit.cli import build_parser
from citeaudit.cli.mcp import TOOLS
from tests.conftest import ROOT
from tests.docs.support import README, hook, page, pages, section, table_rows

_NUMBERS = {5: "five", 6: "six", 7: "seven", 8: "eight"}


def _command(words: list[str]) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = build_parser()
    for word in words:
        commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = commands.choices[word]
    return parser


def _flags(parser: argparse.ArgumentParser) -> set[str]:
    return {o for a in parser._actions for o in a.option_strings if o.startswith("--") and o != "--help"}


def _flag_tables() -> list[tuple[str, str, list[str], set[str]]]:
    """(page, command, its words, the flags its row names) for every row of a guide's flag table."""
    found = []
    for name, text in pages().items():
        # A page may say once which flags every command of its table also takes.
        common = re.search(r"each (?:but `(\w+)`[^)]*?)?also takes\s((?:`--[a-z-]+`(?:, | and )?)+)", text)
        shared = set(re.findall(r"--[a-z][a-z-]*", common.group(2))) if common else set()
        but = common.group(1) if common else None
        for key, cells in table_rows(text).items():
            if not key.startswith("citeaudit "):
                continue
            words = [w for w in key.split()[1:] if re.fullmatch(r"[a-z][a-z-]*", w)]
            cell = " ".join(cells)
            named = set(re.findall(r"--[a-z][a-z-]*", cell))
            also = shared if not cell.startswith("also ") and words[-1:] != [but] else set()
            found.append((name, key, words, named | also))
    return found


def test_every_flag_table_names_every_flag_of_its_command_and_no_other() -> None:
    rows = _flag_tables()
    assert {key for _, key, _, _ in rows} >= {"citeaudit mcp", "citeaudit serve", "citeaudit fetch CLAIMS"}
    for name, key, words, named in rows:
        flags = _flags(_command(words))
        assert sorted(named - flags) == [], f"{name}: {key} names flags it does not take"
        if key != "citeaudit check CLAIMS":  # the reports guide names only check's report flags
            assert sorted(flags - named) == [], f"{name}: {key} does not name these flags"


def test_the_mcp_guide_and_help_name_every_tool_the_server_lists() -> None:
    listed = tuple(t.name for t in hook().mcp_tools())
    assert listed == TOOLS
    guide = page("guides/mcp.md")
    rows = [key for key in table_rows(section(guide, "The tools")) if key in listed or "_" in key]
    assert tuple(rows) == listed
    assert f"with {_NUMBERS[len(listed)]}\ntools" in guide or f"with {_NUMBERS[len(listed)]} tools" in guide
    help_text = " ".join(_command([]).format_help().split())
    assert f"serve the {len(TOOLS)} tools {', '.join(TOOLS[:-1])} and {TOOLS[-1]} to agents" in help_text


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEAUDIT_")}
    for var in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        env[var] = "http://127.0.0.1:9"  # offline for certain
    return env


@pytest.mark.timeout(120)
def test_the_mcp_pages_commands_work_in_a_new_folder(tmp_path: Path) -> None:
    """The first block creates the store and starts the server; it answers and ends with stdin."""
    (block,) = re.findall(r"```sh\n(.*?)```", page("guides/mcp.md").split("\n## ", 1)[0], re.S)
    commands = [line.partition("  #")[0].strip() for line in block.splitlines() if line.strip()]
    assert [c.split()[1] for c in commands] == ["sources", "mcp"]
    (tmp_path / "notes.md").write_text("# Notes\n\nPlan A supports offline work.\n", "utf-8")
    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "docs", "version": "0"}}}  # fmt: skip
    for n, command in enumerate(commands):
        done = subprocess.run([sys.executable, "-m", "citeaudit", *shlex.split(command)[1:]], cwd=tmp_path,
                              env=_env(), input=json.dumps(request) + "\n" if n else "", capture_output=True,
                              text=True, timeout=60)  # fmt: skip
        assert done.returncode == 0, f"{command}\n{done.stderr}"
    assert (tmp_path / "evidence.db").is_file()
    answer = json.loads(done.stdout.splitlines()[0])
    assert answer["result"]["serverInfo"]["name"] == "citeaudit", answer


def test_the_mcp_client_configurations_start_the_server() -> None:
    guide = section(page("guides/mcp.md"), "Client configuration")
    for client in ("Claude Desktop", "Cursor", "VS Code"):
        assert client in guide, client
    blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", guide, re.S)]
    assert len(blocks) == 3
    servers = [s for b in blocks for s in (b.get("mcpServers") or b.get("servers")).values()]
    assert len(servers) == 3
    for server in servers:
        assert server["command"] == "citeaudit"
        args = _command([]).parse_args(server["args"])
        assert args.command == "mcp"
        assert args.cache is not None
        assert args.sources is not None
        assert bool(args.store) == bool(args.scope), server["args"]


def test_a_documented_schemathesis_run_carries_the_key() -> None:
    texts = {"README.md": README.read_text("utf-8"), **{f"docs/{n}": t for n, t in pages().items()}}
    runs = [(n, r) for n, t in texts.items() for r in re.findall(r"`(schemathesis run http[^`]*)`", t)]
    assert runs
    for name, run in runs:
        assert '-H "Authorization: Bearer $KEY"' in run, f"{name}: {run}"


def test_the_ci_page_names_the_corpus_and_the_readme_says_how_to_serve_the_site() -> None:
    assert "--corpus" in page("guides/ci.md")
    assert "python -m http.server -d site" in README.read_text("utf-8")
    assert "search needs a server" in (ROOT / "mkdocs.yml").read_text("utf-8")
