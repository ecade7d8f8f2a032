"""The mirror's look-ups and its import pipeline: the same mirror whatever reads the dump, exact
titles and titles with a word wrong found, the word counts and the index built once an import
ends (and a mirror whose import ended before that refused), and an older mirror file refused."""

from __future__ import annotations

import html
import random
import sqlite3
import unicodedata
from pathlib import Path

import pytest

from citeaudit.mirror import MirrorError, SqliteStore, import_dump, open_mirror
from citeaudit.mirror.ranking import fast_words
from citeaudit.mirror.rows import fts_words, record_of, row_of
from citeaudit.resolve.indexes.interface import WorkQuery, query_words
from tests.conftest import run_cli
from tests.mirror.dumps import works, write_crossref, write_dblp


def _dump_of(mirror: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(f"file:{mirror}?mode=ro", uri=True) as conn:
        records = conn.execute("SELECT id, format, key, th, norm, names, year, data FROM records ORDER BY id")
        terms = conn.execute("SELECT term, df FROM terms ORDER BY term")
        sources = conn.execute(
            "SELECT format, name, complete, units, imported, skipped, dump_date FROM sources"
        )
        return [*records.fetchall(), *terms.fetchall(), *sources.fetchall()]


def _import(mirror: Path, fmt: str, path: Path, readers: int | None = None, batch: int = 20_000) -> None:
    store = SqliteStore(mirror)
    try:
        import_dump(store, fmt, [path], readers=readers, batch=batch)
    finally:
        store.close()


def test_fast_words_are_query_words() -> None:
    rng = random.Random(26)
    alphabet = "aZé ü-_.ﬁÅ1²ℌ'İß\u0301\u0308ⅷ日本"
    texts = ["Über die Müller-Lyer Täuschung: eine naïve Studie", "ℌilbert spaces", "Ⅻ ½ ﬀ", "São Paulo"]
    for _ in range(3000):
        texts.append(
            "".join(
                chr(rng.randrange(0x20, 0x3000)) if rng.random() < 0.2 else rng.choice(alphabet)
                for _ in range(rng.randint(0, 16))
            )
        )
    for text in texts:
        assert fast_words(text) == query_words(text), repr(text)
        assert fast_words(unicodedata.normalize("NFD", text)) == query_words(
            unicodedata.normalize("NFD", text)
        )


@pytest.mark.parametrize("fmt", ["dblp", "crossref"])
def test_the_readers_make_the_same_mirror(tmp_path: Path, fmt: str) -> None:
    if fmt == "dblp":
        source = write_dblp(tmp_path / "dump", 3_000, untitled=3)
    else:
        source = tmp_path / "dump"
        write_crossref(source, 3_000, per_file=700)
    mirrors = []
    for readers, batch in ((0, 20_000), (1, 500), (2, 333), (3, 1_000)):
        mirror = tmp_path / f"m{readers}.sqlite"
        _import(mirror, fmt, source, readers=readers, batch=batch)
        mirrors.append(_dump_of(mirror))
    assert all(m == mirrors[0] for m in mirrors[1:])


def test_rows_and_records_agree(tmp_path: Path) -> None:
    from citeaudit.mirror.load import importer

    dump = write_dblp(tmp_path / "dump", 300)
    module = importer("dblp")
    (file,) = module.files(str(dump))
    for unit in module.rows(file, 0, 1 << 20):
        if isinstance(unit, tuple):
            assert row_of(record_of("dblp", unit)) == unit  # the fast path is the generic one


def test_exact_and_near_miss_titles_at_scale(tmp_path: Path) -> None:
    dump = write_dblp(tmp_path / "dump", 20_000, www_every=0)
    mirror = tmp_path / "m.sqlite"
    _import(mirror, "dblp", dump)
    index = open_mirror(mirror)
    vocabulary = sorted({word for work in works(20_000) for word in work.words})
    rng = random.Random(5)
    queries = []
    for w in works(20_000):
        if w.i % 97:
            continue
        words = list(w.words)
        author = html.unescape(w.authors[0][1])
        queries.append((w, WorkQuery(w.title)))  # exact
        unknown = list(words)
        unknown[len(words) // 2] = "qqwordqq"
        queries.append((w, WorkQuery(" ".join(unknown), author, w.year)))  # a word the mirror lacks
        known = list(words)
        known[rng.randrange(len(words))] = rng.choice(vocabulary)
        queries.append((w, WorkQuery(" ".join(known), author, w.year)))  # another real word
        if len(set(words)) >= 5:
            queries.append((w, WorkQuery(" ".join(known[:-1]))))  # and one left out, nothing else
    answers = index.search_many([q for _, q in queries])
    missed = [q for w, q in queries if f"conf/gen/W{w.i}" not in [c.key for c in answers[q.key].candidates]]
    assert missed == []
    assert index.search_many([q for _, q in queries]) == answers  # the same answers again


def test_exact_title_of_many_records_is_answered_by_author_and_year(tmp_path: Path) -> None:
    folder = tmp_path / "crossref"
    folder.mkdir()
    import gzip
    import json

    items = [
        {"DOI": f"10.1/ed.{i}", "title": ["Editorial"], "author": [{"family": f"Name{i % 250}"}],
         "issued": {"date-parts": [[1990 + i % 30]]}}
        for i in range(3_000)
    ]  # fmt: skip
    with gzip.open(folder / "0.json.gz", "wt") as out:
        json.dump({"items": items}, out)
    mirror = tmp_path / "m.sqlite"
    _import(mirror, "crossref", folder)
    index = open_mirror(mirror)
    q = WorkQuery("Editorial", "Name17", 1997)
    (answer,) = index.search_many([q]).values()
    # Name17 in 1997: i % 250 == 17 and i % 30 == 7 (i = 517, 1267, 2017, 2767), first (ties by key);
    # not among the first 100 records of the title that the exact look-up reads.
    keys = ["10.1/ed.1267", "10.1/ed.2017", "10.1/ed.2767", "10.1/ed.517"]
    assert [c.key for c in answer.candidates[:4]] == keys


def test_an_import_ended_before_its_index_was_built_is_refused_then_rebuilt(tmp_path: Path) -> None:
    dump = write_dblp(tmp_path / "dump", 500)
    mirror = tmp_path / "m.sqlite"
    store = SqliteStore(mirror)
    store.build = lambda: None  # type: ignore[method-assign]  # as if killed right before it
    import_dump(store, "dblp", [dump])
    store.close()
    (answer,) = open_mirror(mirror).search_many([WorkQuery("anything")]).values()
    assert answer.code == "E_MIRROR_INCOMPLETE"
    assert answer.reason == (
        f"{mirror}: an import ended before the index was built; rerun `citeaudit mirror import`"
    )
    info = run_cli("mirror", "info", "--mirror", mirror)
    assert info.stdout.splitlines()[-1] == (
        "status: incomplete: the import ended before the index was built; rerun `citeaudit mirror import`"
    )
    again = run_cli("mirror", "import", "--format", "dblp", dump, "--mirror", mirror)
    assert again.stdout == f"{dump.resolve()}: already imported: 0 records\n"
    w = next(works(1))
    (answer,) = open_mirror(mirror).search_many([WorkQuery(w.title)]).values()
    assert answer.answered
    assert answer.candidates[0].key == "conf/gen/W0"


def test_word_counts_follow_updates(tmp_path: Path) -> None:
    mirror = tmp_path / "m.sqlite"
    folder = tmp_path / "crossref"
    write_crossref(folder, 20)
    _import(mirror, "crossref", folder)
    # The same record again with another title: the old words leave the index and the counts.
    with sqlite3.connect(mirror) as conn:
        (old_norm,) = conn.execute("SELECT norm FROM records WHERE id = 1").fetchone()
        before = dict(conn.execute("SELECT term, df FROM terms"))
    import gzip
    import json

    (path,) = sorted(folder.glob("*.json.gz"))
    with gzip.open(path) as raw:
        data = json.loads(raw.read())
    data["items"][0]["title"] = ["Quasicrystal lattices revisited"]
    with gzip.open(path, "wt", encoding="utf-8") as out:
        json.dump(data, out)
    _import(mirror, "crossref", folder)
    with sqlite3.connect(mirror) as conn:
        df = dict(conn.execute("SELECT term, df FROM terms"))
        fts = conn.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", ('"quasicrystal"',)).fetchone()
        (norm, names, year) = conn.execute("SELECT norm, names, year FROM records WHERE id = 1").fetchone()
    assert df["quasicrystal"] == 1
    assert fts == (1,)
    assert fts_words(norm, names, year).startswith("quasicrystal lattices revisited _")
    for word in set(old_norm.split()):
        assert df.get(word, 0) == before[word] - 1


def test_an_older_mirror_file_is_refused_in_one_line(tmp_path: Path) -> None:
    mirror = tmp_path / "old.sqlite"
    with sqlite3.connect(mirror) as conn:
        conn.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID")
        conn.execute("INSERT INTO meta VALUES ('application', 'citeaudit-mirror'), ('schema', '1')")
    expected = (
        f"{mirror}: a mirror of schema 1 (an older citeaudit's), this version reads schema 2; "
        "import the dumps again into a new mirror file"
    )
    with pytest.raises(MirrorError) as raised:
        open_mirror(mirror)
    assert str(raised.value) == expected
    result = run_cli("mirror", "info", "--mirror", mirror)
    assert (result.code, result.stderr) == (2, f"citeaudit: error: {expected}\n")
    result = run_cli("mirror", "import", "--format", "dblp", tmp_path, "--mirror", mirror)
    assert result.code == 2


@pytest.mark.parametrize("fmt", ["dblp", "crossref"])
def test_a_reader_error_is_the_same_error_with_the_same_commits(tmp_path: Path, fmt: str) -> None:
    if fmt == "dblp":
        broken = source = write_dblp(tmp_path / "dump", 3_000)
    else:
        source = tmp_path / "dump"
        broken = write_crossref(source, 3_000, per_file=500)[3]  # the fourth of six files
    raw = broken.read_bytes()
    broken.write_bytes(raw[: len(raw) * 2 // 3])
    seen = []
    for readers in (0, 2, 3):
        mirror = tmp_path / f"m{readers}.sqlite"
        result = run_cli(
            "mirror", "import", "--format", fmt, source, "--mirror", mirror, "--batch", "100",
            "--readers", str(readers),
        )  # fmt: skip
        assert result.code == 2
        seen.append((result.stderr, _dump_of(mirror)))
    assert seen[0] == seen[1] == seen[2]
    assert "the gzip stream is truncated" in seen[0][0]


def test_a_key_twice_in_a_dump_keeps_the_last_whether_first_import_or_update(tmp_path: Path) -> None:
    import gzip
    import json

    folder = tmp_path / "crossref"
    folder.mkdir()
    items = [{"DOI": f"10.1/x.{i}", "title": [f"Work number {i} on lattices"]} for i in range(30)]
    with gzip.open(folder / "0.json.gz", "wt") as out:
        json.dump({"items": items}, out)
    with gzip.open(folder / "1.json.gz", "wt") as out:
        json.dump({"items": [{"DOI": "10.1/X.7", "title": ["Quasicrystal growth, revised"]}]}, out)
    fresh = tmp_path / "fresh.sqlite"
    _import(fresh, "crossref", folder)  # a first import: keys indexed at its end
    updated = tmp_path / "updated.sqlite"
    other = tmp_path / "other"
    other.mkdir()
    with gzip.open(other / "0.json.gz", "wt") as out:
        json.dump({"items": [{"DOI": "10.1/other", "title": ["Something else"]}]}, out)
    _import(updated, "crossref", other)
    _import(updated, "crossref", folder)  # into a mirror with records: updated in place
    for mirror, total in ((fresh, 30), (updated, 31)):
        with sqlite3.connect(mirror) as conn:
            assert conn.execute("SELECT count(*) FROM records").fetchone() == (total,)
            (data,) = conn.execute("SELECT data FROM records WHERE key = '10.1/x.7'").fetchone()
            df = dict(conn.execute("SELECT term, df FROM terms"))
            names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert json.loads(data)["titles"] == ["Quasicrystal growth, revised"]
        assert df["quasicrystal"] == 1
        assert df["lattices"] == 29
        assert {"records_key", "records_title"} <= names
        (answer,) = open_mirror(mirror).search_many([WorkQuery("Work number 7 on lattices")]).values()
        assert "10.1/x.7" not in [c.key for c in answer.candidates[:1]]
