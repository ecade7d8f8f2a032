"""Online resolution: arXiv ids through the arXiv API, PubMed and PMC ids through NCBI's
E-utilities (``ncbi.py``), then DOIs: Crossref's batch route first, then each remaining DOI
by its registration agency (doi.org/ra), so a DataCite, JaLC, mEDRA, KISTI…
DOI is never called "not found" because Crossref does not know it.

Only final answers leave this module as found / not found: a record whose DOI
is the DOI asked for, a 404 of the DOI's own agency from that agency's own host,
or doi.org's "DOI does not exist" for its prefix. Anything else — retries
exhausted, a wait longer than allowed, an answer that is not what the API
promises, a record of another DOI, a 404 reached after a transient failure on
the DOI's way (a retried request, a failed batch request) or through any
redirect (to another host, or to another DOI on the same one) — is "could not
check" and is never cached.

Every DOI in a URL path is percent-encoded whole (``/`` included), so no
client, proxy or server can read dot segments in it and ask for another work.
"""

from __future__ import annotations

import asyncio
import json
import os
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, replace
from urllib.parse import quote

import httpx

from citeaudit.identifiers.arxiv import ARXIV, arxiv_id_of
from citeaudit.identifiers.registry import route_of
from citeaudit.resolve.arxiv import records_from_atom
from citeaudit.resolve.cache import DoiCache
from citeaudit.resolve.crossref import record_from_message
from citeaudit.resolve.csl import CSL_MEDIA_TYPE, record_from_csl
from citeaudit.resolve.datacite import record_from_datacite
from citeaudit.resolve.http import SAFETY, HttpAnswer, HttpClient, HttpFailure
from citeaudit.resolve.interface import Record, Resolution, Resolver
from citeaudit.resolve.ncbi import NCBI_ROUTE, NcbiResolver
from citeaudit.resolve.ratelimit import SharedLimits

__all__ = ["Endpoints", "RegistryResolver", "doi_prefix"]

UNAVAILABLE = "E_REGISTRY_UNAVAILABLE"
BATCH_SIZE = 40  # DOIs per Crossref filter request: keeps the URL well under common limits


@dataclass(frozen=True)
class Endpoints:
    crossref: str = "https://api.crossref.org"
    datacite: str = "https://api.datacite.org"
    doi: str = "https://doi.org"
    arxiv: str = "https://export.arxiv.org/api"
    ncbi: str = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils"
    # PMC's current address of the converter (the older www.ncbi.nlm.nih.gov/pmc/utils/idconv/v1.0/
    # is where its first documentation put it).
    ncbi_idconv: str = "https://pmc.ncbi.nlm.nih.gov/tools/idconv/api/v1/articles"

    @classmethod
    def from_environment(cls) -> Endpoints:
        """``CITEAUDIT_CROSSREF_URL`` and friends point tests and private mirrors elsewhere."""
        env = os.environ
        return cls(
            crossref=env.get("CITEAUDIT_CROSSREF_URL", cls.crossref).rstrip("/"),
            datacite=env.get("CITEAUDIT_DATACITE_URL", cls.datacite).rstrip("/"),
            doi=env.get("CITEAUDIT_DOI_URL", cls.doi).rstrip("/"),
            arxiv=env.get("CITEAUDIT_ARXIV_URL", cls.arxiv).rstrip("/"),
            ncbi=env.get("CITEAUDIT_NCBI_URL", cls.ncbi).rstrip("/"),
            ncbi_idconv=env.get("CITEAUDIT_NCBI_IDCONV_URL", cls.ncbi_idconv).rstrip("/"),
        )


def doi_prefix(doi: str) -> str:
    return doi.split("/", 1)[0]


def _json(answer: HttpAnswer) -> object:
    return json.loads(answer.body)


def _segment(value: str) -> str:
    """One path segment: every character that is not unreserved is percent-encoded, ``/`` and
    ``%`` too, so ``10.1241/../10.5438/x`` stays one DOI and is never read as a path."""
    return quote(value, safe="")


def _same_doi(asked: str, answered: str) -> bool:
    return answered.strip().lower().removeprefix("https://doi.org/") == asked.lower()


def _untrusted(said: str, failure: str = "") -> Resolution:
    """A "not registered" that is not a final answer: could not check, never cached."""
    return Resolution.unavailable(
        UNAVAILABLE, f'{f"{said} {failure}".strip()}: not trusted as "not registered"'
    )


class RegistryResolver(Resolver):
    """Resolves DOIs over the network; pair it with a CachingResolver."""

    def __init__(
        self,
        cache: DoiCache,
        mailto: str = "",
        endpoints: Endpoints | None = None,
        client_factory: Callable[[], HttpClient] | None = None,
        progress: Callable[[int, int], None] | None = None,
        ncbi_api_key: str | None = None,
    ) -> None:
        self.progress = progress  # called with (done, total) as answers arrive
        self.cache = cache
        self.mailto = mailto
        self.endpoints = endpoints or Endpoints.from_environment()
        # NCBI's key raises its limit from 3 to 10 requests a second; never written anywhere.
        key = os.environ.get("NCBI_API_KEY", "") if ncbi_api_key is None else ncbi_api_key
        self.ncbi = NcbiResolver(self.endpoints.ncbi, self.endpoints.ncbi_idconv, mailto, key.strip())
        self.client_factory = client_factory or (lambda: HttpClient(mailto=mailto))
        self.last_stats: dict[str, int] = {}

    def resolve_many(self, dois: list[str]) -> dict[str, Resolution]:
        return asyncio.run(self.resolve_async(dois))

    def resolve_each(
        self, dois: list[str], keep: Callable[[dict[str, Resolution]], None]
    ) -> dict[str, Resolution]:
        """As :meth:`resolve_many`, handing each answer to ``keep`` as it arrives (the cache writes
        it then: a process killed mid-fetch keeps every answer it was given)."""
        return asyncio.run(self.resolve_async(dois, keep))

    async def resolve_async(
        self, dois: list[str], keep: Callable[[dict[str, Resolution]], None] | None = None
    ) -> dict[str, Resolution]:
        def arrived(found: dict[str, Resolution]) -> None:
            if keep is not None and found:
                keep(found)

        client = self.client_factory()
        client.share_limits(SharedLimits.beside(self.cache.root))  # with every process on this cache
        self._configure(client)
        total = len(dois)

        def tick(done: int) -> None:
            if self.progress is not None:
                self.progress(done, total)

        async def one(doi: str, agency: str | Resolution) -> Resolution:
            answer = await self._one(client, doi, agency, failed.get(doi, ""))
            arrived({doi: answer})
            tick(total - len(rest) + sum(1 for t in pending if t.done()) + 1)
            return answer

        try:
            arxiv = [d for d in dois if route_of(d) == ARXIV.route]  # the identifier kinds route
            answers = await self._arxiv(client, arxiv, arrived)
            pubmed = [d for d in dois if route_of(d) == NCBI_ROUTE]
            answers.update(await self.ncbi.resolve(client, pubmed, arrived) if pubmed else {})
            failed: dict[str, str] = {}  # DOI → the transient failure of its batch request
            unbatched = [d for d in dois if d not in answers]
            answers.update(await self._crossref_batch(client, unbatched, failed, arrived))
            rest = [d for d in dois if d not in answers]
            tick(len(answers))
            agencies = await self._agencies(client, sorted({doi_prefix(d) for d in rest}))
            pending = [asyncio.ensure_future(one(d, agencies[doi_prefix(d)])) for d in rest]
            results = await asyncio.gather(*pending)
            answers.update(zip(rest, results, strict=True))
            self.last_stats = {"requests": client.requests, "throttled": client.throttled}
            return answers
        finally:
            await client.aclose()

    def _configure(self, client: HttpClient) -> None:
        """Start within each service's published limits; the servers' headers can only tighten them."""
        polite = bool(self.mailto)  # Crossref's polite pool: 10/s and 3 at a time; public: 5/s, 1
        client.limits_for(
            "crossref-single", rate=(10 if polite else 5) * SAFETY, concurrency=3 if polite else 1
        )
        client.limits_for("crossref-list", rate=(3 if polite else 1) * SAFETY, concurrency=1)
        client.limits_for("datacite", rate=10, concurrency=4)
        client.limits_for("arxiv", rate=1 / 3, concurrency=1)  # arXiv asks for one request every 3 s
        client.limits_for("doi", rate=10, concurrency=4)
        self.ncbi.configure(client)  # 3 requests a second, 10 with an API key

    def _params(self) -> dict[str, str]:
        return {"mailto": self.mailto} if self.mailto else {}

    # -- arXiv -------------------------------------------------------------------------

    async def _arxiv(
        self, client: HttpClient, dois: list[str], arrived: Callable[[dict[str, Resolution]], None]
    ) -> dict[str, Resolution]:
        """arXiv DOIs through the arXiv API, 100 identifiers a request (each request's answers
        handed to ``arrived`` as they come)."""
        out: dict[str, Resolution] = {}
        ids = {d: arxiv_id_of(d) or "" for d in dois}
        wanted = sorted(set(ids.values()))
        for start in range(0, len(wanted), 100):
            chunk = wanted[start : start + 100]
            params = {"id_list": ",".join(chunk), "max_results": str(len(chunk))}
            try:
                answer = await client.get(f"{self.endpoints.arxiv}/query", params=params, route="arxiv",
                                          expect_json=False)  # fmt: skip
                records = records_from_atom(answer.body) if answer.status == 200 else None
            except (HttpFailure, ET.ParseError) as e:
                records, reason = None, str(e)
            else:
                reason = f"arXiv answered HTTP {answer.status}"
            part: dict[str, Resolution] = {}
            for doi, arxiv_id in ids.items():
                if arxiv_id not in chunk:
                    continue
                if records is None:
                    part[doi] = Resolution.unavailable(UNAVAILABLE, f"arXiv: {reason}")
                elif arxiv_id in records:  # keyed by the id of the entry arXiv sent
                    part[doi] = Resolution.found(replace(records[arxiv_id], doi=doi))
                elif answer.transient:
                    part[doi] = _untrusted("arXiv had no entry", f"after {answer.transient}")
                else:
                    part[doi] = Resolution.not_found("arxiv")
            arrived(part)
            out.update(part)
        return out

    # -- Crossref's batch route ----------------------------------------------------

    async def _crossref_batch(
        self,
        client: HttpClient,
        dois: list[str],
        failed: dict[str, str],
        arrived: Callable[[dict[str, Resolution]], None],
    ) -> dict[str, Resolution]:
        """Records found by the batch route (each request's handed to ``arrived`` as it comes); the
        DOIs of a batch request that failed for a transient reason go to ``failed``, so that no
        "not registered" is reached after it."""
        chunks = [dois[i : i + BATCH_SIZE] for i in range(0, len(dois), BATCH_SIZE)]

        async def batch(chunk: list[str]) -> tuple[dict[str, Resolution], str]:
            part, failure = await self._batch(client, chunk)
            arrived(part)
            return part, failure

        found: dict[str, Resolution] = {}
        for chunk, (part, failure) in zip(
            chunks, await asyncio.gather(*(batch(chunk) for chunk in chunks)), strict=True
        ):
            found.update(part)
            if failure:
                failed.update((d, f"after Crossref's batch route failed ({failure})") for d in chunk)
        return found

    async def _batch(self, client: HttpClient, chunk: list[str]) -> tuple[dict[str, Resolution], str]:
        """The records the filter returned, and the transient failure that ended the request, if any."""
        if len(chunk) < 2:
            return {}, ""  # one DOI: the single route tells "not found" apart, the filter cannot
        params = {**self._params(), "filter": ",".join(f"doi:{d}" for d in chunk), "rows": str(len(chunk))}
        try:
            answer = await client.get(
                f"{self.endpoints.crossref}/works", params=params, route="crossref-list"
            )
            items = _json(answer)["message"]["items"] if answer.status == 200 else []  # type: ignore[index]
        except HttpFailure as e:
            return {}, str(e)  # the single routes will try each DOI, and trust no 404 after this
        except (KeyError, TypeError, ValueError):
            return {}, ""  # an answer, but not one that can be read: the single routes will try each DOI
        wanted = set(chunk)
        out = {}
        for item in items if isinstance(items, list) else ():
            if isinstance(item, dict) and str(item.get("DOI", "")).lower() in wanted:
                out[str(item["DOI"]).lower()] = Resolution.found(record_from_message(item))
        return out, ""

    # -- registration agencies ---------------------------------------------------------

    async def _agencies(self, client: HttpClient, prefixes: list[str]) -> dict[str, str | Resolution]:
        """Agency name per prefix, or a Resolution when it could not be learnt."""
        out: dict[str, str | Resolution] = {}
        todo = []
        for prefix in prefixes:
            known = self.cache.get_agency(prefix)
            if known is None:
                todo.append(prefix)
            else:
                out[prefix] = known
        for prefix, found in zip(
            todo, await asyncio.gather(*(self._agency(client, p) for p in todo)), strict=True
        ):
            if isinstance(found, str):
                self.cache.put_agency(prefix, found)
            out[prefix] = found
        return out

    async def _agency(self, client: HttpClient, prefix: str) -> str | Resolution:
        try:
            answer = await client.get(f"{self.endpoints.doi}/ra/{_segment(prefix)}", route="doi")
        except HttpFailure as e:
            return Resolution.unavailable(UNAVAILABLE, f"registration agency lookup failed: {e}")
        if answer.status != 200:  # an error page is no answer about the prefix: say what was sent
            return Resolution.unavailable(
                UNAVAILABLE, f"doi.org answered HTTP {answer.status} for the agency of prefix {prefix}"
            )
        try:
            entries = _json(answer)
        except ValueError as e:
            return Resolution.unavailable(
                UNAVAILABLE, f"doi.org's answer for the agency of prefix {prefix} is not JSON ({e})"
            )
        entry = entries[0] if isinstance(entries, list) and entries else {}
        if isinstance(entry, dict) and isinstance(entry.get("RA"), str):
            return str(entry["RA"])
        if isinstance(entry, dict) and entry.get("status") == "DOI does not exist":
            if answer.transient:  # not a final answer: "could not check", and not cached
                return _untrusted(f"doi.org said prefix {prefix} does not exist", f"after {answer.transient}")
            return "none"
        return Resolution.unavailable(UNAVAILABLE, f"doi.org gave no agency for prefix {prefix}")

    # -- one DOI at its agency -----------------------------------------------------------

    async def _one(
        self, client: HttpClient, doi: str, agency: str | Resolution, failed: str = ""
    ) -> Resolution:
        """``failed``: the transient failure met earlier on this DOI's way, if any."""
        if isinstance(agency, Resolution):
            return agency
        if agency == "none":
            if failed:
                return _untrusted(f"doi.org said prefix {doi_prefix(doi)} does not exist", failed)
            return Resolution.not_found("doi.org")
        try:
            if agency == "Crossref":
                url = f"{self.endpoints.crossref}/works/{_segment(doi)}"
                answer = await client.get(url, params=self._params(), route="crossref-single")
                if answer.status == 200:
                    return _found(doi, agency, record_from_message(_json(answer)["message"]))  # type: ignore[index]
            elif agency == "DataCite":
                url = f"{self.endpoints.datacite}/dois/{_segment(doi)}"
                answer = await client.get(url, route="datacite")
                if answer.status == 200:
                    data = _json(answer)["data"]["attributes"]  # type: ignore[index]
                    return _found(doi, agency, record_from_datacite(data))
            else:
                url = f"{self.endpoints.doi}/{_segment(doi)}"
                answer = await client.get(url, headers={"Accept": CSL_MEDIA_TYPE}, route="doi")
                if answer.status == 200:
                    return _found(doi, agency, record_from_csl(_json(answer), agency.lower()))  # type: ignore[arg-type]
        except HttpFailure as e:
            return Resolution.unavailable(UNAVAILABLE, f"{agency}: {e}")
        except (ValueError, KeyError, TypeError) as e:
            return Resolution.unavailable(UNAVAILABLE, f"{agency} sent an answer that could not be read: {e}")
        if answer.status == 404:
            asked, answered = httpx.URL(url).host, httpx.URL(answer.url).host
            if answered != asked:  # a redirect led elsewhere: the DOI exists, its metadata is not there
                return _untrusted(f"{agency} answered 404 from {answered}, not from {asked}")
            if answer.redirects:  # sent on to another DOI (merged, aliased): the 404 is that one's
                where = httpx.URL(answer.url).copy_with(query=None)
                return _untrusted(f"{agency} answered 404 after a redirect to {where}")
            if answer.transient or failed:
                return _untrusted(
                    f"{agency} answered 404", f"after {answer.transient}" if answer.transient else failed
                )
            return Resolution.not_found(agency.lower())
        return Resolution.unavailable(UNAVAILABLE, f"{agency} answered HTTP {answer.status}")


def _found(doi: str, agency: str, record: Record) -> Resolution:
    """A record is the answer only when it is the record of the DOI asked for."""
    if not _same_doi(doi, record.doi):
        return Resolution.unavailable(
            UNAVAILABLE, f"{agency} answered with the record of {record.doi}, not of {doi}"
        )
    return Resolution.found(record)
