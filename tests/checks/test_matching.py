"""The match rule of references without an identifier, against the ways people write them."""

from __future__ import annotations

from dataclasses import replace

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


# -- records of one work: DBLP's proceedings record and its CoRR copy ------------------------------

_CORR = Record(
    doi="10.48550/arxiv.1706.03762",
    agency="dblp",
    titles=("Attention Is All You Need",),
    years=(("issued", 2017),),
    authors=VASWANI.authors,
    type="posted-content",
    container=("CoRR",),
)


def _copies(published_year: int = 2017, preprint_year: int = 2017) -> list[Candidate]:
    # As a DBLP search answers: the CoRR copy (with arXiv's DOI) first, the proceedings record after.
    corr = Candidate(
        "mirror:dblp", "journals/corr/VaswaniSPUJGKP17", replace(_CORR, years=(("issued", preprint_year),))
    )
    nips = Candidate(
        "mirror:dblp", "conf/nips/VaswaniSPUJGKP17", replace(VASWANI, years=(("issued", published_year),))
    )
    return [corr, nips]


@pytest.mark.parametrize(
    ("container", "kind", "year", "chosen"),
    [
        ("Advances in Neural Information Processing Systems", "proceedings-article", 2017, "conf/nips"),
        ("NeurIPS", None, 2017, "conf/nips"),
        (None, None, 2017, "conf/nips"),  # nothing says which: the published version
        (None, None, None, "conf/nips"),
        ("arXiv", "article", 2017, "journals/corr"),  # Semantic Scholar's journal = {ArXiv}
        ("CoRR", None, 2017, "journals/corr"),
        (None, "posted-content", 2017, "journals/corr"),
        ("ICML", None, 2017, "conf/nips"),  # a venue of neither: compared with the published version
    ],
)
def test_a_preprint_copy_is_no_rival_and_the_record_that_fits_the_citation_is_chosen(
    container: str | None, kind: str | None, year: int | None, chosen: str
) -> None:
    query = WorkQuery("Attention Is All You Need", "Vaswani", year)
    match = match_work(query, _copies(), container=container, kind=kind)
    assert match.status is MatchStatus.MATCHED
    assert match.best is not None
    assert match.best.candidate.key.startswith(chosen)
    assert [r.candidate.key.split("/")[1] for r in match.related] != [chosen.split("/")[1]]
    assert len(match.related) == 1


def test_a_venue_cited_with_the_preprint_year_is_compared_with_the_published_version() -> None:
    query = WorkQuery("Attention Is All You Need", "Vaswani", 2017)
    copies = _copies(published_year=2018, preprint_year=2017)
    match = match_work(query, copies, container="NeurIPS")
    assert match.best is not None
    assert match.best.candidate.key == "conf/nips/VaswaniSPUJGKP17"  # its year, 2018, is then wrong
    assert match.related[0].candidate.record.year_values == (2017,)
    # Without a venue the year says which: the preprint of 2017.
    alone = match_work(query, copies)
    assert alone.best is not None
    assert alone.best.candidate.key == "journals/corr/VaswaniSPUJGKP17"


def test_a_preprint_years_before_its_paper_is_still_the_same_work() -> None:
    match = match_work(WorkQuery("Attention Is All You Need", "Vaswani"), _copies(2019, 2016))
    assert match.status is MatchStatus.MATCHED
    assert match.best is not None
    assert match.best.candidate.key == "conf/nips/VaswaniSPUJGKP17"


def test_with_no_published_version_the_preprint_is_the_work() -> None:
    (corr, _) = _copies()
    match = match_work(WorkQuery("Attention Is All You Need", "Vaswani", 2017), [corr], container="NeurIPS")
    assert match.best is not None
    assert match.best.candidate.key == "journals/corr/VaswaniSPUJGKP17"
    assert match.related == ()


def test_the_checks_of_the_chosen_record_say_what_is_wrong() -> None:
    from citeaudit.checks.bibliographic import check_venue
    from citeaudit.checks.codes import FindingMaker
    from citeaudit.checks.metadata import check_year

    make = FindingMaker()
    query = WorkQuery("Attention Is All You Need", "Vaswani", 2017)
    match = match_work(query, _copies(published_year=2018), container="NeurIPS")
    assert match.best is not None
    record = match.best.candidate.record
    assert check_venue("NeurIPS", record, make) == []  # not "the work is a preprint"
    (year,) = check_year(2017, record, make, [r.candidate.record for r in match.related])
    assert year.code == "E_YEAR_MISMATCH"
    assert year.message == (
        "2017 is the year of another version of the work (CoRR, 10.48550/arxiv.1706.03762), "
        "not of the one cited (the record has 2018)"
    )


# -- titles and names as people write them -------------------------------------------------


@pytest.mark.parametrize(
    ("cited", "registry"),
    [
        ("Sparse $\\ell_1$-regularized regression", "Sparse ℓ<sub>1</sub>-regularized regression."),
        ("Co$^2$L: Contrastive Continual Learning", "Co<sup>2</sup>L: Contrastive Continual Learning."),
        ("Augmenting Online Algorithms with $\\varepsilon$-Accurate Predictions",
         "Augmenting Online Algorithms with ε-Accurate Predictions."),
        ("An $\\epsilon$-greedy exploration bound", "An ε-greedy exploration bound"),
        ("Regret of $\\mathcal{O}(\\sqrt{T})$ for bandits", "Regret of O(√(T)) for bandits"),
    ],
)  # fmt: skip
def test_latex_math_in_a_cited_title_is_the_registrys_unicode(cited: str, registry: str) -> None:
    from citeaudit.checks.codes import FindingMaker
    from citeaudit.checks.metadata import check_title

    record = _record(registry, 2021, "Cha")
    match = match_work(WorkQuery(cited, "Cha", 2021), [_candidate(record)])
    assert match.status is MatchStatus.MATCHED
    assert match.best is not None
    assert match.best.title == 1.0
    assert check_title(cited, record, FindingMaker()) == []


def test_a_transliterated_umlaut_is_the_name() -> None:
    record = _record("Kernel methods in machine learning", 2008, "Hofmann", "Schölkopf", "Smola")
    record = replace(record, authors=(Author("Schölkopf", "Bernhard"), *record.authors))
    match = match_work(
        WorkQuery("Kernel methods in machine learning", "Schoelkopf, B.", 2010), [_candidate(record)]
    )
    assert match.status is MatchStatus.MATCHED  # the author agrees, though the year does not
    assert match.best is not None
    assert match.best.author is True


_HYPERBAND = "Hyperband: A Novel Bandit-Based Approach to Hyperparameter Optimization"


@pytest.mark.parametrize(
    ("record", "cited"),
    [
        (_record(_HYPERBAND, 2017, "Li", "Jamieson"), "Hyperband"),  # DBLP: one title
        (replace(_record("Hyperband", 2017, "Li", "Jamieson"),
                 subtitles=("A Novel Bandit-Based Approach to Hyperparameter Optimization",)), "Hyperband"),
        (replace(_record("Hyperband", 2017, "Li", "Jamieson"),
                 subtitles=("A Novel Bandit-Based Approach to Hyperparameter Optimization",)), _HYPERBAND),
        (_record("BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding", 2019,
                 "Devlin", "Chang"), "BERT"),
    ],
)  # fmt: skip
def test_a_short_title_or_a_title_with_its_subtitle_is_the_work(record: Record, cited: str) -> None:
    from citeaudit.checks.codes import FindingMaker
    from citeaudit.checks.metadata import check_title

    author = record.authors[0].family
    year = record.year_values[0]
    match = match_work(WorkQuery(cited, author, year), [_candidate(record)])
    assert match.status is MatchStatus.MATCHED
    assert check_title(cited, record, FindingMaker()) == []
    # A short title alone says too little: with the author but not the year, not the work.
    if ":" in record.titles[0]:
        alone = match_work(WorkQuery(cited, author, None), [_candidate(record)])
        assert alone.status is MatchStatus.NOT_FOUND
        wrong_year = match_work(WorkQuery(cited, author, year + 3), [_candidate(record)])
        assert wrong_year.status is MatchStatus.NOT_FOUND
        stranger = match_work(WorkQuery(cited, "Smith", year), [_candidate(record)])
        assert stranger.status is MatchStatus.NOT_FOUND


def test_a_title_that_only_begins_like_the_record_is_not_a_short_title() -> None:
    record = _record(_HYPERBAND, 2017, "Li", "Jamieson")
    match = match_work(WorkQuery("Hyperband search", "Li", 2017), [_candidate(record)])
    assert match.status is MatchStatus.NOT_FOUND


# -- a title a word off, with its author and year: the work, with a title mismatch -------------


@pytest.mark.parametrize(
    "cited",
    [
        "Attention Is All You Want",  # a word replaced
        "Attention Is All You Need Today",  # a word added
        "Attention Is All Need",  # a word dropped
    ],
)
def test_a_title_a_word_off_with_its_author_and_year_is_the_work_with_a_title_mismatch(cited: str) -> None:
    from citeaudit.checks.codes import FindingMaker
    from citeaudit.checks.metadata import check_title

    match = match_work(WorkQuery(cited, "Vaswani", 2017), [_candidate(VASWANI)])
    assert match.status is MatchStatus.MATCHED
    assert match.best is not None
    (finding,) = check_title(cited, match.best.candidate.record, FindingMaker())
    assert finding.code == "E_TITLE_MISMATCH"
    assert finding.suggestion is not None
    assert finding.suggestion["title"] == "Attention is All you Need"
    # Without the author, or without the year, a title this far off is no match: the nearest record.
    for query in (
        ()
        if match.best.title >= TITLE_MATCH
        else (
            WorkQuery(cited, None, 2017),
            WorkQuery(cited, "Vaswani", None),
            WorkQuery(cited, "Smith", 2017),
        )
    ):
        other = match_work(query, [_candidate(VASWANI)])
        assert other.status is MatchStatus.NOT_FOUND
        assert other.nearest is not None


def test_the_exact_title_beats_a_title_a_word_off_and_a_near_one_does_not_stop_the_search() -> None:
    exact = _record("Attention Is All You Want", 2018, "Vaswani")
    near = _record("Attention Is All You Need", 2017, "Vaswani")
    query = WorkQuery("Attention Is All You Want", "Vaswani", 2017)
    match = match_work(query, [_candidate(near, key="near"), _candidate(exact, key="exact")])
    assert match.best is not None
    assert match.best.candidate.key == "exact"  # its title, a year off, before the exact year
    assert not is_enough(query, [_candidate(near)])  # the next index may have the title
    assert is_enough(query, [_candidate(exact)])
