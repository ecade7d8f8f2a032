"""The examples run as printed: every command block of the README's tour, and every block a guide
marks ``<!-- runnable -->``, is run offline from a copy of its directory, with the exit code its
``# exit N`` comment gives (0 without one); the ``text`` block right after it, where there is one,
is what its commands print. A line marked ``# online`` needs the network and is not run."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.docs.support import README, pages

# A command block, then (blank lines apart) the text block of what it prints, if any.
_BLOCK = re.compile(
    r"(?P<mark><!-- runnable -->\n)?```sh\n(?P<sh>.*?)```\n(?:\s*```text\n(?P<out>.*?)```)?", re.S
)
# Command blocks of the README that need a checkout's make, a registry or a shell to set up.
_NOT_OFFLINE = ("make ", "pip install", "eval ")


@dataclass(frozen=True)
class Example:
    where: str
    directory: str
    commands: tuple[tuple[str, int], ...]
    printed: str | None


def _examples(where: str, text: str, every: bool) -> list[Example]:
    found = []
    for m in _BLOCK.finditer(text):
        lines = [line for line in m.group("sh").splitlines() if line.strip()]
        if not (every or m.group("mark")):
            continue
        if every and not lines[0].startswith("cd "):
            assert lines[0].startswith(_NOT_OFFLINE), f"{where}: a block that is not run: {lines[0]}"
            continue
        assert lines[0].startswith("cd "), f"{where}: a runnable block starts with cd DIR"
        commands = []
        for line in lines[1:]:
            command, _, comment = line.partition("  #")
            if comment.strip().startswith("online"):
                continue
            code = re.match(r"\s*exit (\d+)", comment)
            commands.append((command.strip(), int(code.group(1)) if code else 0))
        found.append(Example(where, lines[0][3:].strip(), tuple(commands), m.group("out")))
    return found


def _all_examples() -> list[Example]:
    tour = README.read_text("utf-8").split("\n## A five-minute tour", 1)[1].split("\n## ", 1)[0]
    found = _examples("README.md", README.read_text("utf-8").split("\n## A five-minute tour", 1)[0], False)
    found += _examples("README.md", tour, True)
    for name, text in pages().items():
        found += _examples(f"docs/{name}", text, False)
    return found


EXAMPLES = _all_examples()


def test_the_readme_tour_and_the_guides_have_examples_to_run() -> None:
    wheres = {e.where for e in EXAMPLES}
    assert sum(e.where == "README.md" for e in EXAMPLES) >= 4
    assert "docs/guides/bibliography.md" in wheres
    assert {e.directory for e in EXAMPLES} >= {"examples/seed000", "examples/references", "docs/examples/rag"}


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEAUDIT_")}
    # Offline for certain: any request would go to a proxy that is not there.
    for var in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        env[var] = "http://127.0.0.1:9"
    env.pop("no_proxy", None)
    env.pop("NO_PROXY", None)
    return env


@pytest.mark.timeout(240)
@pytest.mark.parametrize("where", sorted({e.where for e in EXAMPLES}))
def test_every_example_runs_as_printed(where: str, tmp_path: Path) -> None:
    copies: dict[str, Path] = {}  # one copy per directory: a later block reads what an earlier wrote
    for example in (e for e in EXAMPLES if e.where == where):
        source = ROOT / example.directory
        assert source.is_dir(), example.directory
        assert source.resolve().is_relative_to(ROOT), example.directory
        if example.directory not in copies:
            copies[example.directory] = tmp_path / example.directory.replace("/", "_")
            shutil.copytree(source, copies[example.directory], ignore=shutil.ignore_patterns("report.json"))
        out = []
        for command, expected in example.commands:
            argv = shlex.split(command)
            assert argv[0] == "citeaudit", f"{where}: {command}"
            done = subprocess.run([sys.executable, "-m", "citeaudit", *argv[1:]], cwd=copies[example.directory],
                                  env=_env(), capture_output=True, text=True, timeout=100)  # fmt: skip
            assert done.returncode == expected, f"{where}: {command}: exit {done.returncode}\n{done.stderr}"
            assert "Traceback" not in done.stderr, f"{where}: {command}\n{done.stderr}"
            out.append(done.stdout)
        if example.printed is not None:
            assert "".join(out) == example.printed, f"{where}: {example.commands}"
