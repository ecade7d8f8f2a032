"""The registry the formats, the core and the resolvers dispatch through."""

from __future__ import annotations

from citeaudit.formats import parse_document
from citeaudit.identifiers import (
    HANDLERS,
    KINDS,
    IdentifierHandler,
    canonical_key,
    handler,
    resolver_key,
    route_of,
    search_key,
)
from citeaudit.model import CorpusSource, ReferenceSource, WorkSource


def test_every_kind_has_one_handler_that_names_it() -> None:
    assert KINDS == ("doi", "arxiv", "url", "pmid", "pmcid", "work")
    for kind in KINDS:
        assert isinstance(handler(kind), IdentifierHandler)
        assert handler(kind).kind == kind
    assert set(HANDLERS) == set(KINDS)


def test_keys_route_to_the_most_specific_kind() -> None:
    assert route_of("10.1002/ece3.2314") == "doi"
    assert route_of("10.48550/arxiv.2401.01234") == "arxiv"  # an arXiv DOI is a DOI, asked of arXiv
    assert route_of("pmid:31452104") == route_of("pmcid:PMC6718211") == "ncbi"
    assert route_of("not a key") is None
    assert route_of("work:attention is all you need|vaswani|2017") == "search"


def test_a_citation_with_a_title_and_no_identifier_is_a_work_found_by_search() -> None:
    sub = parse_document(
        {
            "claims": [
                {
                    "id": "c",
                    "text": "t",
                    "citations": [
                        {"title": "Attention Is All You Need", "year": 2017, "first_author": "Vaswani"},
                        {"title": "Attention is all you need!", "authors": ["A. Vaswani", "N. Shazeer"]},
                    ],
                }
            ]
        },
        "x",
    )
    a, b = (c.source for c in sub.claims[0].citations)
    assert isinstance(a, WorkSource)
    assert a.kind == "work"
    assert a.identifier == "attention is all you need|vaswani|2017"
    assert search_key(a) == "work:attention is all you need|vaswani|2017"
    assert resolver_key(a) is None  # searched, never resolved by an identifier
    assert isinstance(b, WorkSource)
    assert b.first_author is None
    assert b.authors == ("A. Vaswani", "N. Shazeer")
    assert search_key(b) == "work:attention is all you need|vaswani|"


def test_citations_carry_their_kind_from_the_field_that_names_it() -> None:
    sub = parse_document(
        {
            "claims": [
                {
                    "id": "c",
                    "text": "t",
                    "citations": [
                        {"id": "a", "doi": "https://doi.org/10.1002/ECE3.2314", "title": "T"},
                        {"id": "b", "arxiv": "arXiv:2401.01234v2", "year": 2024},
                        {"id": "d", "doi": "not a doi"},
                    ],
                }
            ]
        },
        "x",
    )
    a, b, d = (c.source for c in sub.claims[0].citations)
    assert a == WorkSource("https://doi.org/10.1002/ECE3.2314", "T", kind="doi")
    assert b == WorkSource("10.48550/arxiv.2401.01234", year=2024, kind="arxiv")
    assert [resolver_key(s) for s in (a, b, d)] == ["10.1002/ece3.2314", "10.48550/arxiv.2401.01234", None]
    assert resolver_key(CorpusSource("d", "1")) is None
    assert resolver_key(ReferenceSource("T")) is None


def test_an_arxiv_citation_digests_as_the_doi_it_carries_did() -> None:
    # Reviews are bound to the submission digest: carrying the kind must not unbind them.
    def digest(citation: dict[str, str]) -> str:
        return parse_document({"claims": [{"id": "c", "text": "t", "citations": [citation]}]}, "x").digest

    assert digest({"id": "a", "arxiv": "arXiv:2401.01234v2"}) == digest(
        {"id": "a", "doi": "10.48550/arxiv.2401.01234"}
    )
    assert digest({"id": "a", "doi": "10.1/x"}) != digest({"id": "a", "doi": "10.1/y"})


def test_an_arxiv_doi_with_a_version_is_one_work_with_the_versionless_one() -> None:
    assert canonical_key("10.48550/arxiv.2010.11929v1") == "10.48550/arxiv.2010.11929"
    assert canonical_key("10.1002/ece3.2314") == "10.1002/ece3.2314"
    versioned = WorkSource("10.48550/arXiv.2010.11929v1", kind="doi")
    assert resolver_key(versioned) == resolver_key(WorkSource("10.48550/arxiv.2010.11929", kind="doi"))


def test_the_form_note_travels_with_the_citation_and_not_into_the_digest() -> None:
    def parse(citation: dict[str, str]) -> tuple[WorkSource, str]:
        sub = parse_document({"claims": [{"id": "c", "text": "t", "citations": [citation]}]}, "x")
        source = sub.claims[0].citations[0].source
        assert isinstance(source, WorkSource)
        return source, sub.digest

    prefixed, digest = parse({"id": "a", "arxiv": "hep-th/1601.07616"})
    assert prefixed.identifier == "10.48550/arxiv.1601.07616"
    assert prefixed.form_note == (
        "'hep-th/1601.07616' puts a category before a new-style arXiv id, which has none: read as 1601.07616"
    )
    plain, plain_digest = parse({"id": "a", "arxiv": "1601.07616"})
    assert plain.form_note is None
    assert digest == plain_digest
