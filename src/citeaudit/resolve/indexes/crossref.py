"""Crossref's bibliographic search: ``/works?query.bibliographic=…``, Crossref's own ranking of
its works against a reference as cited (title, first author and year in one string)."""

from __future__ import annotations

import json
from dataclasses import replace

from citeaudit.identifiers.arxiv import arxiv_id_of
from citeaudit.resolve.abstracts import plain_abstract
from citeaudit.resolve.crossref import record_from_message
from citeaudit.resolve.http import SAFETY
from citeaudit.resolve.indexes.interface import Candidate
from citeaudit.resolve.indexes.online import OnlineIndex, QueryParts, UnreadableAnswer

__all__ = ["CrossrefIndex"]


class CrossrefIndex(OnlineIndex):
    name = "crossref"
    label = "Crossref"
    route = "crossref-list"  # the list route's limits, shared with the DOI batch and the suggestions

    def limits(self) -> tuple[float, int]:
        # The polite pool (with a mailto) allows 3 list requests a second, the public pool 1.
        return (3 if self.mailto else 1) * SAFETY, 1

    def request(self, parts: QueryParts, limit: int) -> tuple[str, dict[str, str]]:
        text = " ".join(p for p in (parts.title, parts.surname, parts.year) if p)
        params = {"query.bibliographic": text, "rows": str(limit)}
        if self.mailto:
            params["mailto"] = self.mailto
        return f"{self.endpoints.crossref}/works", params

    def candidates(self, body: bytes, limit: int) -> list[Candidate]:
        data = json.loads(body)
        if not isinstance(data, dict) or data.get("message-type") != "work-list":
            raise UnreadableAnswer("not a Crossref work list")
        items = data["message"]["items"]
        if not isinstance(items, list):
            raise UnreadableAnswer("its items are not a list")
        out = []
        for item in items[:limit]:
            if not isinstance(item, dict) or not isinstance(item.get("DOI"), str):
                raise UnreadableAnswer("an item without a DOI")
            try:
                record = record_from_message(item)
            except (TypeError, AttributeError, ValueError):
                raise UnreadableAnswer("an item with a field not of the type Crossref gives it") from None
            if record.abstract is None and "abstract" in item:  # JATS
                record = replace(record, abstract=plain_abstract(item["abstract"]))
            out.append(Candidate(self.name, record.doi, record, arxiv_id_of(record.doi)))
        return out
