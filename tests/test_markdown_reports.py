"""Research reports in Markdown end to end: the guide's example as printed, `check` in every
output format, `--input-format`, standard input, `fetch`, `batch`, the Python API; offline
reports byte-identical across runs and hash seeds; never a traceback."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from citeaudit.report.html import report_view
from tests.conftest import ROOT, run_cli
from tests.dblp_dump import sample_mirror
from tests.formats.markdown_reports import long_report

GUIDE = (ROOT / "docs" / "guides" / "markdown-reports.md").read_text("utf-8")
CASES = ROOT / "tests" / "formats" / "markdown"
EXAMPLE = ROOT / "examples" / "report"


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("CITEAUDIT_")}


@pytest.fixture(scope="module")
def mirror(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return sample_mirror(tmp_path_factory.mktemp("mirror"))


def _codes(report: dict[str, Any]) -> list[tuple[str | None, str | None, list[str]]]:
    return [(r["claim"], r["citation"], [f["code"] for f in r["findings"]]) for r in report["results"]]


@pytest.mark.timeout(90)
def test_the_guide_example_runs_as_printed(tmp_path: Path) -> None:
    commands = re.search(r"```sh\ncd examples/report\n(.*?)```", GUIDE, re.S)
    printed = re.search(r"```text\n(.*?)```", GUIDE, re.S)
    assert commands is not None
    assert printed is not None
    work = tmp_path / "report"
    shutil.copytree(EXAMPLE, work)
    lines = [line.split("  #", 1)[0].strip() for line in commands.group(1).splitlines() if line.strip()]
    done = []
    for line in lines:
        argv = shlex.split(line)
        assert argv[0] == "citeaudit"
        done.append(subprocess.run([sys.executable, "-m", "citeaudit", *argv[1:]], cwd=work, env=_env(),
                                   capture_output=True, text=True, timeout=60))  # fmt: skip
    assert [d.returncode for d in done] == [0, 1], [d.stderr for d in done]
    assert done[-1].stdout == printed.group(1)  # what check prints
    report = json.loads((work / "report.json").read_text("utf-8"))
    assert report["input_format"] == "markdown-report"
    assert _codes(report) == [
        ("c001", "1", ["I_MATCHED_BY_SEARCH", "I_QUOTE_ABSENT"]),
        ("c002", "2", ["E_YEAR_MISMATCH"]),
        ("c003", "3", ["I_MATCHED_BY_SEARCH", "I_QUOTE_ABSENT"]),
        ("c004", "4", ["E_MARKER_UNDEFINED"]),
        (None, "5", ["W_REFERENCE_UNUSED", "E_WORK_NOT_FOUND"]),
        (None, None, ["W_MARKER_MALFORMED"]),
    ]
    quoted = next(r for r in report["results"] if r["claim"] == "c002")
    assert quoted["quote"] == "reduced unsupported claims from 18 to 7 per hundred answers"
    assert quoted["excerpt"]["match"] == quoted["quote"]  # found in the DOI's snapshot
    text = (work / "report.md").read_text("utf-8")
    for claim in report["claims"]:
        position = claim["position"]
        for marker in position["markers"]:
            assert text[marker["start"] : marker["end"]] == marker["text"]
        assert (
            text[position["paragraph"]["start"] : position["paragraph"]["end"]]
            == position["paragraph"]["text"]
        )


def test_every_output_format_and_sarif_at_line_and_column(here: Path) -> None:
    shutil.copy(CASES / "ieee.md", "ieee.md")
    for fmt in ("md", "html", "sarif", "junit"):
        result = run_cli("check", "ieee.md", "--offline", "--judge", "none", "--out", "report.json",
                         "--format", fmt, "--output", f"out.{fmt}")  # fmt: skip
        assert result.code == 3, result.stderr  # nothing cached: could not check
    sarif = json.loads(Path("out.sarif").read_text("utf-8"))
    notes = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    regions = [n["locations"][0]["physicalLocation"]["region"] for n in notes]
    assert regions[0] == {"startLine": 3, "startColumn": 59}  # the marker [1] of the first claim
    report = json.loads(Path("report.json").read_text("utf-8"))
    view = report_view(report)
    first = view["claims"][0]
    assert first["paragraph"][1] == "Self-attention replaced recurrence in machine translation [1]."
    assert first["paragraph"][3] == "line 3, column 1"
    assert "claim-in-text" in Path("out.html").read_text("utf-8")


def test_structure_findings_are_on_their_rows(here: Path) -> None:
    shutil.copy(CASES / "malformed.md", "malformed.md")
    result = run_cli("check", "malformed.md", "--offline", "--judge", "none", "--out", "report.json")
    assert result.code == 1, result.stderr
    report = json.loads(Path("report.json").read_text("utf-8"))
    by_code: dict[str, list[tuple[str | None, str | None, str]]] = {}
    for row in report["results"]:
        for f in row["findings"]:
            by_code.setdefault(f["code"], []).append((row["claim"], row["citation"], row["input_path"]))
    assert by_code["E_MARKER_UNDEFINED"] == [("c004", "3", "line 8:17"), ("c005", "9", "line 9:14")]
    assert by_code["W_REFERENCE_UNUSED"] == [(None, "1", "line 27:1"), (None, "4", "line 30:1")]
    assert by_code["W_REFERENCE_DUPLICATE"] == [(None, "4", "line 30:1")]
    assert by_code["W_LABEL_DUPLICATE"] == [(None, None, "line 23:1"), (None, None, "line 29:1")]
    assert by_code["W_REFERENCES_EMPTY"] == [(None, None, "line 32:1")]
    assert len(by_code["W_MARKER_MALFORMED"]) == 4
    statuses = {c["id"]: c["status"] for c in report["claims"]}
    assert statuses["c004"] == statuses["c005"] == "invalid_reference"


def test_references_without_identifiers_in_each_style_are_matched(here: Path, mirror: Path) -> None:
    shutil.copy(CASES / "acm.md", "acm.md")
    result = run_cli("check", "acm.md", "--offline", "--judge", "none", "--mirror", mirror, "--indexes", "",
                     "--out", "report.json")  # fmt: skip
    report = json.loads(Path("report.json").read_text("utf-8"))
    searched = [r for r in report["results"] if r["source"] and r["source"]["kind"] == "work"]
    assert [(r["claim"], r["citation"], r["record"]["matched"]["key"]) for r in searched] == [
        ("c001", "1", "conf/nips/VaswaniSPUJGKP17"),
        ("c002", "1", "conf/nips/VaswaniSPUJGKP17"),
        ("c003", "3", "journals/neco/HochreiterS97"),
    ]
    assert all(r["errors"] == [] for r in searched)
    assert searched[0]["source"]["reference"].startswith("Ashish Vaswani, Noam Shazeer")
    assert result.code == 3  # entry 2's DOI is not cached


def test_a_wrong_year_or_a_title_read_wrongly_is_no_match(here: Path, mirror: Path) -> None:
    Path("r.md").write_text(
        "# R\n\nA [1]. B [2]. C [3].\n\n## References\n\n"
        "1. Hochreiter, S., & Schmidhuber, J. (2001). Long short-term memory. Neural Computation.\n"
        "2. LeCun, Y. (2015). Deep learning. Nature.\n"  # LeCun's, not Goodfellow's "Deep Learning"
        "3. Goodfellow, I. (2016). Deep learning. MIT Press.\n",
        "utf-8",
    )
    run_cli(
        "check",
        "r.md",
        "--offline",
        "--judge",
        "none",
        "--mirror",
        mirror,
        "--indexes",
        "",
        "--out",
        "report.json",
    )
    report = json.loads(Path("report.json").read_text("utf-8"))
    rows = {r["citation"]: r for r in report["results"]}
    assert [f["code"] for f in rows["1"]["findings"]] == ["E_WORK_NOT_FOUND"]
    assert rows["1"]["findings"][0]["suggestion"]["nearest"]["key"] == "journals/neco/HochreiterS97"
    assert rows["2"]["record"]["matched"]["key"] == "journals/nature/LeCunBH15"
    assert rows["3"]["record"]["matched"]["key"] == "books/daglib/0040158"


def test_input_format_flag_environment_and_standard_input(here: Path) -> None:
    Path("notes.txt").write_text("A claim [1].\n\n1. https://example.org/a\n", "utf-8")
    refused = run_cli("check", "notes.txt", "--offline", "--out", "report.json")
    assert refused.code == 2
    assert refused.stderr.startswith("citeaudit: error: notes.txt: invalid JSON at line 1 column 1")
    forced = run_cli(
        "check", "notes.txt", "--offline", "--input-format", "markdown-report", "--out", "report.json"
    )
    assert forced.code == 1, forced.stderr  # [1] names no entry: the list has no references heading
    report = json.loads(Path("report.json").read_text("utf-8"))
    assert report["input_format"] == "markdown-report"
    bad = run_cli("check", "notes.txt", "--input-format", "latex")
    assert bad.code == 2
    assert "argument --input-format: invalid choice: 'latex'" in bad.stderr
    env = {**_env(), "CITEAUDIT_INPUT_FORMAT": "markdown-report"}
    done = subprocess.run([sys.executable, "-m", "citeaudit", "check", "notes.txt", "--offline", "--out", "env.json"],
                          env=env, capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 1, done.stderr
    wrong = subprocess.run([sys.executable, "-m", "citeaudit", "check", "notes.txt"], capture_output=True, text=True,
                           env={**_env(), "CITEAUDIT_INPUT_FORMAT": "md"}, timeout=60)  # fmt: skip
    assert wrong.returncode == 2
    assert (
        "CITEAUDIT_INPUT_FORMAT: expected one of auto, native, seed-000, seed-002, seed-003, bibtex, markdown-report, got 'md'"
        in wrong.stderr
    )
    piped = subprocess.run([sys.executable, "-m", "citeaudit", "check", "-", "--offline", "--out", "-", "--judge", "none"],
                           input=(CASES / "ieee.md").read_text("utf-8"), env=_env(), capture_output=True, text=True,
                           timeout=60)  # fmt: skip
    assert piped.returncode == 3, piped.stderr
    assert json.loads(piped.stdout)["input_format"] == "markdown-report"


def test_the_cli_input_format_choices_are_the_formats() -> None:
    from citeaudit.cli.common import INPUT_FORMATS
    from citeaudit.formats import INPUT_FORMAT_CHOICES

    assert INPUT_FORMATS == INPUT_FORMAT_CHOICES


def test_bad_reports_are_exit_2_with_one_line(here: Path) -> None:
    Path("empty.md").write_text("# Nothing\n\nNo markers.\n", "utf-8")
    Path("latin1.md").write_bytes("# R\n\nCafé [1].\n".encode("latin-1"))
    for name, message in (
        ("empty.md", "citeaudit: error: empty.md: no citation markers and no references: nothing to audit\n"),
        ("latin1.md", "citeaudit: error: latin1.md: not valid UTF-8: byte 0xe9 at offset 8\n"),
    ):
        result = run_cli("check", name, "--offline")
        assert (result.code, result.stderr) == (2, message)


@pytest.mark.timeout(120)
def test_offline_reports_are_byte_identical_across_runs_and_hash_seeds(here: Path, mirror: Path) -> None:
    shutil.copytree(CASES, "cases")
    Path("cases/long.md").write_text(long_report(500, "apa"), "utf-8")
    for name in ("ieee", "apa", "chicago", "malformed", "long"):
        outputs = []
        for i, seed in enumerate(("0", "123", "random")):
            args = [sys.executable, "-m", "citeaudit", "check", f"cases/{name}.md", "--offline", "--mirror", str(mirror),
                    "--indexes", "", "--out", f"{name}{i}.json", "--jobs", "2" if i else "1"]  # fmt: skip
            done = subprocess.run(
                args, env={**_env(), "PYTHONHASHSEED": seed}, capture_output=True, text=True, timeout=60
            )
            assert done.returncode in (0, 1, 3), done.stderr
            assert "Traceback" not in done.stderr
            outputs.append(Path(f"{name}{i}.json").read_bytes())
        assert outputs[0] == outputs[1] == outputs[2], name


def test_fetch_searches_the_references_without_an_identifier(
    here: Path, mirror: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copy(CASES / "apa.md", "apa.md")
    Path("apa.md").write_text(
        Path("apa.md").read_text("utf-8").replace("https://doi.org/10.1162/neco.1997.9.8.1735", ""), "utf-8"
    )
    # The registries are not here: the DOI offered as a match's fix cannot be pinned, which
    # fetch says, and exits 3 (tests/cli/test_fetch_fixes.py pins one).
    for name in ("CROSSREF", "DATACITE", "DOI", "ARXIV"):
        monkeypatch.setenv(f"CITEAUDIT_{name}_URL", "http://127.0.0.1:9/no-registry")
    result = run_cli("fetch", "apa.md", "--mirror", mirror, "--indexes", "")
    assert result.code == 3, result.stderr
    assert result.stdout == (
        "references=4 matched=2 ambiguous=0 not_found=2 could_not_check=0 cache=cache\n"
        "fixes=1 found=0 not_found=0 could_not_check=1 cache=cache\n"
    )


def test_the_python_api_reads_a_report(here: Path) -> None:
    from citeaudit import api

    text = (CASES / "ieee.md").read_text("utf-8")
    by_text = api.audit(text, judge=None)
    by_path = api.audit(CASES / "ieee.md", judge=None)
    by_bytes = api.audit(text.encode("utf-8"), judge=None)
    assert (
        by_text.submission.format
        == by_path.submission.format
        == by_bytes.submission.format
        == "markdown-report"
    )
    assert by_text.submission.digest == by_path.submission.digest
    forced = api.audit(
        "A claim [1].\n\n1. https://example.org/a\n", input_format="markdown-report", judge=None
    )
    assert [r.findings[0].code for r in forced.rows] == [
        "E_MARKER_UNDEFINED"
    ]  # a list with no heading is no references
    from citeaudit.errors import ConfigError

    with pytest.raises(ConfigError) as caught:
        api.audit(text, input_format="latex")
    assert caught.value.diagnostics() == "input_format: 'latex' is not a format citeaudit reads"


def test_batch_reads_a_report_from_a_line(here: Path) -> None:
    report = (CASES / "ieee.md").read_text("utf-8")
    lines = [
        json.dumps({"id": "r1", "markdown": report, "labels": {"agent": "a"}}),
        json.dumps({"id": "r2", "markdown": 42}),
        json.dumps({"id": "r3", "markdown": report, "extra": 1}),
    ]
    Path("in.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    result = run_cli("batch", "in.jsonl", "--out", "out", "--offline", "--judge", "none", "--workers", "1")
    assert result.code == 2, result.stderr  # two lines are not answers
    parts = [
        json.loads(line)
        for p in sorted(Path("out/reports").glob("*.jsonl"))
        for line in p.read_text().splitlines()
    ]
    assert [(p["id"], p["report"]["input_format"]) for p in parts] == [("r1", "markdown-report")]
    single = run_cli("check", CASES / "ieee.md", "--offline", "--judge", "none", "--out", "single.json")
    assert single.code == 3
    assert parts[0]["report"]["results"] == json.loads(Path("single.json").read_text("utf-8"))["results"]
    rejected = [json.loads(line) for line in Path("out/rejected.jsonl").read_text().splitlines()]
    assert [r["error"] for r in rejected] == [
        "in.jsonl:2: $.markdown: expected the report's Markdown as a string, got integer",
        "in.jsonl:3: $.extra: unknown field (a report's envelope has id, markdown, labels)",
    ]


def test_a_duplicate_entry_that_is_cited_is_noted_on_its_citations_row_never_a_passing_row(
    here: Path,
) -> None:
    """Two entries naming one DOI, both cited: the duplicate's note goes on the row of the claim that
    cites it, so no row reads "pass" for a citation it did not check."""
    shutil.copytree(ROOT / "tests" / "golden" / "seed000" / "cache", "cache")
    Path("r.md").write_text(
        "# R\n\nAttention helps [1]. Recurrence helps too [2].\n\n## References\n\n"
        "1. Ivanova (2024). Demo paper on retrieval grounding. https://doi.org/10.0000/demo.1\n"
        "2. Ivanova (2024). Demo paper on retrieval grounding. https://doi.org/10.0000/demo.1\n",
        "utf-8",
    )
    run_cli("check", "r.md", "--offline", "--judge", "none", "--out", "report.json")
    report = json.loads(Path("report.json").read_text("utf-8"))
    rows = [(r["claim"], r["citation"], r["warnings"]) for r in report["results"]]
    assert rows == [("c001", "1", []), ("c002", "2", ["W_REFERENCE_DUPLICATE"])]
    assert all(r["claim"] is not None for r in report["results"])


def test_a_number_outside_a_real_reports_quotation_marks_is_no_error(tmp_path: Path) -> None:
    """The real E110 report quotes a page's title (“Agents Classified by the IARC Monographs”) in a
    claim with a number: the number is not in the title, which is a warning, never "wrong"."""
    shutil.copy(ROOT / "tests" / "formats" / "markdown_labels" / "chewber_E110_report.md", tmp_path / "r.md")
    result = run_cli("check", tmp_path / "r.md", "--offline", "--judge", "none", "--out", tmp_path / "r.json")
    assert result.code == 1, result.stderr  # an uncited sentence with numbers: E_UNCITED
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    labels = [f["label"] for row in report["results"] for f in row["findings"]]
    assert not [label for label in labels if label.startswith("E_NUMBER_UNSUPPORTED")]
    assert labels.count("W_NUMBER_NOT_IN_QUOTE:6") == 1
    assert report["summary"]["results_by_status"] == {"could_not_check": 49, "fail": 1, "pass": 0}
