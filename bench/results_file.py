"""Write one benchmark's section into bench/RESULTS.md, leaving the others."""

from __future__ import annotations

import platform
import re
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
HEADER = (
    "# Benchmark results\n\nWritten by `make bench` (`python -m bench.run_all`); "
    "each section is replaced when its benchmark runs.\n"
)


def write_section(name: str, title: str, body: str) -> None:
    text = RESULTS.read_text("utf-8") if RESULTS.exists() else HEADER
    machine = f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}"
    section = f"<!-- {name}:start -->\n## {title}\n\nMachine: {machine}.\n\n{body}\n<!-- {name}:end -->\n"
    pattern = re.compile(rf"<!-- {re.escape(name)}:start -->.*?<!-- {re.escape(name)}:end -->\n", re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _: section, text)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    RESULTS.write_text(text, "utf-8")
