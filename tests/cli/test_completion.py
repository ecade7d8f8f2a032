"""``citeaudit completion``: scripts generated from the parser, and bash completing with one."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from citeaudit.cli import build_parser
from citeaudit.cli.completion import SHELLS, completion_script
from tests.conftest import run_cli


def _commands() -> list[str]:
    parser = build_parser()
    (sub,) = (a for a in parser._actions if a.dest == "command")
    return sorted(sub.choices)  # type: ignore[arg-type]


def _bash_complete(script: Path, line: str) -> list[str]:
    words = line.split(" ")
    program = (
        f"source {script}\n"
        f"COMP_WORDS=({' '.join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}\n"
        f"COMP_LINE={line!r}; COMP_POINT=${{#COMP_LINE}}\n"
        f"_shtab_citeaudit citeaudit {words[-1]!r} {words[-2]!r}\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(["bash", "-c", program], capture_output=True, text=True, timeout=30, check=True)
    return done.stdout.split()


def test_bash_completes_commands_flags_and_formats(tmp_path: Path) -> None:
    script = tmp_path / "citeaudit.bash"
    result = run_cli("completion", "bash")
    assert result.code == 0
    script.write_text(result.stdout, "utf-8")
    subprocess.run(["bash", "-n", str(script)], check=True, timeout=30)
    assert _bash_complete(script, "citeaudit ch") == ["check"]
    assert _bash_complete(script, "citeaudit check --off") == ["--offline"]
    assert _bash_complete(script, "citeaudit check --format m") == ["md", "markdown"]
    assert _bash_complete(script, "citeaudit mirror i") == ["import", "info"]


@pytest.mark.parametrize("shell", SHELLS)
def test_every_shell_gets_every_command(shell: str) -> None:
    script = completion_script(shell)
    for command in _commands():
        assert command in script, (shell, command)
    checker = shutil.which(shell)
    if checker is not None and shell != "bash":  # zsh -n / fish -n where the shell is installed
        subprocess.run([checker, "-n"], input=script, text=True, check=True, timeout=30)


def test_an_unknown_shell_is_refused() -> None:
    result = run_cli("completion", "tcsh")
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr.strip() == (
        "citeaudit: error: usage: argument shell: invalid choice: 'tcsh' (choose from 'bash', 'zsh', "
        "'fish') (see 'citeaudit completion --help')"
    )
