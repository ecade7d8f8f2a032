"""NCBI: records for PubMed and PubMed Central identifiers (their syntax is
``identifiers/pubmed.py``) through the E-utilities.

* ``esummary`` (JSON, ``retmode=json``) gives a PMID's record: title, dates, authors, journal,
  volume, issue, pages, publication types; 200 PMIDs a request.
* ``efetch`` (PubMed XML) gives the abstracts of the same PMIDs, which the semantic stage reads.
* The PMC ID converter (``idconv``, JSON) gives the PMID of a PMCID, whose record is then read
  as a PMID's and kept under the PMCID's key.
* For a PMCID whose converter record names no PMID (an article in PMC and not in PubMed),
  ``esummary`` on ``db=pmc`` (XML, ``version=2.0``) gives the record: title, dates, authors,
  journal, volume, issue, pages; no abstract. It is never a "not registered": the converter says
  which PMCIDs PMC does not have.

Only final answers leave this module as found / not found. A PMID is "not registered" only when
esummary's answer for it is its per-identifier ``error`` ("cannot get document summary") and
efetch's answer for the same request has no article of that PMID either, both on a first try; a
PMCID only when the converter's record for it is an error whose message is one the converter gives
for an article PMC does not have (``invalid article id``, ``Identifier not found in PMC``), on a
first try.
Anything else (a retried request, a top-level ``error``, an answer without the identifier asked
for, a summary of another PMID, an efetch that failed) is "could not check", never cached.

NCBI asks for at most 3 requests a second from one address without an API key and 10 with one
(``NCBI_API_KEY``), and for ``tool`` and ``email`` parameters naming the client; one route
(``ncbi``) carries every request to it, shared with the other processes on the same cache.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from citeaudit.identifiers.pubmed import PMCID, PMCID_PREFIX, PMID, PMID_PREFIX
from citeaudit.resolve.abstracts import MAX_ABSTRACT_CHARS
from citeaudit.resolve.http import SAFETY, HttpClient, HttpFailure
from citeaudit.resolve.interface import Author, Record, Relation, Resolution, ResolutionStatus

__all__ = [
    "BATCH_SIZE",
    "NCBI_AGENCY",
    "NCBI_ROUTE",
    "Converted",
    "NcbiResolver",
    "abstracts_from_efetch",
    "ncbi_limits",
    "pmc_summaries_from_xml",
    "pmids_from_idconv",
    "record_from_summary",
]

NCBI_AGENCY = "pubmed"
NCBI_ROUTE = "ncbi"
BATCH_SIZE = 200  # identifiers per request: esummary and the converter take 200 in a GET
UNAVAILABLE = "E_REGISTRY_UNAVAILABLE"
_YEAR = re.compile(r"\b(1[5-9][0-9]{2}|20[0-9]{2})\b")
_INITIALS = re.compile(r"^[A-Z]{1,4}$")
_SPACES = re.compile(r"\s+")


def ncbi_limits(api_key: str) -> tuple[float, int]:
    """Requests a second and at once: NCBI's 3 a second from an address, 10 with an API key."""
    return (10 if api_key else 3) * SAFETY, 3 if api_key else 1


# -- reading the answers -------------------------------------------------------------------------


def _year(value: Any) -> int | None:
    found = _YEAR.search(value) if isinstance(value, str) else None
    return int(found.group(1)) if found else None


def _author(name: str, first: bool) -> Author:
    """PubMed writes a person as ``Surname Initials`` (``Scalfani VF``, ``Albano de Guimarães J``)."""
    words = name.split()
    sequence = "first" if first else "additional"
    if len(words) >= 2 and _INITIALS.match(words[-1]):
        return Author(family=" ".join(words[:-1]), given=words[-1], sequence=sequence)
    return Author(name=name, sequence=sequence)


def _text(value: Any) -> str | None:
    return " ".join(value.split()) or None if isinstance(value, str) else None


def _work_type(entry: Mapping[str, Any]) -> str | None:
    kinds = {str(k).lower() for k in entry.get("pubtype") or () if isinstance(k, str)}
    doctype = str(entry.get("doctype") or "").lower()
    if doctype == "book":
        return "book"
    if doctype == "chapter":
        return "book-chapter"
    if "preprint" in kinds:
        return "posted-content"
    return "journal-article" if kinds else None


def record_from_summary(key: str, entry: Mapping[str, Any]) -> Record:
    """One esummary ``DocSum`` (JSON) as a normalised record kept under ``key``."""
    years = []
    for kind, field in (("published", "pubdate"), ("published-online", "epubdate")):
        year = _year(entry.get(field))
        if year is not None:
            years.append((kind, year))
    people = [a for a in entry.get("authors") or () if isinstance(a, dict) and isinstance(a.get("name"), str)]
    authors: list[Author] = []
    for a in people:
        name = " ".join(a["name"].split())
        if not name:
            continue
        if a.get("authtype") == "CollectiveName":
            authors.append(Author(name=name, sequence="first" if not authors else "additional"))
        elif a.get("authtype") in (None, "", "Author"):
            authors.append(_author(name, not authors))
    title = _text(entry.get("title")) or _text(entry.get("booktitle"))
    kinds = {str(k).lower() for k in entry.get("pubtype") or () if isinstance(k, str)}
    relations = (Relation("updated-by", "retraction", None),) if "retracted publication" in kinds else ()
    pmc = next(
        (str(i.get("value")) for i in entry.get("articleids") or ()
         if isinstance(i, dict) and i.get("idtype") == "pmc" and PMCID.recognise(str(i.get("value"))))
        , None,
    )  # fmt: skip
    return Record(
        doi=key,
        agency=NCBI_AGENCY,
        titles=(title,) if title else (),
        years=tuple(sorted(years)),
        authors=tuple(authors),
        type=_work_type(entry),
        container=tuple(t for t in (_text(entry.get("fulljournalname")),) if t),
        short_container=tuple(t for t in (_text(entry.get("source")),) if t),
        relations=relations,
        volume=_text(entry.get("volume")),
        issue=_text(entry.get("issue")),
        pages=_text(entry.get("pages")),
        # The PMC article page: open to read, fetched only when the operator asks for full texts.
        full_text_urls=(f"https://pmc.ncbi.nlm.nih.gov/articles/{pmc}/",) if pmc else (),
    )


@dataclass(frozen=True, slots=True)
class Summaries:
    """What one esummary answer says: records by PMID, the PMIDs it says it has no summary of,
    and the reason it says nothing about any (a top-level ``error``), if it does."""

    entries: dict[str, Mapping[str, Any]]
    missing: frozenset[str]
    error: str = ""


def summaries_from_json(body: bytes) -> Summaries:
    """An esummary answer (``retmode=json``); ValueError for one that is not such an answer."""
    data = json.loads(body)
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    result = data.get("result")
    if isinstance(data.get("error"), str):
        return Summaries({}, frozenset(), str(data["error"]))
    if not isinstance(result, dict) or not isinstance(result.get("uids"), list):
        raise ValueError("no result.uids")
    entries: dict[str, Mapping[str, Any]] = {}
    missing: set[str] = set()
    for uid in result["uids"]:
        entry = result.get(uid) if isinstance(uid, str) else None
        if not isinstance(entry, dict) or entry.get("uid") != uid:
            continue  # an entry that is not the one listed says nothing about the uid
        if "error" in entry:
            missing.add(uid)
        else:
            entries[uid] = entry
    return Summaries(entries, frozenset(missing))


def _paragraph(element: ET.Element) -> str:
    text = _SPACES.sub(" ", "".join(element.itertext())).strip()
    label = element.get("Label")
    return f"{label.strip()}: {text}" if label and label.strip() and text else text


def abstracts_from_efetch(body: bytes) -> tuple[frozenset[str], dict[str, str]]:
    """The PMIDs of the articles a PubMed XML answer holds, and the abstract of each that has
    one (its labelled parts as paragraphs, ``BACKGROUND: …``); ParseError for what is not XML."""
    root = ET.fromstring(body)
    if root.tag != "PubmedArticleSet":
        raise ET.ParseError(f"the root element is {root.tag}, not PubmedArticleSet")
    seen: set[str] = set()
    out: dict[str, str] = {}
    for article in root.iter("PubmedArticle"):
        pmid = (article.findtext("MedlineCitation/PMID") or "").strip()
        if not PMID.is_valid(pmid):
            continue
        seen.add(pmid)
        parts = [_paragraph(p) for p in article.findall("MedlineCitation/Article/Abstract/AbstractText")]
        text = "\n\n".join(p for p in parts if p)[:MAX_ABSTRACT_CHARS].strip()
        if text:
            out[pmid] = text
    for book in root.iter("PubmedBookArticle"):  # NCBI Bookshelf chapters answer with their own root
        pmid = (book.findtext("BookDocument/PMID") or "").strip()
        if PMID.is_valid(pmid):
            seen.add(pmid)
            parts = [_paragraph(p) for p in book.findall("BookDocument/Abstract/AbstractText")]
            text = "\n\n".join(p for p in parts if p)[:MAX_ABSTRACT_CHARS].strip()
            if text:
                out[pmid] = text
    return frozenset(seen), out


# What the converter's record for a PMCID PMC does not have says, as recorded: ``invalid article
# id`` (its answer for PMC23840460 in January 2023, ``"live": "false"`` beside it) and ``Identifier
# not found in PMC`` (what it says at its current address for an identifier it does not have).
# Any other message is no answer about the article.
_UNKNOWN_TO_PMC = frozenset({"invalid article id", "identifier not found in pmc"})


@dataclass(frozen=True, slots=True)
class Converted:
    """The converter's answer for one PMCID: its PMID, or that PMC does not know it (``unknown``),
    or neither (``reason`` says why)."""

    pmid: str | None = None
    unknown: bool = False
    reason: str = ""
    no_pmid: bool = False  # a record of the PMCID asked for that names no PMID


def pmids_from_idconv(body: bytes) -> dict[str, Converted]:
    """The converter's answer (``format=json``) by the PMCID each record was asked for."""
    data = json.loads(body)
    records = data.get("records") if isinstance(data, dict) else None
    if not isinstance(records, list):
        raise ValueError("no records")
    out: dict[str, Converted] = {}
    for record in records:
        if not isinstance(record, dict):
            continue
        asked = PMCID.recognise(str(record.get("requested-id") or record.get("pmcid") or ""))
        if asked is None:
            continue
        said = str(record.get("errmsg") or "")
        if record.get("status") == "error" or said:
            unknown = record.get("status") == "error" and " ".join(said.split()).casefold() in _UNKNOWN_TO_PMC
            out[asked] = Converted(unknown=unknown, reason=said or "an error")
            continue
        if PMCID.recognise(str(record.get("pmcid") or "")) != asked:
            out[asked] = Converted(reason=f"a record of {record.get('pmcid')!r}")
            continue
        pmid = PMID.recognise(str(record.get("pmid") or ""))
        if pmid is not None:
            out[asked] = Converted(pmid=pmid)
        elif record.get("pmid") in (None, ""):
            out[asked] = Converted(reason="no PMID (the article is not in PubMed)", no_pmid=True)
        else:
            out[asked] = Converted(reason=f"an unreadable PMID {record.get('pmid')!r}")
    return out


def _child_text(element: ET.Element, name: str) -> str:
    return " ".join((element.findtext(name) or "").split())


_PMC_FIELDS = (
    ("pubdate", "PubDate"), ("epubdate", "EPubDate"), ("source", "Source"), ("title", "Title"),
    ("volume", "Volume"), ("issue", "Issue"), ("pages", "Pages"), ("fulljournalname", "FullJournalName"),
)  # fmt: skip


def pmc_summaries_from_xml(body: bytes) -> Summaries:
    """An esummary answer on ``db=pmc`` (XML, ``version=2.0``): each ``DocumentSummary`` as the
    fields of a JSON summary (``title``, ``pubdate``, ``authors``, ``articleids``, …) by its uid,
    the uids it has an ``error`` for, and a top-level ``ERROR``; ParseError for what is not one."""
    root = ET.fromstring(body)
    if root.tag != "eSummaryResult":
        raise ET.ParseError(f"the root element is {root.tag}, not eSummaryResult")
    error = _child_text(root, "ERROR")
    if error:
        return Summaries({}, frozenset(), error)
    entries: dict[str, Mapping[str, Any]] = {}
    missing: set[str] = set()
    for summary in root.iter("DocumentSummary"):
        uid = (summary.get("uid") or "").strip()
        if not uid.isdigit():
            continue
        if summary.find("error") is not None:
            missing.add(uid)
            continue
        entries[uid] = {
            "uid": uid,
            **{key: _child_text(summary, tag) for key, tag in _PMC_FIELDS},
            "authors": [{"name": _child_text(a, "Name"), "authtype": _child_text(a, "AuthType")}
                        for a in summary.findall("Authors/Author")],
            "articleids": [{"idtype": _child_text(i, "IdType"), "value": _child_text(i, "Value")}
                           for i in summary.findall("ArticleIds/ArticleId")],
        }  # fmt: skip
    return Summaries(entries, frozenset(missing))


# -- asking ---------------------------------------------------------------------------------------


def _untrusted(said: str) -> Resolution:
    return Resolution.unavailable(UNAVAILABLE, f'{said}: not trusted as "not registered"')


class NcbiResolver:
    """Resolves ``pmid:…`` and ``pmcid:…`` keys with one HTTP client (the registries')."""

    def __init__(self, eutils: str, idconv: str, mailto: str = "", api_key: str = "") -> None:
        self.eutils = eutils.rstrip("/")
        self.idconv = idconv.rstrip("/") + "/"
        self.mailto = mailto
        self.api_key = api_key

    def configure(self, client: HttpClient) -> None:
        rate, concurrency = ncbi_limits(self.api_key)
        client.limits_for(NCBI_ROUTE, rate=rate, concurrency=concurrency)

    def _params(self, with_key: bool = True) -> dict[str, str]:
        params = {"tool": "citeaudit"}
        if self.mailto:
            params["email"] = self.mailto
        if self.api_key and with_key:
            params["api_key"] = self.api_key
        return params

    async def resolve(
        self, client: HttpClient, keys: list[str], arrived: Callable[[dict[str, Resolution]], None]
    ) -> dict[str, Resolution]:
        """Every key's answer, each request's handed to ``arrived`` as it comes."""
        out: dict[str, Resolution] = {}
        pmcids = sorted({k for k in keys if k.startswith(PMCID_PREFIX)})
        via: dict[str, str] = {}  # pmcid key → the PMID the converter gave
        pmc_only: list[str] = []  # pmcid keys whose converter record names no PMID
        for start in range(0, len(pmcids), BATCH_SIZE):
            part = await self._convert(client, pmcids[start : start + BATCH_SIZE], via, pmc_only)
            arrived(part)
            out.update(part)
        for start in range(0, len(pmc_only), BATCH_SIZE):
            part = await self._pmc_summaries(client, pmc_only[start : start + BATCH_SIZE])
            arrived(part)
            out.update(part)
        pmids = sorted(
            {k.removeprefix(PMID_PREFIX) for k in keys if k.startswith(PMID_PREFIX)} | set(via.values())
        )
        for start in range(0, len(pmids), BATCH_SIZE):
            found = await self._summaries(client, pmids[start : start + BATCH_SIZE])
            part = {}
            for key in keys:
                pmid = key.removeprefix(PMID_PREFIX) if key.startswith(PMID_PREFIX) else via.get(key)
                if pmid is None or pmid not in found or key in out:
                    continue
                answer = found[pmid]
                if key.startswith(PMCID_PREFIX):  # the PMCID's record is its PMID's, under its key
                    if answer.record is not None:
                        answer = Resolution.found(replace(answer.record, doi=key))
                    elif (
                        answer.status is ResolutionStatus.NOT_FOUND
                    ):  # the converter named a PMID esummary lacks
                        answer = _untrusted(f"PubMed has no record of {pmid}, the PMID PMC gave for it")
                part[key] = answer
            arrived(part)
            out.update(part)
        return out

    async def _convert(
        self, client: HttpClient, keys: list[str], via: dict[str, str], pmc_only: list[str]
    ) -> dict[str, Resolution]:
        """PMCIDs to PMIDs through the converter; the answers of those that end here. A PMCID
        whose record names no PMID goes to ``pmc_only``, to be read from PMC's own summary."""
        ids = [k.removeprefix(PMCID_PREFIX) for k in keys]
        params = {**self._params(with_key=False), "ids": ",".join(ids), "format": "json", "versions": "no"}
        try:
            answer = await client.get(self.idconv, params=params, route=NCBI_ROUTE)
            if answer.status != 200:
                raise ValueError(f"the PMC ID converter answered HTTP {answer.status}")
            converted = pmids_from_idconv(answer.body)
        except HttpFailure as e:
            return {k: Resolution.unavailable(UNAVAILABLE, f"PMC ID converter: {e}") for k in keys}
        except ValueError as e:
            return {k: Resolution.unavailable(UNAVAILABLE, f"PMC ID converter: {e}") for k in keys}
        out: dict[str, Resolution] = {}
        for key, pmcid in zip(keys, ids, strict=True):
            said = converted.get(pmcid)
            if said is None:
                out[key] = Resolution.unavailable(
                    UNAVAILABLE, f"the PMC ID converter's answer has no record of {pmcid}"
                )
            elif said.pmid is not None:
                via[key] = said.pmid
            elif said.no_pmid:
                pmc_only.append(key)
            elif said.unknown and not answer.transient:
                out[key] = Resolution.not_found("pmc")
            elif said.unknown:
                out[key] = _untrusted(f"the PMC ID converter said {said.reason!r} after {answer.transient}")
            else:
                out[key] = Resolution.unavailable(
                    UNAVAILABLE, f"the PMC ID converter gave {pmcid} {said.reason}"
                )
        return out

    async def _pmc_summaries(self, client: HttpClient, keys: list[str]) -> dict[str, Resolution]:
        """The records of PMCIDs that are in PMC and not in PubMed, from esummary on ``db=pmc``;
        whatever is not a summary of the PMCID asked for is "could not check", never "not registered"."""
        uids = [k.removeprefix(PMCID_PREFIX).removeprefix("PMC") for k in keys]
        try:
            answer = await client.get(
                f"{self.eutils}/esummary.fcgi",
                params={**self._params(), "db": "pmc", "id": ",".join(uids), "retmode": "xml",
                        "version": "2.0"},
                route=NCBI_ROUTE, expect_json=False,
            )  # fmt: skip
            if answer.status != 200:
                raise ValueError(f"esummary answered HTTP {answer.status}")
            summaries = pmc_summaries_from_xml(answer.body)
        except (HttpFailure, ValueError, ET.ParseError) as e:
            return {k: Resolution.unavailable(UNAVAILABLE, f"PMC esummary: {e}") for k in keys}
        out: dict[str, Resolution] = {}
        for key, uid in zip(keys, uids, strict=True):
            pmcid = key.removeprefix(PMCID_PREFIX)
            entry = summaries.entries.get(uid)
            named = {
                str(i.get("value"))
                for i in (entry or {}).get("articleids") or ()
                if i.get("idtype") == "pmcid"
            }
            if summaries.error:
                out[key] = Resolution.unavailable(UNAVAILABLE, f"PMC esummary said {summaries.error!r}")
            elif entry is None or named != {pmcid}:
                out[key] = Resolution.unavailable(
                    UNAVAILABLE,
                    f"PMC esummary has no summary of {pmcid}, whose converter record names no PMID",
                )
            else:
                record = record_from_summary(key, entry)
                page = f"https://pmc.ncbi.nlm.nih.gov/articles/{pmcid}/"
                out[key] = Resolution.found(replace(record, full_text_urls=(page,)))
        return out

    async def _summaries(self, client: HttpClient, pmids: list[str]) -> dict[str, Resolution]:
        """Each PMID's answer from one esummary and one efetch request."""
        ids = ",".join(pmids)
        try:
            answer = await client.get(
                f"{self.eutils}/esummary.fcgi",
                params={**self._params(), "db": "pubmed", "id": ids, "retmode": "json"},
                route=NCBI_ROUTE,
            )
            if answer.status != 200:
                raise ValueError(f"esummary answered HTTP {answer.status}")
            summaries = summaries_from_json(answer.body)
        except (HttpFailure, ValueError) as e:
            return {p: Resolution.unavailable(UNAVAILABLE, f"PubMed esummary: {e}") for p in pmids}
        if summaries.error:
            return {
                p: Resolution.unavailable(UNAVAILABLE, f"PubMed esummary said {summaries.error!r}")
                for p in pmids
            }
        try:
            fetched = await client.get(
                f"{self.eutils}/efetch.fcgi",
                params={**self._params(), "db": "pubmed", "id": ids, "retmode": "xml", "rettype": "abstract"},
                route=NCBI_ROUTE, expect_json=False,
            )  # fmt: skip
            if fetched.status != 200:
                raise ValueError(f"efetch answered HTTP {fetched.status}")
            articles, abstracts = abstracts_from_efetch(fetched.body)
        except (HttpFailure, ValueError, ET.ParseError) as e:  # no abstract to pin: nothing is pinned
            return {p: Resolution.unavailable(UNAVAILABLE, f"PubMed efetch: {e}") for p in pmids}
        out: dict[str, Resolution] = {}
        for pmid in pmids:
            if pmid in summaries.entries:
                record = record_from_summary(PMID.key(pmid), summaries.entries[pmid])
                out[pmid] = Resolution.found(replace(record, abstract=abstracts.get(pmid)))
            elif pmid not in summaries.missing:
                out[pmid] = Resolution.unavailable(
                    UNAVAILABLE, f"PubMed esummary's answer has no entry for {pmid}"
                )
            elif pmid in articles:
                out[pmid] = _untrusted(f"esummary had no summary of {pmid} while efetch has the article")
            elif answer.transient or fetched.transient:
                _said = answer.transient or fetched.transient
                out[pmid] = _untrusted(f"PubMed had no summary of {pmid} after {_said}")
            else:
                out[pmid] = Resolution.not_found(NCBI_AGENCY)
        return out
