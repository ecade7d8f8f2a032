"""The text of a cited work, named: one module per basis."""

from __future__ import annotations

import hashlib

from citeaudit.resolve.interface import Record
from citeaudit.sources.cited import (
    Basis,
    CitedText,
    abstract_of,
    document_text,
    page_text,
    pinned_full_text,
    revision_text,
    snapshot_text,
)
from citeaudit.sources.interface import Pin


def _pin(status: int = 200, text: str | None = "The page's text.") -> Pin:
    return Pin("https://example.org/a", "https://example.org/a", "https://example.org/a", status, "text/html",
               "0" * 64, "2026-01-02T03:04:05Z", text)  # fmt: skip


def test_each_basis_names_its_text_with_digest_and_length() -> None:
    record = Record("10.1000/x", "crossref", abstract="We show that X.")
    read = abstract_of(record)
    assert read is not None
    assert read.to_json() == {
        "basis": "abstract",
        "length": 15,
        "name": "abstract in the crossref record of 10.1000/x",
        "sha256": hashlib.sha256(b"We show that X.").hexdigest(),
    }
    assert abstract_of(record, "openalex").name == "abstract in the openalex record of 10.1000/x"  # type: ignore[union-attr]
    assert snapshot_text("10.1000/x", "Full.") == CitedText(Basis.FULL_TEXT, "snapshot of 10.1000/x", "Full.")
    assert document_text("d1", "3", "Doc.").name == "corpus document d1 version 3"  # type: ignore[union-attr]
    assert revision_text("s1", 2, "Rev.").name == "store source s1 revision 2"  # type: ignore[union-attr]
    page = page_text(_pin())
    assert page is not None
    assert page.name == "page https://example.org/a as pinned 2026-01-02T03:04:05Z"
    full = pinned_full_text(_pin())
    assert full is not None
    assert full.basis is Basis.FULL_TEXT
    assert full.name == "full text at https://example.org/a as pinned 2026-01-02T03:04:05Z"


def test_no_text_is_no_basis() -> None:
    assert abstract_of(Record("10.1000/x", "crossref")) is None
    assert abstract_of(Record("10.1000/x", "crossref", abstract="  ")) is None
    assert snapshot_text("10.1000/x", "\n") is None
    assert page_text(_pin(404, None)) is None
    assert pinned_full_text(_pin(200, " ")) is None


def test_only_an_abstract_is_incomplete_and_a_text_names_its_reading() -> None:
    assert not CitedText(Basis.ABSTRACT, "a", "t").complete
    assert all(CitedText(b, "a", "t").complete for b in (Basis.FULL_TEXT, Basis.PAGE, Basis.QUOTE))
    text = CitedText(Basis.PAGE, "p", "Some text.")
    assert text.read_by("c1").to_json() == {"basis": "page", "citation": "c1", "length": 10, "name": "p",
                                            "sha256": text.sha256}  # fmt: skip
