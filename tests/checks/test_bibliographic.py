from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeaudit.checks.bibliographic import (
    VENUE_ALIASES,
    _page_parts,
    _page_range,
    _without_et_al,
    check_authors,
    check_numbers_of_issue,
    check_type,
    check_venue,
)
from citeaudit.checks.codes import FindingMaker
from citeaudit.model import DoiSource
from citeaudit.resolve.interface import Author, Record

MAKE = FindingMaker()
RECORD = Record(
    doi="10.1/x",
    agency="crossref",
    type="journal-article",
    authors=(
        Author("Müller", "Anna"),
        Author("van der Berg", "Jan"),
        Author("Ng", "Li"),
        Author(name="GTEx Consortium"),
    ),
    container=("Frontiers in Ecology and the Environment",),
    short_container=("Frontiers in Ecol &amp; Environ",),
    volume="14",
    issue="7",
    pages="123-130",
)


def codes(findings: list) -> list[str]:  # type: ignore[type-arg]
    return [f.code for f in findings]


@pytest.mark.parametrize(
    ("cited", "expected"),
    [
        (["Müller, A.", "J. van der Berg", "Ng", "GTEx Consortium"], []),
        (["Muller", "et al."], ["W_AUTHORS_TRUNCATED"]),
        (["Müller et al."], ["W_AUTHORS_TRUNCATED"]),
        (["Müller", "Ng"], ["W_AUTHORS_MISSING"]),
        (["Müller", "Ng", "van der Berg", "GTEx Consortium"], ["W_AUTHOR_ORDER"]),
        (["Müller", "Smith", "Ng", "GTEx Consortium"], ["E_AUTHOR_NOT_ON_WORK"]),
    ],
)
def test_author_lists(cited: list[str], expected: list[str]) -> None:
    assert codes(check_authors(cited, RECORD, MAKE)) == expected


@pytest.mark.parametrize(
    "venue",
    [
        "Frontiers in Ecology and the Environment",
        "Frontiers in Ecol & Environ",
        "FRONTIERS IN ECOL. & ENVIRON.",
    ],
)
def test_venue_forms(venue: str) -> None:
    assert check_venue(venue, RECORD, MAKE) == []


def test_venue_codes() -> None:
    assert codes(check_venue("Ecology Letters", RECORD, MAKE)) == ["W_VENUE_MISMATCH"]
    assert codes(check_venue("arXiv preprint arXiv:1606.06565", RECORD, MAKE)) == ["W_VENUE_PREPRINT_SERVER"]
    preprint = Record(doi="10.1/p", agency="crossref", type="posted-content", container=("bioRxiv",))
    assert codes(check_venue("Nature", preprint, MAKE)) == ["E_PREPRINT_AS_PUBLISHED"]
    assert check_venue("bioRxiv", preprint, MAKE) == []


@pytest.mark.parametrize(
    ("pages", "ok"),
    [("123-130", True), ("123–130", True), ("123-30", True), ("pp. 123--130", True), ("123", True), ("124", False),
     ("123-131", False)],
)  # fmt: skip
def test_pages(pages: str, ok: bool) -> None:
    found = check_numbers_of_issue(DoiSource("10.1/x", pages=pages), RECORD, MAKE)
    assert (found == []) is ok


def test_article_numbers_volume_and_issue() -> None:
    record = Record(doi="10.1/y", agency="crossref", volume="7", issue="2", article_number="e123")
    assert (
        check_numbers_of_issue(DoiSource("10.1/y", volume="07", issue="No. 2", pages="e123"), record, MAKE)
        == []
    )
    found = check_numbers_of_issue(DoiSource("10.1/y", volume="8", issue="3", pages="e124"), record, MAKE)
    assert codes(found) == ["E_VOLUME_MISMATCH", "E_ISSUE_MISMATCH", "E_PAGES_MISMATCH"]


def test_kind_of_work() -> None:
    component = Record(doi="10.1/c", agency="crossref", type="component")
    assert codes(check_type("journal-article", component, MAKE)) == ["E_WORK_TYPE_MISMATCH"]
    assert check_type("article", RECORD, MAKE) == []
    assert (
        check_type("inproceedings", Record(doi="10.1/b", agency="crossref", type="book-chapter"), MAKE) == []
    )
    assert codes(check_type("dataset", Record(doi="10.1/t", agency="datacite", type="text"), MAKE)) == [
        "W_METADATA_UNVERIFIABLE"
    ]


# The patterns these replaced: quadratic in a long run of spaces (the et al. one with the word
# boundary it lacked: it cut "etal" off "Zapletal").
_ET_AL_PATTERN = re.compile(r"\s*(?:,\s*)?(?<![^\s,])(?:et\.?\s*al\.?|and\s+others)\s*$", re.IGNORECASE)
_DASH_PATTERN = re.compile(r"\s*(?:-+|–|—|‐|‑|\u2212)\s*")


@settings(max_examples=500)
@given(st.text(alphabet=st.sampled_from(list("Smith ,.\tetal ANDothers")), max_size=30))
def test_dropping_et_al_is_the_pattern_it_replaced(name: str) -> None:
    assert _without_et_al(name) == _ET_AL_PATTERN.sub("", name)


@settings(max_examples=500)
@given(st.text(alphabet=st.sampled_from(list("12eS -–—\u2212\t")), max_size=20))
def test_page_ranges_split_as_the_pattern_did(pages: str) -> None:
    assert _page_parts(pages) == [p.strip() for p in _DASH_PATTERN.split(pages) if p.strip()]


def test_long_runs_of_spaces_in_names_and_pages() -> None:
    assert _without_et_al("Smith" + " " * 100_000 + "x") == "Smith" + " " * 100_000 + "x"
    assert _without_et_al("Smith," + " " * 100_000 + "et al.") == "Smith"
    assert _page_range("12" + " " * 100_000 + "x") == ("12" + " " * 100_000 + "x", None)
    assert _page_range("12" + " " * 100_000 + "-19") == ("12", "19")


ICML = Record(
    doi="10.1/icml",
    agency="crossref",
    type="proceedings-article",
    container=("Proceedings of the 40th International Conference on Machine Learning",),
)
NEURIPS = Record(
    doi="10.1/neurips",
    agency="crossref",
    type="proceedings-article",
    container=("Advances in Neural Information Processing Systems 33",),
)
CVPR = Record(
    doi="10.1/cvpr",
    agency="crossref",
    type="proceedings-article",
    container=("2022 IEEE/CVF Conference on Computer Vision and Pattern Recognition (CVPR)",),
)
JMLR = Record(doi="10.1/jmlr", agency="crossref", container=("Journal of Machine Learning Research",))


@pytest.mark.parametrize(
    ("venue", "record"),
    [
        ("ICML", ICML),
        ("ICML 2023", ICML),
        ("Proc. ICML", ICML),
        ("Proc. of the 40th International Conference on Machine Learning", ICML),
        ("Proc. of the 40th Int. Conf. on Machine Learning", ICML),
        ("NeurIPS", NEURIPS),
        ("NeurIPS 2020", NEURIPS),
        ("NeurIPS'20", NEURIPS),
        ("NIPS", NEURIPS),
        ("Advances in NeurIPS", NEURIPS),
        ("CVPR", CVPR),
        ("Proceedings of CVPR 2022", CVPR),
        ("J. Mach. Learn. Res.", JMLR),
        ("JMLR", JMLR),
    ],
)
def test_venues_by_their_short_names_and_abbreviations(venue: str, record: Record) -> None:
    assert check_venue(venue, record, MAKE) == []


@pytest.mark.parametrize(("venue", "record"), [("ICML", NEURIPS), ("ICLR", ICML)])
def test_two_distinct_known_venues_are_an_error(venue: str, record: Record) -> None:
    (finding,) = check_venue(venue, record, MAKE)
    assert (finding.code, finding.severity) == ("E_VENUE_MISMATCH", "error")
    assert (
        finding.message
        == f"{venue!r} is cited as the venue; the work appeared in {record.container[0]}, another venue"
    )
    assert finding.suggestion == {"container": list(record.container + record.short_container)}


@pytest.mark.parametrize(
    ("venue", "record"),
    [
        ("NeurIPS Workshop on Machine Learning for Health", NEURIPS),
        ("Proc. of the 39th International Conference on Machine Learning", ICML),
        ("J. Mach. Learn.", JMLR),
        ("Journal of Imaginary Results", JMLR),
    ],
)
def test_a_remaining_venue_mismatch_is_a_warning(venue: str, record: Record) -> None:
    (finding,) = check_venue(venue, record, MAKE)
    assert (finding.code, finding.severity) == ("W_VENUE_MISMATCH", "warning")
    assert finding.suggestion == {"container": list(record.container)}


def test_every_alias_names_a_venue_its_full_name_matches() -> None:
    for alias, runs in VENUE_ALIASES.items():
        for run in runs:
            record = Record(doi="10.1/x", agency="crossref", container=(f"Proceedings of the {run.title()}",))
            assert check_venue(alias.upper(), record, MAKE) == [], alias


# -- venues: every correct form agrees, two known venues differ ----------------------------------


@pytest.mark.parametrize(
    ("cited", "names"),
    [
        ("JMLR", ["J. Mach. Learn. Res."]),
        ("Journal of Machine Learning Research", ["J. Mach. Learn. Res."]),
        ("J. Mach. Learn. Res.", ["JMLR"]),
        ("TMLR", ["Trans. Mach. Learn. Res."]),
        ("NeurIPS", ["NIPS"]),
        ("NeurIPS 2017", ["NIPS"]),
        ("arXiv", ["CoRR"]),
        ("arXiv preprint arXiv:1706.03762", ["CoRR"]),
        ("CoRR", ["arXiv"]),
    ],
)
def test_the_forms_dblp_uses_are_the_cited_venue(cited: str, names: list[str]) -> None:
    from citeaudit.checks.bibliographic import venue_agrees

    assert venue_agrees(cited, Record(doi="", agency="dblp", container=tuple(names)))


@pytest.mark.parametrize(
    ("cited", "names", "distinct"),
    [
        ("ICML", ["NeurIPS"], True),
        ("ICML 2020", ["Advances in Neural Information Processing Systems 33"], True),
        ("CVPR", ["ICCV"], True),
        ("NeurIPS", ["NIPS"], False),
        ("ICML", ["ICML Workshop"], False),  # a venue the table does not know: a warning at most
        ("Nature", ["Science"], False),
        ("ACL", ["ACL (Findings)"], False),
    ],
)
def test_two_distinct_known_venues(cited: str, names: list[str], distinct: bool) -> None:
    from citeaudit.checks.bibliographic import distinct_known_venues

    assert distinct_known_venues(cited, Record(doi="", agency="dblp", container=tuple(names))) is distinct
