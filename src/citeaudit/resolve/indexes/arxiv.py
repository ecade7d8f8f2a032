"""The arXiv API's title search: ``/query?search_query=ti:"…"``, an Atom feed read by the same
code as the identifier look-ups (``resolve/arxiv.py``). arXiv asks for one request every three
seconds, on the route the identifier look-ups share.

The API says "could not" in a 200: a feed whose one entry is titled ``Error``; and it is known to
send, now and then, an empty page of a search that has results. Neither is an answer.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import replace

from citeaudit.resolve.abstracts import plain_abstract
from citeaudit.resolve.arxiv import records_from_atom
from citeaudit.resolve.indexes.interface import Candidate
from citeaudit.resolve.indexes.online import OnlineIndex, QueryParts, UnreadableAnswer

__all__ = ["ArxivIndex"]

_ATOM = "{http://www.w3.org/2005/Atom}"
_TOTAL = "{http://a9.com/-/spec/opensearch/1.1/}totalResults"
_ABS_ID = re.compile(r"arxiv\.org/abs/(.+?)(v\d+)?$")


def _summaries(entries: list[ET.Element]) -> dict[str, str]:
    """Each entry's ``summary`` (its abstract) as plain text, by versionless arXiv id."""
    out: dict[str, str] = {}
    for entry in entries:
        m = _ABS_ID.search((entry.findtext(f"{_ATOM}id") or "").strip())
        text = plain_abstract(entry.findtext(f"{_ATOM}summary"))
        if m and text:
            out.setdefault(m.group(1).lower(), text)
    return out


class ArxivIndex(OnlineIndex):
    name = "arxiv"
    label = "arXiv"
    route = "arxiv"
    rate = 1 / 3
    concurrency = 1
    expect_json = False

    def request(self, parts: QueryParts, limit: int) -> tuple[str, dict[str, str]]:
        # The words as a phrase: arXiv tokenises titles the same way, punctuation dropped.
        params = {"search_query": f'ti:"{parts.title}"', "start": "0", "max_results": str(limit)}
        return f"{self.endpoints.arxiv}/query", params

    def candidates(self, body: bytes, limit: int) -> list[Candidate]:
        root = ET.fromstring(body)
        if root.tag != f"{_ATOM}feed":
            raise UnreadableAnswer("not an Atom feed")
        entries = root.findall(f"{_ATOM}entry")
        if any((e.findtext(f"{_ATOM}title") or "").strip() == "Error" for e in entries):
            raise UnreadableAnswer("arXiv answered with an error entry")
        total = (root.findtext(_TOTAL) or "").strip()
        if not entries and total.isdigit() and int(total) > 0:
            raise UnreadableAnswer(f"an empty page of {total} results")
        records = records_from_atom(body)  # in the feed's order: arXiv's ranking
        summaries = _summaries(entries)
        out = []
        for key, record in list(records.items())[:limit]:
            if record.abstract is None and key in summaries:
                record = replace(record, abstract=summaries[key])
            out.append(Candidate(self.name, key, record, key))
        return out
