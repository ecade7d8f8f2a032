"""The match rule of a reference written as free text (an entry of a Markdown report's reference
list): the work kind's rule, and only candidates whose title, first author and year the entry
holds."""

from __future__ import annotations

import pytest

from citeaudit.checks.matching import MatchStatus, in_entry, match_entry, match_reference, match_work
from citeaudit.resolve.indexes.interface import Candidate, WorkQuery
from citeaudit.resolve.interface import Author, Record


def _candidate(title: str, year: int, *families: str, key: str = "k") -> Candidate:
    record = Record(doi="", agency="dblp", titles=(title,), years=(("issued", year),),
                    authors=tuple(Author(f, "A.") for f in families))  # fmt: skip
    return Candidate("mirror:dblp", key, record)


LSTM = _candidate(
    "Long Short-Term Memory", 1997, "Hochreiter", "Schmidhuber", key="journals/neco/HochreiterS97"
)
GOODFELLOW = _candidate("Deep Learning", 2016, "Goodfellow", "Bengio", key="books/daglib/0040158")
LECUN = _candidate("Deep learning", 2015, "LeCun", "Bengio", key="journals/nature/LeCunBH15")


@pytest.mark.parametrize(
    ("entry", "accepted"),
    [
        ("Hochreiter, S., & Schmidhuber, J. (1997). Long short-term memory. Neural Computation.", True),
        ('S. Hochreiter and J. Schmidhuber, "Long short-term memory," Neural Comput., 1997.', True),
        ("HOCHREITER S. (1997a). LONG SHORT—TERM MEMORY.", True),  # folded; a year with its letter
        ("Hochreiter, S. (2001). Long short-term memory. Neural Computation.", False),  # the year
        ("Schmidhuber, J. (1997). Long short-term memory.", False),  # the first author
        ("Hochreiter, S. (1997). Long memory. Neural Computation.", False),  # the title as a run of words
    ],
)
def test_in_entry_needs_the_title_the_first_author_and_a_year(entry: str, accepted: bool) -> None:
    assert in_entry(entry, LSTM) is accepted


def test_match_entry_is_match_work_over_the_candidates_the_entry_holds() -> None:
    candidates = [GOODFELLOW, LECUN]
    query = WorkQuery("Deep learning", "LeCun, Y.", 2015)
    entry = "LeCun, Y., Bengio, Y., & Hinton, G. (2015). Deep learning. Nature, 521, 436–444."
    match = match_entry(query, entry, candidates)
    assert match.status is MatchStatus.MATCHED
    assert match.best is not None
    assert match.best.candidate.key == "journals/nature/LeCunBH15"
    # Without its text the same query is matched by the work rule alone, as a JSON citation is.
    assert match_reference(query, None, candidates) == match_work(query, candidates)


def test_a_title_read_wrongly_from_an_entry_never_matches_another_work() -> None:
    # The entry's query title is wrong, the work rule alone would take Goodfellow's book by its title.
    query = WorkQuery("Deep Learning", None, None)
    assert match_work(query, [GOODFELLOW]).status is MatchStatus.MATCHED
    entry = "Deep Learning. A survey by Someone Else, 2019."
    match = match_entry(query, entry, [GOODFELLOW])
    assert match.status is MatchStatus.NOT_FOUND
    assert match.nearest is not None
    assert match.nearest.candidate.key == "books/daglib/0040158"  # still named as the nearest
