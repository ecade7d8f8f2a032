"""The package as users get it: the sdist and the wheel built as released (the wheel from the
sdist), their metadata checked as an upload would, the wheel installed into a fresh venv (no
editable install, no source tree on the path), and the demo, the shipped learned judge and the
HTML report run from there. Its dependencies come from the package registry, the only network a
test may use."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from email.parser import Parser as MetadataParser
from pathlib import Path

import pytest

from tests.conftest import ROOT

# Measured at about 20 s with a warm pip cache, about 35 s on one core; every subprocess below
# has its own timeout, and the whole module fails by name after 300 s.
pytestmark = pytest.mark.timeout(300)

# Files read at run time from beside the modules (importlib.resources): a wheel without one
# installs and then fails. Every other file beside the modules must be in the wheel too.
PACKAGE_DATA = (
    "citeaudit/py.typed",
    "citeaudit/report/templates/report.html.j2",
    "citeaudit/report/templates/report.css",
    "citeaudit/report/templates/report.js",
    "citeaudit/report/templates/report-judge.css",
    "citeaudit/report/templates/report-judge.js",
    "citeaudit/semantic/models/default.json",
    "citeaudit/semantic/models/wice.json",
    "citeaudit/semantic/models/attribution.json",
    "citeaudit/semantic/models/climate.json",
    "citeaudit/semantic/models/encoder.json",
    "citeaudit/semantic/models/retrieved.json",
    "citeaudit/semantic/models/wice-encoder.json",
    "citeaudit/semantic/models/attribution-encoder.json",
    "citeaudit/semantic/models/climate-encoder.json",
)


def _run(*args: str | Path, cwd: Path, timeout: int = 60) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "CITEAUDIT_", "VIRTUAL_ENV"))}
    return subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    done = _run(sys.executable, "-m", "build", "--no-isolation", "--outdir", out, ROOT, cwd=out, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    return out


@pytest.fixture(scope="module")
def installed(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel and its core dependencies (read from the wheel's METADATA)."""
    venv = tmp_path_factory.mktemp("venv")
    assert _run(sys.executable, "-m", "venv", venv, cwd=venv).returncode == 0
    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as z:
        (meta,) = (n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = MetadataParser().parsestr(z.read(meta).decode("utf-8"))
    core = [r for r in metadata.get_all("Requires-Dist") or [] if "extra ==" not in r]
    pip: list[str | Path] = [
        venv / "bin" / "python",
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
    ]
    deps = _run(*pip, *core, cwd=venv, timeout=200)
    assert deps.returncode == 0, deps.stderr[-2000:]
    own = _run(*pip, "--no-deps", wheel, cwd=venv)
    assert own.returncode == 0, own.stderr[-2000:]
    return venv


def test_the_sdist_and_the_wheel_pass_twine_check(dist: Path) -> None:
    files = sorted(dist.iterdir())
    assert sorted(f.suffix for f in files) == [".gz", ".whl"], files
    done = _run(sys.executable, "-m", "twine", "check", "--strict", *files, cwd=dist)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASSED") == 2, done.stdout


def test_the_wheel_holds_the_package_data_and_both_entry_points(dist: Path) -> None:
    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        (entry_points,) = (n for n in names if n.endswith(".dist-info/entry_points.txt"))
        scripts = z.read(entry_points).decode("utf-8")
    assert sorted(set(PACKAGE_DATA) - names) == []
    package = ROOT / "src"
    beside = {
        f.relative_to(package).as_posix()
        for f in (package / "citeaudit").rglob("*")
        if f.is_file() and "__pycache__" not in f.parts
    }
    assert set(PACKAGE_DATA) <= beside  # the list above names files that exist
    assert sorted(beside - names) == []  # every module and every data file beside them
    assert not [n for n in names if n.startswith(("tests/", "bench/", "examples/")) or "__pycache__" in n]
    assert "citeaudit = citeaudit.cli:main_entry" in scripts
    assert "citeaudit-hook = citeaudit.cli.hook:main_entry" in scripts


def test_the_installed_wheel_runs_the_demo_the_learned_judge_and_the_html_report(
    installed: Path, tmp_path: Path
) -> None:
    work = tmp_path / "seed000"
    shutil.copytree(ROOT / "examples" / "seed000", work)
    python, citeaudit = installed / "bin" / "python", installed / "bin" / "citeaudit"
    where = _run(python, "-c", "import citeaudit, sys; print(citeaudit.__file__, *sys.path)", cwd=tmp_path)
    module, *path = where.stdout.split()
    assert Path(module).is_relative_to(installed), where.stdout + where.stderr
    assert not [p for p in path if Path(p).is_relative_to(ROOT)], path  # no source tree on the path

    demo = _run(citeaudit, "check", "claims.json", "--offline", "--out", "report.json", cwd=work)
    assert demo.returncode == 1, demo.stderr
    assert demo.stdout.splitlines()[-1] == "decision=reject status=invalid"
    assert (work / "report.json").stat().st_size > 0

    # `learned` is the lexical model where the encoder extra is absent (this wheel) and the
    # encoder's where it is installed (the source tree's dev install): compared as learned:lexical.
    learned = _run(
        citeaudit, "check", "claims.json", "--offline", "--judge", "learned:lexical", "--out", "judged.json",
        cwd=work,
    )  # fmt: skip
    assert learned.returncode in (1, 6), learned.stderr
    assert '"judge":"learned/sha256:' in (work / "judged.json").read_text("utf-8")
    default = _run(
        citeaudit, "check", "claims.json", "--offline", "--judge", "learned", "--out", "default.json",
        cwd=work,
    )  # fmt: skip
    assert default.returncode == learned.returncode, default.stderr
    assert (work / "default.json").read_bytes() == (work / "judged.json").read_bytes()

    hook = _run(installed / "bin" / "citeaudit-hook", "claims.json", cwd=work)  # the second entry point
    assert hook.returncode == 1, hook.stderr
    completion = _run(citeaudit, "completion", "bash", cwd=work)
    assert completion.returncode == 0, completion.stderr
    assert "_shtab_citeaudit" in completion.stdout

    # The same reports, byte for byte, as the source tree's: nothing the wheel lacks changes them.
    here = tmp_path / "from-source"
    shutil.copytree(ROOT / "examples" / "seed000", here)
    for out, judge, code in (
        ("report.json", (), 1),
        ("judged.json", ("--judge", "learned:lexical"), learned.returncode),
    ):
        args = ("check", "claims.json", "--offline", *judge, "--out", out)
        assert _run(sys.executable, "-m", "citeaudit", *args, cwd=here).returncode == code
        assert (here / out).read_bytes() == (work / out).read_bytes(), out

    html = _run(citeaudit, "render", "report.json", "--format", "html", "--output", "report.html", cwd=work)
    assert html.returncode == 0, html.stderr
    source = _run(sys.executable, "-m", "citeaudit", "render", "report.json", "--format", "html", cwd=here)
    assert source.returncode == 0, source.stderr
    page = (work / "report.html").read_text("utf-8")
    assert page.startswith("<!doctype html>\n")
    assert page == source.stdout  # the templates, styles and scripts all came with the wheel


def test_the_wheel_and_the_sdist_carry_the_licence_they_declare(dist: Path) -> None:
    import tarfile

    licence = (ROOT / "LICENSE").read_text("utf-8")
    assert licence.startswith("MIT License\n"), licence[:40]
    assert "Copyright (c) 2026 the citeaudit authors" in licence
    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as z:
        (meta,) = (n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = MetadataParser().parsestr(z.read(meta).decode("utf-8"))
        (shipped,) = (n for n in z.namelist() if n.endswith(".dist-info/licenses/LICENSE"))
        assert z.read(shipped).decode("utf-8") == licence
    assert metadata["License-Expression"] == "MIT"
    assert metadata.get_all("License-File") == ["LICENSE"]
    (sdist,) = dist.glob("*.tar.gz")
    with tarfile.open(sdist) as t:
        member = next(m for m in t.getmembers() if m.name.count("/") == 1 and m.name.endswith("/LICENSE"))
        data = t.extractfile(member)
        assert data is not None
        assert data.read().decode("utf-8") == licence


# What the core install (the wheel and its core dependencies, no extra) answers to a command that
# needs an extra: exit 2, one line naming the extra, and no file created or changed. A documented
# command matching a pattern here needs that extra; every other one runs as documented.
NEEDS_EXTRA = (
    (re.compile(r"^mirror import .*--format dblp\b"), "mirror"),
    (re.compile(r"^serve\b"), "service"),
    (re.compile(r"^mcp\b"), "mcp"),
    (re.compile(r"^sources add .*--mcp\b"), "mcp"),
    (re.compile(r"^(snapshot|sources add) \S+\.(pdf|html?)\b"), "documents"),
    (re.compile(r"--engine ray\b"), "ray"),
    (re.compile(r"^batch .*\.parquet\b"), "parquet"),
    (re.compile(r"^judge train\b"), "train"),
    (re.compile(r"--judge nli:"), "nli"),
)
# Commands the guides name in prose rather than in a command block.
MORE_COMMANDS = (
    "citeaudit snapshot page.html --doi 10.1234/example",
    "citeaudit snapshot page.pdf --url https://example.org/paper",
    "citeaudit sources add paper.pdf --id paper --store evidence.db --scope team/alice",
    "citeaudit batch answers.parquet --out audit --offline",
    "citeaudit check claims.json --offline --judge nli:cross-encoder/nli-deberta-v3-base",
    "citeaudit serve --openapi",
)


def _needed_extra(argv: list[str]) -> str | None:
    line = " ".join(argv[1:])
    return next((extra for pattern, extra in NEEDS_EXTRA if pattern.search(line)), None)


def _documented_commands() -> list[str]:
    """Every ``citeaudit`` command line of a shell block of the README and the site's pages."""
    from tests.docs.support import pages

    texts = {"README.md": (ROOT / "README.md").read_text("utf-8")}
    texts.update({f"docs/{name}": text for name, text in pages().items()})
    found = []
    for text in texts.values():
        for block in re.findall(r"```(?:sh|bash|console|shell)\n(.*?)```", text, re.S):
            for line in block.replace("\\\n", " ").splitlines():
                line = line.strip().removeprefix("$ ").partition("  #")[0].strip()
                if line.startswith("citeaudit "):
                    found.append(line)
    return found


def _tree(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        p.relative_to(folder).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
    }


@pytest.mark.timeout(280)
def test_the_core_install_runs_the_documented_commands_or_names_the_extra(
    installed: Path, tmp_path: Path
) -> None:
    from tests.docs.test_examples import EXAMPLES, _env

    citeaudit = str(installed / "bin" / "citeaudit")

    def run(command: str, cwd: Path) -> tuple[subprocess.CompletedProcess[str], str | None]:
        argv = shlex.split(command)
        assert argv[0] == "citeaudit", command
        done = subprocess.run([citeaudit, *argv[1:]], cwd=cwd, env=_env(), capture_output=True,
                              text=True, timeout=60)  # fmt: skip
        assert "Traceback" not in done.stderr, f"{command}\n{done.stderr}"
        return done, _needed_extra(argv)

    def refused(command: str, done: subprocess.CompletedProcess[str], extra: str) -> None:
        assert done.returncode == 2, f"{command}: exit {done.returncode}\n{done.stderr}"
        (line,) = done.stderr.splitlines()
        assert line.startswith("citeaudit: error: "), line
        assert line.endswith(f"extra: pip install 'citeaudit[{extra}]'") or (
            f"pip install 'citeaudit[{extra}]'" in line
        ), line
        assert done.stdout == "", command

    # The runnable examples, in copies of their folders: as printed, up to a command that needs an
    # extra (the commands after it read what it would have made).
    ran, stopped = 0, set()
    for n, example in enumerate(EXAMPLES):
        work = tmp_path / f"example{n}"
        shutil.copytree(ROOT / example.directory, work, ignore=shutil.ignore_patterns("report.json"))
        out = []
        for command, expected in example.commands:
            before = _tree(work)
            done, extra = run(command, work)
            ran += 1
            if extra is not None:
                refused(command, done, extra)
                assert _tree(work) == before, f"{command}: changed the folder"
                stopped.add(command)
                break
            assert done.returncode == expected, (
                f"{example.where}: {command}: exit {done.returncode}\n{done.stderr}"
            )
            out.append(done.stdout)
        else:
            if example.printed is not None:
                assert "".join(out) == example.printed, f"{example.where}: {example.commands}"
    assert "citeaudit mirror import --format dblp dblp.xml.gz --mirror refs.mirror" in stopped
    assert ran >= 8

    # Every other documented command that needs an extra, from an empty folder.
    needing = sorted({c for c in (*_documented_commands(), *MORE_COMMANDS) if _needed_extra(shlex.split(c))})
    extras = set()
    for n, command in enumerate(needing):
        work = tmp_path / f"command{n}"
        work.mkdir()
        (work / "claims.json").write_bytes((ROOT / "examples" / "seed000" / "claims.json").read_bytes())
        before = _tree(work)
        done, extra = run(command, work)
        assert extra is not None
        refused(command, done, extra)
        assert _tree(work) == before, f"{command}: changed the folder"
        extras.add(extra)
    assert extras == {"mirror", "service", "mcp", "documents", "ray", "parquet", "train", "nli"}, extras
