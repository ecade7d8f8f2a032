"""Hostile and unlucky inputs of a mirror: a cited year of 0 or below, dumps nested deeper than a
JSON reader goes, and two imports into one mirror at once. Each a one-line answer or a counted
skip, never a traceback (exit 4)."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citeaudit.mirror import MirrorError, SqliteStore, open_mirror
from citeaudit.resolve.indexes.interface import WorkQuery
from tests.conftest import ROOT, run_cli
from tests.dblp_dump import sample_mirror
from tests.mirror.dumps import write_dblp


@pytest.fixture(scope="module")
def mirror(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return sample_mirror(tmp_path_factory.mktemp("mirror"))


@pytest.mark.parametrize("year", [0, -1, 1])
def test_a_year_of_zero_or_below_is_looked_up_not_a_crash(mirror: Path, year: int) -> None:
    query = WorkQuery("Long Short-Term Memory", "Hochreiter", year)
    (answer,) = open_mirror(mirror).search_many([query]).values()
    assert answer.answered
    assert [c.key for c in answer.candidates][:1] == ["journals/neco/HochreiterS97"]


@pytest.mark.parametrize("year", [0, -1])
def test_a_work_citation_with_year_zero_or_below_is_checked(
    tmp_path: Path, mirror: Path, monkeypatch: pytest.MonkeyPatch, year: int
) -> None:
    monkeypatch.chdir(tmp_path)
    citation = {"title": "Long Short-Term Memory", "first_author": "Hochreiter", "year": year}
    Path("claims.json").write_text(
        json.dumps({"claims": [{"id": "c1", "text": "A claim.", "citations": [citation]}]}), "utf-8"
    )
    result = run_cli(
        "check", "claims.json", "--offline", "--judge", "none", "--mirror", mirror, "--indexes", "",
        "--out", "report.json",
    )  # fmt: skip
    assert result.code in (1, 2), result.stderr  # a wrong year, or refused as input: never exit 4
    assert "Traceback" not in result.stderr


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_json_lines_nested_too_deep_are_counted_skips(tmp_path: Path) -> None:
    lines = [
        json.dumps({"id": "2101.00001", "title": "Kept paper", "versions": [{"created": "Mon, 4 Jan 2021"}]}),
        '{"id": "2101.00002", "title": "Deep", "x": ' + _deep(100_000) + "}",
        json.dumps({"id": "2101.00003", "title": "Also kept"}),
    ]
    path = tmp_path / "arxiv.json"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    result = run_cli("mirror", "import", "--format", "arxiv", path, "--mirror", tmp_path / "m.sqlite")
    assert result.code == 0, result.stderr
    assert result.stdout == (
        f"{path.resolve()}: imported: 2 records, 1 skipped (a record nested too deeply to read: 1)\n"
    )


def test_openalex_nested_too_deep_is_a_counted_skip(tmp_path: Path) -> None:
    path = tmp_path / "part_000.gz"
    with gzip.open(path, "wt") as out:
        out.write('{"id": "https://openalex.org/W1", "display_name": ' + _deep(5_000) + "}\n")
        out.write(json.dumps({"id": "https://openalex.org/W2", "display_name": "Kept"}) + "\n")
    result = run_cli("mirror", "import", "--format", "openalex", path, "--mirror", tmp_path / "m.sqlite")
    assert result.code == 0, result.stderr
    assert result.stdout == (
        f"{path.resolve()}: imported: 1 records, 1 skipped (a record nested too deeply to read: 1)\n"
    )


def test_a_crossref_work_nested_too_deep_is_a_counted_skip(tmp_path: Path) -> None:
    path = tmp_path / "0.json.gz"
    deep = '{"DOI": "10.1/deep", "title": ["Deep"], "x": ' + _deep(100_000) + ', "s": "]}\\""}'
    with gzip.open(path, "wt") as out:
        out.write('{"items": [{"DOI": "10.1/a", "title": ["A kept work"]}, ' + deep)
        out.write(', {"DOI": "10.1/b", "title": ["Another kept work"]}]}')
    mirror = tmp_path / "m.sqlite"
    result = run_cli("mirror", "import", "--format", "crossref", path, "--mirror", mirror)
    assert result.code == 0, result.stderr
    assert result.stdout == (
        f"{path.resolve()}: imported: 2 records, 1 skipped (a record nested too deeply to read: 1)\n"
    )
    keys = [c.key for c in open_mirror(mirror).search(WorkQuery("Another kept work"))]
    assert keys == ["10.1/b"]


def test_a_second_store_on_a_mirror_being_written_is_refused_in_one_line(tmp_path: Path) -> None:
    mirror = tmp_path / "m.sqlite"
    first = SqliteStore(mirror)
    try:
        with pytest.raises(MirrorError) as caught:
            SqliteStore(mirror)
        assert str(caught.value) == (
            f"{mirror}: another `citeaudit mirror import` is writing to this mirror; "
            "rerun this one when it has ended"
        )
    finally:
        first.close()
    SqliteStore(mirror).close()  # free again once the first has ended


def _spawn(dump: Path, mirror: Path) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "citeaudit", "mirror", "import", "--format", "dblp", str(dump),
               "--mirror", str(mirror), "--batch", "500", "--readers", "0"]  # fmt: skip
    env: dict[str, Any] = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.parametrize("existing", [False, True])
def test_two_imports_at_once_one_runs_the_other_is_refused(tmp_path: Path, existing: bool) -> None:
    dump = write_dblp(tmp_path / "dump", 3_000)
    mirror = tmp_path / "m.sqlite"
    if existing:
        other = write_dblp(tmp_path / "other", 50, seed=7)
        assert run_cli("mirror", "import", "--format", "dblp", other, "--mirror", mirror).code == 0
    children = [_spawn(dump, mirror) for _ in range(2)]
    deadline = time.monotonic() + 120
    outcomes = []
    for child in children:
        out, err = child.communicate(timeout=max(1.0, deadline - time.monotonic()))
        outcomes.append((child.returncode, out, err))
    codes = sorted(code for code, _, _ in outcomes)
    for code, _, err in outcomes:
        assert "Traceback" not in err
        if code == 2:
            assert err == (
                f"citeaudit: error: {mirror}: another `citeaudit mirror import` is writing to this mirror; "
                "rerun this one when it has ended\n"
            )
    assert codes in ([0, 0], [0, 2]), outcomes  # one after the other, or one refused: never both at once
    store = SqliteStore(mirror)
    try:
        assert store.counts() == {"dblp": 3_000}  # the other dump's keys are among these
    finally:
        store.close()


# -- fuzzing: any dump line and any cited year or title, a record, a counted skip or a one-line error


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
_WORKISH = st.fixed_dictionaries(
    {},
    optional={
        "id": st.text(max_size=12) | st.just("https://openalex.org/W1"),
        "title": st.text(max_size=30) | _JSON,
        "display_name": st.text(max_size=30) | _JSON,
        "DOI": st.text(max_size=12),
        "authors_parsed": _JSON,
        "authorships": _JSON,
        "abstract": st.text(max_size=40) | _JSON,
        "abstract_inverted_index": _JSON
        | st.dictionaries(st.text(max_size=6), st.lists(st.integers(-5, 50), max_size=3)),
        "versions": _JSON,
        "publication_year": _JSON,
        "issued": _JSON,
    },
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(_WORKISH.map(json.dumps) | st.binary(max_size=30).map(lambda b: b.decode("latin-1")), max_size=6),
       deep=st.integers(0, 3000))  # fmt: skip
def test_any_json_line_of_a_dump_is_a_record_or_a_counted_skip(
    tmp_path: Path, lines: list[str], deep: int
) -> None:
    from citeaudit.mirror.interface import MirrorRecord, Skip
    from citeaudit.mirror.load import importer

    path = tmp_path / "dump.jsonl"
    path.write_text("\n".join([*lines, "[" * deep + "]" * deep]) + "\n", "utf-8", errors="surrogatepass")
    for fmt in ("arxiv", "openalex"):
        module = importer(fmt)
        (dump,) = module.files(str(path))
        for unit in module.units(dump, 0, 1 << 20):
            assert isinstance(unit, (MirrorRecord, Skip))
    folder = tmp_path / "crossref"
    folder.mkdir(exist_ok=True)
    items = ", ".join(line for line in lines if line.startswith("{"))
    (folder / "0.json").write_text('{"items": [' + items + "]}", "utf-8")
    module = importer("crossref")
    (dump,) = module.files(str(folder))
    problem = ""
    try:  # a file that is not JSON is a one-line error there (a line of JSON Lines is skipped)
        units = list(module.units(dump, 0, 1 << 20))
    except MirrorError as e:
        units, problem = [], str(e)
    assert all(isinstance(unit, (MirrorRecord, Skip)) for unit in units)
    assert not problem or ("\n" not in problem and problem.startswith(f"{dump.name}: "))


@settings(max_examples=300, deadline=None)
@given(
    title=st.text(max_size=40),
    author=st.none() | st.text(max_size=15),
    year=st.none() | st.integers(-10_000, 10_000),
)
def test_any_cited_title_author_and_year_is_looked_up(
    mirror: Path, title: str, author: str | None, year: int | None
) -> None:
    answer = open_mirror(mirror).search_many([WorkQuery(title, author, year)])
    assert all(a.answered for a in answer.values())


@pytest.mark.parametrize(
    "work",
    [
        {"DOI": "10.1/x", "title": ["T"], "author": 1},
        {"DOI": "10.1/x", "title": ["T"], "update-to": [{"type": {"doi": "x"}}]},
        {"DOI": "10.1/x", "title": ["T"], "update-to": 1},
    ],
)
def test_a_crossref_work_with_fields_of_other_types_is_a_counted_skip(work: dict[str, Any]) -> None:
    from citeaudit.mirror.crossref import record
    from citeaudit.mirror.interface import Skip

    assert record(work) == Skip("a work with a field not of the type Crossref gives it")
