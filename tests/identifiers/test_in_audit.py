"""Identifier forms through a whole offline audit: which work is looked up, and the warnings."""

from __future__ import annotations

import json
from pathlib import Path

from citeaudit.resolve.cache import DoiCache
from citeaudit.resolve.interface import Author, Record, Resolution
from tests.conftest import run_cli


def _audit(
    tmp_path: Path, citations: list[dict[str, object]], name: str = "claims.json"
) -> dict[str, object]:
    claims = [
        {"id": f"c{i}", "text": "A claim about the cited work.", "citations": [c]}
        for i, c in enumerate(citations)
    ]
    (tmp_path / name).write_text(json.dumps({"claims": claims}), encoding="utf-8")
    return _check(tmp_path, name)


def _check(tmp_path: Path, name: str) -> dict[str, object]:
    (tmp_path / "cache").mkdir(exist_ok=True)  # an empty cache: a missing one is refused offline
    result = run_cli(
        "check", tmp_path / name, "--offline", "--cache", tmp_path / "cache", "--sources", tmp_path / "sources",
        "--out", tmp_path / "report.json", "--judge", "none",
    )  # fmt: skip
    assert result.code in (0, 1, 3), result.stderr
    report: dict[str, object] = json.loads((tmp_path / "report.json").read_text("utf-8"))
    return report


def _rows(report: dict[str, object]) -> list[tuple[str, list[str]]]:
    rows = report["results"]
    assert isinstance(rows, list)
    return [(r["doi"], sorted(f["code"] for f in r["findings"])) for r in rows]


def test_fragments_versions_and_categories_name_the_one_work(tmp_path: Path) -> None:
    report = _audit(
        tmp_path,
        [
            {"doi": "https://doi.org/10.7554/eLife.46574#anchor"},
            {"doi": "10.48550/arXiv.2010.11929v1"},
            {"arxiv": "math.GT/0309136v2"},
            {"arxiv": "hep-th/1601.07616"},
        ],
    )
    assert _rows(report) == [
        ("10.7554/elife.46574", ["E_NOT_CACHED"]),
        ("10.48550/arxiv.2010.11929", ["E_NOT_CACHED"]),
        ("10.48550/arxiv.math/0309136", ["E_NOT_CACHED"]),
        ("10.48550/arxiv.1601.07616", ["E_NOT_CACHED", "W_IDENTIFIER_FORM"]),
    ]
    rows = report["results"]
    assert isinstance(rows, list)
    (note,) = [f for f in rows[3]["findings"] if f["code"] == "W_IDENTIFIER_FORM"]
    assert note["severity"] == "warning"
    assert note["message"] == (
        "'hep-th/1601.07616' puts a category before a new-style arXiv id, which has none: read as 1601.07616"
    )


def test_a_versioned_arxiv_doi_finds_the_cached_versionless_work(tmp_path: Path) -> None:
    record = Record(
        doi="10.48550/arxiv.2010.11929",
        agency="arxiv",
        titles=("An Image is Worth 16x16 Words",),
        years=(("issued", 2020),),
        authors=(Author(family="Dosovitskiy", given="Alexey"),),
    )
    DoiCache(tmp_path / "cache").put(record.doi, Resolution.found(record))
    cited = {"title": "An Image is Worth 16x16 Words", "year": 2020, "first_author": "Dosovitskiy"}
    report = _audit(
        tmp_path, [{"doi": "10.48550/arXiv.2010.11929v1", **cited}, {"arxiv": "2010.11929v2", **cited}]
    )
    found = ("10.48550/arxiv.2010.11929", ["I_QUOTE_ABSENT"])  # found and matching; no quote given
    assert _rows(report) == [found, found]


def test_bibtex_reads_a_category_before_a_new_style_eprint_with_the_warning(tmp_path: Path) -> None:
    (tmp_path / "refs.bib").write_text(
        "@article{k, title={T}, author={Smith, J.}, year={2016}, eprint={hep-th/1601.07616},"
        " archivePrefix={arXiv}}\n",
        encoding="utf-8",
    )
    report = _check(tmp_path, "refs.bib")
    assert _rows(report) == [("10.48550/arxiv.1601.07616", ["E_NOT_CACHED", "W_IDENTIFIER_FORM"])]
