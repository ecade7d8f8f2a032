"""The package as users get it: the sdist and the wheel built as released (the wheel from the
sdist), their metadata checked as an upload would, the wheel installed into a fresh venv (no
editable install, no source tree on the path), and the demo, the shipped learned judge and the
HTML report run from there. Its dependencies come from the package registry, the only network a
test may use."""

from __future__ import annotations

import os
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

    learned = _run(
        citeaudit, "check", "claims.json", "--offline", "--judge", "learned", "--out", "judged.json", cwd=work
    )
    assert learned.returncode in (1, 6), learned.stderr
    assert '"judge":"learned/sha256:' in (work / "judged.json").read_text("utf-8")

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
        ("judged.json", ("--judge", "learned"), learned.returncode),
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
