"""Every recorded registry record written as a LaTeX-exporting reference manager writes it
(names, title and venue LaTeX-encoded by pylatexenc's encoder, the one bibtexparser's
``LatexEncodingMiddleware`` uses; ``Family, Given``; the title in protecting braces): read
back and checked against the record, no entry gets an error."""

from __future__ import annotations

from pathlib import Path

import pytest
from pylatexenc.latexencode import UnicodeToLatexEncoder

from citeaudit.checks.bibliographic import check_work
from citeaudit.checks.codes import FindingMaker
from citeaudit.checks.metadata import check_first_author, check_title, check_year, display_title
from citeaudit.formats import load_submission
from citeaudit.model import DoiSource
from citeaudit.normalize import clean_markup
from citeaudit.resolve.crossref import record_from_message
from citeaudit.resolve.csl import record_from_csl
from citeaudit.resolve.datacite import record_from_datacite
from citeaudit.resolve.interface import Author, Record
from tests.conftest import read_jsonl, shared_data

MAKE = FindingMaker()
ENCODE = UnicodeToLatexEncoder(non_ascii_only=True, replacement_latex_protection="braces-all")
_TYPES = {
    "journal-article": "article",
    "proceedings-article": "inproceedings",
    "book-chapter": "incollection",
}


def _records() -> list[Record]:
    works = read_jsonl(shared_data("registry", "crossref_works.jsonl"))
    datacite = read_jsonl(shared_data("registry", "datacite_dois.jsonl"))
    csl = read_jsonl(shared_data("registry", "csl_json_content_negotiation.jsonl"))
    return (
        [record_from_message(r["message"]) for r in works if not r["partial_select"]]
        + [record_from_datacite(r["response"]["data"]["attributes"]) for r in datacite]
        + [record_from_csl(r["csl"], "doi.org") for r in csl if isinstance(r.get("csl"), dict)]
    )


def _latex(text: str) -> str:
    escaped = "".join("\\" + c if c in "&%$#_" else c for c in " ".join(text.split()))
    return str(ENCODE.unicode_to_latex(escaped))


def _name(author: Author) -> str | None:
    if author.family and any(c.isalnum() for c in author.family):
        return f"{author.family}, {author.given}" if author.given else author.family
    if author.given:
        return author.given
    return "{" + author.name + "}" if author.name else None


def entry(key: str, record: Record) -> str | None:
    names = [n for n in (_name(a) for a in record.authors) if n]
    if not record.titles or " and " in " ".join(names):
        return None
    fields = {"doi": record.doi, "title": "{" + _latex(display_title(record)) + "}"}
    if names:
        fields["author"] = " and ".join(_latex(n) for n in names)
    if record.years:
        fields["year"] = str(record.years[0][1])
    if record.container:
        fields["journal"] = _latex(clean_markup(record.container[0]))
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields.items())
    return f"@{_TYPES.get(record.type or '', 'misc')}{{{key},\n{body}\n}}\n"


def errors(source: DoiSource, record: Record) -> list[str]:
    found = []
    if source.title is not None:
        found += check_title(source.title, record, MAKE)
    if source.year is not None:
        found += check_year(source.year, record, MAKE)
    if source.first_author is not None:
        found += check_first_author(source.first_author, record, MAKE)
    found += check_work(source, record, MAKE)
    return [f"{f.code}: {f.message}" for f in found if f.severity == "error"]


def test_latex_encoded_bibtex_of_every_real_record_passes(tmp_path: Path) -> None:
    records = _records()
    entries = {f"r{i}": (r, e) for i, r in enumerate(records) if (e := entry(f"r{i}", r)) is not None}
    path = tmp_path / "registry.bib"
    path.write_text("".join(e for _, e in entries.values()), "utf-8")
    claims = load_submission(path).claims
    wrong = {}
    for claim in claims:
        record = entries[claim.id][0]
        source = claim.citations[0].source
        assert isinstance(source, DoiSource)
        if found := errors(source, record):
            wrong[record.doi] = found
    assert wrong == {}
    encoded = sum(1 for _, e in entries.values() if "\\" in e)
    assert len(claims) > 450
    assert encoded > 100  # entries with LaTeX in them


@pytest.mark.parametrize("field", ["title", "author"])
def test_the_same_entries_with_a_changed_letter_are_wrong(tmp_path: Path, field: str) -> None:
    """The decoding makes no wrong entry pass: one letter of the title or the first author changed."""
    records = [r for r in _records() if r.titles and r.authors and r.authors[0].family]
    tried, passed = 0, []
    for i, record in enumerate(records[:150]):
        text = entry(f"r{i}", record)
        if text is None:
            continue
        if field == "title":
            title = display_title(record)
            text = text.replace("title = {{" + _latex(title), "title = {{" + _latex("Zq" + title[2:]), 1)
        else:
            family = str(record.authors[0].family)
            text = text.replace("author = {" + _latex(family), "author = {Zq" + _latex(family[2:]), 1)
        path = tmp_path / f"{i}.bib"
        path.write_text(text, "utf-8")
        source = load_submission(path).claims[0].citations[0].source
        assert isinstance(source, DoiSource)
        tried += 1
        if not errors(source, record):
            passed.append(record.doi)
    assert passed == []
    assert tried > 100
