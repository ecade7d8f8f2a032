from __future__ import annotations

import pytest

from citeaudit.checks.codes import FindingMaker
from citeaudit.checks.doi import check_doi_syntax, normalize_doi


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
    assert normalize_doi(raw) == "10.1002/ece3.2314"
    assert check_doi_syntax(raw, normalize_doi(raw), FindingMaker()) == []


def test_url_form_is_percent_decoded() -> None:
    assert normalize_doi("https://doi.org/10.1016/0091-3057%2884%2990081-9") == "10.1016/0091-3057(84)90081-9"


@pytest.mark.parametrize("raw", ["", "foo", "10.12/x", "11.1234/x", "10.1234", "10.1234/", "10.1234/a b"])
def test_syntax_errors(raw: str) -> None:
    (finding,) = check_doi_syntax(raw, normalize_doi(raw), FindingMaker())
    assert finding.code == "E_DOI_SYNTAX"
