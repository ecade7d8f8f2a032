"""Bibliographic search (Crossref ``query.bibliographic``): when a DOI is not
registered or its metadata disagree, the best candidate is offered as a
suggestion. A search hit is only ever a suggestion; verdicts come from
identifier lookups alone."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from citeaudit.resolve.crossref import record_from_message
from citeaudit.resolve.http import SAFETY, HttpClient, HttpFailure
from citeaudit.resolve.registry import Endpoints

__all__ = ["BibliographicSearch"]


class BibliographicSearch:
    def __init__(
        self, mailto: str = "", endpoints: Endpoints | None = None, client: HttpClient | None = None
    ) -> None:
        self.mailto = mailto
        self.endpoints = endpoints or Endpoints.from_environment()
        self.client = client

    def suggest_many(self, queries: dict[str, str]) -> dict[str, dict[str, Any]]:
        """The best candidate per query key; keys with no usable answer are absent."""
        return asyncio.run(self._suggest_many(queries)) if queries else {}

    async def _suggest_many(self, queries: dict[str, str]) -> dict[str, dict[str, Any]]:
        client = self.client or HttpClient(mailto=self.mailto)
        client.limits_for("crossref-list", rate=(3 if self.mailto else 1) * SAFETY, concurrency=1)
        try:
            keys = sorted(queries)
            found = await asyncio.gather(*(self._one(client, queries[k]) for k in keys))
            return {k: c for k, c in zip(keys, found, strict=True) if c is not None}
        finally:
            if self.client is None:
                await client.aclose()

    async def _one(self, client: HttpClient, query: str) -> dict[str, Any] | None:
        params = {"query.bibliographic": query, "rows": "1"}
        if self.mailto:
            params["mailto"] = self.mailto
        try:
            answer = await client.get(
                f"{self.endpoints.crossref}/works", params=params, route="crossref-list"
            )
            items = json.loads(answer.body)["message"]["items"] if answer.status == 200 else []
        except (HttpFailure, ValueError, KeyError, TypeError):
            return None
        if not items:
            return None
        item = items[0]
        record = record_from_message(item)
        first = record.authors[0] if record.authors else None
        return {
            "doi": record.doi,
            "first_author": (first.family or first.name) if first else None,
            "score": item.get("score"),
            "title": record.titles[0] if record.titles else None,
            "years": list(record.year_values),
            "source": "crossref query.bibliographic (a suggestion, not a verdict)",
        }
