"""The README's example of references without an identifier runs as printed."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

README = (ROOT / "README.md").read_text("utf-8")


def _blocks_after(heading: str) -> tuple[list[str], str]:
    section = README.split(heading, 1)[1]
    commands = re.search(r"```sh\ncd examples/references\n(.*?)```", section, re.S)
    output = re.search(r"```text\n(.*?)```", section, re.S)
    assert commands is not None
    assert output is not None
    lines = [line.split("  #", 1)[0].strip() for line in commands.group(1).splitlines()]
    return [line for line in lines if line], output.group(1)


@pytest.mark.timeout(60)
def test_the_example_of_references_without_an_identifier_runs_as_printed(tmp_path: Path) -> None:
    commands, printed = _blocks_after("## References without an identifier: found by search")
    work = tmp_path / "references"
    shutil.copytree(ROOT / "examples" / "references", work)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEAUDIT_")}
    out = []
    codes = []
    for line in commands:
        argv = shlex.split(line)
        assert argv[0] == "citeaudit"
        done = subprocess.run([sys.executable, "-m", "citeaudit", *argv[1:]], cwd=work, env=env,
                              capture_output=True, text=True, timeout=50)  # fmt: skip
        out.append(done.stdout)
        codes.append(done.returncode)
    assert codes == [0, 1]
    assert "".join(out) == printed
