"""The command line end to end: exit codes, summary, configuration,
determinism across hash seeds and working directories, and offline mode
never opening a socket."""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from citeaudit.cli import build_parser
from tests.conftest import GOLDEN, ROOT, run_cli


@pytest.fixture
def seed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    work = tmp_path / "seed"
    shutil.copytree(GOLDEN / "seed000", work)
    (work / "expected.json").unlink()
    monkeypatch.chdir(work)
    for var in [v for v in os.environ if v.startswith("CITEAUDIT_")]:
        monkeypatch.delenv(var)
    return work


def _only(seed: Path, *claim_ids: str) -> Path:
    data = json.loads((seed / "claims.json").read_text("utf-8"))
    data["claims"] = [c for c in data["claims"] if c["id"] in claim_ids]
    path = seed / "subset.json"
    path.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    return path


def _report(path: Path = Path("report.json")) -> Any:
    return json.loads(path.read_text("utf-8"))


def test_exit_0_when_clean(seed: Path) -> None:
    result = run_cli("check", _only(seed, "c1"), "--offline")
    assert (result.code, result.stdout) == (
        0,
        "checked=1 failed=0 report=report.json\npass=1 fail=0 could_not_check=0\ndecision=manual_review status=needs_review\n",
    )
    assert _report()["outcome"] == "clean"


# What a log gets of the seed 000 example: a line for each failed or unchecked citation, the
# fix where the error has one, then the summary (the last lines, where a log is read from).
SEED000_FAILING = (
    "c2 10.0000/demo.1 E_YEAR_MISMATCH: 2023 is not a year of the work (the record has 2024); "
    "also E_QUOTE_NOT_FOUND, E_NUMBER_UNSUPPORTED:3\n"
    "c3 10.0000/demo.2 E_NOT_CACHED: offline and not in the cache: run `citeaudit fetch` on this input "
    "online (same --cache) to pin the registry's answer\n"
    "c4 - E_UNCITED: the claim cites nothing\n"
)


def test_exit_1_when_errors(seed: Path) -> None:
    result = run_cli("check", "claims.json", "--offline")
    assert (result.code, result.stdout) == (
        1,
        SEED000_FAILING
        + "checked=4 failed=3 report=report.json\npass=1 fail=2 could_not_check=1\ndecision=reject status=invalid\n",
    )


def test_piped_check_of_the_example_names_each_failed_citation_before_the_summary(tmp_path: Path) -> None:
    work = tmp_path / "seed000"
    shutil.copytree(ROOT / "examples" / "seed000", work)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEAUDIT_")}
    done = subprocess.run(
        [sys.executable, "-m", "citeaudit", "check", "claims.json", "--offline"],
        cwd=work, env=env, capture_output=True, timeout=120, check=False,  # stdout a pipe
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (1, b"")
    assert done.stdout.decode("utf-8") == (
        SEED000_FAILING
        + "checked=4 failed=3 report=report.json\npass=1 fail=2 could_not_check=1\ndecision=reject status=invalid\n"
    )


def test_a_missing_snapshot_says_how_to_add_it_beside_the_first_error(seed: Path) -> None:
    shutil.rmtree("sources")
    result = run_cli("check", _only(seed, "c2"), "--offline")
    assert result.code == 1
    assert result.stdout == (
        "c2 10.0000/demo.1 E_YEAR_MISMATCH: 2023 is not a year of the work (the record has 2024); "
        "also E_NUMBER_UNSUPPORTED:3; E_NO_SNAPSHOT: no text snapshot of the cited work to search the quote "
        "in: add the work's text (a PDF, HTML or text file) with `citeaudit snapshot FILE --doi 10.0000/demo.1`\n"
        "checked=1 failed=1 report=report.json\npass=0 fail=1 could_not_check=0\ndecision=reject status=invalid\n"
    )


def test_piped_lines_write_display_controls_out_and_cut_long_names(seed: Path) -> None:
    title = "A \u202eдлинное название\nв две строки " + "x" * 80
    claims = {"claims": [
        {"id": "c\u202eevil\x1b[31m\u200b", "text": "Утверждение без источника.", "citations": []},
        {"id": "w", "text": "Метод снижает ошибки.",
         "citations": [{"title": title, "year": 2020, "first_author": "Nobody"}]},
    ]}  # fmt: skip
    Path("controls.json").write_text(json.dumps(claims, ensure_ascii=False), "utf-8")
    result = run_cli("check", "controls.json", "--offline")
    lines = result.stdout.splitlines()
    assert lines[0] == "c<U+202E>evil<U+001B>[31m<U+200B> - E_UNCITED: the claim cites nothing"
    name = "A <U+202E>длинное название в две строки " + "x" * 26 + "…"  # 60 characters
    assert lines[1].startswith(f"w {name} E_NOT_CACHED: ")
    # Uncited (wrong: reject) and not cached (nothing found wrong): partial, not invalid.
    assert lines[2:] == [
        "checked=2 failed=2 report=report.json",
        "pass=0 fail=1 could_not_check=1",
        "decision=reject status=partial",
    ]
    assert all(c.isprintable() for c in result.stdout.replace("\n", ""))


def test_piped_lines_stop_at_fifty_and_count_the_rest(seed: Path) -> None:
    claims = {"claims": [{"id": f"u{k:02d}", "text": "Без источника.", "citations": []} for k in range(53)]}
    Path("many.json").write_text(json.dumps(claims), "utf-8")
    lines = run_cli("check", "many.json", "--offline").stdout.splitlines()
    assert lines[:50] == [f"u{k:02d} - E_UNCITED: the claim cites nothing" for k in range(50)]
    assert lines[50:] == [
        "… and 3 more citations that failed or could not be checked",
        "checked=53 failed=53 report=report.json",
        "pass=0 fail=53 could_not_check=0",
        "decision=reject status=partial",
    ]


def test_exit_3_when_only_could_not_check(seed: Path) -> None:
    result = run_cli("check", _only(seed, "c1", "c3"), "--offline")
    assert result.code == 3
    report = _report()
    assert report["outcome"] == "could_not_check"
    assert report["summary"]["results_by_status"] == {"could_not_check": 1, "fail": 0, "pass": 1}
    # Nothing was found wrong: never reject, never invalid; a person looks.
    assert (report["decision"], report["status"]) == ("manual_review", "partial")


def test_no_snapshot_is_could_not_check(seed: Path) -> None:
    (seed / "sources" / "10.0000_demo.1.txt").unlink()
    assert run_cli("check", _only(seed, "c1"), "--offline").code == 3
    assert _report()["results"][0]["errors"] == ["E_NO_SNAPSHOT"]
    assert _report()["results"][0]["findings"][0]["message"] == (
        "no text snapshot of the cited work to search the quote in: add the work's text (a PDF, HTML or "
        "text file) with `citeaudit snapshot FILE --doi 10.0000/demo.1`"
    )


def test_corrupt_cache_entry_is_could_not_check(seed: Path) -> None:
    (seed / "cache" / "10.0000_demo.1.json").write_text("{broken")
    assert run_cli("check", _only(seed, "c1"), "--offline").code == 3
    (finding,) = _report()["results"][0]["findings"]
    assert finding["code"] == "E_CACHE_CORRUPT"


def test_severity_flag_downgrades_but_keeps_the_finding(seed: Path) -> None:
    claims = _only(seed, "c1")
    data = json.loads(claims.read_text("utf-8"))
    data["claims"][0]["citations"][0]["title"] = "Demo Paper on Retrieval"
    claims.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    assert run_cli("check", claims, "--offline").code == 1
    assert run_cli("check", claims, "--offline", "--severity", "E_TITLE_MISMATCH=warning").code == 0
    row = _report()["results"][0]
    assert (row["errors"], row["warnings"]) == ([], ["E_TITLE_MISMATCH"])


def test_config_file_then_environment_then_flag(seed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claims = _only(seed, "c1")
    (seed / "citeaudit.toml").write_text('offline = true\nmin_quote_length = 500\nout = "out/r.json"\n')
    assert run_cli("check", claims).code == 1
    assert _report(Path("out/r.json"))["results"][0]["errors"] == ["E_QUOTE_TOO_SHORT"]
    monkeypatch.setenv("CITEAUDIT_MIN_QUOTE_LENGTH", "20")
    assert run_cli("check", claims).code == 0
    assert run_cli("check", claims, "--min-quote-length", "400").code == 1


def test_pyproject_table_is_read(seed: Path) -> None:
    (seed / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.citeaudit]\noffline = true\n\n'
        '[tool.citeaudit.severity]\nE_UNCITED = "warning"\n'
    )
    assert run_cli("check", _only(seed, "c1", "c4")).code == 0


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("colour = 1\n", "citeaudit.toml: colour: unknown setting"),
        ("min_quote_length = 0\n", "citeaudit.toml: min_quote_length: expected a positive integer, got 0"),
        (
            "min_quote_length = 3.5\n",
            "citeaudit.toml: min_quote_length: expected a positive integer, got 3.5",
        ),
        ("jobs = 1e400\n", "citeaudit.toml: jobs: expected a positive integer, got inf"),
        ("jobs = true\n", "citeaudit.toml: jobs: expected a positive integer, got True"),
        ('cache = "ca\\u0000che"\n', "citeaudit.toml: cache: a path cannot contain a NUL character"),
        ('store = "s\\u0000.db"\n', "citeaudit.toml: store: a path cannot contain a NUL character"),
        ("[severity]\nE_NOPE = 'warning'\n", "severity: unknown finding code 'E_NOPE'"),
        ("[severity]\nE_UNCITED = 'off'\n", "severity.E_UNCITED: 'off' is not one of error, warning, info"),
        (
            "[severity]\nE_NOT_CACHED = 'warning'\n",
            "severity.E_NOT_CACHED: a could not check outcome cannot change severity",
        ),
        ("offline = \n", "citeaudit.toml: not valid TOML: Invalid value (at line 1, column 11)"),
        (
            "jobs = " + "9" * 5000 + "\n",
            "citeaudit.toml: not valid TOML: a number with more than 4300 digits",
        ),
    ],
)
def test_bad_configuration_exits_2(seed: Path, toml: str, message: str) -> None:
    (seed / "citeaudit.toml").write_text(toml)
    result = run_cli("check", "claims.json", "--offline")
    assert (result.code, result.stderr) == (2, f"citeaudit: error: {message}\n")


def test_bad_environment_value_exits_2(seed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEAUDIT_OFFLINE", "perhaps")
    result = run_cli("check", "claims.json")
    assert result.stderr == "citeaudit: error: CITEAUDIT_OFFLINE: 'perhaps' is not a boolean (true/false)\n"


def test_usage_errors_exit_2(seed: Path) -> None:
    assert run_cli("check").code == 2
    assert run_cli("check", "claims.json", "--min-quote-length", "-3").code == 2
    result = run_cli("frobnicate")
    assert result.code == 2
    assert result.stderr.startswith("citeaudit: error: usage: argument command")


def test_offline_never_opens_a_socket(seed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a socket was opened in offline mode")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    assert run_cli("check", "claims.json", "--offline").code == 1


def _subprocess_check(cwd: Path, claims: Path, cache: Path, sources: Path, out: Path, seed: str) -> bytes:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEAUDIT_")}
    env["PYTHONHASHSEED"] = seed
    subprocess.run(
        [sys.executable, "-m", "citeaudit", "check", str(claims), "--offline", "--cache", str(cache),
         "--sources", str(sources), "--out", str(out)],
        cwd=cwd, env=env, check=False, capture_output=True, timeout=120,
    )  # fmt: skip
    return (cwd / out).read_bytes()


def test_report_is_byte_identical_across_hash_seeds_and_directories(tmp_path: Path) -> None:
    case = GOLDEN / "seed000"
    elsewhere = tmp_path / "elsewhere" / "deeper"
    elsewhere.mkdir(parents=True)
    shutil.copytree(case, tmp_path / "copy")
    runs = [
        _subprocess_check(
            ROOT, case / "claims.json", case / "cache", case / "sources", tmp_path / "a.json", "0"
        ),
        _subprocess_check(
            elsewhere, case / "claims.json", case / "cache", case / "sources", tmp_path / "b.json", "12345"
        ),
        _subprocess_check(
            tmp_path / "copy", Path("claims.json"), Path("cache"), Path("sources"), Path("c.json"), "random"
        ),
    ]
    assert runs[0] == runs[1] == runs[2] == (case / "expected.json").read_bytes()


def test_a_terminal_gets_the_failing_citations_as_a_table(seed: Path) -> None:
    import io

    from citeaudit.cli import main

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    out = Terminal()
    assert main(["check", "claims.json", "--offline"], stdout=out, stderr=io.StringIO()) == 1
    lines = out.getvalue().splitlines()
    assert lines[:3] == [
        "checked=4 failed=3 report=report.json",
        "pass=1 fail=2 could_not_check=1",
        "decision=reject status=invalid",
    ]
    assert lines[3].split() == ["claim", "citation", "codes", "reason"]
    assert lines[4].startswith("c2     c2#1      E_YEAR_MISMATCH E_QUOTE_NOT_FOUND E_NUMBER_UNSUPPORTED:3")
    assert lines[4].endswith("2023 is not a year of the work (the record has 2024)")
    assert [line.split()[0] for line in lines[4:]] == ["c2", "c3", "c4"]


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_claims_from_standard_input_give_the_same_report(seed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert run_cli("check", "claims.json", "--offline", "--out", "from_file.json").code == 1
    _stdin(monkeypatch, Path("claims.json").read_bytes())
    result = run_cli("check", "-", "--offline", "--out", "from_stdin.json")
    assert result.code == 1
    assert Path("from_stdin.json").read_bytes() == Path("from_file.json").read_bytes()


def test_bibtex_from_standard_input_is_recognised(seed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _stdin(monkeypatch, b"% refs\n@article{k, title={Demo Paper on Retrieval Grounding}, author={Ivanova, A.},\n"
                        b" year={2024}, doi={10.0000/demo.1}}\n")  # fmt: skip
    assert run_cli("check", "-", "--offline", "--out", "r.json").code == 0
    assert json.loads(Path("r.json").read_text("utf-8"))["input_format"] == "bibtex"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"claims": [', "<stdin>: invalid JSON at line 1 column 13: Expecting value"),
        (b'{"claims": []}' + b" " * 100, "<stdin>: input is over the limit of 64 bytes"),
    ],
)
def test_bad_standard_input_exits_2(
    seed: Path, monkeypatch: pytest.MonkeyPatch, data: bytes, message: str
) -> None:
    monkeypatch.setenv("CITEAUDIT_MAX_INPUT_BYTES", "64")
    _stdin(monkeypatch, data)
    result = run_cli("check", "-", "--offline", "--out", "r.json")
    assert (result.code, result.stderr) == (2, f"citeaudit: error: {message}\n")
    assert not Path("r.json").exists()


def test_out_dash_prints_the_report_and_moves_the_summary_to_stderr(
    seed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli("check", "claims.json", "--offline", "--out", "report.json").code == 1
    result = run_cli("check", "claims.json", "--offline", "--out", "-")
    assert result.code == 1
    assert result.stdout == Path("report.json").read_text("utf-8")
    # The summary goes to the stream main() was given, never to the process's own stderr.
    assert (
        result.stderr
        == SEED000_FAILING
        + "checked=4 failed=3 report=-\npass=1 fail=2 could_not_check=1\ndecision=reject status=invalid\n"
    )
    assert capsys.readouterr().err == ""
    assert not Path("-").exists()
    clash = run_cli("check", "claims.json", "--offline", "--out", "-", "--format", "md")
    assert (clash.code, clash.stderr) == (
        2,
        "citeaudit: error: --out - and --format without --output would both write to standard output\n",
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["check", "claims.json", "--offline", "--out", "claims.json"],
         "claims.json: that is the input claims.json; writing there would destroy it"),
        (["check", "claims.json", "--offline", "--format", "md", "--output", "./claims.json"],
         "claims.json: that is the input claims.json; writing there would destroy it"),
        (["check", "claims.json", "--offline", "--out", "new.json", "--format", "md", "--output", "new.json"],
         "--output and --out are both new.json: the rendering would replace the report"),
        (["render", "report.json", "--format", "md", "--output", "report.json"],
         "report.json: that is the input report.json; writing there would destroy it"),
        (["stats", "other.json", "report.json", "--output", "report.json"],
         "report.json: that is the input report.json; writing there would destroy it"),
        (["feedback", "report.json", "--output", "report.json"],
         "report.json: that is the input report.json; writing there would destroy it"),
    ],
)  # fmt: skip
def test_no_command_writes_over_its_own_input(seed: Path, args: list[str], message: str) -> None:
    """`--out claims.json` replaced the answer under audit with its report."""
    assert run_cli("check", "claims.json", "--offline", "--out", "report.json").code == 1
    shutil.copy("report.json", "other.json")
    before = {p.name: p.read_bytes() for p in seed.iterdir() if p.is_file()}
    result = run_cli(*args)
    assert (result.code, result.stderr) == (2, f"citeaudit: error: {message}\n")
    assert {p.name: p.read_bytes() for p in seed.iterdir() if p.is_file()} == before


def test_a_mistyped_environment_variable_is_refused(seed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ignored in silence before: CITEAUDIT_OFLINE=1 in CI meant going online."""
    monkeypatch.setenv("CITEAUDIT_OFLINE", "1")
    result = run_cli("check", "claims.json", "--out", "r.json")
    assert (result.code, result.stderr) == (
        2,
        "citeaudit: error: CITEAUDIT_OFLINE: unknown setting; did you mean CITEAUDIT_OFFLINE?\n",
    )
    assert not Path("r.json").exists()


def test_every_variable_the_code_reads_is_known() -> None:
    from citeaudit.config import ENV_VARS, OTHER_ENV_VARS

    read = set()
    for path in (ROOT / "src" / "citeaudit").rglob("*.py"):
        read |= set(re.findall(r"CITEAUDIT_[A-Z_]+[A-Z]", path.read_text("utf-8")))
    assert read <= {*ENV_VARS.values(), *OTHER_ENV_VARS}


def _all_parsers() -> list[argparse.ArgumentParser]:
    found: list[argparse.ArgumentParser] = []
    todo: list[argparse.ArgumentParser] = [build_parser()]
    while todo:
        parser = todo.pop()
        found.append(parser)
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                todo.extend(action.choices.values())
    return found


def test_a_shared_option_has_one_help_text_everywhere() -> None:
    helps: dict[str, set[str]] = {}
    for parser in _all_parsers():
        for action in parser._actions:
            for flag in action.option_strings:
                if flag in {
                    "--cache",
                    "--sources",
                    "--config",
                    "--store",
                    "--scope",
                    "--corpus",
                    "--mailto",
                    "--output",
                    "--offline",
                    "--min-quote-length",
                    "--severity",
                    "--fail-on",
                }:
                    helps.setdefault(flag, set()).add(str(action.help))
    assert set(helps) == {
        "--cache",
        "--sources",
        "--config",
        "--store",
        "--scope",
        "--corpus",
        "--mailto",
        "--output",
        "--offline",
        "--min-quote-length",
        "--severity",
        "--fail-on",
    }
    assert {flag: len(texts) for flag, texts in helps.items()} == dict.fromkeys(helps, 1)


def test_every_command_runs_through_the_function_it_registered() -> None:
    leaves = [
        p for p in _all_parsers() if not any(isinstance(a, argparse._SubParsersAction) for a in p._actions)
    ]
    assert len(leaves) >= 20
    for parser in leaves:
        assert callable(parser.get_default("func")), parser.prog


def test_an_output_named_for_another_format_is_refused(seed: Path) -> None:
    result = run_cli("check", "claims.json", "--offline", "--format", "html", "--out", "report.html")
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr.strip() == (
        "citeaudit: error: --out report.html: .html names HTML, but --out writes JSON there (--out FILE "
        "writes the JSON report; --format FORMAT --output FILE writes the report rendered as md, sarif, "
        "junit or html)"
    )
    assert not (seed / "report.html").exists()
    md = run_cli("check", "claims.json", "--offline", "--format", "md", "--output", "report.html")
    assert md.code == 2
    assert md.stderr.startswith("citeaudit: error: --output report.html: .html names HTML, but --output "
                                "writes Markdown there")  # fmt: skip
    ok = run_cli("check", "claims.json", "--offline", "--format", "sarif", "--output", "r.sarif.json")
    assert ok.code == 1, ok.stderr


def test_markdown_is_another_name_of_md(seed: Path) -> None:
    md = run_cli("check", "claims.json", "--offline", "--format", "md", "--output", "a.md")
    markdown = run_cli("check", "claims.json", "--offline", "--format", "markdown", "--output", "b.md")
    assert (md.code, markdown.code) == (1, 1)
    assert (seed / "a.md").read_bytes() == (seed / "b.md").read_bytes()
    rendered = run_cli("render", "report.json", "--format", "markdown", "--output", "c.markdown")
    assert rendered.code == 0, rendered.stderr
    assert (seed / "c.markdown").read_bytes() == (seed / "a.md").read_bytes()
    unknown = run_cli("render", "report.json", "--format", "mdown")
    assert unknown.code == 2
    assert unknown.stderr.strip() == (
        "citeaudit: error: usage: argument --format: invalid choice: 'mdown' (choose from 'json', 'md', "
        "'sarif', 'junit', 'html', 'markdown') (see 'citeaudit render --help')"
    )


def test_render_refuses_an_output_named_for_another_format(seed: Path) -> None:
    assert run_cli("check", "claims.json", "--offline", "--out", "report.json").code == 1
    result = run_cli("render", "report.json", "--format", "html", "--output", "report.md")
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr.strip() == (
        "citeaudit: error: --output report.md: .md names Markdown, but --output writes HTML there "
        "(render writes the format that --format names into --output)"
    )
    assert not (seed / "report.md").exists()


def test_an_output_that_cannot_be_written_leaves_the_report_as_it_was(seed: Path) -> None:
    (seed / "report.json").write_text("before", "utf-8")
    result = run_cli(
        "check", "claims.json", "--offline", "--out", "report.json", "--format", "md", "--output", "/dev/full"
    )
    assert (result.code, result.stderr.strip()) == (2, "citeaudit: error: /dev/full: cannot write: No space "
                                                    "left on device")  # fmt: skip
    assert (seed / "report.json").read_text("utf-8") == "before"


def test_a_cache_folder_that_does_not_exist_is_refused_offline(seed: Path) -> None:
    result = run_cli("check", "claims.json", "--offline", "--cache", "nope")
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr.strip() == (
        "citeaudit: error: --cache nope: no such folder; offline, every citation would be E_NOT_CACHED "
        "(give the cache folder, or run `citeaudit fetch` online to fill it)"
    )
    from citeaudit import ConfigError, audit

    with pytest.raises(ConfigError) as refused:
        audit(json.loads((seed / "claims.json").read_text("utf-8")), cache="nope")
    assert str(refused.value) == (
        "cache: nope is not a folder; offline, every citation would be E_NOT_CACHED (give the cache "
        "folder, or fetch online to fill it)"
    )
