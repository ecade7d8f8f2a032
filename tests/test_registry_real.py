"""The real Crossref records: a careful citation of each passes, and each of
four perturbations is caught with the right code, for every record."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from citeaudit.core import AuditSettings, audit
from citeaudit.formats import parse_document
from citeaudit.normalize import clean_markup
from citeaudit.resolve.cache import CachingResolver, DoiCache
from citeaudit.resolve.crossref import record_from_message
from citeaudit.resolve.interface import Record, Resolution
from citeaudit.sources.directory import SnapshotDirectory
from tests.conftest import read_jsonl, shared_data


def _full_records() -> list[Record]:
    rows = read_jsonl(shared_data("registry", "crossref_works.jsonl"))
    return [record_from_message(r["message"]) for r in rows if not r["partial_select"]]


def careful_citation(record: Record, index: int) -> dict[str, Any]:
    """A citation as a careful person writes it from the record."""
    citation: dict[str, Any] = {"doi": record.doi if index % 3 else f"https://doi.org/{record.doi.upper()}"}
    if record.titles:
        title = " ".join(clean_markup(record.titles[0]).split())
        if record.subtitles and index % 2:
            title += ": " + " ".join(clean_markup(record.subtitles[0]).split())
        citation["title"] = title
    if record.years:
        citation["year"] = record.years[index % len(record.years)][1]
    if record.authors:
        first = record.authors[0]
        citation["first_author"] = first.family or first.name
    return citation


def _changed_word(title: str) -> str | None:
    words = re.findall(r"[^\W\d_]{4,}", title)
    if not words:
        return None
    word = max(words, key=len)
    return title.replace(word, "Quuxification", 1)


def perturbations(record: Record, citation: dict[str, Any]) -> dict[str, tuple[dict[str, Any], str]]:
    out: dict[str, tuple[dict[str, Any], str]] = {}
    if record.years:
        out["year"] = ({**citation, "year": max(record.year_values) + 1}, "E_YEAR_MISMATCH")
    if record.authors:
        out["author"] = ({**citation, "first_author": "Zzyzxwvutsky"}, "E_AUTHOR_MISMATCH")
    changed = _changed_word(citation.get("title", ""))
    if changed is not None:
        out["title"] = ({**citation, "title": changed}, "E_TITLE_MISMATCH")
    out["doi"] = ({**citation, "doi": record.doi + "-not-registered"}, "E_DOI_NOT_FOUND")
    return out


@pytest.fixture(scope="module")
def records() -> list[Record]:
    return _full_records()


@pytest.fixture(scope="module")
def filled_cache(records: list[Record], tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cache")
    cache = DoiCache(root)
    for record in records:
        cache.put(record.doi, Resolution.found(record))
        # What a registry answers for a DOI that does not exist: a final 404.
        cache.put(record.doi + "-not-registered", Resolution.not_found())
    return root


def _run(claims: list[dict[str, Any]], cache: Path, tmp: Path) -> dict[str, list[str]]:
    submission = parse_document({"claims": claims}, "generated.json")
    resolver = CachingResolver(DoiCache(cache))
    report = audit(
        submission, resolver=resolver, snapshots=SnapshotDirectory(tmp), settings=AuditSettings(offline=True)
    )
    return {row.claim_id or "": [f.code for f in row.errors] for row in report.rows}


def test_the_data_has_the_documented_size(records: list[Record]) -> None:
    assert len(records) >= 400


def test_careful_citation_of_every_record_has_no_error(
    records: list[Record], filled_cache: Path, tmp_path: Path
) -> None:
    claims = [
        {"id": f"r{i}", "text": "The work reports its findings.", "citations": [careful_citation(r, i)]}
        for i, r in enumerate(records)
    ]
    errors = {k: v for k, v in _run(claims, filled_cache, tmp_path).items() if v}
    assert errors == {}


@pytest.mark.parametrize("kind", ["year", "author", "title", "doi"])
def test_every_perturbation_of_every_record_is_caught(
    kind: str, records: list[Record], filled_cache: Path, tmp_path: Path
) -> None:
    claims, expected = [], {}
    for i, record in enumerate(records):
        variants = perturbations(record, careful_citation(record, i))
        if kind in variants:
            citation, code = variants[kind]
            claims.append({"id": f"r{i}", "text": "The work reports its findings.", "citations": [citation]})
            expected[f"r{i}"] = [code]
    assert len(claims) > 300
    assert _run(claims, filled_cache, tmp_path) == expected
