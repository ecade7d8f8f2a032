"""Import: resumable after kill -9, updated by a newer dump, and every bad input a one-line error
or a counted skip, never a traceback and never a half-built mirror presented as complete."""

from __future__ import annotations

import gzip
import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from citeaudit.mirror import SqliteStore, open_mirror
from citeaudit.resolve.indexes.interface import WorkQuery
from tests.conftest import run_cli
from tests.dblp_dump import import_killed_midway
from tests.mirror.dumps import DATA, works, write_crossref, write_dblp


def test_kill_9_mid_import_then_rerun_loses_nothing_and_counts_nothing_twice(tmp_path: Path) -> None:
    dump = write_dblp(tmp_path / "dump", 20_000, untitled=7)
    mirror = tmp_path / "m.sqlite"
    command, env = import_killed_midway(dump, mirror)
    # What was committed is there, and the mirror says it is incomplete.
    info = run_cli("mirror", "info", "--mirror", mirror)
    assert info.code == 0
    assert "INCOMPLETE" in info.stdout
    assert "status: incomplete" in info.stdout
    answer = open_mirror(mirror).search_many([WorkQuery("anything at all")])
    (only,) = answer.values()
    assert only.code == "E_MIRROR_INCOMPLETE"
    assert only.reason == f"{dump.resolve()} did not finish importing; rerun `citeaudit mirror import`"
    rerun = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    assert ": resumed: " in rerun.stdout
    store = SqliteStore(mirror)
    (source,) = store.sources()
    assert store.counts() == {"dblp": 20_000}
    store.close()
    assert source.complete
    assert source.imported == 20_000
    assert source.units == 20_000 + 1_000 + 7
    assert source.skipped == {"no title": 7, "not a publication (<www>)": 1_000}
    again = run_cli("mirror", "import", "--format", "dblp", dump, "--mirror", mirror)
    assert again.code == 0
    assert again.stdout == f"{dump.resolve()}: already imported: 0 records\n"


def test_kill_9_mid_import_of_many_files_then_rerun(tmp_path: Path) -> None:
    folder = tmp_path / "crossref"
    write_crossref(folder, 12_000, per_file=400)  # 30 files: a transaction spans several
    mirror = tmp_path / "m.sqlite"
    command, env = import_killed_midway(folder, mirror, dump_format="crossref", batch=1000, after=400)
    store = SqliteStore(mirror)
    before = store.sources()
    committed = store.counts().get("crossref", 0)
    store.close()
    assert 0 < committed < 12_000
    assert committed == sum(s.imported for s in before)  # the progress is the records', and whole
    rerun = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    actions = [line.split(": ")[1] for line in rerun.stdout.splitlines()]
    assert "already imported" in actions
    assert set(actions) <= {"already imported", "resumed", "imported"}
    store = SqliteStore(mirror)
    assert store.counts() == {"crossref": 12_000}
    assert all(s.complete and s.imported == s.units == 400 for s in store.sources())
    store.close()
    w = next(works(1))
    (answer,) = open_mirror(mirror).search_many([WorkQuery(w.title)]).values()
    assert answer.candidates[0].key == w.crossref()["DOI"].lower()


def test_reimport_of_a_newer_dump_updates_records(tmp_path: Path) -> None:
    mirror = tmp_path / "m.sqlite"
    folder = tmp_path / "crossref"
    (path,) = write_crossref(folder, 50)
    assert run_cli("mirror", "import", "--format", "crossref", folder, "--mirror", mirror).code == 0
    with gzip.open(path) as raw:
        data = json.loads(raw.read())
    data["items"][3]["title"] = ["An entirely different title about quasicrystal lattices"]
    with gzip.open(path, "wt", encoding="utf-8") as out:
        json.dump(data, out)
    os.utime(path, (1, 1))  # a newer file, whatever the clock's resolution
    result = run_cli("mirror", "import", "--format", "crossref", folder, "--mirror", mirror)
    assert result.code == 0
    assert ": imported: 50 records" in result.stdout
    index = open_mirror(mirror)
    doi = data["items"][3]["DOI"].lower()
    (answer,) = index.search_many(
        [WorkQuery("entirely different title about quasicrystal lattices")]
    ).values()
    assert answer.candidates[0].key == doi
    assert answer.candidates[0].record.titles == ("An entirely different title about quasicrystal lattices",)
    store = SqliteStore(mirror)
    assert store.counts() == {"crossref": 50}
    store.close()


def test_search_finds_near_misses_prefers_author_and_year_and_is_deterministic(tmp_path: Path) -> None:
    dump = write_dblp(tmp_path / "dump", 5_000)
    first, second = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    for mirror in (first, second):
        assert (
            run_cli("mirror", "import", "--format", "dblp", dump, "--mirror", mirror, "--batch", "700").code
            == 0
        )
    sample = [w for w in works(5_000) if len(set(w.words)) >= 5][:40]
    queries = []
    for w in sample:
        words = list(w.words)
        words[len(words) // 2] = "zzyzx"  # one word wrong
        queries.append((w, WorkQuery(" ".join(words), w.authors[0][1], w.year)))
        queries.append((w, WorkQuery(" ".join(words[:-1]), None, None)))  # and one more missing
    a = open_mirror(first).search_many([q for _, q in queries])
    b = open_mirror(second).search_many([q for _, q in queries])
    assert {k: v.candidates for k, v in a.items()} == {k: v.candidates for k, v in b.items()}
    for w, q in queries:
        keys = [c.key for c in a[q.key].candidates]
        assert f"conf/gen/W{w.i}" in keys, (q, keys)
    assert open_mirror(first).search_many([q for _, q in queries]) == a  # the same answers again


def _error(*argv: str | Path) -> str:
    result = run_cli(*argv)
    assert result.code == 2, result
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr
    return result.stderr


def test_truncated_gzip_is_one_line_and_leaves_the_file_incomplete(tmp_path: Path) -> None:
    dump = write_dblp(tmp_path / "dump", 3_000)
    raw = dump.read_bytes()
    dump.write_bytes(raw[: len(raw) // 2])
    mirror = tmp_path / "m.sqlite"
    err = _error("mirror", "import", "--format", "dblp", dump, "--mirror", mirror, "--batch", "100")
    assert err == (
        f"citeaudit: error: {dump.resolve()}: the gzip stream is truncated (the file ends before its "
        "compressed data does); download it again\n"
    )
    info = run_cli("mirror", "info", "--mirror", mirror, "--json")
    view = json.loads(info.stdout)
    assert view["complete"] is False
    assert view["incomplete_files"] == [str(dump.resolve())]
    assert 0 < view["records"] < 3_000


def test_invalid_xml_names_line_and_column(tmp_path: Path) -> None:
    (tmp_path / "dblp.dtd").write_bytes((DATA / "dblp" / "dblp.dtd").read_bytes())
    bad = tmp_path / "dblp.xml"
    bad.write_bytes(
        b'<?xml version="1.0" encoding="ISO-8859-1"?>\n<!DOCTYPE dblp SYSTEM "dblp.dtd">\n<dblp>\n'
        b'<article key="a/b"><title>Fine.</title></article>\n<article key="a/c"><title>Broken</article>\n</dblp>\n'
    )
    err = _error("mirror", "import", "--format", "dblp", bad, "--mirror", tmp_path / "m.sqlite")
    assert err == (
        f"citeaudit: error: {bad.resolve()}: invalid XML at line 5, column 43: "
        "Opening and ending tag mismatch: title line 5 and article\n"
    )


def test_undeclared_entity_and_missing_dtd(tmp_path: Path) -> None:
    xml = b'<?xml version="1.0" encoding="ISO-8859-1"?>\n<!DOCTYPE dblp SYSTEM "dblp.dtd">\n<dblp>\n'
    dump = tmp_path / "dblp.xml"
    dump.write_bytes(xml + b'<article key="a/b"><title>Fine.</title></article>\n</dblp>\n')
    err = _error("mirror", "import", "--format", "dblp", dump, "--mirror", tmp_path / "m.sqlite")
    assert err == (
        f"citeaudit: error: {dump.resolve()}: its DTD 'dblp.dtd' is not beside it; download dblp.dtd from "
        "https://dblp.org/xml/ into the same folder (its character entities are declared there)\n"
    )
    (tmp_path / "dblp.dtd").write_bytes((DATA / "dblp" / "dblp.dtd").read_bytes())
    dump.write_bytes(xml + b'<article key="a/b"><title>Caf&eacutx;.</title></article>\n</dblp>\n')
    err = _error("mirror", "import", "--format", "dblp", dump, "--mirror", tmp_path / "m.sqlite")
    assert err.startswith(f"citeaudit: error: {dump.resolve()}: invalid XML at line 4, column ")


def test_crossref_bad_json_and_an_over_long_work(tmp_path: Path) -> None:
    folder = tmp_path / "crossref"
    folder.mkdir()
    path = folder / "0.json.gz"
    with gzip.open(path, "wt") as out:
        out.write('{"items": [{"DOI": "10.1/a", "title": ["A"]}, {"DOI": "10.1/b", "title": ["B"] "x": 1}]}')
    err = _error("mirror", "import", "--format", "crossref", folder, "--mirror", tmp_path / "m.sqlite")
    assert (
        err == f"citeaudit: error: {path.resolve()}: invalid JSON: Expecting ',' delimiter (character 79)\n"
    )
    with gzip.open(path, "wt") as out:
        out.write('{"items": [{"DOI": "10.1/a", "title": ["' + "x" * 5000 + '"]}]}')
    err = _error("mirror", "import", "--format", "crossref", path, "--mirror", tmp_path / "n.sqlite",
                 "--max-record-bytes", "1000")  # fmt: skip
    assert err == (
        f"citeaudit: error: {path.resolve()}: a record longer than 1000 bytes; "
        "the file is corrupt or not a Crossref data file\n"
    )


def test_json_lines_over_long_line_untitled_and_garbage_are_counted_skips(tmp_path: Path) -> None:
    lines = [
        json.dumps(
            {"id": "2101.00001", "title": "Kept paper", "versions": [{"created": "Mon, 4 Jan 2021 GMT"}]}
        ),
        json.dumps({"id": "2101.00002", "title": "x" * 5000}),  # a "1 GB line" at this limit
        json.dumps({"id": "2101.00003", "title": ""}),
        "{not json",
        "",
        json.dumps({"id": "2101.00004", "title": "Also kept"}),
    ]
    path = tmp_path / "arxiv.json"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    mirror = tmp_path / "m.sqlite"
    result = run_cli(
        "mirror", "import", "--format", "arxiv", path, "--mirror", mirror, "--max-record-bytes", "1000"
    )
    assert result.code == 0
    assert result.stdout == (
        f"{path.resolve()}: imported: 2 records, 3 skipped "
        "(a line longer than the limit or not valid JSON: 2; no title: 1)\n"
    )


def test_bad_paths_and_not_a_mirror(tmp_path: Path) -> None:
    missing = tmp_path / "nope.xml.gz"
    assert _error("mirror", "import", "--format", "dblp", missing, "--mirror", tmp_path / "m.sqlite") == (
        f"citeaudit: error: {missing}: no such file or folder\n"
    )
    assert _error("mirror", "info", "--mirror", tmp_path / "absent.sqlite") == (
        f"citeaudit: error: {tmp_path / 'absent.sqlite'}: no mirror there; create it with `citeaudit mirror import`\n"
    )
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t(x)").connection.commit()
    assert (
        _error("mirror", "info", "--mirror", other) == f"citeaudit: error: {other}: not a citeaudit mirror\n"
    )
    usage = run_cli("mirror", "import", "--format", "mods", missing, "--mirror", other)
    assert usage.code == 2
    assert "invalid choice: 'mods'" in usage.stderr


def test_info_shows_sources_counts_dates_and_completeness(tmp_path: Path) -> None:
    mirror = tmp_path / "m.sqlite"
    dblp = DATA / "dblp" / "sample.xml"
    assert run_cli("mirror", "import", "--format", "dblp", dblp, "--mirror", mirror).code == 0
    assert (
        run_cli("mirror", "import", "--format", "openalex", DATA / "openalex", "--mirror", mirror).code == 0
    )
    undated = tmp_path / "snapshot-2024-03-01.json"
    undated.write_text(json.dumps({"id": "2403.00001", "title": "Undated line"}) + "\n", "utf-8")
    assert run_cli("mirror", "import", "--format", "arxiv", undated, "--mirror", mirror).code == 0
    text = run_cli("mirror", "info", "--mirror", mirror).stdout.splitlines()
    assert text[0].startswith(f"mirror {mirror} (SQLite FTS5): 6 records, ")
    assert text[1:3] == [
        "dblp: 4 records",
        f"  {dblp.resolve()}: complete; 4 read, 4 imported; dump date 2020-03-27 (from the dump: its newest "
        "record date)",
    ]
    assert (
        f"  {undated.resolve()}: complete; 1 read, 1 imported; dump date 2024-03-01 (from the file name)"
        in text
    )
    assert text[-1] == "status: complete"
    view = json.loads(run_cli("mirror", "info", "--mirror", mirror, "--json").stdout)
    assert view["complete"] is True
    assert view["records"] == 6
    assert {f: v["records"] for f, v in view["formats"].items()} == {"dblp": 4, "openalex": 1, "arxiv": 1}
    assert len(view["formats"]["openalex"]["files"]) == 2


@pytest.mark.parametrize("fmt", ["dblp", "crossref"])
def test_empty_mirror_answers_could_not_check(tmp_path: Path, fmt: str) -> None:
    mirror = tmp_path / "m.sqlite"
    SqliteStore(mirror).close()
    (answer,) = open_mirror(mirror, [fmt]).search_many([WorkQuery("A title")]).values()
    assert answer.index == f"mirror:{fmt}"
    assert answer.code == "E_MIRROR_INCOMPLETE"
    assert answer.reason == f"{mirror} holds no {fmt} dump; run `citeaudit mirror import`"
