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


@pytest.mark.parametrize(
    ("url", "doi"),
    [
        ("https://link.springer.com/chapter/10.1007/978-3-030-58452-8_13", "10.1007/978-3-030-58452-8_13"),
        ("https://link.springer.com/article/10.1007/s10994-021-05946-3", "10.1007/s10994-021-05946-3"),
        (
            "https://link.springer.com/content/pdf/10.1007/s10994-021-05946-3.pdf",
            "10.1007/s10994-021-05946-3",
        ),
        (
            "https://www.emerald.com/insight/content/doi/10.1108/JD-01-2020-0001/full/html",
            "10.1108/jd-01-2020-0001",
        ),
        ("https://journals.sagepub.com/doi/abs/10.1177/0956797620904450", "10.1177/0956797620904450"),
        ("https://onlinelibrary.wiley.com/doi/epdf/10.1002/ece3.2314", "10.1002/ece3.2314"),
        ("https://onlinelibrary.wiley.com/doi/full/10.1002/ece3.2314", "10.1002/ece3.2314"),
        ("https://dl.acm.org/doi/pdf/10.1145/3442188.3445922", "10.1145/3442188.3445922"),
        (
            "https://www.tandfonline.com/doi/full/10.1080/14719037.2020.1738797?src=recsys",
            "10.1080/14719037.2020.1738797",
        ),
        ("https://www.science.org/doi/10.1126/science.abc1234", "10.1126/science.abc1234"),
        ("https://www.nature.com/articles/s41586-021-03819-2", "10.1038/s41586-021-03819-2"),
        ("https://dx.doi.org/10.1002/ECE3.2314", "10.1002/ece3.2314"),
    ],
)
def test_a_publishers_landing_page_names_its_doi(url: str, doi: str) -> None:
    assert DOI.recognise(url) == doi
    assert normalize_doi(url) == doi


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/article/10.1007/x",  # /article/ is Springer's only on Springer
        "https://www.nature.com/articles/",  # no article
        "https://example.org/doi/",
        "https://arxiv.org/pdf/1706.03762v5",
    ],
)
def test_other_pages_name_no_doi(url: str) -> None:
    assert DOI.recognise(url) is None
