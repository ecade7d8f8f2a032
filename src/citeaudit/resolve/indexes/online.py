"""What the online indexes share: where they are, and one polite way to ask them.

Each index (``crossref.py``, ``dblp.py``, ``arxiv.py``, ``openalex.py``) says only how a query
becomes a request and how an answer becomes candidates; :class:`OnlineIndex` asks every query of
a batch concurrently through one :class:`~citeaudit.resolve.http.HttpClient`, within the index's
rate and concurrency (shared, beside the cache, with every process on it), and turns every way an
answer can fail into "could not be asked" (``E_REGISTRY_UNAVAILABLE``), never into an empty
answer: only a readable 200 is an answer, and only an answer is ever pinned.
"""

from __future__ import annotations

import asyncio
import os
import xml.etree.ElementTree as ET
from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from citeaudit.resolve.http import HttpClient, HttpFailure
from citeaudit.resolve.indexes.interface import Candidate, IndexAnswer, SearchIndex, WorkQuery
from citeaudit.resolve.ratelimit import SharedLimits

__all__ = ["UNAVAILABLE", "IndexEndpoints", "OnlineIndex", "QueryParts", "UnreadableAnswer", "parts_of"]

UNAVAILABLE = "E_REGISTRY_UNAVAILABLE"


@dataclass(frozen=True)
class IndexEndpoints:
    """The base URL of each online index; ``CITEAUDIT_<INDEX>_URL`` points tests and private
    mirrors elsewhere (Crossref's and arXiv's are the variables the DOI resolvers read too)."""

    crossref: str = "https://api.crossref.org"
    dblp: str = "https://dblp.org"
    arxiv: str = "https://export.arxiv.org/api"
    openalex: str = "https://api.openalex.org"

    @classmethod
    def from_environment(cls, env: Mapping[str, str] | None = None) -> IndexEndpoints:
        env = os.environ if env is None else env
        return cls(
            crossref=env.get("CITEAUDIT_CROSSREF_URL", cls.crossref).rstrip("/"),
            dblp=env.get("CITEAUDIT_DBLP_URL", cls.dblp).rstrip("/"),
            arxiv=env.get("CITEAUDIT_ARXIV_URL", cls.arxiv).rstrip("/"),
            openalex=env.get("CITEAUDIT_OPENALEX_URL", cls.openalex).rstrip("/"),
        )


@dataclass(frozen=True, slots=True)
class QueryParts:
    """A query as its normalised key holds it. Requests are built from these alone, so that one
    key is always one request and the answer pinned under the key is the answer to it."""

    title: str  # the title's words, case-folded, without accents or punctuation
    surname: str  # the last word of the first author's name, or ""
    year: str  # "" when not cited


def parts_of(query: WorkQuery) -> QueryParts:
    title, surname, year = query.key.split("|")
    return QueryParts(title, surname, year)


class UnreadableAnswer(ValueError):
    """A 200 that is not the answer the API promises (an error page, a cut-off body…)."""


class OnlineIndex(SearchIndex):
    """An index asked over HTTP; subclasses give the request and read the answer."""

    name: str
    label: str  # the index as a person names it in a reason: "Crossref", "DBLP"…
    route: str  # the rate-limit route; one name shared by every client of the same API
    rate: float = 1.0  # requests per second: each index's own published limit
    concurrency: int = 1
    expect_json: bool = True

    def __init__(
        self,
        mailto: str = "",
        endpoints: IndexEndpoints | None = None,
        cache_root: Path | None = None,
        client_factory: Callable[[], HttpClient] | None = None,
    ) -> None:
        self.mailto = mailto
        self.endpoints = endpoints or IndexEndpoints.from_environment()
        self.cache_root = cache_root  # where the limits shared with other processes live
        self.client_factory = client_factory or (lambda: HttpClient(mailto=mailto))
        self.last_stats: dict[str, int] = {}

    def limits(self) -> tuple[float, int]:
        """Requests per second and at once; the server's announced limits can only tighten them."""
        return self.rate, self.concurrency

    @abstractmethod
    def request(self, parts: QueryParts, limit: int) -> tuple[str, dict[str, str]]:
        """The URL and parameters that ask this index for ``limit`` candidates."""

    @abstractmethod
    def candidates(self, body: bytes, limit: int) -> list[Candidate]:
        """The candidates of a 200 answer, best first; :class:`UnreadableAnswer` (or a
        ValueError, KeyError, TypeError, XML ParseError) when it is not an answer."""

    def search_many(self, queries: Sequence[WorkQuery], limit: int = 10) -> dict[str, IndexAnswer]:
        unique = list({q.key: q for q in queries}.values())
        return asyncio.run(self.search_async(unique, limit)) if unique else {}

    async def search_async(self, queries: Sequence[WorkQuery], limit: int = 10) -> dict[str, IndexAnswer]:
        client = self.client_factory()
        if self.cache_root is not None:
            client.share_limits(SharedLimits.beside(self.cache_root))
        rate, concurrency = self.limits()
        client.limits_for(self.route, rate=rate, concurrency=concurrency)
        try:
            answers = await asyncio.gather(*(self._one(client, q, limit) for q in queries))
            self.last_stats = {"requests": client.requests, "throttled": client.throttled}
            return {q.key: a for q, a in zip(queries, answers, strict=True)}
        finally:
            await client.aclose()

    async def _one(self, client: HttpClient, query: WorkQuery, limit: int) -> IndexAnswer:
        url, params = self.request(parts_of(query), limit)
        try:
            answer = await client.get(url, params=params, route=self.route, expect_json=self.expect_json)
        except HttpFailure as e:
            return IndexAnswer.unavailable(self.name, UNAVAILABLE, f"{self.label}: {e}")
        if answer.status != 200:  # a 4xx to a search is no statement about the work: not an answer
            reason = f"{self.label} answered HTTP {answer.status}"
            return IndexAnswer.unavailable(self.name, UNAVAILABLE, reason)
        try:
            found = self.candidates(answer.body, limit)
        except (ValueError, KeyError, TypeError, ET.ParseError) as e:
            reason = f"{self.label} sent an answer that could not be read: {e}"
            return IndexAnswer.unavailable(self.name, UNAVAILABLE, reason)
        return IndexAnswer(self.name, tuple(found[:limit]))
