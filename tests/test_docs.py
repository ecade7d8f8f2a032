"""Docs that cannot drift: every finding code, every flag of every command,
every exit code, every environment variable, every judge backend, every
report format and every identifier kind is in the README."""

from __future__ import annotations

import argparse
import re

from citeaudit.checks.codes import CATALOGUE
from citeaudit.cli import EXIT_CLEAN, EXIT_ERRORS, EXIT_INTERNAL, EXIT_UNCHECKED, EXIT_USAGE, build_parser
from citeaudit.cli.check import EXIT_MANUAL_REVIEW, EXIT_REGENERATE
from citeaudit.config import ENV_VARS, OTHER_ENV_VARS
from citeaudit.identifiers import KINDS
from citeaudit.report.formats import FORMAT_NAMES, ReportFormat
from citeaudit.semantic.factory import BACKENDS, JUDGE_SPECS
from tests.conftest import ROOT

README = (ROOT / "README.md").read_text("utf-8")


def _table_rows(header: str) -> dict[str, list[str]]:
    section = README.split(header, 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if len(cells) > 1 and cells[0] and not set(cells[0]) <= {"-", ":"}:
            rows[cells[0]] = cells[1:]
    return rows


def test_every_code_is_in_the_readme_table_with_its_severity_and_outcome() -> None:
    rows = _table_rows("## Finding codes")
    assert set(rows) - {"code"} == set(CATALOGUE)
    for code, info in CATALOGUE.items():
        severity, outcome = rows[code][0], rows[code][1]
        assert severity == info.severity.value
        assert outcome == info.outcome.value.replace("_", " ")


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(actions[0].choices)


def test_every_command_and_flag_is_documented() -> None:
    for name, sub in _subcommands().items():
        assert f"citeaudit {name}" in README
        for action in sub._actions:
            for flag in action.option_strings:
                if flag.startswith("--") and flag != "--help":
                    assert f"`{flag}" in README, f"{name} {flag} is not in the README"


def test_every_environment_variable_is_documented() -> None:
    for var in [*ENV_VARS.values(), *OTHER_ENV_VARS]:
        assert f"`{var}" in README, f"{var} is not in the README"


def test_every_exit_code_is_documented() -> None:
    rows = _table_rows("### Exit codes")
    codes = (
        EXIT_CLEAN,
        EXIT_ERRORS,
        EXIT_USAGE,
        EXIT_UNCHECKED,
        EXIT_INTERNAL,
        EXIT_REGENERATE,
        EXIT_MANUAL_REVIEW,
    )
    assert len(set(codes)) == len(codes)
    for code in codes:
        assert str(code) in rows
    assert "regenerate_or_abstain" in rows[str(EXIT_REGENERATE)][0]
    assert "manual_review" in rows[str(EXIT_MANUAL_REVIEW)][0]


def test_every_judge_backend_is_documented() -> None:
    # The usage line lists every spec form, in the factory's order.
    assert f"--judge {'|'.join(JUDGE_SPECS.values())}]" in README
    for name in BACKENDS:
        assert f"`{name}`" in README, f"the {name} judge is not in the README"


def test_every_report_format_is_documented() -> None:
    for fmt in ReportFormat:
        assert f"`{fmt.value}`" in README, f"the format {fmt.value} is not in the README"
        assert FORMAT_NAMES[fmt] in README
    assert set(FORMAT_NAMES) == set(ReportFormat)


def test_every_identifier_kind_is_documented() -> None:
    rows = _table_rows("### Identifier kinds")
    assert set(rows) - {"kind"} == set(KINDS)


def test_readme_starts_with_the_two_commands() -> None:
    first = README.split("## ", 2)[1]
    assert first.startswith("The two commands")
    assert re.search(r"^make demo\b", first, re.M)
    assert re.search(r"^make test\b", first, re.M)
