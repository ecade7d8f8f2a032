"""Where each command writes which format: ``--format markdown`` is ``md`` everywhere a report
format is chosen, and an output named for another format than the one written there is refused
(exit 2, nothing written) with the line saying which flag writes what."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from citeaudit.cli import EXIT_USAGE
from citeaudit.cli.common import refuse_report_name_for_directory
from citeaudit.errors import ConfigError
from citeaudit.report.formats import FORMAT_ALIASES, FORMAT_CHOICES, ReportFormat
from tests.conftest import GOLDEN, run_cli

CHECK_HINT = (
    "(--out FILE writes the JSON report; --format FORMAT --output FILE writes the report rendered as md, "
    "sarif, junit or html)"
)
RENDER_HINT = "(render writes the format that --format names into --output)"
STATS_HINT = "(stats writes the format that --format names into --output)"
BATCH_HINT = (
    "(batch --out DIR writes reports/part-NNNNN.jsonl, rejected.jsonl and summary.json into DIR; "
    "check --out FILE writes one JSON report)"
)


@pytest.fixture
def seed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    work = tmp_path / "seed"
    shutil.copytree(GOLDEN / "seed000", work)
    monkeypatch.chdir(work)
    for var in [v for v in os.environ if v.startswith("CITEAUDIT_")]:
        monkeypatch.delenv(var)
    assert run_cli("check", "claims.json", "--offline", "--out", "report.json").code == 1
    return work


def test_every_alias_names_a_format_and_every_format_is_a_choice() -> None:
    assert FORMAT_ALIASES == {"markdown": ReportFormat.MARKDOWN}
    assert ReportFormat("markdown") is ReportFormat.MARKDOWN
    assert FORMAT_CHOICES == ["json", "md", "sarif", "junit", "html", "markdown"]
    for fmt in ReportFormat:
        assert ReportFormat(fmt.value) is fmt
    with pytest.raises(ValueError, match="'mdown' is not a valid ReportFormat"):
        ReportFormat("mdown")


def test_check_and_render_write_the_same_markdown_for_either_name(seed: Path) -> None:
    short = run_cli(
        "check", "claims.json", "--offline", "--out", "a.json", "--format", "md", "--output", "a.md"
    )
    long = run_cli(
        "check",
        "claims.json",
        "--offline",
        "--out",
        "b.json",
        "--format",
        "markdown",
        "--output",
        "b.markdown",
    )
    assert (short.code, long.code) == (1, 1), short.stderr + long.stderr
    rendered = run_cli("render", "report.json", "--format", "markdown")
    assert rendered.code == 0, rendered.stderr
    assert (seed / "a.md").read_text("utf-8") == (seed / "b.markdown").read_text("utf-8") == rendered.stdout


def test_check_refuses_an_unknown_format(seed: Path) -> None:
    result = run_cli("check", "claims.json", "--offline", "--format", "mdown")
    assert (result.code, result.stdout) == (EXIT_USAGE, "")
    assert result.stderr.strip() == (
        "citeaudit: error: usage: argument --format: invalid choice: 'mdown' (choose from 'json', 'md', "
        "'sarif', 'junit', 'html', 'markdown') (see 'citeaudit check --help')"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["check", "claims.json", "--offline", "--format", "html", "--out", "report.html"],
            f"--out report.html: .html names HTML, but --out writes JSON there {CHECK_HINT}",
        ),
        (
            ["check", "claims.json", "--offline", "--out", "report.md"],
            f"--out report.md: .md names Markdown, but --out writes JSON there {CHECK_HINT}",
        ),
        (
            ["check", "claims.json", "--offline", "--format", "markdown", "--output", "report.html"],
            f"--output report.html: .html names HTML, but --output writes Markdown there {CHECK_HINT}",
        ),
        (
            ["check", "claims.json", "--offline", "--format", "junit", "--output", "report.sarif"],
            f"--output report.sarif: .sarif names SARIF, but --output writes JUnit XML there {CHECK_HINT}",
        ),
        (
            ["render", "report.json", "--format", "markdown", "--output", "report.htm"],
            f"--output report.htm: .htm names HTML, but --output writes Markdown there {RENDER_HINT}",
        ),
        (
            ["render", "report.json", "--format", "html", "--output", "report.xml"],
            f"--output report.xml: .xml names JUnit XML, but --output writes HTML there {RENDER_HINT}",
        ),
        (
            ["stats", "report.json", "--output", "stats.json"],
            f"--output stats.json: .json names JSON, but --output writes a text table there {STATS_HINT}",
        ),
        (
            ["stats", "report.json", "--format", "json", "--output", "stats.md"],
            f"--output stats.md: .md names Markdown, but --output writes JSON there {STATS_HINT}",
        ),
        (
            ["stats", "report.json", "--format", "prometheus", "--output", "stats.html"],
            f"--output stats.html: .html names HTML, but --output writes Prometheus text there {STATS_HINT}",
        ),
        (
            ["batch", "claims.json", "--offline", "--out", "runs.json"],
            f"--out runs.json: .json names JSON, but --out is a directory {BATCH_HINT}",
        ),
    ],
)
def test_an_output_named_for_another_format_is_refused(seed: Path, args: list[str], message: str) -> None:
    before = sorted(p.name for p in seed.iterdir())
    result = run_cli(*args)
    assert (result.code, result.stdout) == (EXIT_USAGE, "")
    assert result.stderr == f"citeaudit: error: {message}\n"
    assert sorted(p.name for p in seed.iterdir()) == before  # nothing written, no directory made


@pytest.mark.parametrize(
    "args",
    [
        [
            "check",
            "claims.json",
            "--offline",
            "--out",
            "r.json",
            "--format",
            "sarif",
            "--output",
            "r.sarif.json",
        ],
        ["check", "claims.json", "--offline", "--out", "r.json", "--format", "junit", "--output", "r.junit"],
        ["check", "claims.json", "--offline", "--out", "r.json", "--format", "md", "--output", "r.txt"],
        ["render", "report.json", "--format", "sarif", "--output", "r.sarif"],
        ["render", "report.json", "--format", "junit", "--output", "r.xml"],
        ["render", "report.json", "--format", "html", "--output", "r.HTML"],
        ["stats", "report.json", "--format", "json", "--output", "stats.json"],
        ["stats", "report.json", "--format", "prometheus", "--output", "stats.prom"],
    ],
)
def test_an_output_named_for_its_format_or_for_none_is_written(seed: Path, args: list[str]) -> None:
    result = run_cli(*args)
    assert result.code in (0, 1), result.stderr
    assert (seed / args[-1]).stat().st_size > 0


def test_a_batch_directory_already_named_so_is_a_run_to_resume(tmp_path: Path) -> None:
    runs = tmp_path / "runs.json"
    with pytest.raises(
        ConfigError, match=r"^--out .*runs\.json: \.json names JSON, but --out is a directory \(x\)$"
    ):
        refuse_report_name_for_directory(runs, "--out", "x")
    runs.mkdir()
    refuse_report_name_for_directory(runs, "--out", "x")  # made by an earlier run: resumed, not refused
    refuse_report_name_for_directory(tmp_path / "runs", "--out", "x")
