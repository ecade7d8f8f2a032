from __future__ import annotations

import pytest

from citeaudit.checks.codes import FindingMaker
from citeaudit.checks.metadata import check_first_author, check_title, check_year
from citeaudit.model import Finding
from citeaudit.resolve.interface import Author, Record

MAKE = FindingMaker()

RECORD = Record(
    doi="10.1/x",
    agency="crossref",
    titles=("After the games are over: life\u2010history trade\u2010offs <i>drive</i> dispersal",),
    subtitles=("A model &amp; its limits",),
    years=(("issued", 2016), ("published-online", 2016), ("published-print", 2017)),
    authors=(
        Author(family="Müller-Schmidt", given="Anna", sequence="first"),
        Author(family="van der Berg", given="Jan", sequence="additional"),
        Author(name="GTEx Consortium", sequence="additional"),
    ),
)


def codes(findings: list[Finding]) -> list[str]:
    return [f.code for f in findings]


@pytest.mark.parametrize(
    "title",
    [
        "After the games are over: life-history trade-offs drive dispersal",
        "AFTER THE GAMES ARE OVER: LIFE‑HISTORY TRADE–OFFS DRIVE DISPERSAL.",
        "After the games are over: life-history trade-offs drive dispersal: A model & its limits",
        "After the games are over: life-history trade-offs drive dispersal - a model & its limits",
    ],
)
def test_title_matches(title: str) -> None:
    assert check_title(title, RECORD, MAKE) == []


def test_title_mismatch_suggests_the_registry_title() -> None:
    (f,) = check_title("After the games are over: life-history trade-offs drive migration", RECORD, MAKE)
    assert f.code == "E_TITLE_MISMATCH"
    assert f.suggestion is not None
    assert f.suggestion["title"] == (
        "After the games are over: life\u2010history trade\u2010offs drive dispersal: A model & its limits"
    )
    assert 0.8 < f.suggestion["similarity"] < 1


def test_title_without_separator_before_subtitle_is_a_mismatch() -> None:
    title = "After the games are over: life-history trade-offs drive dispersala model & its limits"
    assert codes(check_title(title, RECORD, MAKE)) == ["E_TITLE_MISMATCH"]


@pytest.mark.parametrize("year", [2016, 2017])
def test_any_published_year_matches(year: int) -> None:
    assert check_year(year, RECORD, MAKE) == []


def test_year_mismatch_lists_the_years() -> None:
    (f,) = check_year(2015, RECORD, MAKE)
    assert f.code == "E_YEAR_MISMATCH"
    assert f.message == "2015 is not a year of the work (the record has 2016, 2017)"


@pytest.mark.parametrize(
    "name",
    ["Müller-Schmidt", "Muller-Schmidt", "Müller‐Schmidt, A.", "A. Müller-Schmidt", "Anna Muller Schmidt"],
)
def test_first_author_forms(name: str) -> None:
    assert check_first_author(name, RECORD, MAKE) == []


@pytest.mark.parametrize("name", ["J. van der Berg", "van der Berg, J.", "GTEx Consortium"])
def test_coauthor_named_first_is_a_warning(name: str) -> None:
    assert codes(check_first_author(name, RECORD, MAKE)) == ["W_AUTHOR_NOT_FIRST"]


def test_stranger_is_an_error() -> None:
    (f,) = check_first_author("Sidorov", RECORD, MAKE)
    assert f.code == "E_AUTHOR_MISMATCH"
    assert f.suggestion == {"first_author": "Müller-Schmidt, Anna"}


def test_organisation_as_first_author() -> None:
    record = Record(
        doi="10.1/y", agency="crossref", authors=(Author(name="GTEx Consortium", sequence="first"),)
    )
    assert check_first_author("GTEx Consortium", record, MAKE) == []


def test_missing_fields_are_unverifiable_not_wrong() -> None:
    empty = Record(doi="10.1/z", agency="crossref")
    for findings in (
        check_title("t", empty, MAKE),
        check_year(2020, empty, MAKE),
        check_first_author("x", empty, MAKE),
    ):
        assert codes(findings) == ["W_METADATA_UNVERIFIABLE"]


def test_retraction_correction_and_published_preprint() -> None:
    from citeaudit.checks.metadata import check_relations
    from citeaudit.resolve.interface import Relation

    record = Record(
        doi="10.1/x",
        agency="crossref",
        relations=(
            Relation("updated-by", "retraction", "10.1/x-retraction"),
            Relation("updated-by", "correction", "10.1/x-erratum"),
            Relation("updated-by", "new_version", "10.1/x"),  # a work listed as its own update: ignored
            Relation("is-preprint-of", None, "10.1/published"),
        ),
    )
    found = [(f.code, f.message) for f in check_relations(record, MAKE)]
    assert found == [
        ("E_RETRACTED", "the cited work is subject to a retraction by 10.1/x-retraction"),
        ("W_UPDATED", "the cited work has a correction by 10.1/x-erratum"),
        ("W_PREPRINT_PUBLISHED", "the cited work is a preprint, published as 10.1/published"),
    ]


FOLDED = Record(
    doi="10.1/folded",
    agency="crossref",
    titles=("Café society: GPT-4 and the (re)making of U.S. science – a study",),
    subtitles=("Part 2.5",),
)


@pytest.mark.parametrize(
    "title",
    [
        "Cafe society: GPT-4 and the (re)making of U.S. science – a study",
        "Café society: GPT4 and the remaking of US science -- a study",
        "CAFÉ SOCIETY -- GPT-4 AND THE (RE)MAKING OF U.S. SCIENCE: A STUDY.",
        "Cafe society, GPT 4 and the (re)making of U.S. science; a study",
        "Café society: GPT-4 and the (re)making of U.S. science – a study — Part 2.5",
    ],
)
def test_titles_differing_only_by_diacritics_hyphens_and_punctuation_match(title: str) -> None:
    if "GPT 4" in title:  # a space is a word boundary: not folded
        assert codes(check_title(title, FOLDED, MAKE)) == ["E_TITLE_MISMATCH"]
    else:
        assert check_title(title, FOLDED, MAKE) == []


@pytest.mark.parametrize(
    "title",
    [
        "Café society: GPT-3 and the (re)making of U.S. science – a study",
        "Café society: GPT-4 and the making of U.S. science – a study",
        "Cafés society: GPT-4 and the (re)making of U.S. science – a study",
        "Café society: GPT-4 and the (re)making of U.S. science – a study — Part 25",
        "Café societyGPT-4 and the (re)making of U.S. science – a study",
    ],
)
def test_folding_keeps_letters_digits_and_word_boundaries(title: str) -> None:
    assert codes(check_title(title, FOLDED, MAKE)) == ["E_TITLE_MISMATCH"]


@pytest.mark.parametrize(("ours", "theirs"), [("мой", "мои"), ("カ", "ガ"), ("C++", "C"), ("C#", "C")])
def test_marks_that_make_other_letters_are_not_folded(ours: str, theirs: str) -> None:
    record = Record(doi="10.1/t", agency="crossref", titles=(f"Title {theirs}",))
    assert codes(check_title(f"Title {ours}", record, MAKE)) == ["E_TITLE_MISMATCH"]


@pytest.mark.parametrize(
    ("title", "characters"),
    [
        ("\u202eerawtfos ni sgub", ["U+202E"]),
        ("After the games are over\u2066\u2069", ["U+2066", "U+2069"]),
        ("Demo\ufe0f Paper", ["U+FE0F"]),
        ("Demo Paper\U000e0100", ["U+E0100"]),
    ],
)
def test_display_controls_in_a_title_are_a_finding_of_their_own(title: str, characters: list[str]) -> None:
    record = Record(doi="10.1/c", agency="crossref", titles=(title.replace("\u202e", ""),))
    found = check_title(title, record, MAKE)
    assert found[0].code == "W_DISPLAY_CONTROLS"
    assert found[0].suggestion == {"characters": characters}
    assert found[0].message == f"the cited title holds {', '.join(characters)}, which change how it displays"
    # An override reverses the display, not the text: the reversed title is not the registry's.
    reversed_display = Record(doi="10.1/c", agency="crossref", titles=("bugs in software",))
    if title.startswith("\u202e"):
        assert codes(check_title(title, reversed_display, MAKE)) == ["W_DISPLAY_CONTROLS", "E_TITLE_MISMATCH"]
