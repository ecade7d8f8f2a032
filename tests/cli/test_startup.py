"""Start-up: what ``citeaudit --version`` and ``check`` of the README's example import.

Each command runs in a fresh interpreter; the modules it leaves in ``sys.modules``, less those of a
bare interpreter (the site hooks), are held to an allowed list. A module that a change pulls into
start-up fails here until it is added to the list, with the reason it is needed. Time is measured
in ``bench/startup.py``, never asserted here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "seed000"

# Never at start-up, whatever the command: each of these is for a command, a format, a judge or
# a kind of source that the run did not ask for.
HEAVY = {
    "anyio",
    "bibtexparser",
    "courlan",
    "fastapi",
    "httpx",
    "jinja2",
    "mcp",
    "numpy",
    "pyarrow",
    "pylatexenc",
    "pypdf",
    "ray",
    "sqlalchemy",
    "starlette",
    "tld",
    "torch",
    "trafilatura",
    "transformers",
    "urllib3",
    "uvicorn",
}

# The command line's parser: every command registers its options, none imports its implementation.
PARSER = {
    "citeaudit",
    "citeaudit.cli",
    "citeaudit.cli.batch",
    "citeaudit.cli.cache",
    "citeaudit.cli.check",
    "citeaudit.cli.completion",
    "citeaudit.cli.common",
    "citeaudit.cli.evaluate",
    "citeaudit.cli.feedback",
    "citeaudit.cli.fetch",
    "citeaudit.cli.history",
    "citeaudit.cli.judge",
    "citeaudit.cli.mcp",
    "citeaudit.cli.mirror",
    "citeaudit.cli.render",
    "citeaudit.cli.review",
    "citeaudit.cli.serve",
    "citeaudit.cli.sources",
    "citeaudit.errors",
    "citeaudit.util",
    "citeaudit.util.version",
    # The tables the options are built from: severities and decisions, --fail-on, the judges'
    # specs and the data sets of eval, the report formats, the batch engines and defaults, the
    # roles of API keys.
    "citeaudit.model",
    "citeaudit.policy",
    "citeaudit.semantic",
    "citeaudit.semantic.datasets",
    "citeaudit.semantic.factory",
    "citeaudit.semantic.interface",
    "citeaudit.report",
    "citeaudit.report.formats",
    "citeaudit.batch",
    "citeaudit.batch.engines",
    "citeaudit.batch.options",
    "citeaudit.service",
    "citeaudit.service.keys",
}

# An offline check of DOI citations in the native format, report.json only, no store, no corpus.
CHECK = PARSER | {
    "citeaudit.checks.matching",  # the match rule of references without an identifier (small)
    "citeaudit.identifiers.work",
    "citeaudit.resolve.indexes",
    "citeaudit.resolve.indexes.interface",
    "citeaudit.util.files",  # cache entries read as bounded regular files
    "citeaudit.util.manifest",  # and checked against their recorded digests
    "citeaudit.config",
    "citeaudit.wiring",
    "citeaudit.core",
    "citeaudit.parallel",
    "citeaudit.locate",
    "citeaudit.normalize",
    # the input: JSON, validated by the wire models of the native format
    "citeaudit.formats",
    "citeaudit.formats.interface",
    "citeaudit.formats.native",
    "citeaudit.formats.seed002",
    "citeaudit.formats.validate",
    "citeaudit.formats.wire",
    "citeaudit.util.jsonload",
    # every identifier kind's handler (cheap: courlan only normalises a URL that is cited)
    "citeaudit.identifiers",
    "citeaudit.identifiers.arxiv",
    "citeaudit.identifiers.doi",
    "citeaudit.identifiers.interface",
    "citeaudit.identifiers.pubmed",
    "citeaudit.identifiers.registry",
    "citeaudit.identifiers.url",
    "citeaudit.util.slugs",
    # the registry cache, read; the snapshots and the pins beside them
    "citeaudit.resolve",
    "citeaudit.resolve.cache",
    "citeaudit.resolve.fields",
    "citeaudit.resolve.interface",
    "citeaudit.util.atomic",
    "citeaudit.sources",
    "citeaudit.sources.directory",
    "citeaudit.sources.interface",
    "citeaudit.sources.pins",
    # the text of a cited work a quote-less citation is read in (its numbers too)
    "citeaudit.sources.cited",
    "citeaudit.sources.cited.abstract",
    "citeaudit.sources.cited.full_text",
    "citeaudit.sources.cited.interface",
    "citeaudit.sources.cited.page",
    # the deterministic checks
    "citeaudit.checks",
    "citeaudit.checks.bibliographic",
    "citeaudit.checks.codes",
    "citeaudit.checks.metadata",
    "citeaudit.checks.numbers",
    "citeaudit.checks.quote",
    "citeaudit.checks.ranged",
    "citeaudit.checks.structure",
    "citeaudit.checks.web",
    # the semantic stage and the default judge
    "citeaudit.semantic.stage",
    "citeaudit.semantic.base",
    "citeaudit.semantic.rules",
    "citeaudit.semantic.signals",
    # the report
    "citeaudit.report.json",
}
JUDGES = {"citeaudit.semantic.base", "citeaudit.semantic.rules", "citeaudit.semantic.signals"}

# Third-party packages: none for the parser; for the check, the wire models' validation (pydantic
# and what it imports), the title comparison (rapidfuzz) and the report's encoder (orjson).
CHECK_THIRD_PARTY = {
    "annotated_types",
    "orjson",
    "pydantic",
    "pydantic_core",
    "rapidfuzz",
    "typing_extensions",
    "typing_inspection",
}
# A judge reads number words ("eight" as 8) with text2num.
JUDGE_THIRD_PARTY = {"text_to_num"}

_REPORT = """
import json, sys
from citeaudit.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def _environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("CITEAUDIT_")}


def _child(code: str, *argv: str, cwd: Path) -> tuple[str, dict[str, Any]]:
    """What the child printed before its last line, and its last line (JSON)."""
    done = subprocess.run(
        [sys.executable, "-c", code, *argv],
        cwd=cwd,
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    *printed, last = done.stdout.strip().splitlines()
    result: dict[str, Any] = json.loads(last)
    return "\n".join(printed), result


@cache
def _bare(cwd: Path) -> frozenset[str]:
    _, result = _child("import json, sys; print(json.dumps({'modules': sorted(sys.modules)}))", cwd=cwd)
    return frozenset(result["modules"])


@cache
def _third_party_names() -> frozenset[str]:
    """Top-level import names that some installed distribution provides (citeaudit aside)."""
    return frozenset(name for name in metadata.packages_distributions() if name != "citeaudit")


def _run(argv: list[str], cwd: Path) -> tuple[int, str, set[str]]:
    """Exit code, output and the modules a command imported, in a fresh interpreter."""
    printed, result = _child(_REPORT, *argv, cwd=cwd)
    return result["code"], printed, set(result["modules"]) - _bare(cwd)


def _ours(modules: set[str]) -> set[str]:
    return {m for m in modules if m == "citeaudit" or m.startswith("citeaudit.")}


def _third_party(modules: set[str]) -> set[str]:
    return {m.split(".")[0] for m in modules} & _third_party_names()


def _allowed(imported: set[str], allowed: set[str]) -> None:
    extra = sorted(imported - allowed)
    assert not extra, f"imported at start-up, not in the allowed list: {extra}"


def test_version_imports_only_the_parser(tmp_path: Path) -> None:
    code, printed, modules = _run(["--version"], tmp_path)
    assert (code, printed) == (0, "citeaudit 0.1.0")
    _allowed(_third_party(modules), set())
    _allowed(_ours(modules), PARSER)
    _allowed({m.split(".")[0] for m in modules} & HEAVY, set())


def test_help_of_a_command_imports_only_the_parser(tmp_path: Path) -> None:
    code, printed, modules = _run(["serve", "--help"], tmp_path)
    assert code == 0
    assert "usage: citeaudit serve" in printed
    _allowed(_ours(modules), PARSER)
    _allowed(_third_party(modules), set())


@pytest.fixture
def example(tmp_path: Path) -> Path:
    work = tmp_path / "example"
    shutil.copytree(EXAMPLE, work, ignore=shutil.ignore_patterns("report.json"))
    return work


@pytest.mark.parametrize("judge", [[], ["--judge", "none"]], ids=["default-judge", "no-judge"])
def test_check_of_the_example_imports_only_what_it_uses(example: Path, judge: list[str]) -> None:
    argv = ["check", "claims.json", "--offline", "--out", "report.json", *judge]
    code, printed, modules = _run(argv, example)
    assert code == 1  # the example's citation errors: the audit ran to its end
    assert printed.splitlines()[-3] == "checked=4 failed=3 report=report.json"
    _allowed(_third_party(modules), CHECK_THIRD_PARTY if judge else CHECK_THIRD_PARTY | JUDGE_THIRD_PARTY)
    _allowed({m.split(".")[0] for m in modules} & HEAVY, set())
    _allowed(_ours(modules), CHECK - JUDGES if judge else CHECK)
    assert "citeaudit.semantic.passages" not in modules  # every citation quotes: no passage ranked
    assert _ours(modules) >= {"citeaudit.core", "citeaudit.formats.native", "citeaudit.report.json"}
    assert bool(_ours(modules) & JUDGES) is not bool(judge)


def test_a_url_citation_brings_courlan(example: Path) -> None:
    """The other side of the allowed lists: a module is left out because the run does not need
    it, and comes in when it does."""
    claims = {
        "claims": [{"id": "c1", "text": "A page says so.", "citations": [{"url": "https://example.org/a"}]}]
    }
    (example / "web.json").write_text(json.dumps(claims), "utf-8")
    code, _, modules = _run(["check", "web.json", "--offline", "--out", "report.json"], example)
    assert code == 3  # the page is not pinned: could not check
    assert "courlan" in _third_party(modules)


RENDERERS = {
    "json": set(),
    "md": {"citeaudit.report.markdown"},
    "sarif": {"citeaudit.report.sarif"},
    "junit": {"citeaudit.report.junit"},
    "html": {"citeaudit.report.html"},
}


@pytest.mark.parametrize("fmt", list(RENDERERS))
def test_check_imports_only_the_renderer_of_the_format_asked_for(example: Path, fmt: str) -> None:
    argv = ["check", "claims.json", "--offline", "--out", "report.json", "--format", fmt, "--output", "out"]
    code, _, modules = _run(argv, example)
    assert code == 1
    assert (example / "out").stat().st_size > 0
    assert {
        m for m in _ours(modules) if m.rsplit(".", 1)[-1] in ("markdown", "sarif", "junit", "html")
    } == RENDERERS[fmt]
    assert ("jinja2" in _third_party(modules)) is (fmt == "html")
