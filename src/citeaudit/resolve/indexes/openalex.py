"""OpenAlex: ``/works?filter=title.search:…``, works whose title has the cited words, as an
OpenAlex list (``meta``, ``results``). OpenAlex allows ten requests a second; a ``mailto``
puts them in its polite pool."""

from __future__ import annotations

import json
import re
from typing import Any

from citeaudit.identifiers.arxiv import arxiv_id_of, normalize_arxiv
from citeaudit.resolve.abstracts import abstract_from_inverted_index
from citeaudit.resolve.fields import split_name
from citeaudit.resolve.http import SAFETY
from citeaudit.resolve.indexes.interface import Candidate
from citeaudit.resolve.indexes.online import OnlineIndex, QueryParts, UnreadableAnswer
from citeaudit.resolve.interface import Author, Record

__all__ = ["OPENALEX_TYPES", "OpenAlexIndex", "record_from_work"]

# OpenAlex's own work types in Crossref's vocabulary, for answers without ``type_crossref``.
OPENALEX_TYPES = {
    "article": "journal-article",
    "preprint": "posted-content",
    "book-chapter": "book-chapter",
    "book": "book",
    "dataset": "dataset",
    "dissertation": "dissertation",
    "report": "report",
    "standard": "standard",
    "peer-review": "peer-review",
    "reference-entry": "reference-entry",
}
_CROSSREF_TYPES = frozenset(OPENALEX_TYPES.values()) | {"proceedings-article", "posted-content", "monograph"}
_WORK_ID = re.compile(r"(?:https://openalex\.org/)?(W\d+)$")
_ARXIV_URL = re.compile(r"arxiv\.org/abs/(.+)$", re.IGNORECASE)


def _str(value: Any) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    return " ".join(value.split()) or None if isinstance(value, str) else None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _type(work: dict[str, Any], source: dict[str, Any]) -> str | None:
    """The Crossref type OpenAlex gives (``type_crossref``, or the source's ``raw_type``), else
    OpenAlex's own type read in Crossref's words (an article in a conference is a paper there)."""
    for given in (work.get("type_crossref"), _dict(work.get("primary_location")).get("raw_type")):
        if isinstance(given, str) and given in _CROSSREF_TYPES:
            return given
    kind = work.get("type")
    if kind == "article" and source.get("type") == "conference":
        return "proceedings-article"
    return OPENALEX_TYPES.get(kind) if isinstance(kind, str) else None


def _author(authorship: Any) -> Author:
    authorship = _dict(authorship)
    name = _str(_dict(authorship.get("author")).get("display_name")) or ""
    sequence = "first" if authorship.get("author_position") == "first" else "additional"
    given, family = split_name(name)
    if given is None:
        return Author(name=family, sequence=sequence)
    return Author(family=family, given=given, sequence=sequence)


def _arxiv(work: dict[str, Any], doi: str) -> str | None:
    found = arxiv_id_of(doi)
    for location in work.get("locations") or [work.get("primary_location")]:
        m = _ARXIV_URL.search(_str(_dict(location).get("landing_page_url")) or "")
        found = found or (normalize_arxiv(m.group(1)) if m else None)
    return found


def _pages(biblio: dict[str, Any]) -> str | None:
    first, last = _str(biblio.get("first_page")), _str(biblio.get("last_page"))
    if first and last and first != last:
        return f"{first}-{last}"
    return first or last


def record_from_work(work: dict[str, Any]) -> tuple[str, Record, str | None]:
    """One OpenAlex work as (OpenAlex id ``W…``, record, arXiv id)."""
    m = _WORK_ID.match(str(work.get("id", "")))
    title = _str(work.get("display_name")) or _str(work.get("title"))
    if not m or not title:
        raise UnreadableAnswer("a work without an id or a title")
    doi = (_str(work.get("doi")) or "").lower().removeprefix("https://doi.org/")
    source = _dict(_dict(work.get("primary_location")).get("source"))
    biblio = _dict(work.get("biblio"))
    year = work.get("publication_year")
    container = _str(source.get("display_name"))
    record = Record(
        doi=doi,
        agency="openalex",
        titles=(title,),
        years=(("issued", year),) if isinstance(year, int) and not isinstance(year, bool) else (),
        authors=tuple(_author(a) for a in work.get("authorships") or ()),
        type=_type(work, source),
        container=(container,) if container else (),
        volume=_str(biblio.get("volume")),
        issue=_str(biblio.get("issue")),
        pages=_pages(biblio),
        abstract=abstract_from_inverted_index(work.get("abstract_inverted_index")),
    )
    return m.group(1), record, _arxiv(work, doi)


class OpenAlexIndex(OnlineIndex):
    name = "openalex"
    label = "OpenAlex"
    route = "openalex"
    rate = 10 * SAFETY  # OpenAlex's ten a second, with the margin kept below every published limit
    concurrency = 4

    def request(self, parts: QueryParts, limit: int) -> tuple[str, dict[str, str]]:
        # The normalised words hold no comma or colon, so they cannot end the filter early.
        params = {"filter": f"title.search:{parts.title}", "per-page": str(limit)}
        if self.mailto:
            params["mailto"] = self.mailto
        return f"{self.endpoints.openalex}/works", params

    def candidates(self, body: bytes, limit: int) -> list[Candidate]:
        data = json.loads(body)
        if not isinstance(data, dict) or not isinstance(data.get("meta"), dict):
            raise UnreadableAnswer("not an OpenAlex list")
        results = data["results"]
        if not isinstance(results, list):
            raise UnreadableAnswer("its results are not a list")
        out = []
        for work in results[:limit]:
            if not isinstance(work, dict):
                raise UnreadableAnswer("a result that is not a work")
            key, record, arxiv = record_from_work(work)
            out.append(Candidate(self.name, key, record, arxiv))
        return out
