"""BibTeX exactly as bibliography tools export it (tests/formats/bibtex_exports/README.md says
where each came from), read and checked against a mirror in DBLP's form."""

from __future__ import annotations

import json
from pathlib import Path

from citeaudit.formats import load_submission
from citeaudit.model import WorkSource
from tests.conftest import run_cli
from tests.dblp_dump import dblp_record, write_dblp

EXPORTS = Path(__file__).parent / "bibtex_exports"


def test_a_dblp_export_of_a_corr_record_is_its_arxiv_id() -> None:
    (claim,) = load_submission(EXPORTS / "dblp.bib").claims
    source = claim.citations[0].source
    assert isinstance(source, WorkSource)
    assert (source.kind, source.identifier) == ("arxiv", "10.48550/arXiv.1905.00546")
    assert source.authors[:2] == ("I. Zeki Yalniz", "Hervé Jégou")
    assert source.container == "CoRR"


def test_semantic_scholars_journal_arxiv_is_a_preprint_citation_not_a_type_error(here: Path) -> None:
    authors = "Yury Gorishniy and Ivan Rubachev and Valentin Khrulkov and Artem Babenko"
    title = "Revisiting Deep Learning Models for Tabular Data"
    records = [  # as DBLP lists the paper: the proceedings record and its CoRR copy
        dblp_record("inproceedings", "conf/nips/GorishniyRKB21",
                    {"title": title, "author": authors, "year": "2021", "booktitle": "NeurIPS", "pages": "18932-18943"}),
        dblp_record("article", "journals/corr/abs-2106-11959",
                    {"title": title, "author": authors, "year": "2021", "journal": "CoRR",
                     "volume": "abs/2106.11959", "doi": "10.48550/arXiv.2106.11959"}),
    ]  # fmt: skip
    dump = write_dblp(here / "dblp.xml.gz", records)
    assert run_cli("mirror", "import", "--format", "dblp", dump, "--mirror", here / "m.sqlite").code == 0
    bib = here / "refs.bib"
    bib.write_text((EXPORTS / "semantic_scholar.bib").read_text("utf-8"), "utf-8")
    result = run_cli("check", bib, "--offline", "--judge", "none", "--mirror", here / "m.sqlite",
                     "--indexes", "", "--out", "report.json")  # fmt: skip
    assert result.code in (1, 3), result.stderr  # Hyper-Connections is in no index here
    rows = {r["claim"]: r for r in json.loads(Path("report.json").read_text("utf-8"))["results"]}
    gorishniy = rows["Gorishniy2021RevisitingDL"]
    assert gorishniy["errors"] == []  # not E_WORK_TYPE_MISMATCH: "Yu. V." is Yury, ArXiv its preprint
    assert "I_MATCHED_BY_SEARCH" in [f["code"] for f in gorishniy["findings"]]
    assert rows["Zhu2024HyperConnections"]["errors"] == ["E_WORK_NOT_FOUND"]
