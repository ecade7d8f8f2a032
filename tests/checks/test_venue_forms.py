"""Venues as people and tools write them: every correct form of a venue agrees with the record's
name (short names, ISO 4 abbreviations of the LTWA, Google Scholar's ``@article`` for a proceedings
paper), two distinct known venues are ``E_VENUE_MISMATCH``, any other difference a warning."""

from __future__ import annotations

import pytest

from citeaudit.checks import iso4
from citeaudit.checks.bibliographic import check_venue, check_work, venue_agrees
from citeaudit.checks.codes import FindingMaker
from citeaudit.model import DoiSource
from citeaudit.resolve.interface import Record

MAKE = FindingMaker()
needs_ltwa = pytest.mark.skipif(
    not iso4.available(), reason="the LTWA ships in the bibiso4 package, which is not installed here"
)


def _record(*names: str, kind: str = "journal-article") -> Record:
    return Record(doi="10.1/x", agency="dblp", type=kind, container=names)


def _codes(cited: str, record: Record) -> list[str]:
    return [f.code for f in check_venue(cited, record, MAKE)]


# -- the ways people write a venue the registry names otherwise ------------------------------------

NEURIPS_FULL = (
    "Advances in Neural Information Processing Systems 33: Annual Conference on Neural Information "
    "Processing Systems 2020"
)
ACL_FULL = "Proceedings of the 58th Annual Meeting of the Association for Computational Linguistics"


@pytest.mark.parametrize(
    ("cited", "names"),
    [
        ("NeurIPS", [NEURIPS_FULL]),
        ("NIPS", [NEURIPS_FULL]),
        ("Advances in Neural Information Processing Systems", ["NeurIPS"]),
        ("Advances in neural information processing systems", ["NIPS"]),  # Google Scholar's case
        ("Proc. NeurIPS 2020", ["NeurIPS"]),
        ("JMLR", ["J. Mach. Learn. Res."]),
        ("Journal of Machine Learning Research", ["J. Mach. Learn. Res."]),
        ("J. Mach. Learn. Res.", ["Journal of Machine Learning Research"]),
        ("Machine Learning", ["Mach. Learn."]),
        ("arXiv", ["CoRR"]),
        ("arXiv preprint arXiv:1810.04805", ["CoRR"]),
        ("ArXiv", ["CoRR"]),
        ("ACL", [ACL_FULL]),
        ("Annual Meeting of the Association for Computational Linguistics", ["ACL"]),
        ("ACL 2020", ["ACL (1)"]),
        ("Proceedings of the 37th International Conference on Machine Learning", ["ICML"]),
        ("International Conference on Learning Representations", ["ICLR"]),
        ("Proceedings of the IEEE/CVF Conference on Computer Vision and Pattern Recognition", ["CVPR"]),
        ("Proceedings of the AAAI Conference on Artificial Intelligence", ["AAAI"]),
        ("Proc. of the 39th Int. Conf. on Machine Learning", ["ICML"]),  # the full name abbreviated
        ("Trans. Mach. Learn. Res.", ["TMLR"]),
        ("TMLR", ["Transactions on Machine Learning Research"]),
    ],
)
def test_every_correct_form_of_a_venue_agrees(cited: str, names: list[str]) -> None:
    record = _record(*names)
    assert venue_agrees(cited, record)
    assert check_venue(cited, record, MAKE) == []


@pytest.mark.parametrize(
    ("cited", "names"),
    [
        ("ICML", ["NeurIPS"]),
        ("ICML 2020", [NEURIPS_FULL]),
        ("International Conference on Machine Learning", ["ICLR"]),
        ("EMNLP", [ACL_FULL]),
        ("CVPR", ["ICCV"]),
        ("AAAI", ["IJCAI"]),
        ("ICML", ["Trans. Mach. Learn. Res."]),  # DBLP's abbreviation of a known venue's full name
        ("Proc. of the 39th Int. Conf. on Machine Learning", ["NeurIPS"]),
    ],
)
def test_two_distinct_known_venues_are_an_error(cited: str, names: list[str]) -> None:
    assert _codes(cited, _record(*names)) == ["E_VENUE_MISMATCH"]


@pytest.mark.parametrize(
    ("cited", "names"),
    [
        ("Journal of Neural Architecture and Optimization", ["J. Mach. Learn. Res."]),  # no such journal
        ("NeurIPS Workshop on Machine Learning for Health", ["NeurIPS"]),  # a workshop, not the conference
        ("Nature Communications", ["Nat."]),  # two journals, neither in the alias table
        ("Science", ["Sci. Rep."]),
        ("Conf. on Learning", ["ICLR"]),  # informal: too little to tell
    ],
)
def test_an_unknown_or_informal_form_is_a_warning(cited: str, names: list[str]) -> None:
    assert _codes(cited, _record(*names)) == ["W_VENUE_MISMATCH"]


# -- ISO 4: the LTWA's abbreviations ----------------------------------------------------------------


@needs_ltwa
@pytest.mark.parametrize(
    ("cited", "names"),
    [
        ("Nature", ["Nat."]),  # DBLP's name of Nature: a one-word title and its LTWA abbreviation
        ("Nat.", ["Nature"]),
        ("Nat. Commun.", ["Nature Communications"]),
        ("Proc. Natl. Acad. Sci.", ["Proceedings of the National Academy of Sciences"]),  # natl: no prefix
        ("Jpn. J. Appl. Phys.", ["Japanese Journal of Applied Physics"]),
        ("Proceedings of the National Academy of Sciences", ["Proc. Natl. Acad. Sci."]),
    ],
)
def test_iso4_abbreviations_agree(cited: str, names: list[str]) -> None:
    assert check_venue(cited, _record(*names), MAKE) == []


@needs_ltwa
def test_the_ltwa_words() -> None:
    assert [iso4.abbreviation(w) for w in ("Nature", "National", "Japan", "Systems", "Neural", "Über")] == [
        "nat",
        "natl",
        "jpn",
        "syst",
        "neural",  # the LTWA leaves it whole
        None,  # no entry
    ]
    assert iso4.abbreviation("") is None


@needs_ltwa
@pytest.mark.parametrize(
    ("cited", "names"), [("Nat.", ["Science"]), ("Sci.", ["Nature"]), ("Natl.", ["Nature"])]
)
def test_a_one_word_abbreviation_is_only_its_own_word(cited: str, names: list[str]) -> None:
    assert _codes(cited, _record(*names)) == ["W_VENUE_MISMATCH"]


def test_without_the_ltwa_the_starts_of_words_still_agree() -> None:
    """What holds whether or not the LTWA is installed: an abbreviation made of word starts."""
    assert check_venue("Proc. Natl. Acad. Sci.", _record("Proc. Natl. Acad. Sci."), MAKE) == []
    assert check_venue("J. Mach. Learn. Res.", _record("Journal of Machine Learning Research"), MAKE) == []


# -- Google Scholar: a proceedings paper exported as an article of its proceedings' series ---------


def _source(container: str, kind: str) -> DoiSource:
    return DoiSource("10.1/x", container=container, type=kind)


def test_an_article_in_its_proceedings_series_is_not_a_type_error() -> None:
    """``@article{vaswani2017attention, journal={Advances in neural information processing
    systems}, volume={30}}``, as Google Scholar exports a NeurIPS paper."""
    record = _record("NIPS", kind="proceedings-article")
    source = _source("Advances in neural information processing systems", "journal-article")
    assert check_work(source, record, MAKE) == []


def test_an_article_in_another_venue_is_still_a_type_error() -> None:
    record = _record("NIPS", kind="proceedings-article")
    findings = check_work(_source("Journal of Machine Learning Research", "journal-article"), record, MAKE)
    assert [f.code for f in findings] == ["E_VENUE_MISMATCH", "E_WORK_TYPE_MISMATCH"]
