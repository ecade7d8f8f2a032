"""The chain of indexes a reference without an identifier is looked up in.

For each query: the local indexes (mirrors of the public dumps) in their order, then the online
ones, through the pins — a pinned answer is used without the network; online, a query the pins
lack is asked and its answer pinned; offline, it is ``E_NOT_CACHED`` and no socket is opened.
A query stops at the first index whose candidates satisfy ``enough`` (the match rule's say, given
as a function), and the answers of every index it was put to are returned in that order, so that
the report can name each one searched. The queries still open at an index go to it as one batch,
asked concurrently within that index's limits.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from citeaudit.errors import ConfigError
from citeaudit.resolve.indexes.arxiv import ArxivIndex
from citeaudit.resolve.indexes.crossref import CrossrefIndex
from citeaudit.resolve.indexes.dblp import DblpIndex
from citeaudit.resolve.indexes.interface import Candidate, IndexAnswer, SearchIndex, WorkQuery
from citeaudit.resolve.indexes.online import UNAVAILABLE, IndexEndpoints, OnlineIndex
from citeaudit.resolve.indexes.openalex import OpenAlexIndex
from citeaudit.resolve.indexes.pinned import SearchPins

__all__ = ["ONLINE_INDEXES", "Enough", "WorkFinder", "offline_miss", "online_indexes"]

Enough = Callable[[WorkQuery, Sequence[Candidate]], bool]

ONLINE_INDEXES: dict[str, type[OnlineIndex]] = {
    "crossref": CrossrefIndex,
    "dblp": DblpIndex,
    "arxiv": ArxivIndex,
    "openalex": OpenAlexIndex,
}


def online_indexes(
    names: Sequence[str], mailto: str, cache_root: Path, endpoints: IndexEndpoints | None = None
) -> list[SearchIndex]:
    """The online indexes, in the order named; their limits shared beside ``cache_root``."""
    seen: set[str] = set()
    out: list[SearchIndex] = []
    for name in names:
        cls = ONLINE_INDEXES.get(name)
        if cls is None:
            known = ", ".join(ONLINE_INDEXES)
            raise ConfigError(f"unknown online search index {name!r}: the online indexes are {known}")
        if name in seen:
            raise ConfigError(f"the online search index {name!r} is named twice")
        seen.add(name)
        out.append(cls(mailto=mailto, endpoints=endpoints, cache_root=cache_root))
    return out


def offline_miss(index: str) -> IndexAnswer:
    # The index is the answer's own field: a report that lists several misses names each once.
    reason = (
        "offline, and the cache holds no pinned answer for this reference: run `citeaudit fetch` on "
        "this input online (same --cache) to pin the answer"
    )
    return IndexAnswer.unavailable(index, "E_NOT_CACHED", reason)


class WorkFinder:
    def __init__(
        self,
        local: Sequence[SearchIndex],
        online: Sequence[SearchIndex],
        pins: SearchPins,
        offline: bool,
        limit: int = 10,
    ) -> None:
        self.local = list(local)
        self.online = list(online)
        self.pins = pins
        self.offline = offline
        self.limit = limit

    def described(self) -> list[dict[str, Any]]:
        """Every index a query may be put to, in the order it is put to them."""
        return [index.described() for index in self.local + self.online]

    def find_many(self, queries: Sequence[WorkQuery], enough: Enough) -> dict[str, tuple[IndexAnswer, ...]]:
        open_queries = {q.key: q for q in queries}  # one search per normalised query
        said: dict[str, list[IndexAnswer]] = {key: [] for key in open_queries}
        for index, pinned in [(i, False) for i in self.local] + [(i, True) for i in self.online]:
            if not open_queries:
                break
            batch = list(open_queries.values())
            answers = self._pinned(index, batch) if pinned else self._asked(index, batch)
            for query in batch:
                answer = answers[query.key]
                said[query.key].append(answer)
                if answer.answered and enough(query, answer.candidates):
                    del open_queries[query.key]
        return {key: tuple(answers) for key, answers in said.items()}

    def _asked(self, index: SearchIndex, batch: list[WorkQuery]) -> dict[str, IndexAnswer]:
        got = index.search_many(batch, self.limit)
        reason = f"{index.name} gave no answer to this query"
        missing = IndexAnswer.unavailable(index.name, UNAVAILABLE, reason)
        return {q.key: got.get(q.key, missing) for q in batch}

    def _pinned(self, index: SearchIndex, batch: list[WorkQuery]) -> dict[str, IndexAnswer]:
        answers: dict[str, IndexAnswer] = {}
        misses = []
        for query in batch:
            hit = self.pins.get(index.name, query.key)
            if hit is not None:
                answers[query.key] = hit  # a pin, or why a pin there was not trusted
            elif self.offline:
                answers[query.key] = offline_miss(index.name)
            else:
                misses.append(query)
        if misses:
            for key, answer in self._asked(index, misses).items():
                if answer.answered:
                    self.pins.put(key, answer)
                answers[key] = answer
        return answers
