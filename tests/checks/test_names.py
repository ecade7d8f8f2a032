"""Author names as people write them: "et al." only as a word of its own, generational
suffixes, surname particles and single-name authors, on invented records (the real ones are
in test_names_real.py)."""

from __future__ import annotations

import pytest

from citeaudit.checks.bibliographic import _split_truncation, check_authors
from citeaudit.checks.codes import FindingMaker
from citeaudit.checks.metadata import check_first_author, display_author
from citeaudit.model import Finding
from citeaudit.resolve.arxiv import records_from_atom
from citeaudit.resolve.fields import split_name
from citeaudit.resolve.interface import Author, Record

MAKE = FindingMaker()


def codes(findings: list[Finding]) -> list[str]:
    return [f.code for f in findings]


def record(*authors: Author) -> Record:
    return Record(doi="10.1/names", agency="crossref", authors=authors)


# 10.2478/v10285-012-0019-y as Crossref has it.
ZAPLETAL = record(
    Author(family="Šindlar", given="Miloslav"),
    Author(family="Lohniský", given="Jiří"),
    Author(family="Zapletal", given="Jan"),
    Author(family="Machar", given="Ivo"),
)


@pytest.mark.parametrize(
    "third", ["Jan Zapletal", "J. Zapletal", "Zapletal, Jan", "Zapletal", "Zapletal, J."]
)
def test_a_name_ending_in_etal_is_not_a_truncated_list(third: str) -> None:
    cited = ["Miloslav Šindlar", "Jiří Lohniský", third, "Ivo Machar"]
    assert check_authors(cited, ZAPLETAL, MAKE) == []


@pytest.mark.parametrize(
    "name", ["Chetal", "A. Vetal", "Shetal, R.", "Zapletal", "Bandothers", "Sandothers, K."]
)
def test_no_word_ending_in_etal_or_others_is_read_as_truncation(name: str) -> None:
    assert _split_truncation([name]) == ([name], False)


@pytest.mark.parametrize(
    ("cited", "names"),
    [
        (["Zapletal et al."], ["Zapletal"]),
        (["Zapletal, et al."], ["Zapletal"]),
        (["Zapletal,et al"], ["Zapletal"]),
        (["Zapletal etal"], ["Zapletal"]),
        (["Zapletal and others"], ["Zapletal"]),
        (["Zapletal", "et al."], ["Zapletal"]),
        (["Zapletal", "etal"], ["Zapletal"]),
    ],
)
def test_et_al_as_a_word_of_its_own_still_truncates(cited: list[str], names: list[str]) -> None:
    assert _split_truncation(cited) == (names, True)


SUFFIXED = record(
    Author(family="Smith", given="John"),
    Author(family="Downey", given="Robert"),
    Author(family="Forsyth III", given="Ernest"),
    Author(family="Smith Jr.", given="Adam"),
)


@pytest.mark.parametrize(
    "cited",
    [
        ["John Smith Jr.", "Robert Downey IV", "Forsyth", "Smith"],
        ["Smith Jr., John", "Downey IV, Robert", "Forsyth III, E.", "Smith, Adam"],
        ["J. Smith, Jr.", "R. Downey, IV", "E. Forsyth", "A. Smith"],
        ["Smith, John, Jr.", "Downey, R., IV", "Ernest Forsyth III", "Adam Smith Jr."],
    ],
)
def test_generational_suffixes_on_either_side(cited: list[str]) -> None:
    assert check_authors(cited, SUFFIXED, MAKE) == []
    assert check_first_author(cited[0], SUFFIXED, MAKE) == []


PARTICLES = record(
    Author(family="Van Bavel", given="Jay J."),
    Author(family="Del Vicario", given="Michela"),
    Author(family="Bavel", given="Jay J. Van"),  # a record that left the particle with the given names
    Author(family="van Beethoven", given="Ludwig"),
)


@pytest.mark.parametrize(
    "cited",
    [
        ["Van Bavel, J.", "Del Vicario, M.", "Van Bavel, J. J.", "van Beethoven, L."],
        ["Jay J. Van Bavel", "Michela Del Vicario", "Jay J. Van Bavel", "Ludwig van Beethoven"],
        ["J. J. Van Bavel", "M. Del Vicario", "J. Van Bavel", "L. van Beethoven"],
        ["Bavel, Jay J. Van", "Vicario, Michela Del", "Bavel, J.", "Beethoven, Ludwig van"],
    ],
)
def test_surname_particles(cited: list[str]) -> None:
    assert check_authors(cited, PARTICLES, MAKE) == []


@pytest.mark.parametrize("family", ["-", ".", "—", None])
@pytest.mark.parametrize("cited", ["Suharto", "S. Suharto", "Suharto, "])
def test_single_name_authors(family: str | None, cited: str) -> None:
    work = record(
        Author(family=family, given="Suharto", sequence="first"), Author(family="Smith", given="J.")
    )
    assert check_first_author(cited, work, MAKE) == []
    assert check_authors([cited, "Smith"], work, MAKE) == []
    assert display_author(work.authors[0]) == "Suharto"


def test_a_single_name_author_with_a_full_name_in_given() -> None:
    work = record(Author(family="-", given="Jan Novák"))
    for cited in ("Jan Novák", "Novák, J.", "J. Novak"):
        assert check_first_author(cited, work, MAKE) == []


@pytest.mark.parametrize(
    "cited",
    ["Zzyzxwvutsky", "Smith", "Bavel", "Jr.", "Van", "John Jr."],
)
def test_strangers_stay_strangers(cited: str) -> None:
    work = record(Author(family="Jones", given="John"), Author(family="Del Vicario", given="Michela"))
    assert codes(check_first_author(cited, work, MAKE)) == ["E_AUTHOR_MISMATCH"]


@pytest.mark.parametrize(
    ("full", "given", "family"),
    [
        ("Jay J. Van Bavel", "Jay J.", "Van Bavel"),
        ("Michela Del Vicario", "Michela", "Del Vicario"),
        ("Juan de la Cruz", "Juan", "de la Cruz"),
        ("Laura J. van 't Veer", "Laura J.", "van 't Veer"),
        ("John Smith Jr.", "John", "Smith Jr."),
        ("Robert Downey IV", "Robert", "Downey IV"),
        ("Yoshua Bengio", "Yoshua", "Bengio"),
        ("Van Nguyen", "Van", "Nguyen"),
        ("Madonna", None, "Madonna"),
    ],
)
def test_names_in_one_string_split_at_the_family_name(full: str, given: str | None, family: str) -> None:
    assert split_name(full) == (given, family)


ATOM = b"""<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <entry>
    <id>http://arxiv.org/abs/2010.01234v1</id>
    <published>2020-10-02T00:00:00Z</published>
    <title>Moral contagion online</title>
    <author><name>Jay J. Van Bavel</name></author>
    <author><name>Michela Del Vicario</name></author>
    <author><name>John Smith Jr.</name></author>
  </entry>
</feed>"""


def test_arxiv_names_keep_their_particles() -> None:
    work = records_from_atom(ATOM)["2010.01234"]
    assert [(a.given, a.family) for a in work.authors] == [
        ("Jay J.", "Van Bavel"),
        ("Michela", "Del Vicario"),
        ("John", "Smith Jr."),
    ]
    assert check_authors(["Van Bavel, J.", "Del Vicario, M.", "Smith, J."], work, MAKE) == []


@pytest.mark.parametrize("cited", ["Mallikarjun B. R.", "Mallikarjun B R", "R., Mallikarjun B."])
def test_a_family_name_of_initials(cited: str) -> None:
    """DBLP's and Crossref's "Mallikarjun B. R.": the family name is "R."."""
    work = record(Author(family="R.", given="Mallikarjun B."), Author(family="Tewari", given="Ayush"))
    assert check_first_author(cited, work, MAKE) == []


@pytest.mark.parametrize(
    "cited", ["Van Bavel et al.", "J. J. Van Bavel et al", "Van Bavel, J., et al.", "Zapletal"]
)
def test_a_first_author_written_with_et_al(cited: str) -> None:
    work = record(Author(family="Van Bavel", given="Jay J."), Author(family="Zapletal", given="Jan"))
    expected = ["W_AUTHOR_NOT_FIRST"] if cited == "Zapletal" else []
    assert codes(check_first_author(cited, work, MAKE)) == expected
