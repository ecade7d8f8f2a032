"""The hand-written pages cannot drift either: every exit code, judge backend, report format and
identifier kind has its entry on the site, and the README opens with the two commands and stays short.
(Commands, flags, finding codes, settings and environment variables: tests/docs/test_reference.py.)"""

from __future__ import annotations

import re

from citeaudit.cli import EXIT_CLEAN, EXIT_ERRORS, EXIT_INTERNAL, EXIT_UNCHECKED, EXIT_USAGE
from citeaudit.cli.check import EXIT_MANUAL_REVIEW, EXIT_REGENERATE
from citeaudit.identifiers import KINDS
from citeaudit.report.formats import FORMAT_NAMES, ReportFormat
from citeaudit.semantic.factory import BACKENDS, JUDGE_SPECS
from tests.docs.support import README, hook, page, pages, section, table_rows


def test_every_exit_code_is_documented() -> None:
    rows = table_rows(section(page("reference/exit-codes.md"), "Exit codes"))
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
        assert str(code) in rows, f"exit code {code} has no row"
        assert rows[str(code)][-1], f"exit code {code} has no meaning"
    assert "regenerate_or_abstain" in rows[str(EXIT_REGENERATE)][0]
    assert "manual_review" in rows[str(EXIT_MANUAL_REVIEW)][0]


def test_every_judge_backend_is_documented() -> None:
    # The generated --judge entry lists every spec form, in the factory's order.
    spec = " \\| ".join(hook().prose(s) for s in JUDGE_SPECS.values())
    assert f"semantic judge: {spec} " in hook().render("cli")
    judges = page("guides/judges.md")
    for name in BACKENDS:
        assert f"`{name}" in judges, f"the {name} judge is not in the judges guide"


def test_every_report_format_is_documented() -> None:
    reports = page("guides/reports.md")
    assert set(FORMAT_NAMES) == set(ReportFormat)
    for fmt in ReportFormat:
        assert f"`{fmt.value}`" in reports, f"the format {fmt.value} is not in the reports guide"
        assert FORMAT_NAMES[fmt] in reports


def test_every_identifier_kind_is_documented() -> None:
    rows = table_rows(section(page("guides/agent-output.md"), "Identifier kinds"))
    assert set(rows) - {"kind"} == set(KINDS)
    for kind in KINDS:
        assert all(rows[kind]), f"the identifier kind {kind} has an empty cell"


def test_the_readme_is_short_and_starts_with_the_two_commands() -> None:
    text = README.read_text("utf-8")
    assert len(text.splitlines()) <= 250
    first = text.split("\n## ", 2)[1]
    assert first.startswith("The two commands")
    assert re.search(r"^make demo\b", first, re.M)
    assert re.search(r"^make test\b", first, re.M)


def test_what_a_newcomer_needs_first_is_one_click_from_the_home_page() -> None:
    linked = set(re.findall(r"\]\(([^)#\s]+\.md)(?:#[^)]*)?\)", page("index.md")))
    for first in (
        "getting-started/install.md",
        "getting-started/first-run.md",
        "guides/bibliography.md",
        "guides/ci.md",
    ):
        assert first in linked, f"the home page does not link {first}"


def test_no_page_names_a_machine_path() -> None:
    texts = {"README.md": README.read_text("utf-8"), **{f"docs/{n}": t for n, t in pages().items()}}
    for name, text in texts.items():
        found = re.findall(r"(?<![\w.])/(?:home|root|tmp|work|Users|opt)/[\w.-]+", text)
        assert not found, f"{name} names {found}"
        outside = re.findall(
            r"(?<![(\w./])\.\./[\w.-]+/[\w./-]+", text
        )  # a folder beside the checkout, not a link
        assert not outside, f"{name} names {outside}"
