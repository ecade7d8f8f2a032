"""References without an identifier, end to end from the command line: a DBLP mirror imported
from a dump in DBLP's form, BibTeX and claims as people and models write them, checked offline."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, run_cli
from tests.dblp_dump import sample_mirror

_BIB = r"""
@inproceedings{vaswani2017,
  title = {Attention is {All} you Need},
  author = {Vaswani, Ashish and Shazeer, Noam and Parmar, Niki and Uszkoreit, Jakob and Jones, Llion
            and Gomez, Aidan N. and Kaiser, {\L}ukasz and Polosukhin, Illia},
  booktitle = {Advances in Neural Information Processing Systems},
  pages = {5998--6008},
  year = {2017}
}
@inproceedings{devlin2019,
  title = {{BERT}: Pre-training of Deep Bidirectional Transformers for Language Understanding},
  author = {Devlin, Jacob and Chang, Ming-Wei and Lee, Kenton and Toutanova, Kristina},
  booktitle = {NAACL-HLT},
  year = {2019}
}
@article{hochreiter1997,
  title = {Long Short-Term Memory},
  author = {Hochreiter, Sepp and Schmidhuber, J{\"u}rgen},
  journal = {Neural Computation},
  volume = {9},
  pages = {1735--1780},
  year = {1997}
}
@article{vanderberg2021,
  title = {Peer review of citation audits},
  author = {van der Berg, Jan and Smith, Jr., John},
  journal = {CoRR},
  year = {2021}
}
"""


@pytest.fixture(scope="module")
def mirror(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return sample_mirror(tmp_path_factory.mktemp("mirror"))


def _check(*args: str | Path) -> tuple[int, dict[str, Any]]:
    result = run_cli("check", *args, "--offline", "--judge", "none", "--out", "report.json")
    assert result.code in (0, 1, 3), result.stderr
    return result.code, json.loads(Path("report.json").read_text("utf-8"))


def _codes(report: dict[str, Any]) -> dict[str, list[str]]:
    return {r["claim"]: [f["code"] for f in r["findings"]] for r in report["results"]}


def _claims(*citations: dict[str, Any]) -> Path:
    claims = [{"id": f"c{i}", "text": "A claim.", "citations": [c]} for i, c in enumerate(citations, 1)]
    path = Path("claims.json")
    path.write_text(json.dumps({"claims": claims}), "utf-8")
    return path


def test_bibtex_without_identifiers_as_people_write_it_passes(here: Path, mirror: Path) -> None:
    Path("refs.bib").write_text(_BIB, "utf-8")
    code, report = _check("refs.bib", "--mirror", mirror, "--indexes", "")
    assert code == 0, [r["errors"] for r in report["results"]]
    for row in report["results"]:
        assert row["warnings"] == []  # "NAACL-HLT" is DBLP's "NAACL-HLT (1)", "Neural Comput." abbreviated
        assert row["source"]["kind"] == "work"
        assert "I_MATCHED_BY_SEARCH" in [f["code"] for f in row["findings"]]
        assert row["record"]["matched"]["by"] == "search"
        assert row["doi"] is None  # no identifier was cited: the match is not called a resolution
    by_claim = {r["claim"]: r for r in report["results"]}
    matched = next(f for f in by_claim["hochreiter1997"]["findings"] if f["code"] == "I_MATCHED_BY_SEARCH")
    assert matched["message"] == (
        "matched by search in mirror:dblp: journals/neco/HochreiterS97 (title similarity 1.000)"
    )
    assert matched["suggestion"] == {"doi": "10.1162/neco.1997.9.8.1735"}  # the fix: a proved citation
    assert by_claim["vaswani2017"]["record"]["matched"]["key"] == "conf/nips/VaswaniSPUJGKP17"


def test_a_title_only_citation_as_a_model_writes_it_is_audited_not_refused(here: Path, mirror: Path) -> None:
    path = _claims({"title": "Attention Is All You Need", "year": 2017, "first_author": "Vaswani"})
    code, report = _check(path, "--mirror", mirror, "--indexes", "")
    assert code == 0
    assert _codes(report) == {"c1": ["I_MATCHED_BY_SEARCH", "I_QUOTE_ABSENT"]}


def test_wrong_metadata_of_a_real_work_is_wrong_and_a_fabricated_one_not_found(
    here: Path, mirror: Path
) -> None:
    path = _claims(
        {"title": "Long short-term memory", "year": 2001, "first_author": "Hochreiter"},
        {"title": "Long short-term memory", "year": 1997, "authors": ["Hochreiter, S.", "Bengio, Y."]},
        {"title": "Structured fast fourier transform attention for vision transformers", "year": 2022,
         "first_author": "Lee"},
        {"title": "Long Short-Term Memory", "year": 1997, "first_author": "Hochreiter", "container": "Nature"},
    )  # fmt: skip
    code, report = _check(path, "--mirror", mirror, "--indexes", "")
    assert code == 1
    codes = _codes(report)
    assert "E_YEAR_MISMATCH" in codes["c1"]
    assert "E_AUTHOR_NOT_ON_WORK" in codes["c2"]
    assert codes["c3"] == ["E_WORK_NOT_FOUND"]
    assert "W_VENUE_MISMATCH" in codes["c4"]  # a venue differs as a warning, as for a DOI citation
    found = next(r for r in report["results"] if r["claim"] == "c3")["findings"][0]
    assert found["message"] == "no record in mirror has this title with this author or year"
    assert found["outcome"] == "not_registered"


def test_two_works_with_one_title_are_ambiguous_until_the_author_says_which(here: Path, mirror: Path) -> None:
    path = _claims({"title": "Deep Learning"}, {"title": "Deep Learning", "first_author": "LeCun"})
    code, report = _check(path, "--mirror", mirror, "--indexes", "")
    assert code == 3  # nothing was found wrong, but one citation was not checked
    codes = _codes(report)
    assert codes["c1"] == ["E_WORK_AMBIGUOUS"]
    # Not a pass: the citation was checked against no work.
    assert report["results"][0]["status"] == "could_not_check"
    assert report["summary"]["results_by_status"] == {"could_not_check": 1, "fail": 0, "pass": 1}
    assert (report["status"], report["decision"]) == ("partial", "manual_review")
    ambiguous = report["results"][0]["findings"][0]
    assert ambiguous["outcome"] == "could_not_check"
    assert ambiguous["message"] == (
        "2 different works in mirror match the reference equally well, so it was not checked against "
        "any of them: name the one meant by its DOI or arXiv id"
    )
    assert [c["key"] for c in ambiguous["suggestion"]["candidates"]] == [
        "journals/nature/LeCunBH15",
        "books/daglib/0040158",
    ]
    assert "I_MATCHED_BY_SEARCH" in codes["c2"]


def test_the_settings_name_the_mirror_and_indexes_searched_in_order(here: Path, mirror: Path) -> None:
    path = _claims({"title": "Deep Learning", "first_author": "LeCun"})
    _, report = _check(path, "--mirror", mirror, "--indexes", "dblp,crossref")
    assert report["settings"]["search"] == {
        "indexes": [
            {
                "dumps": [
                    {
                        "dump_date": "2026-11-01",
                        "file": "dblp-2026-11-01.xml.gz",
                        "format": "dblp",
                        "records": 56,
                    }
                ],
                "file": "refs.mirror",
                "index": "mirror",
            },
            {"index": "dblp"},
            {"index": "crossref"},
        ]
    }
    # An audit that searched for nothing names no index: its report is as it was.
    Path("doi.json").write_text(
        json.dumps({"claims": [{"id": "c", "text": "A claim.", "citations": [{"doi": "10.1000/x"}]}]}),
        "utf-8",
    )
    _, report = _check("doi.json", "--mirror", mirror)
    assert "search" not in report["settings"]
    assert "offline" not in report["settings"]


def test_without_a_mirror_offline_it_could_not_check(here: Path) -> None:
    path = _claims({"title": "Attention Is All You Need", "year": 2017, "first_author": "Vaswani"})
    code, report = _check(path)
    assert code == 3
    finding = report["results"][0]["findings"][0]
    assert finding["code"] == "E_NOT_CACHED"
    assert finding["outcome"] == "could_not_check"
    # The indexes that miss alike are named once, before the one reason they share.
    assert finding["message"] == (
        "crossref, dblp, arxiv, openalex: offline, and the cache holds no pinned answer for this reference: "
        "run `citeaudit fetch` on this input online (same --cache) to pin the answer"
    )
    code, report = _check(path, "--indexes", "")
    assert code == 3
    assert _codes(report) == {"c1": ["E_NO_INDEX"]}


def test_a_quote_is_checked_in_the_snapshot_of_the_matched_doi(here: Path, mirror: Path) -> None:
    from citeaudit.util.slugs import hashed_name

    sources = Path("sources")
    sources.mkdir()
    text = "We introduce the Long Short-Term Memory, a novel recurrent network architecture with gates."
    (sources / hashed_name("10.1162/neco.1997.9.8.1735", ".txt")).write_text(text, "utf-8")
    quote = "a novel recurrent network architecture with gates"
    path = _claims(
        {"title": "Long Short-Term Memory", "year": 1997, "first_author": "Hochreiter", "quote": quote},
        {"title": "Attention is all you need", "year": 2017, "first_author": "Vaswani", "quote": quote},
    )
    code, report = _check(path, "--mirror", mirror, "--indexes", "", "--sources", sources)
    assert code == 3  # the DBLP record of the second has no DOI, so no snapshot
    codes = _codes(report)
    assert codes["c1"] == ["I_MATCHED_BY_SEARCH"]
    assert "E_NO_SNAPSHOT" in codes["c2"]
    (missing,) = [f for f in report["results"][1]["findings"] if f["code"] == "E_NO_SNAPSHOT"]
    assert missing["message"] == (
        "no text snapshot of the cited work to search the quote in: its record has no DOI, and snapshots "
        "are kept by DOI"
    )


@pytest.mark.timeout(120)
def test_reports_are_byte_identical_across_hash_seeds_jobs_locale_and_directories(
    here: Path, mirror: Path
) -> None:
    Path("refs.bib").write_text(
        _BIB + "@misc{x, title={Deep Learning}}\n@misc{y, title={No such work at all}}\n"
    )
    outputs = []
    for i, (seed, jobs, lang) in enumerate(
        [("0", "1", "C"), ("123", "2", "de_DE.UTF-8"), ("random", "2", "C")]
    ):
        cwd = here / f"run{i}"
        cwd.mkdir()
        env = {**{k: v for k, v in os.environ.items() if not k.startswith("CITEAUDIT_")},
               "PYTHONHASHSEED": seed, "LC_ALL": lang, "PYTHONPATH": str(ROOT / "src")}  # fmt: skip
        args = [sys.executable, "-m", "citeaudit", "check", str(here / "refs.bib"), "--offline", "--judge", "none",
                "--mirror", str(mirror), "--indexes", "", "--jobs", jobs, "--out", "r.json"]  # fmt: skip
        done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 1, done.stderr
        outputs.append((cwd / "r.json").read_bytes())
    assert outputs[0] == outputs[1] == outputs[2]


@pytest.fixture
def dblp_online(here: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    from tests.resolve.indexes.replay import IndexServer

    server = IndexServer().start()
    monkeypatch.setenv("CITEAUDIT_DBLP_URL", f"{server.url}/dblp")
    yield server
    server.stop()


@pytest.mark.timeout(60)
def test_fetch_pins_the_search_answers_and_offline_gives_the_same_bytes(
    here: Path, dblp_online: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Online, DBLP's real answer (served on 127.0.0.1) is asked once per reference and pinned;
    offline the pins give the very report the online check gave, and no request is made."""
    path = _claims(
        {"title": "Modeling of low-rate DDoS-attacks", "year": 2019, "first_author": "Tarasov"},
        {"title": "Multimodal subscriber interfaces for infocommunication systems", "year": 2017,
         "first_author": "O. Basov", "container": "Computing and Informatics"},
        {"title": "A protein that does not exist", "year": 2019, "first_author": "Basov"},
    )  # fmt: skip
    # The registries are not here: the DOIs offered as the two matches' fixes cannot be pinned
    # (tests/cli/test_fetch_fixes.py pins one), which fetch says, and exits 3.
    for name in ("CROSSREF", "DATACITE", "DOI", "ARXIV"):
        monkeypatch.setenv(f"CITEAUDIT_{name}_URL", "http://127.0.0.1:9/no-registry")
    fetched = run_cli("fetch", path, "--indexes", "dblp", "--cache", "cache")
    assert fetched.code == 3, fetched.stderr
    assert fetched.stdout.splitlines()[-2:] == [
        "references=3 matched=2 ambiguous=0 not_found=1 could_not_check=0 cache=cache",
        "fixes=2 found=0 not_found=0 could_not_check=2 cache=cache",
    ]
    asked = dblp_online.count("dblp")
    assert asked == 3
    online = run_cli(
        "check", path, "--indexes", "dblp", "--cache", "cache", "--judge", "none", "--out", "online.json"
    )
    offline = run_cli(
        "check",
        path,
        "--offline",
        "--indexes",
        "dblp",
        "--cache",
        "cache",
        "--judge",
        "none",
        "--out",
        "offline.json",
    )
    assert (online.code, offline.code) == (1, 1)
    assert dblp_online.count("dblp") == asked  # both read the pins
    assert Path("online.json").read_bytes() == Path("offline.json").read_bytes()
    offline_report = json.loads(Path("offline.json").read_text("utf-8"))
    assert offline_report["settings"]["search"] == {"indexes": [{"index": "dblp"}]}
    codes = _codes(offline_report)
    assert codes["c1"] == ["I_MATCHED_BY_SEARCH", "I_QUOTE_ABSENT"]
    assert "I_MATCHED_BY_SEARCH" in codes["c2"]
    assert codes["c3"] == ["E_WORK_NOT_FOUND"]
    matched = next(f for f in offline_report["results"][0]["findings"] if f["code"] == "I_MATCHED_BY_SEARCH")
    assert matched["suggestion"] == {"doi": "10.1145/3357613.3357638"}
    again = run_cli(
        "check",
        path,
        "--offline",
        "--indexes",
        "dblp",
        "--cache",
        "cache",
        "--judge",
        "none",
        "--out",
        "again.json",
    )
    assert again.code == 1
    assert Path("again.json").read_bytes() == Path("offline.json").read_bytes()


def test_every_format_says_matched_by_search_not_resolved(here: Path, mirror: Path) -> None:
    path = _claims({"title": "Long Short-Term Memory", "year": 1997, "first_author": "Hochreiter"})
    code, _ = _check(path, "--mirror", mirror, "--indexes", "")
    assert code == 0
    rendered = {}
    for fmt in ("md", "html", "sarif", "junit"):
        result = run_cli("render", "report.json", "--format", fmt, "--output", f"report.{fmt}")
        assert result.code == 0, result.stderr
        rendered[fmt] = Path(f"report.{fmt}").read_text("utf-8")
    assert (
        "Matched by search (not by identifier) in mirror:dblp: journals/neco/HochreiterS97" in rendered["md"]
    )
    assert "matched by search: mirror:dblp journals/neco/HochreiterS97" in rendered["html"]
    sarif = json.loads(rendered["sarif"])
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]][:1] == ["I_MATCHED_BY_SEARCH"]
    assert (
        "<system-out>matched by search (not by identifier): mirror:dblp journals/neco/HochreiterS97</system-out>"
        in rendered["junit"]
    )
