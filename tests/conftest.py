"""Shared fixtures: the real third-party data, and the CLI run in-process."""

from __future__ import annotations

import io
import json
import os
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from citeaudit.cli import main
from citeaudit.report.read import load_report

# Speed is measured in bench/, never asserted by a test: no per-example deadline, which a loaded
# machine (two cores, two test workers) overruns on the first, cold example.
settings.register_profile("citeaudit", deadline=None)
settings.load_profile("citeaudit")

# A suite started in the background (``make test &`` in a script) or under ``nohup`` inherits
# SIGINT or SIGHUP ignored, and so would every process a test starts and then signals: the tests
# of Ctrl-C and of a graceful stop would fail with nothing wrong. Signals start at their defaults.
for _signum in (signal.SIGINT, getattr(signal, "SIGHUP", None)):
    if _signum is not None and signal.getsignal(_signum) == signal.SIG_IGN:
        signal.signal(_signum, signal.default_int_handler if _signum == signal.SIGINT else signal.SIG_DFL)

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"
GOLDEN = Path(__file__).resolve().parent / "golden"


def shared_data(*parts: str) -> Path:
    """A file of the shared real data set; skips the test when it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"real test data not present: ../shared/data/{'/'.join(parts)}")
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str


def run_cli(*argv: str | Path) -> CliResult:
    args = [str(a) for a in argv]
    out, err = io.StringIO(), io.StringIO()
    code = main(args, stdout=out, stderr=err)
    written = args[args.index("--out") + 1] if args[:1] == ["check"] and "--out" in args else "-"
    if written != "-" and code in (0, 1):
        # Whatever check writes, the commands that read reports must accept.
        load_report(Path(written))
    return CliResult(code, out.getvalue(), err.getvalue())


@pytest.fixture
def cli() -> Any:
    return run_cli


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A test's own working folder, the current directory, with no CITEAUDIT_ variable set: a command run
    there reads and writes only what the test puts in it."""
    monkeypatch.chdir(tmp_path)
    for var in [v for v in os.environ if v.startswith("CITEAUDIT_")]:
        monkeypatch.delenv(var)
    return tmp_path


@pytest.fixture(scope="session")
def postgres_url() -> Any:
    """One throwaway cluster for the whole session, stopped at the end."""
    from tests.postgres import PostgresCluster

    cluster = PostgresCluster()
    url = cluster.start()
    yield url
    cluster.stop()


_DATABASES = iter(range(1_000_000))


@pytest.fixture(params=["sqlite", "postgresql"])
def store_target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty store: a SQLite file, or a new database on the cluster."""
    if request.param == "sqlite":
        return str(tmp_path / "evidence.db")
    import psycopg

    base: str = request.getfixturevalue("postgres_url")
    name = f"t{os.getpid()}_{next(_DATABASES)}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return base.rsplit("/", 1)[0] + "/" + name
