"""The one rule that decides which record a reference without an identifier names.

It reads only the reference as cited (a :class:`WorkQuery`: title, first author, year) and the
candidates the indexes answered with, in the order the indexes were asked, so the same pinned
answers always give the same match, offline, on any machine.

A candidate *is the work* when its title is the cited title once both are folded as the title
check folds them (similarity :data:`TITLE_MATCH` or more) and at least one more field agrees: the
cited first author's surname is one of its authors', or its year is within :data:`YEAR_SLACK` of
the cited year (a preprint and its proceedings are a year apart). A reference that gives neither
author nor year is matched on its title alone. Which of the matching candidates is the one is
decided by how much agrees (author and exact year first); candidates that are one work in two
indexes (same folded title, first author and year within the slack, or one DOI) are not rivals.
Two different works that agree equally well make the reference ambiguous; no candidate that
matches makes it not found.

A reference that is the free text of an entry of a report's reference list (``match_entry``) is
matched by the same rule, with one more condition on each candidate: its title, its first
author's surname and one of its years must all occur in the entry's text, each folded as a
query is (:func:`~citeaudit.resolve.indexes.interface.query_words`: case, accents, punctuation)
and as whole words (the title as a run of words), so that a title read wrongly from the entry
never matches another work.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from rapidfuzz import fuzz

from citeaudit.checks.bibliographic import cites_preprint, is_arxiv_preprint, venue_agrees
from citeaudit.checks.metadata import author_keys, cited_name_keys, display_title, main_title_keys
from citeaudit.normalize import title_key
from citeaudit.resolve.indexes.interface import Candidate, WorkQuery, query_words

__all__ = [
    "NEAR_MATCH",
    "NEAR_TITLE",
    "TITLE_MATCH",
    "YEAR_SLACK",
    "Match",
    "MatchStatus",
    "Scored",
    "in_entry",
    "is_enough",
    "match_entry",
    "match_reference",
    "match_work",
    "score",
]

TITLE_MATCH = 0.90  # folded-title similarity from which a candidate may be the work
# From which a candidate whose first author and year agree too is the work, cited with a title
# a word off (then E_TITLE_MISMATCH): of HALLMARK's real titles with one word replaced or dropped,
# 96.7 % are at 0.80 or more (98.8 % at 0.75); two different works of its split are at most 0.78
# alike, and never with one first author; a title with words added that change what it says
# ("Attention Is Not All You Need for Vision", 0.77) stays another work.
NEAR_MATCH = 0.80
NEAR_TITLE = 0.60  # from which a candidate that is not the work is still shown as the nearest
YEAR_SLACK = 1  # years apart a candidate may be and still agree (preprint, then proceedings)


class MatchStatus(StrEnum):
    MATCHED = "matched"
    AMBIGUOUS = "ambiguous"
    NOT_FOUND = "not_found"


@dataclass(frozen=True, slots=True)
class Scored:
    """A candidate with what agrees with the reference: title similarity (0–1), and whether the
    first author and the year agree (None: the reference or the record does not give it)."""

    candidate: Candidate
    title: float
    author: bool | None
    year: bool | None
    exact_year: bool
    order: int  # its place in the answers, index by index: the tie-breaker of last resort
    short: bool = False  # the cited title is the record's main title, without its subtitle

    @property
    def titled(self) -> bool:
        """Whether the cited title is the record's (similar enough)."""
        return self.title >= TITLE_MATCH

    @property
    def matches(self) -> bool:
        if not self.titled:
            # A short title ("Hyperband", "BERT"), or a title a word off, is the work when its
            # author and year agree too (the title check then says what differs).
            near = self.short or self.title >= NEAR_MATCH
            return near and self.author is True and self.year is True
        if self.author is None and self.year is None:
            return True  # nothing else to compare: the title is the reference
        return bool(self.author) or bool(self.year)

    @property
    def strength(self) -> tuple[int, int, int, int, float]:
        """What decides between matching candidates, strongest first: the title, then the
        author, the exact year, the year within one, and how alike the titles are."""
        return (
            int(self.titled),
            int(self.author is True),
            int(self.exact_year),
            int(self.year is True),
            self.title,
        )

    def to_json(self) -> dict[str, object]:
        record = self.candidate.record
        first = record.authors[0] if record.authors else None
        out: dict[str, object] = {
            "index": self.candidate.index,
            "key": self.candidate.key,
            "score": round(self.title, 3),
            "title": display_title(record),
            "years": list(record.year_values),
        }
        if first is not None:
            out["first_author"] = first.family or first.name or first.given
        if record.doi:
            out["doi"] = record.doi
        if self.candidate.arxiv:
            out["arxiv"] = self.candidate.arxiv
        return out


@dataclass(frozen=True, slots=True)
class Match:
    status: MatchStatus
    best: Scored | None = None  # the work, when matched
    rivals: tuple[Scored, ...] = ()  # the works it could be, when ambiguous (best first)
    nearest: Scored | None = None  # the closest candidate, when not found
    # The other records of the matched work that matched too (its preprint copy, its other
    # version), best fitting first: not rivals, and not what the reference is checked against.
    related: tuple[Scored, ...] = ()


def _title_similarity(cited: str, candidate: Candidate) -> float:
    key = title_key(cited)
    record = candidate.record
    titles = [title_key(t) for t in record.titles]
    titles += [f"{t} {title_key(s)}" for t in titles for s in record.subtitles]
    return max((fuzz.ratio(key, t) / 100 for t in titles if t), default=0.0)


def _author_agrees(cited: str | None, candidate: Candidate) -> bool | None:
    if not cited:
        return None
    keys = [author_keys(a) for a in candidate.record.authors]
    if not any(keys):
        return None
    wanted = cited_name_keys(cited)
    return any(wanted & k for k in keys)


def score(query: WorkQuery, candidate: Candidate, order: int = 0) -> Scored:
    years = candidate.record.year_values
    year: bool | None = None
    exact = False
    if query.year is not None and years:
        year = any(abs(y - query.year) <= YEAR_SLACK for y in years)
        exact = query.year in years
    title = _title_similarity(query.title, candidate)
    short = title < TITLE_MATCH and title_key(query.title) in main_title_keys(candidate.record)
    return Scored(candidate, title, _author_agrees(query.first_author, candidate), year, exact, order, short)


# Years a preprint may come before its published version and still be a copy of the same work.
PREPRINT_LEAD = 3


def _linked(a: Candidate, b: Candidate) -> bool:
    """One record names the other: the same arXiv id, or a preprint naming its paper's DOI."""
    if a.arxiv and a.arxiv == b.arxiv:
        return True
    for x, y in ((a, b), (b, a)):
        if y.record.doi and any(r.doi == y.record.doi for r in x.record.relations):
            return True
    return False


def _same_work(a: Scored, b: Scored) -> bool:
    """Two records of one work (a DBLP and a Crossref record; a preprint and its paper)."""
    ra, rb = a.candidate.record, b.candidate.record
    if ra.doi and ra.doi == rb.doi:
        return True
    if {title_key(t) for t in ra.titles}.isdisjoint(title_key(t) for t in rb.titles):
        return _linked(a.candidate, b.candidate)
    ya, yb = ra.year_values, rb.year_values
    pa, pb = is_arxiv_preprint(ra), is_arxiv_preprint(rb)
    if ya and yb and pa != pb:  # a preprint comes before its paper, a year or a few
        early, late = (ya, yb) if pa else (yb, ya)
        if not any(0 <= y - x <= PREPRINT_LEAD for x in early for y in late) and not any(
            abs(x - y) <= YEAR_SLACK for x in early for y in late
        ):
            return False
    elif ya and yb and min(abs(x - y) for x in ya for y in yb) > YEAR_SLACK:
        return False
    # The first authors, not any author: one person writes two works of one title ("Deep learning").
    ka = author_keys(ra.authors[0]) if ra.authors else frozenset()
    kb = author_keys(rb.authors[0]) if rb.authors else frozenset()
    return not ka or not kb or bool(ka & kb)


def _rank(s: Scored) -> tuple[object, ...]:
    # Among equals the published version before a preprint copy (DBLP lists most papers twice,
    # the CoRR copy with arXiv's DOI), then the record with an identifier: the fix a user can apply.
    record = s.candidate.record
    return (
        tuple(-x for x in s.strength),
        is_arxiv_preprint(record),
        not record.doi,
        s.order,
        s.candidate.key,
    )


def _fit(s: Scored, container: str | None, preprint: bool, given: bool) -> tuple[object, ...]:
    """How well a record of the matched work fits the citation, best first: with a venue or a
    kind cited, the record of that venue, then one of that kind (preprint or published: a
    citation that fits neither is compared with the published version), then :func:`_rank`."""
    if not given:
        return _rank(s)
    record = s.candidate.record
    venue = container is not None and venue_agrees(container, record)
    return (not venue, is_arxiv_preprint(record) != preprint, *_rank(s))


def _works(matching: list[Scored]) -> list[list[Scored]]:
    """The matching records grouped into works (records of one work linked, transitively), in
    the order of their first record."""
    groups: list[list[Scored]] = []
    for s in matching:
        joined = [g for g in groups if any(_same_work(s, x) for x in g)]
        if not joined:
            groups.append([s])
            continue
        first = joined[0]
        first.append(s)
        for other in joined[1:]:
            first.extend(other)
            groups.remove(other)
    return groups


def match_work(
    query: WorkQuery,
    candidates: Sequence[Candidate],
    *,
    container: str | None = None,
    kind: str | None = None,
) -> Match:
    """The match of a reference among the candidates of every index asked, in order.

    Records of one work (its preprint copy and its published version, a DBLP and a Crossref
    record) are not rivals: the work is the group whose best record agrees most, and the record
    it is checked against is the one that fits the citation (``container``: the venue cited;
    ``kind``: the kind of work cited) — the preprint for a citation of arXiv, the published
    version for one of a venue, else the one where most agrees, the published version among
    equals."""
    scored = [score(query, c, i) for i, c in enumerate(candidates)]
    matching = sorted((s for s in scored if s.matches), key=_rank)
    if not matching:
        near = sorted((s for s in scored if s.title >= NEAR_TITLE), key=lambda s: (-s.title, s.order))
        return Match(MatchStatus.NOT_FOUND, nearest=near[0] if near else None)
    works = _works(matching)  # each in _rank's order, the works by their best records
    top = works[0][0].strength
    tied = [w for w in works if w[0].strength == top]
    if len(tied) > 1:
        return Match(MatchStatus.AMBIGUOUS, rivals=tuple(w[0] for w in tied))
    given = bool(container) or bool(kind)
    preprint = cites_preprint(container, kind)
    fitting = sorted(works[0], key=lambda s: _fit(s, container or None, preprint, given))
    return Match(MatchStatus.MATCHED, best=fitting[0], related=tuple(fitting[1:]))


def is_enough(query: WorkQuery, candidates: Sequence[Candidate]) -> bool:
    """Whether an index's candidates settle the reference, so no further index is asked: one of
    them is the work by its title. (An ambiguity may be settled by the next index no more than
    by this one; a record matched with a title a word off may be another index's exact title.)"""
    return any((s := score(query, c)).matches and (s.titled or s.short) for c in candidates)


def _runs_in(words: list[str], run: list[str]) -> bool:
    """Whether ``run`` occurs in ``words`` as consecutive words."""
    n = len(run)
    if not n or n > len(words):
        return False
    first = run[0]
    return any(words[i : i + n] == run for i in range(len(words) - n + 1) if words[i] == first)


def in_entry(entry: str, candidate: Candidate) -> bool:
    """Whether the candidate's title, its first author's surname and one of its years all occur in
    the entry's text (folded, as whole words; a year may carry the letter ``2020a``)."""
    words = query_words(entry)
    record = candidate.record
    titles = [query_words(t) for t in record.titles]
    titles += [[*t, *query_words(s)] for t in titles for s in record.subtitles]
    if not any(_runs_in(words, t) for t in titles if t):
        return False
    if record.authors:
        first = record.authors[0]
        family = query_words(first.family or first.name or first.given or "")
        if not family or not _runs_in(words, family[-1:]):
            return False
    years = {str(y) for y in record.year_values}
    return not years or any(
        w[:4] in years and (len(w) == 4 or (len(w) == 5 and w[4].isalpha())) for w in words
    )


def match_entry(
    query: WorkQuery,
    entry: str,
    candidates: Sequence[Candidate],
    *,
    container: str | None = None,
    kind: str | None = None,
) -> Match:
    """The match of a reference written as free text (``entry``), its query read from that text:
    :func:`match_work` over the candidates that :func:`in_entry` accepts. When none is accepted,
    the nearest of all the candidates is still named."""
    accepted = [c for c in candidates if in_entry(entry, c)]
    match = match_work(query, accepted, container=container, kind=kind)
    if match.status is MatchStatus.NOT_FOUND and match.nearest is None:
        anyway = match_work(query, candidates)  # what the query alone would have taken, named as nearest
        nearest = anyway.best or (anyway.rivals[0] if anyway.rivals else anyway.nearest)
        return Match(MatchStatus.NOT_FOUND, nearest=nearest)
    return match


def match_reference(
    query: WorkQuery,
    entry: str | None,
    candidates: Sequence[Candidate],
    *,
    container: str | None = None,
    kind: str | None = None,
) -> Match:
    """:func:`match_entry` for a reference with its free text, else :func:`match_work` (the
    venue and the kind of work cited choose among the records of the work matched)."""
    if entry is None:
        return match_work(query, candidates, container=container, kind=kind)
    return match_entry(query, entry, candidates, container=container, kind=kind)
