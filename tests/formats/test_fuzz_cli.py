"""The worst inputs the fuzzers found, through ``citeaudit check``: exit 2, one exact line on
stderr, nothing on stdout and no report written (a traceback and exit 4, or a message of two
lines, or memory without bound, before)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.formats.test_fuzz_regressions import MACRO_LADDER

CASES: dict[str, tuple[str, bytes, str]] = {
    "macro_ladder": (
        "refs.bib",
        MACRO_LADDER.encode(),
        "line 19: @string macros expand past the limit of 1000640 characters (the input's length and 1000000 more)",
    ),
    "no_type_no_key": (
        "refs.bib",
        b"@{,=}",
        "line 1: the entry has no type: an entry is @type{key, field = {value}, \u2026}",
    ),
    "escape_in_a_key": (
        "refs.bib",
        b"@article{k\x1b[2J, title={T}, title={U}}\n",  # a duplicate key is a warning now: a field twice
        "line 1: the entry gives a field twice: 'title' (the block starting '@article{k\\x1b[2J, title={T}, title={U}}')",
    ),
    "bibtex_not_utf8": ("refs.bib", b"@article{k, title={\xc3(}}", "not valid UTF-8: byte 0xc3 at offset 19"),
    "line_break_in_a_key": (
        "claims.json",
        b'{"claims": [{"id": "c1", "text": "x", "\\n\\u001b[2Jok": 1}]}',
        '$.claims[0]["\\n\\u001b[2Jok"]: unknown field (not part of the contract)',
    ),
    "lone_surrogate": (
        "claims.json",
        b'{"claims": [{"id": "c1", "text": "x", "citations": [{"document_id": "d", "document_version": "v", '
        b'"start": "\\udc00", "end": 1, "quote": "q"}]}]}',
        "$.claims[0].citations[0].start: not valid Unicode text (a lone surrogate): '\\udc00'",
    ),
    "huge_number": (
        "claims.json",
        b'{"claims": [{"id": "c1", "text": "x", "citations": [{"doi": "10.1/x", "year": '
        + b"9" * 5000
        + b"}]}]}",
        "invalid JSON at line 1 column 79: a number with more than 4300 digits",
    ),
    "markdown_not_utf8": (
        "report.md",
        b"A claim [1].\n\n## References\n1. \xed\xa0\x80\n",
        "not valid UTF-8: byte 0xed at offset 31",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_worst_inputs_exit_2_with_one_line(case: str, tmp_path: Path) -> None:
    file_name, data, problem = CASES[case]
    path = tmp_path / file_name
    path.write_bytes(data)
    out = tmp_path / "report.json"
    result = run_cli("check", path, "--offline", "--cache", tmp_path, "--out", out)
    assert (result.code, result.stdout, result.stderr) == (2, "", f"citeaudit: error: {path}: {problem}\n")
    assert not out.exists()


def test_in_a_real_process_stderr_is_that_one_line(tmp_path: Path) -> None:
    """bibtexparser logs each block it cannot parse: only our line reaches stderr."""
    file_name, data, problem = CASES["escape_in_a_key"]
    path = tmp_path / file_name
    path.write_bytes(data)
    argv = [sys.executable, "-m", "citeaudit", "check", str(path), "--offline", "--cache", str(tmp_path)]
    result = subprocess.run(argv, capture_output=True, check=False, timeout=120)
    assert (result.returncode, result.stdout) == (2, b"")
    assert result.stderr.decode("utf-8") == f"citeaudit: error: {path}: {problem}\n"


@pytest.mark.parametrize("text", ["@article{k, title=}", "@article{k, title={}, author=, year=}"])
def test_an_empty_field_is_a_report_not_a_traceback(text: str, tmp_path: Path) -> None:
    """``@article{k, title=}`` was exit 4 with an IndexError: now the entry is one that names no
    identifier and no title, which could not be checked (exit 3)."""
    path = tmp_path / "refs.bib"
    path.write_text(text, "utf-8")
    result = run_cli("check", path, "--offline", "--cache", tmp_path, "--out", tmp_path / "report.json")
    assert (result.code, result.stderr) == (3, "")
