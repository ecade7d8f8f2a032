"""DBLP's own venue names: every name a stream's records use and the titles of its proceedings,
kept by the import and given to the records a look-up answers with, so that every correct form of
a venue agrees and a name of another venue still does not.

The records are DBLP's (tests/dblp_dump.py: ``SAMPLE_RECORDS``, ``STREAM_RECORDS``; the HPC Asia
proceedings as in tests/mirror/data/dblp/sample.xml, see the README there)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from citeaudit.checks.bibliographic import venue_agrees
from citeaudit.mirror import SqliteStore, open_mirror
from citeaudit.mirror.streams import STREAM_NAMES, is_track, proceedings_names, stream, stream_names
from citeaudit.resolve.indexes.interface import WorkQuery
from citeaudit.resolve.interface import Record
from tests.conftest import ROOT, run_cli
from tests.dblp_dump import SAMPLE_RECORDS, STREAM_RECORDS, dblp_record, import_killed_midway, write_dblp

# conf/hpcasia/2019 as DBLP lists it (tests/mirror/data/dblp/sample.xml)
_HPC_ASIA = ("proceedings", "conf/hpcasia/2019", {
    "title": "Proceedings of the International Conference on High Performance Computing in Asia-Pacific Region, "
             "HPC Asia 2019, Guangzhou, China, January 14-16, 2019", "year": "2019", "booktitle": "HPC Asia"})  # fmt: skip
_NIPS_2017 = STREAM_RECORDS[0][2]["title"]


def _import(dump: Path, mirror: Path) -> None:
    result = run_cli("mirror", "import", "--format", "dblp", dump, "--mirror", mirror)
    assert result.code == 0, result.stderr


def _venues(mirror: Path) -> list[tuple[str, int, str, int]]:
    with sqlite3.connect(f"file:{mirror}?mode=ro", uri=True) as conn:
        return conn.execute(
            "SELECT stream, year, name, count FROM venues ORDER BY stream, year, name"
        ).fetchall()


@pytest.fixture(scope="module")
def mirror(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("streams")
    records = [dblp_record(*r) for r in (*SAMPLE_RECORDS, *STREAM_RECORDS, _HPC_ASIA)]
    target = work / "m.sqlite"
    _import(write_dblp(work / "dblp.xml.gz", records), target)
    return target


def _record(mirror: Path, title: str, author: str | None, year: int) -> tuple[str, Record]:
    (first, *_) = open_mirror(mirror).search(WorkQuery(title, first_author=author, year=year))
    return first.key, first.record


def test_a_stream_is_the_conference_or_journal_of_a_key() -> None:
    assert stream("conf/nips/VaswaniSPUJGKP17") == "conf/nips"
    assert stream("journals/jmlr/SrivastavaHKSS14") == "journals/jmlr"
    assert stream("conf/nips/2017") == "conf/nips"
    assert [stream(k) for k in ("books/daglib/0040158", "homepages/v/Vaswani", "conf/nips", "")] == [None] * 4


def test_the_venue_names_in_real_proceedings_titles() -> None:
    assert proceedings_names(_NIPS_2017) == [
        "Advances in Neural Information Processing Systems: Annual Conference on Neural Information Processing Systems",
        "Advances in Neural Information Processing Systems",
    ]
    assert proceedings_names(_HPC_ASIA[2]["title"]) == [
        "Proceedings of the International Conference on High Performance Computing in Asia-Pacific Region",
        "International Conference on High Performance Computing in Asia-Pacific Region",
    ]
    assert proceedings_names(
        "The Tenth International Conference on Learning Representations, ICLR 2022, Virtual Event, April 25-29, 2022"
    ) == ["The International Conference on Learning Representations"]
    # The first part names no meeting: "Machine Learning" is a journal's name, no name of ICML's stream.
    assert (
        proceedings_names(
            "Machine Learning, Proceedings of the Seventh International Conference on Machine Learning, Austin, "
            "Texas, USA, June 21-23, 1990"
        )
        == []
    )
    assert (
        proceedings_names(
            "Proceedings of the Neural Information Processing Systems Track on Datasets and Benchmarks 1, NeurIPS "
            "Datasets and Benchmarks 2021, December 2021, virtual"
        )
        == []
    )


def test_a_workshop_findings_or_companion_is_no_name_of_the_conference() -> None:
    for name in ("CVPR Workshops", "ACL (Findings)", "ICLR (Workshop)", "WWW (Companion Volume)", "ACL (demo)",
                 "ACL (student)", "5th International Conference on Learning Representations, ICLR 2017, Toulon, "
                 "France, April 24-26, 2017, Workshop Track Proceedings"):  # fmt: skip
        assert is_track(name), name
    for name in ("ICLR (Poster)", "NAACL-HLT (1)", "NeurIPS Datasets and Benchmarks", "Workshopping"):
        assert not is_track(name), name


def test_a_stream_keeps_its_most_used_names_and_a_journal_only_its_journals() -> None:
    used: list[tuple[str, int, str | None, str | None, int | None, int]] = [
        ("conf/x", 0, f"X{i:02d}", None, None, 100 - i) for i in range(STREAM_NAMES + 5)
    ]
    used += [
        ("conf/x", 0, "X03", None, None, 1),  # the same name again: counted together
        ("conf/x", 0, None, None, None, 9),  # no venue
        ("conf/x", 0, "X Workshops", None, None, 500),  # a workshop's papers: no name of the conference
        ("journals/corr", 0, "CoRR", None, None, 7),
        # A workshop's proceedings that DBLP keeps in CoRR's stream: no name of arXiv.
        ("journals/corr", 1, "PLACES", "Proceedings of the Ninth workshop on …", 2016, 1),
    ]
    names = stream_names(reversed(used))
    assert names == stream_names(used)
    kept = [(s, y, n, c) for s, y, n, c in names if s == "conf/x"]
    assert len(kept) == STREAM_NAMES
    assert kept[0] == ("conf/x", 0, "X00", 100)
    assert ("conf/x", 0, "X03", 98) in kept
    assert ("conf/x", 0, f"X{STREAM_NAMES:02d}", 100 - STREAM_NAMES) not in kept  # the least used left out
    assert [n for n in names if n[0] == "journals/corr"] == [("journals/corr", 0, "CoRR", 7)]


def test_the_import_keeps_every_name_of_a_stream_and_its_proceedings_titles(mirror: Path) -> None:
    nips = [(y, n, c) for s, y, n, c in _venues(mirror) if s == "conf/nips"]
    assert nips == [
        (0, "Advances in Neural Information Processing Systems", 1),
        (0, "Advances in Neural Information Processing Systems: Annual Conference on Neural Information "
            "Processing Systems", 1),
        (0, "NIPS", 2),
        (0, "NeurIPS", 1),
        (0, "NeurIPS Datasets and Benchmarks", 1),
        (2017, _NIPS_2017, 1),
    ]  # fmt: skip
    assert [(s, y, n) for s, y, n, _ in _venues(mirror) if s == "conf/hpcasia"] == [
        ("conf/hpcasia", 0, "HPC Asia"),
        ("conf/hpcasia", 0, "International Conference on High Performance Computing in Asia-Pacific Region"),
        ("conf/hpcasia", 0, "Proceedings of the International Conference on High Performance Computing in "
                            "Asia-Pacific Region"),
        ("conf/hpcasia", 2019, _HPC_ASIA[2]["title"]),
    ]  # fmt: skip
    assert ("journals/neco", 0, "Neural Comput.", 1) in _venues(mirror)


def test_a_record_holds_its_streams_other_names_after_its_own(mirror: Path) -> None:
    key, record = _record(mirror, "Attention is All you Need", "Vaswani", 2017)
    assert key == "conf/nips/VaswaniSPUJGKP17"
    assert record.container == ("NIPS",)
    assert record.short_container == (
        "Advances in Neural Information Processing Systems",
        _NIPS_2017,  # its year's proceedings only
        "Advances in Neural Information Processing Systems: Annual Conference on Neural Information Processing "
        "Systems",
        "NeurIPS",
        "NeurIPS Datasets and Benchmarks",
    )
    _, brown = _record(mirror, "Language Models are Few-Shot Learners", "Brown", 2020)
    assert _NIPS_2017 not in brown.short_container
    # ICLR 2017: the conference track's proceedings, not the workshop track's; a paper of the
    # workshop track keeps its own venue only.
    iclr = [(y, n) for s, y, n, _ in _venues(mirror) if s == "conf/iclr"]
    assert iclr == [
        (0, "ICLR (Poster)"),
        (0, "International Conference on Learning Representations"),
        (2017, "5th International Conference on Learning Representations, ICLR 2017, Toulon, France, April "
               "24-26, 2017, Conference Track Proceedings"),
    ]  # fmt: skip
    _, workshop = _record(mirror, "Adversarial Attacks on Neural Network Policies", "Huang", 2017)
    assert workshop.container == ("ICLR (Workshop)",)
    assert workshop.short_container == ()
    _, book = _record(mirror, "Deep Learning", "Goodfellow", 2016)
    assert book.short_container == ()  # no stream: a book


def test_every_correct_form_of_the_venue_agrees_and_another_venue_does_not(mirror: Path) -> None:
    _, vaswani = _record(mirror, "Attention is All you Need", "Vaswani", 2017)
    for cited in ("NIPS", "NeurIPS 2017", "Advances in Neural Information Processing Systems", _NIPS_2017):
        assert venue_agrees(cited, vaswani), cited
    for cited in ("ICML", "HPC Asia", "Proceedings of the International Conference on Machine Learning"):
        assert not venue_agrees(cited, vaswani), cited
    # A venue outside the alias table, by the name its proceedings give it.
    _, hpc = _record(mirror, _HPC_ASIA[2]["title"], None, 2019)
    assert venue_agrees("International Conference on High Performance Computing in Asia-Pacific Region", hpc)
    assert venue_agrees(_HPC_ASIA[2]["title"], hpc)
    assert not venue_agrees("NeurIPS", hpc)


_CITED = [
    {"title": "Attention is All you Need", "year": 2017, "first_author": "Vaswani", "container": "NeurIPS 2017"},
    {"title": "Attention is All you Need", "year": 2017, "first_author": "Vaswani", "container": "ICML"},
    {"title": "Attention is All you Need", "year": 2017, "first_author": "Vaswani", "container": _NIPS_2017},
    {"title": "Wasserstein Generative Adversarial Networks", "year": 2017, "first_author": "Arjovsky",
     "container": "NeurIPS"},
    {"title": "Measuring Mathematical Problem Solving With the MATH Dataset", "year": 2021,
     "first_author": "Hendrycks", "container": "NeurIPS 2021"},
]  # fmt: skip


def _claims() -> Path:
    claims = [{"id": f"c{i}", "text": "A claim.", "citations": [c]} for i, c in enumerate(_CITED, 1)]
    path = Path("claims.json")
    path.write_text(json.dumps({"claims": claims}), "utf-8")
    return path


@pytest.mark.timeout(120)
def test_the_report_agrees_with_every_form_keeps_the_mismatch_and_is_the_same_bytes(
    here: Path, mirror: Path
) -> None:
    claims = _claims().resolve()
    outputs = []
    for i, seed in enumerate(("0", "4242", "random")):
        cwd = here / f"run{i}"
        cwd.mkdir()
        env = {**{k: v for k, v in os.environ.items() if not k.startswith("CITEAUDIT_")},
               "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT / "src")}  # fmt: skip
        args = [sys.executable, "-m", "citeaudit", "check", str(claims), "--offline", "--judge", "none",
                "--mirror", str(mirror), "--indexes", "", "--out", "r.json"]  # fmt: skip
        done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 1, done.stderr
        outputs.append((cwd / "r.json").read_bytes())
    assert outputs[0] == outputs[1] == outputs[2]
    report: dict[str, Any] = json.loads(outputs[0])
    venue = {
        r["claim"]: [f["code"] for f in r["findings"] if "VENUE" in f["code"]] for r in report["results"]
    }
    # NeurIPS for DBLP's NIPS, the 2017 proceedings' full title, the Datasets and Benchmarks track of
    # the stream agree; ICML for a NeurIPS paper and NeurIPS for an ICML paper stay two known venues.
    assert venue == {"c1": [], "c2": ["E_VENUE_MISMATCH"], "c3": [], "c4": ["E_VENUE_MISMATCH"], "c5": []}


def _stream_dump(folder: Path, papers: int, venue: str) -> Path:
    """A dump of ``papers`` NIPS papers (a ``<www>`` between them, as DBLP has) and the real ones."""
    folder.mkdir(parents=True, exist_ok=True)
    records = [dblp_record(*r) for r in (*SAMPLE_RECORDS, *STREAM_RECORDS)]
    for i in range(papers):
        records.append(dblp_record("inproceedings", f"conf/nips/Gen{i}", {
            "author": f"Ada Lovelace {i:04d}", "title": f"A generated paper number {i}", "year": "2019",
            "booktitle": venue}))  # fmt: skip
        records.append(f'<www mdate="2020-01-01" key="homepages/gen/{i}">\n<title>Home Page</title>\n</www>')
    return write_dblp(folder / "dblp.xml.gz", records)


@pytest.mark.timeout(240)
def test_the_names_are_right_after_a_kill_9_and_a_rerun_and_after_a_newer_dump(tmp_path: Path) -> None:
    dump = _stream_dump(tmp_path / "dump", 20_000, "NeurIPS")
    whole = tmp_path / "whole.sqlite"
    _import(dump, whole)
    expected = _venues(whole)
    assert ("conf/nips", 0, "NeurIPS", 20_001) in expected
    mirror = tmp_path / "m.sqlite"
    command, env = import_killed_midway(dump, mirror)
    rerun = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    assert ": resumed: " in rerun.stdout
    assert _venues(mirror) == expected
    # A newer dump names the generated papers otherwise: the old name is no longer counted for them.
    newer = _stream_dump(tmp_path / "dump", 20_000, "NIPS")
    os.utime(newer, (1, 1))
    _import(newer, mirror)
    nips = {n: c for s, y, n, c in _venues(mirror) if s == "conf/nips" and y == 0}
    assert nips["NIPS"] == 20_002
    assert nips["NeurIPS"] == 1


def test_a_mirror_written_before_the_names_were_kept_is_given_them_by_its_next_import(tmp_path: Path) -> None:
    dump = write_dblp(tmp_path / "dblp.xml.gz", [dblp_record(*r) for r in (*SAMPLE_RECORDS, *STREAM_RECORDS)])
    mirror = tmp_path / "m.sqlite"
    _import(dump, mirror)
    with sqlite3.connect(mirror) as conn:  # as the earlier version wrote it
        conn.execute("DROP TABLE venues")
        conn.execute("DELETE FROM meta WHERE key = 'venues'")
    _, record = _record(mirror, "Attention is All you Need", "Vaswani", 2017)
    assert record.short_container == ()  # read as it is, without names
    again = run_cli("mirror", "import", "--format", "dblp", dump, "--mirror", mirror)
    assert again.code == 0, again.stderr
    assert again.stdout == f"{dump.resolve()}: already imported: 0 records\n"
    assert ("conf/nips", 0, "NeurIPS", 1) in _venues(mirror)
    _, record = _record(mirror, "Attention is All you Need", "Vaswani", 2017)
    assert "NeurIPS" in record.short_container
    store = SqliteStore(mirror)
    assert store.counts() == {"dblp": len(SAMPLE_RECORDS) + len(STREAM_RECORDS)}
    store.close()
