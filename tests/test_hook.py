"""The pre-commit hook: ``citeaudit-hook`` in-process, and the repository's own
``.pre-commit-hooks.yaml`` through ``pre-commit try-repo`` on a temporary repository."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from citeaudit.cli.hook import main, split_arguments, worst
from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "seed000"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with the seed 000 example's cache and snapshots, a wrong and a clean claims file."""
    repo = tmp_path / "repo"
    for name in ("cache", "sources"):
        shutil.copytree(EXAMPLE / name, repo / "vendor" / name)
    claims = json.loads((EXAMPLE / "claims.json").read_text(encoding="utf-8"))
    (repo / "wrong.claims.json").write_text(json.dumps(claims), encoding="utf-8")
    (repo / "clean.claims.json").write_text(json.dumps({"claims": claims["claims"][:1]}), encoding="utf-8")
    (repo / "citeaudit.toml").write_text('cache = "vendor/cache"\nsources = "vendor/sources"\n', "utf-8")
    return repo


def test_options_keep_their_values_and_the_rest_are_files() -> None:
    argv = ["--cache", "c", "a.json", "--severity=E_TITLE_MISMATCH=warning", "--jobs", "2", "b.json"]
    assert split_arguments(argv) == (
        ["--cache", "c", "--severity=E_TITLE_MISMATCH=warning", "--jobs", "2"],
        ["a.json", "b.json"],
    )
    assert split_arguments(["--reviews", "x.json"]) == (["--reviews"], ["x.json"])


def test_the_worst_exit_code_wins() -> None:
    assert worst([0, 3, 1, 0]) == 1
    assert worst([3, 0]) == 3
    assert worst([1, 2]) == 2
    assert worst([]) == 0


def test_each_file_is_checked_offline_and_nothing_is_written(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(repo)
    before = sorted(p.name for p in repo.iterdir())
    assert main(["clean.claims.json"]) == 0
    assert main(["clean.claims.json", "wrong.claims.json"]) == 1
    assert sorted(p.name for p in repo.iterdir()) == before  # no report.json
    captured = capsys.readouterr()
    assert captured.out == ""
    clean = "clean.claims.json:\nchecked=1 failed=0 report=-\npass=1 fail=0 could_not_check=0\ndecision=manual_review status=needs_review\n"
    # A hook's output is read in a log: each failed or unchecked citation on a line, with the fix
    # where its error has one, before the file's summary.
    assert captured.err == clean + clean + (
        "wrong.claims.json:\n"
        "c2 10.0000/demo.1 E_YEAR_MISMATCH: 2023 is not a year of the work (the record has 2024); "
        "also E_QUOTE_NOT_FOUND, E_NUMBER_UNSUPPORTED:3\n"
        "c3 10.0000/demo.2 E_NOT_CACHED: offline and not in the cache: run `citeaudit fetch` on this input "
        "online (same --cache) to pin the registry's answer\n"
        "c4 - E_UNCITED: the claim cites nothing\n"
        "checked=4 failed=3 report=-\n"
        "pass=1 fail=2 could_not_check=1\n"
        "decision=reject status=invalid\n"
    )


def test_report_options_are_refused(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    stderr = io.StringIO()
    assert main(["--out", "r.json", "clean.claims.json"], stderr=stderr) == 2
    assert stderr.getvalue() == "citeaudit-hook: error: --out, --output and --format are not for the hook\n"


def _git(repo: Path, *argv: str) -> None:
    subprocess.run(["git", *argv], cwd=repo, check=True, capture_output=True, timeout=60)


def test_the_hooks_default_files_are_claims_files_bibliographies_and_markdown_reports() -> None:
    import re

    import yaml

    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text("utf-8"))
    files = re.compile(hook["files"])  # pre-commit searches each changed path with it
    taken = ["claims.json", "answers/a.claims.json", "refs.bib", "paper/refs.bib", "report.md",
             "out/2026-01.report.md"]  # fmt: skip
    left = ["README.md", "docs/guide.md", "notes.json", "claims.json.bak", "myreport.md", "refs.bib.orig",
            "report.mdx", "unclaims.json"]  # fmt: skip
    assert [f for f in taken if not files.search(f)] == []
    assert [f for f in left if files.search(f)] == []


def test_the_hook_audits_a_markdown_report_and_a_bibliography(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "report"
    shutil.copytree(ROOT / "examples" / "report", work)
    shutil.copy(ROOT / "examples" / "references" / "refs.bib", work / "refs.bib")
    monkeypatch.chdir(work)
    stderr = io.StringIO()
    assert main(["report.md", "refs.bib", "--indexes", ""], stderr=stderr) == 1
    printed = stderr.getvalue()
    assert printed.startswith("report.md:\n"), printed
    assert "\nrefs.bib:\n" in printed
    assert "hochreiter1997" in printed


# pip installs the package and its dependencies into the hook's environment first: about 80 s on
# an idle 2-core machine, more beside other work. The test has its own bound, above each of its
# two commands' (the second reuses the environment the first made).
@pytest.mark.timeout(660)
def test_pre_commit_runs_the_hook_of_this_repository(repo: Path, tmp_path: Path) -> None:
    """``pre-commit try-repo`` builds the hook's environment from this checkout (pip installs it
    from the package registry's dependencies) and runs it on the changed claims files."""
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
    }
    command = [str(Path(sys.executable).parent / "pre-commit"), "try-repo", str(ROOT), "citeaudit"]
    done = subprocess.run(
        [*command, "--all-files"], cwd=repo, env=env, capture_output=True, text=True, timeout=540
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert (
        "c3 10.0000/demo.2 E_NOT_CACHED: offline and not in the cache: run `citeaudit fetch` on this input "
        "online (same --cache) to pin the registry's answer\nc4 - E_UNCITED: the claim cites nothing\n"
        "checked=4 failed=3 report=-\n"
    ) in done.stdout
    assert "- exit code: 1" in done.stdout
    # Only the clean file: the hook passes. Files that are not claims files are not given to it.
    (repo / "notes.json").write_text("{", encoding="utf-8")
    clean = subprocess.run(
        [*command, "--files", "clean.claims.json", "notes.json"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=110,
    )
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "Passed" in clean.stdout
