"""The match rule of references without an identifier, against the ways people write them."""

from __future__ import annotations

import pytest

from citeaudit.checks.matching import TITLE_MATCH, MatchStatus, is_enough, match_work, score
from citeaudit.resolve.indexes.interface import Candidate, WorkQuery
from citeaudit.resolve.interface import Author, Record

VASWANI = Record(
    doi="",
    agency="dblp",
    titles=("Attention is All you Need",),
    years=(("issued", 2017),),
    authors=(Author("Vaswani", "Ashish"), Author("Shazeer", "Noam"), Author("Parmar", "Niki")),
    type="proceedings-article",
    container=("NIPS",),
)


def _candidate(
    record: Record, index: str = "mirror:dblp", key: str = "conf/nips/VaswaniSPUJGKP17"
) -> Candidate:
    return Candidate(index, key, record)


def _record(title: str, year: int, *families: str, doi: str = "") -> Record:
    return Record(doi=doi, agency="dblp", titles=(title,), years=(("issued", year),),
                  authors=tuple(Author(f, "A.") for f in families))  # fmt: skip


@pytest.mark.parametrize(
    ("title", "author", "year"),
    [
        ("Attention Is All You Need", "Vaswani", 2017),
        ("Attention is all you need.", "Vaswani, A.", 2017),
        ("ATTENTION IS ALL YOU NEED", "A. Vaswani", None),
        ("Attention Is All You Need", None, 2018),  # the proceedings a year after the preprint
        ("Attention—is all you need!", "Ashish Vaswani", 2016),
        ("Attention Is All You Need", None, None),  # nothing else to compare: the title alone
        ("Attention Is All You Need", "Shazeer", 2017),  # an author, not the first: still the work
    ],
)
def test_the_ways_people_write_a_reference_match_its_record(
    title: str, author: str | None, year: int | None
) -> None:
    match = match_work(WorkQuery(title, author, year), [_candidate(VASWANI)])
    assert match.status is MatchStatus.MATCHED
    assert match.best is not None
    assert match.best.candidate.key == "conf/nips/VaswaniSPUJGKP17"


@pytest.mark.parametrize(
    ("title", "author", "year"),
    [
        ("Attention Is All You Need", "Smith", 2012),  # the title, but neither author nor year agrees
        ("Attention Is Not All You Need for Vision", "Vaswani", 2017),  # another title
        ("Structured fast fourier transform attention for vision transformers", "Lee", 2022),
    ],
)
def test_a_reference_whose_title_is_not_with_its_author_or_year_is_not_found(
    title: str, author: str, year: int
) -> None:
    match = match_work(WorkQuery(title, author, year), [_candidate(VASWANI)])
    assert match.status is MatchStatus.NOT_FOUND
    assert not is_enough(WorkQuery(title, author, year), [_candidate(VASWANI)])


def test_the_nearest_title_is_named_when_nothing_matches() -> None:
    match = match_work(WorkQuery("Attention Is All You Need", "Smith", 2012), [_candidate(VASWANI)])
    assert match.nearest is not None
    assert match.nearest.title == 1.0
    assert (
        match_work(WorkQuery("Protein folding at scale", "Smith", 2012), [_candidate(VASWANI)]).nearest
        is None
    )


def test_particles_and_suffixes_in_the_first_author_agree() -> None:
    record = _record("Cognitive bias in peer review", 2019, "van der Berg", "Smith Jr.")
    for author in ("van der Berg, J.", "J. van der Berg", "Berg", "Smith, Jr., John", "John Smith Jr."):
        match = match_work(WorkQuery("Cognitive Bias in Peer Review", author, 2030), [_candidate(record)])
        assert match.status is MatchStatus.MATCHED, author


def test_a_near_miss_title_is_below_the_threshold() -> None:
    near = score(WorkQuery("Attention Is All You Want", "Vaswani", 2017), _candidate(VASWANI))
    assert near.title < TITLE_MATCH


def test_two_different_works_with_the_title_are_ambiguous_without_an_author() -> None:
    a = _candidate(
        _record("Deep learning", 2015, "LeCun", "Bengio", "Hinton"), key="journals/nature/LeCunBH15"
    )
    b = _candidate(
        _record("Deep Learning", 2015, "Goodfellow", "Courville"), key="books/daglib/GoodfellowBC16"
    )
    match = match_work(WorkQuery("Deep Learning", None, 2015), [a, b])
    assert match.status is MatchStatus.AMBIGUOUS
    assert [r.candidate.key for r in match.rivals] == [
        "journals/nature/LeCunBH15",
        "books/daglib/GoodfellowBC16",
    ]
    # The author settles it.
    settled = match_work(WorkQuery("Deep Learning", "LeCun, Y.", 2015), [a, b])
    assert settled.status is MatchStatus.MATCHED
    assert settled.best is not None
    assert settled.best.candidate.key == "journals/nature/LeCunBH15"


def test_one_work_in_two_indexes_is_not_ambiguous_and_the_record_with_a_doi_is_the_fix() -> None:
    dblp = _candidate(
        _record("BERT: Pre-training of Deep Bidirectional Transformers", 2019, "Devlin", "Chang")
    )
    crossref = _candidate(
        _record(
            "BERT: Pre-training of Deep Bidirectional Transformers",
            2019,
            "Devlin",
            doi="10.18653/v1/n19-1423",
        ),
        index="crossref",
        key="10.18653/v1/n19-1423",
    )
    match = match_work(
        WorkQuery("BERT: Pre-training of Deep Bidirectional Transformers", "Devlin", 2019), [dblp, crossref]
    )
    assert match.status is MatchStatus.MATCHED
    assert match.best is not None
    assert match.best.candidate.record.doi == "10.18653/v1/n19-1423"


def test_the_exact_year_wins_over_a_year_apart() -> None:
    preprint = _candidate(
        _record("Language Models are Few-Shot Learners", 2020, "Brown"), key="journals/corr/abs-2005-14165"
    )
    paper = _candidate(
        _record("Language Models are Few-Shot Learners", 2021, "Brown"), key="conf/nips/BrownMRSKDNSSAA20"
    )
    match = match_work(WorkQuery("Language models are few-shot learners", "Brown", 2021), [preprint, paper])
    assert match.best is not None
    assert match.best.candidate.key == "conf/nips/BrownMRSKDNSSAA20"


def test_the_rule_is_independent_of_the_order_of_equal_candidates() -> None:
    a = _candidate(_record("Graph attention networks", 2018, "Velickovic"), key="a")
    b = _candidate(_record("Graph attention networks", 2018, "Velickovic"), key="b")
    query = WorkQuery("Graph Attention Networks", "Veličković", 2018)
    first = match_work(query, [a, b])
    again = match_work(query, [a, b])
    assert first == again
    assert first.status is MatchStatus.MATCHED
