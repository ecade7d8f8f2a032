from __future__ import annotations

import pytest

from citeaudit.identifiers import IdentifierError
from citeaudit.identifiers.arxiv import ARXIV, arxiv_id_of


@pytest.mark.parametrize(
    ("raw", "normal"),
    [
        ("2401.01234", "2401.01234"),
        ("arXiv:2401.01234v2", "2401.01234"),
        ("ARXIV: 1902.02534v1", "1902.02534"),
        ("hep-th/9901001", "hep-th/9901001"),
        ("math.GT/0309136v3", "math/0309136"),  # the subject class is not part of the id
        ("hep-th/1601.07616", "1601.07616"),  # a category put before a new-style id
        ("cs.CL/2401.01234v2", "2401.01234"),
    ],
)
def test_forms_normalise_to_the_versionless_id_and_its_doi(raw: str, normal: str) -> None:
    assert ARXIV.recognise(raw) == normal
    key = ARXIV.key(normal)
    assert key == f"10.48550/arxiv.{normal}"
    assert ARXIV.read(raw) == key  # a citation carries the DOI arXiv registers
    assert ARXIV.normalise(key) == ARXIV.normalise(key.replace("arxiv", "arXiv")) == normal
    assert ARXIV.owns(key)
    assert arxiv_id_of(key) == normal
    assert ARXIV.report_source(key) == {"kind": "doi", "doi": key}


@pytest.mark.parametrize("raw", ["", "2401.123", "arxiv", "10.1002/ece3.2314", "2401.01234v"])
def test_anything_else_is_refused_where_it_is_read(raw: str) -> None:
    assert ARXIV.recognise(raw) is None
    with pytest.raises(IdentifierError) as caught:
        ARXIV.read(raw)
    assert str(caught.value) == f"not an arXiv identifier: {raw!r}"
    assert not ARXIV.owns(raw)


@pytest.mark.parametrize("raw", ["2401.01234", "arXiv:2401.01234v2", "hep-th/9901001", "math.GT/0309136v2"])
def test_the_forms_arxiv_defines_get_no_note(raw: str) -> None:
    assert ARXIV.form_note(raw) is None


def test_a_category_before_a_new_style_id_is_read_with_a_note() -> None:
    assert ARXIV.form_note(" hep-th/1601.07616v2 ") == (
        "'hep-th/1601.07616v2' puts a category before a new-style arXiv id, which has none: read as 1601.07616"
    )
    assert ARXIV.doi_of("hep-th/1601.07616") == "10.48550/arXiv.1601.07616"


def test_an_arxiv_doi_with_a_version_names_the_versionless_work() -> None:
    assert arxiv_id_of("10.48550/arXiv.2010.11929v1") == "2010.11929"
    assert arxiv_id_of("10.48550/arxiv.math.GT/0309136v2") == "math/0309136"


@pytest.mark.parametrize(
    "raw",
    [
        "\uff12\uff14\uff10\uff11.01234",  # full-width year and month
        "2401.\u0660\u0661\u0662\u0663\u0664",  # Arabic-Indic number
        "2401.01234v\uff12",  # a full-width version
        "hep-th/\u0669\u0669\u0660\u0661\u0660\u0660\u0661",  # an old-style number in other digits
        "10.48550/arxiv.\uff12\uff14\uff10\uff11.01234",
    ],
)
def test_digits_that_are_not_ascii_are_refused(raw: str) -> None:
    """Issue 28: ``\\d`` took any Unicode digit."""
    assert ARXIV.recognise(raw) is None
    with pytest.raises(IdentifierError) as caught:
        ARXIV.read(raw)
    assert str(caught.value) == f"not an arXiv identifier: {raw!r}"
    assert arxiv_id_of(raw) is None
