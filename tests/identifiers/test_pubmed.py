"""PubMed and PubMed Central identifiers: the forms they are written in, alone and inside the
links of PubMed, PMC and Europe PMC, their keys, and what is refused."""

from __future__ import annotations

import pytest

from citeaudit.identifiers import FIELD_KINDS, IdentifierError, canonical_key, route_of
from citeaudit.identifiers.pubmed import PMCID, PMID, pmcid_in_url, pmid_in_url


@pytest.mark.parametrize(
    ("raw", "normal"),
    [
        ("31452104", "31452104"),
        ("PMID: 31452104", "31452104"),
        ("pmid:31452104", "31452104"),
        ("PMID 31452104", "31452104"),
        ("PubMed ID: 31452104", "31452104"),
        (" 031452104 ", "31452104"),
        ("https://pubmed.ncbi.nlm.nih.gov/31452104/", "31452104"),
        ("https://pubmed.ncbi.nlm.nih.gov/31452104", "31452104"),
        ("http://www.ncbi.nlm.nih.gov/pubmed/31452104", "31452104"),
        ("https://ncbi.nlm.nih.gov/pubmed/31452104/", "31452104"),
        ("https://europepmc.org/article/MED/31452104", "31452104"),
        ("https://europepmc.org/abstract/MED/31452104/", "31452104"),
    ],
)
def test_pmid_forms_normalise_to_the_digits(raw: str, normal: str) -> None:
    assert PMID.recognise(raw) == normal
    assert PMID.read(raw) == normal  # a citation carries the digits
    key = PMID.key(normal)
    assert key == f"pmid:{normal}"
    assert PMID.owns(key)
    assert not PMCID.owns(key)
    assert PMID.normalise(key) == normal
    assert canonical_key(key) == key
    assert route_of(key) == "ncbi"
    assert PMID.report_source(normal) == {"kind": "pmid", "pmid": normal}


@pytest.mark.parametrize(
    ("raw", "normal"),
    [
        ("PMC6718211", "PMC6718211"),
        ("pmc6718211", "PMC6718211"),
        ("PMCID: PMC6718211", "PMC6718211"),
        ("pmcid:pmc6718211", "PMC6718211"),
        ("PMC6718211.2", "PMC6718211"),  # the version is not part of the identifier
        ("https://www.ncbi.nlm.nih.gov/pmc/articles/PMC6718211/", "PMC6718211"),
        ("https://www.ncbi.nlm.nih.gov/pmc/articles/PMC6718211/pdf/main.pdf", "PMC6718211"),
        ("https://pmc.ncbi.nlm.nih.gov/articles/PMC6718211/", "PMC6718211"),
        ("https://pmc.ncbi.nlm.nih.gov/articles/PMC6718211", "PMC6718211"),
        ("https://europepmc.org/articles/PMC6718211", "PMC6718211"),
        ("https://europepmc.org/article/PMC/PMC6718211", "PMC6718211"),
    ],
)
def test_pmcid_forms_normalise_to_pmc_and_digits(raw: str, normal: str) -> None:
    assert PMCID.recognise(raw) == normal
    assert PMCID.read(raw) == normal
    key = PMCID.key(normal)
    assert key == f"pmcid:{normal}"
    assert PMCID.owns(key)
    assert not PMID.owns(key)
    assert PMCID.normalise(key) == normal
    assert canonical_key(key) == key
    assert route_of(key) == "ncbi"
    assert PMCID.report_source(normal) == {"kind": "pmcid", "pmcid": normal}


@pytest.mark.parametrize(
    "raw", ["", "PMID:", "0", "12a", "1234567890", "３１４５２１０４", "10.1002/ece3.2314", "PMC6718211"]
)
def test_anything_else_is_no_pmid(raw: str) -> None:
    assert PMID.recognise(raw) is None
    # Read as written: the audit says E_PMID_SYNTAX, with this message, as a malformed DOI's.
    assert PMID.read(raw) == raw
    assert not PMID.is_valid(PMID.normalise(raw))
    assert PMID.invalid(raw) == (
        f"{raw.strip()!r} is not a PubMed identifier (expected digits: 31452104 or PMID: 31452104)"
    )


@pytest.mark.parametrize(
    "raw", ["", "PMC", "PMC0", "6718211", "PMC12a", "PMC６７", "https://pmc.ncbi.nlm.nih.gov/"]
)
def test_anything_else_is_no_pmcid(raw: str) -> None:
    assert PMCID.recognise(raw) is None
    assert PMCID.read(raw) == raw
    assert not PMCID.is_valid(PMCID.normalise(raw))
    assert PMCID.invalid(raw) == (
        f"{raw.strip()!r} is not a PubMed Central identifier (expected PMC and digits: PMC6718211)"
    )


def test_a_value_that_is_no_string_is_refused() -> None:
    with pytest.raises(IdentifierError) as caught:
        PMID.read(31452104)
    assert (
        str(caught.value)
        == "31452104 is not a PubMed identifier (expected digits: 31452104 or PMID: 31452104)"
    )


@pytest.mark.parametrize(
    "url",
    [
        "https://pubmed.ncbi.nlm.nih.gov/",  # the search page
        "https://pubmed.ncbi.nlm.nih.gov/?term=aspirin",
        "https://pubmed.ncbi.nlm.nih.gov/31452104/similar/",
        "https://www.ncbi.nlm.nih.gov/pmc/",
        "https://example.org/pubmed/31452104",
        "ftp://pubmed.ncbi.nlm.nih.gov/31452104/",
        "https://user:pw@pubmed.ncbi.nlm.nih.gov/31452104/",
        "https://www.ncbi.nlm.nih.gov/books/NBK25501/",
    ],
)
def test_other_pages_of_those_sites_name_no_identifier(url: str) -> None:
    assert pmid_in_url(url) is None
    assert pmcid_in_url(url) is None


def test_both_kinds_are_fields_of_the_input_contract() -> None:
    assert FIELD_KINDS == ("doi", "arxiv", "url", "pmid", "pmcid")
