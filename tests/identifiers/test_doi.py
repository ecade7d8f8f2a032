from __future__ import annotations

import pytest

from citeaudit.identifiers.doi import DOI, normalize_doi


@pytest.mark.parametrize(
    "raw",
    [
        "10.1002/ece3.2314",
        "  10.1002/ECE3.2314 ",
        "https://doi.org/10.1002/ece3.2314",
        "http://dx.doi.org/10.1002/ece3.2314",
        "HTTPS://DOI.ORG/10.1002/ECE3.2314",
        "https://www.doi.org/10.1002/ece3.2314",
        "doi:10.1002/ece3.2314",
        "DOI: 10.1002/ece3.2314",
        "urn:doi:10.1002/ece3.2314",
    ],
)
def test_accepted_forms_normalise_to_one_doi(raw: str) -> None:
    assert normalize_doi(raw) == DOI.normalise(raw) == "10.1002/ece3.2314"
    assert DOI.is_valid(DOI.normalise(raw))
    assert DOI.recognise(raw) == DOI.key("10.1002/ece3.2314") == "10.1002/ece3.2314"
    assert DOI.read(raw) == raw  # carried as written; the audit normalises it


def test_url_form_is_percent_decoded() -> None:
    assert normalize_doi("https://doi.org/10.1016/0091-3057%2884%2990081-9") == "10.1016/0091-3057(84)90081-9"


@pytest.mark.parametrize("raw", ["", "foo", "10.12/x", "11.1234/x", "10.1234", "10.1234/", "10.1234/a b"])
def test_syntax_errors(raw: str) -> None:
    assert not DOI.is_valid(DOI.normalise(raw))
    assert DOI.recognise(raw) is None
    assert DOI.syntax_code == "E_DOI_SYNTAX"  # found in the audit, not refused as input
    assert DOI.read(raw) == raw
    assert DOI.invalid(f" {raw} ") == f"{raw!r} is not a DOI (expected 10.NNNN/suffix)"


def test_a_doi_urls_fragment_is_not_part_of_the_doi() -> None:
    assert normalize_doi("https://doi.org/10.7554/eLife.46574#anchor") == "10.7554/elife.46574"
    assert normalize_doi("https://doi.org/10.7554/eLife.46574#") == "10.7554/elife.46574"
    # A DOI's own '#' is percent-encoded in a URL, and written as it is elsewhere.
    assert normalize_doi("https://doi.org/10.1000/a%23b#c") == "10.1000/a#b"
    assert normalize_doi("10.1000/a#b") == "10.1000/a#b"


@pytest.mark.parametrize(
    "raw",
    [
        "10.\uff11\uff10\uff10\uff12/ece3.2314",  # full-width digits
        "10.\u0661\u0660\u0660\u0662/ece3.2314",  # Arabic-Indic digits
        "10.1002.\u0663/ece3.2314",  # a sub-division in other digits
        "10.\u09e7\u09e6\u09e6\u09e8/x",  # Bengali digits
    ],
)
def test_a_prefix_in_digits_that_are_not_ascii_is_a_syntax_error(raw: str) -> None:
    """Issue 28: ``\\d`` took any Unicode digit for a registrant code."""
    assert not DOI.is_valid(DOI.normalise(raw))
    assert DOI.recognise(raw) is None
    assert DOI.invalid(raw) == f"{raw!r} is not a DOI (expected 10.NNNN/suffix)"
