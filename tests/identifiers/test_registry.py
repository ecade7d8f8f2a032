"""The registry the formats, the core and the resolvers dispatch through."""

from __future__ import annotations

from citeaudit.formats import parse_document
from citeaudit.identifiers import HANDLERS, KINDS, IdentifierHandler, handler, resolver_key, route_of
from citeaudit.model import CorpusSource, ReferenceSource, WorkSource


def test_every_kind_has_one_handler_that_names_it() -> None:
    assert KINDS == ("doi", "arxiv")
    for kind in KINDS:
        assert isinstance(handler(kind), IdentifierHandler)
        assert handler(kind).kind == kind
    assert set(HANDLERS) == set(KINDS)


def test_keys_route_to_the_most_specific_kind() -> None:
    assert route_of("10.1002/ece3.2314") == "doi"
    assert route_of("10.48550/arxiv.2401.01234") == "arxiv"  # an arXiv DOI is a DOI, asked of arXiv
    assert route_of("not a key") is None


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
