"""DBLP's publication search API: ``/search/publ/api?q=…&format=json&h=…``.

DBLP's JSON is its XML read aloud: a list of one element is the element itself (one author is a
dict, not a list), titles end with a full stop and carry HTML entities (``Operators&apos;``),
names carry homonym numbers (``Alexey Karpov 0001``), DOIs are upper-cased, the venue is a short
name (``SPECOM``, ``Comput. Informatics``, ``CoRR``). DBLP asks to be asked slowly: one request at
a time, about one a second, and a 429's ``Retry-After`` is honoured (``resolve/http.py``).
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

from citeaudit.identifiers.arxiv import arxiv_id_of, normalize_arxiv
from citeaudit.resolve.fields import split_name
from citeaudit.resolve.indexes.interface import Candidate
from citeaudit.resolve.indexes.online import OnlineIndex, QueryParts, UnreadableAnswer
from citeaudit.resolve.interface import Author, Record

__all__ = ["DBLP_TYPES", "DblpIndex", "record_from_hit"]

# DBLP's publication types in Crossref's vocabulary, which the checks compare kinds of work in.
DBLP_TYPES = {
    "Journal Articles": "journal-article",
    "Conference and Workshop Papers": "proceedings-article",
    "Informal and Other Publications": "posted-content",  # CoRR (arXiv) and other preprints
    "Informal Publications": "posted-content",  # the older name of the same type
    "Parts in Books or Collections": "book-chapter",
    "Books and Theses": "book",
    "Editorship": "edited-book",
    "Reference Works": "reference-entry",
    "Data and Artifacts": "dataset",
}
_HOMONYM = re.compile(r"\s+\d{4}$")  # "Wei Wang 0001": DBLP's number for one of several Wei Wangs
_ARXIV_EE = re.compile(r"arxiv\.org/abs/(.+)$", re.IGNORECASE)


def _listed(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _text(value: Any) -> str | None:
    """A DBLP string field: an entity-escaped string, or ``{"text": …}`` when it has attributes."""
    if isinstance(value, dict):
        value = value.get("text")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        return None
    return " ".join(html.unescape(value).split()) or None


def _title(value: Any) -> str | None:
    title = _text(value)
    if title and title.endswith(".") and not title.endswith(".."):
        title = title[:-1].rstrip()  # DBLP ends every title with a full stop it adds itself
    return title or None


def _author(value: Any, first: bool) -> Author:
    name = _HOMONYM.sub("", _text(value) or "")
    given, family = split_name(name)
    sequence = "first" if first else "additional"
    if given is None:
        return Author(name=family, sequence=sequence)
    return Author(family=family, given=given, sequence=sequence)


def _arxiv(info: dict[str, Any], doi: str) -> str | None:
    found = arxiv_id_of(doi)
    for ee in _listed(info.get("ee")):
        m = _ARXIV_EE.search(_text(ee) or "")
        found = found or (normalize_arxiv(m.group(1)) if m else None)
    return found


def record_from_hit(info: dict[str, Any]) -> tuple[str, Record, str | None]:
    """A hit's ``info`` as (DBLP key, record, arXiv id)."""
    key = _text(info.get("key"))
    title = _title(info.get("title"))
    if not key or not title:
        raise UnreadableAnswer("a hit without a key or a title")
    doi = (_text(info.get("doi")) or "").lower()
    authors = _listed((info.get("authors") or {}).get("author"))
    year = _text(info.get("year"))
    venues = [v for v in (_text(v) for v in _listed(info.get("venue"))) if v]
    record = Record(
        doi=doi,
        agency="dblp",
        titles=(title,),
        years=(("issued", int(year)),) if year and year.isdigit() else (),
        authors=tuple(_author(a, i == 0) for i, a in enumerate(authors)),
        type=DBLP_TYPES.get(_text(info.get("type")) or ""),
        short_container=tuple(venues),  # DBLP's venue is the short name ("SPECOM", "CoRR")
        volume=_text(info.get("volume")),
        issue=_text(info.get("number")),
        pages=_text(info.get("pages")),
    )
    return key, record, _arxiv(info, doi)


class DblpIndex(OnlineIndex):
    name = "dblp"
    label = "DBLP"
    route = "dblp"
    rate = 1.0
    concurrency = 1

    def request(self, parts: QueryParts, limit: int) -> tuple[str, dict[str, str]]:
        # The title's words only: DBLP matches every word of the query, so a wrong author or year
        # in the citation would hide the very work it misattributes.
        params = {"q": parts.title, "format": "json", "h": str(limit)}
        return f"{self.endpoints.dblp}/search/publ/api", params

    def candidates(self, body: bytes, limit: int) -> list[Candidate]:
        data = json.loads(body)
        result = data["result"] if isinstance(data, dict) else None
        if not isinstance(result, dict) or not isinstance(result.get("hits"), dict):
            raise UnreadableAnswer("not a DBLP search result")
        code = _text((result.get("status") or {}).get("@code"))
        if code is not None and code != "200":
            raise UnreadableAnswer(f"DBLP's status was {code}")
        out = []
        for hit in _listed(result["hits"].get("hit"))[:limit]:
            if not isinstance(hit, dict) or not isinstance(hit.get("info"), dict):
                raise UnreadableAnswer("a hit without its info")
            key, record, arxiv = record_from_hit(hit["info"])
            out.append(Candidate(self.name, key, record, arxiv))
        return out
