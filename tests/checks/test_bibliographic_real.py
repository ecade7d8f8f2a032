"""Every full Crossref record and every DataCite record: a citation with all
authors, venue, volume, issue, pages and kind written from the record gives no
error, and each perturbation gives its code."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pytest

from citeaudit.checks.bibliographic import _kind, check_work
from citeaudit.checks.codes import FindingMaker
from citeaudit.model import DoiSource
from citeaudit.normalize import clean_markup
from citeaudit.resolve.crossref import record_from_message
from citeaudit.resolve.datacite import record_from_datacite
from citeaudit.resolve.interface import Record
from tests.conftest import read_jsonl, shared_data

MAKE = FindingMaker()


def _records() -> list[Record]:
    works = read_jsonl(shared_data("registry", "crossref_works.jsonl"))
    datacite = read_jsonl(shared_data("registry", "datacite_dois.jsonl"))
    return [record_from_message(r["message"]) for r in works if not r["partial_select"]] + [
        record_from_datacite(r["response"]["data"]["attributes"]) for r in datacite
    ]


def _name(author: Any) -> str:
    return str(author.family or author.name)


def careful(record: Record) -> DoiSource:
    return DoiSource(
        identifier=record.doi,
        authors=tuple(_name(a) for a in record.authors if a.family or a.name),
        container=" ".join(clean_markup(record.container[0]).split()) if record.container else None,
        volume=record.volume,
        issue=record.issue,
        pages=record.pages or record.article_number,
        type=record.type,
    )


def perturbations(record: Record, base: DoiSource) -> dict[str, tuple[DoiSource, str]]:
    out: dict[str, tuple[DoiSource, str]] = {}
    authors = list(base.authors)
    if len(authors) >= 2:
        out["co-author"] = (
            replace(base, authors=(authors[0], "Zzyzxwvutsky", *authors[2:])),
            "E_AUTHOR_NOT_ON_WORK",
        )
        if authors[0].casefold() != authors[1].casefold():
            swapped = (authors[1], authors[0], *authors[2:])
            out["swap"] = (replace(base, authors=swapped), "W_AUTHOR_ORDER")
    if base.container:
        code = (
            "E_PREPRINT_AS_PUBLISHED"
            if (record.type or "") in {"posted-content", "preprint"}
            else "W_VENUE_MISMATCH"
        )
        out["venue"] = (replace(base, container="Journal of Imaginary Results"), code)
    if base.pages and re.match(r"^\d+", base.pages):
        first = int(re.match(r"^\d+", base.pages).group())  # type: ignore[union-attr]
        out["pages"] = (replace(base, pages=str(first + 1)), "E_PAGES_MISMATCH")
    kind = _kind(record.type or "")
    if kind is not None:
        other = "journal-article" if kind == "dataset" else "dataset"
        out["type"] = (replace(base, type=other), "E_WORK_TYPE_MISMATCH")
    return out


@pytest.fixture(scope="module")
def records() -> list[Record]:
    return _records()


def test_a_careful_full_citation_of_every_record_has_no_error(records: list[Record]) -> None:
    errors = {}
    for record in records:
        found = [f for f in check_work(careful(record), record, MAKE) if f.severity == "error"]
        if found:
            errors[record.doi] = [(f.code, f.message) for f in found]
    assert errors == {}
    assert len(records) > 440


@pytest.mark.parametrize("kind", ["co-author", "swap", "venue", "pages", "type"])
def test_every_perturbation_gives_its_code(records: list[Record], kind: str) -> None:
    tried, wrong = 0, {}
    for record in records:
        variants = perturbations(record, careful(record))
        if kind not in variants:
            continue
        source, code = variants[kind]
        tried += 1
        codes = {f.code for f in check_work(source, record, MAKE)}
        if code not in codes:
            wrong[record.doi] = sorted(codes)
    assert wrong == {}
    assert tried > 100
