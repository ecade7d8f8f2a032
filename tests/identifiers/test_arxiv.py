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
        ("math.GT/0309136v3", "math.gt/0309136"),
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
