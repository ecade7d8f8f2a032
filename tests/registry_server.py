"""A local registry that replays the real recorded answers in
``../shared/data/registry/`` on 127.0.0.1, with Crossref's limits announced
in headers and enforced (429 when exceeded), and faults injected on demand.

Routes (each under its own path prefix, so one server stands in for all):

* ``/crossref/works/{doi}`` and ``/crossref/works?filter=doi:A,doi:B`` — Crossref
* ``/datacite/dois/{doi}`` — DataCite
* ``/doi/ra/{prefix}`` and ``/doi/{doi}`` (CSL-JSON by content negotiation) — doi.org
* ``/arxiv/query?id_list=…`` — the arXiv API. No arXiv API answer was recorded, so
  its Atom feed is written here from the real DataCite records of arXiv DOIs.
* ``/ncbi/esummary.fcgi`` and ``/ncbi/efetch.fcgi`` — NCBI's E-utilities, from the real answers
  in ``tests/data/ncbi/`` (see its README): an esummary answer holds the recorded summary of each
  PMID asked for, and for a PMID with none the per-identifier error NCBI answered for PMID
  40482261; an efetch answer holds the recorded articles asked for in the recorded envelope.
  NCBI's 3 requests a second are enforced, 10 for a request with an ``api_key``.
* ``/ncbi/esummary.fcgi?db=pmc`` — PMC's summaries (XML, ``version=2.0``): the recorded ones of
  PMC254085 and PMC14900, and for any other uid the recorded per-uid ``error``.
* ``/ncbi-idconv/`` — the PMC ID converter: its recorded answer for PMC2883744, for a PMCID
  a recorded summary lists (``articleids``) a record of the same shape, and for any other PMCID
  the record it answered for PMC23840460, which PMC does not have (``invalid article id``);
  for a PMCID in ``pmc_only`` (an article in PMC and not in PubMed) a record with no PMID.

``aliases`` re-serve a recorded answer under another DOI (with its DOI field
rewritten, in any case); the benchmark uses it to repeat the records under distinct DOIs.
``redirects`` send a DOI's request on to another DOI's on the same route (301), as a registry
does for a DOI merged into another.
A prefix with no recorded agency answer has the agency of the records it re-serves.

Faults (``fault(route or DOI, ...)``, served in order): ``429``, ``500``, ``503`` (with
``Retry-After: 1``); ``reset`` (connection reset); ``slow`` (2 s late); ``truncate`` (a complete
answer of half the body); ``short`` (fewer bytes than promised); ``404`` (the route's own
not-found answer for a work it holds, as a registry in trouble may send); ``html`` (a 200 with an
HTML page, as a proxy or maintenance page would send).
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections import defaultdict, deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit
from xml.sax.saxutils import escape

__all__ = ["RegistryServer"]

LIMITS = {  # route → (requests per interval, interval seconds, concurrency)
    "crossref-single": (10, 1.0, 3),
    "crossref-list": (3, 1.0, 1),
    "ncbi": (3, 1.0, 3),  # E-utilities: 3 a second from an address without an API key
    "ncbi-key": (10, 1.0, 10),  # and 10 with one
}
# NCBI's E-utilities do not announce their limits in headers: the server enforces them silently.
_ANNOUNCED = ("crossref-single", "crossref-list")
NCBI_DATA = Path(__file__).parent / "data" / "ncbi"
# Arrivals are timed here, in a thread that shares the interpreter with the client under test:
# on a loaded machine a request can be admitted tens of milliseconds after it was sent, which
# bunches arrivals that left evenly spaced (by 160 ms and more, seen with a benchmark running
# beside the suite). The window forgets a request this much early, so a client is refused only
# when it runs more than about 25 % over the announced rate (a client that ignores the
# announcement runs at five times it, four processes apart at 3.6 times); citeaudit's keeps 10 %
# under it.
ARRIVAL_JITTER = 0.2


def _jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


class _Data:
    def __init__(self, root: Path) -> None:
        self.works = {
            r["doi"].lower(): r["message"]
            for r in _jsonl(root / "crossref_works.jsonl")
            if not r["partial_select"]
        }
        self.datacite = {r["doi"].lower(): r["response"] for r in _jsonl(root / "datacite_dois.jsonl")}
        self.csl: dict[str, dict[str, Any]] = {}
        for r in _jsonl(root / "csl_json_content_negotiation.jsonl"):
            doi = str(r["csl"].get("DOI") or unquote(r["request_uri"].rsplit("/", 1)[-1])).lower()
            self.csl[doi] = r["csl"]
        self.agencies: dict[str, dict[str, Any]] = {}
        for r in _jsonl(root / "doi_registration_agency.jsonl"):
            self.agencies[r["doi"].lower()] = {"RA": r["RA"], "status": r["status"]}
        errors = _jsonl(root / "error_responses.jsonl")
        self.crossref_404 = next(e["body"] for e in errors if "api.crossref.org/works/" in e["request_uri"])
        self.doi_404 = next(e["body"] for e in errors if e["request_uri"].startswith("https://doi.org/10."))
        self.ncbi = _NcbiData(NCBI_DATA)

    def arxiv_atom(self, ids: list[str]) -> bytes:
        entries = []
        for arxiv_id in ids:
            record = self.datacite.get("10.48550/arxiv." + arxiv_id.lower())
            if record is None:
                continue
            a = record["data"]["attributes"]
            authors = "".join(
                f"<author><name>{escape(' '.join(reversed([p.strip() for p in c['name'].split(',', 1)])))}</name></author>"
                for c in a["creators"]
            )
            entries.append(
                f"<entry><id>http://arxiv.org/abs/{arxiv_id}v1</id><title>{escape(a['titles'][0]['title'])}</title>"
                f"<published>{a['publicationYear']}-01-01T00:00:00Z</published>{authors}</entry>"
            )
        return (
            '<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom" '
            'xmlns:arxiv="http://arxiv.org/schemas/atom">' + "".join(entries) + "</feed>"
        ).encode()

    def agency(self, prefix: str, aliases: dict[str, str] | None = None) -> dict[str, Any] | None:
        if prefix in self.agencies:
            return self.agencies[prefix]
        for alias, source in (aliases or {}).items():  # a prefix made up for aliases
            if alias.startswith(prefix + "/"):
                return self.agency(source.split("/", 1)[0])
        # Prefixes of recorded works without a recorded /ra answer: the agency that answered for them.
        if any(d.startswith(prefix + "/") for d in self.works):
            return {"RA": "Crossref", "status": None}
        if any(d.startswith(prefix + "/") for d in self.datacite):
            return {"RA": "DataCite", "status": None}
        return None


class _NcbiData:
    """The recorded E-utilities and PMC ID converter answers, taken apart by identifier."""

    _ARTICLE = re.compile(r"<PubmedArticle>.*?</PubmedArticle>", re.DOTALL)
    _PMID = re.compile(r"<MedlineCitation[^>]*>\s*<PMID[^>]*>([0-9]+)</PMID>")
    _PMC_SUMMARY = re.compile(r'<DocumentSummary uid="([0-9]+)">.*?</DocumentSummary>', re.DOTALL)

    def __init__(self, root: Path) -> None:
        self.summaries: dict[str, dict[str, Any]] = {}
        self.missing: dict[str, Any] = {}  # the recorded per-identifier error, as NCBI wrote it
        for path in sorted(root.glob("esummary_*.json")):
            data = json.loads(path.read_text(encoding="utf-8"))
            if "error" in data:
                self.invalid = data  # the recorded answer for a uid that is no number
                continue
            for uid in data["result"]["uids"]:
                entry = data["result"][uid]
                if "error" in entry:
                    self.missing = entry
                else:
                    self.summaries[uid] = entry
        self.articles: dict[str, str] = {}
        for path in sorted(root.glob("efetch_*.xml")):
            text = path.read_text(encoding="utf-8")
            if "<PubmedArticle>" not in text:
                self.envelope = text  # the recorded answer with no article: the envelope of all
            for article in self._ARTICLE.findall(text):
                found = self._PMID.search(article)
                if found is not None:
                    self.articles[found.group(1)] = article
        self.idconv = json.loads((root / "idconv_PMC2883744.json").read_text(encoding="utf-8"))
        self.converted = {r["pmcid"]: r for r in self.idconv["records"]}
        # The converter's recorded record for a PMCID PMC does not have (PMC23840460).
        unknown = json.loads((root / "idconv_PMC23840460.json").read_text(encoding="utf-8"))
        (self.unknown,) = unknown["records"]
        # esummary on db=pmc (XML, version=2.0): the recorded summaries by uid, in the recorded
        # envelope; for a uid with none, the recorded per-uid error (uid 1).
        pmc = (root / "esummary_pmc_254085_1_14900.xml").read_text(encoding="utf-8")
        blocks = {m.group(1): m.group(0) for m in self._PMC_SUMMARY.finditer(pmc)}
        self.pmc_missing = blocks.pop("1")
        self.pmc_summaries = blocks
        start, end = (
            pmc.index("<DocumentSummary "),
            pmc.rindex("</DocumentSummary>") + len("</DocumentSummary>"),
        )
        self.pmc_envelope = (pmc[:start], pmc[end:])
        for uid, entry in self.summaries.items():  # PMCIDs the summaries list, in the same shape
            ids = {i["idtype"]: i["value"] for i in entry.get("articleids", [])}
            if "pmc" in ids:
                record = {"pmcid": ids["pmc"], "pmid": uid}
                self.converted.setdefault(
                    ids["pmc"], {**record, **({"doi": ids["doi"]} if "doi" in ids else {})}
                )

    def esummary(self, ids: list[str]) -> bytes:
        for n, uid in enumerate(ids):
            if not uid.isdigit():
                return json.dumps({**self.invalid, "error": f"Invalid uid {uid} at position={n}"}).encode()
        result: dict[str, Any] = {"uids": ids}
        for uid in ids:
            result[uid] = self.summaries.get(uid) or {**self.missing, "uid": uid}
        return json.dumps({"header": {"type": "esummary", "version": "0.3"}, "result": result}).encode()

    def pmc_esummary(self, ids: list[str]) -> bytes:
        found = [
            self.pmc_summaries.get(i) or self.pmc_missing.replace('uid="1"', f'uid="{i}"', 1) for i in ids
        ]
        head, tail = self.pmc_envelope
        return (head + "\n".join(found) + tail).encode()

    def efetch(self, ids: list[str]) -> bytes:
        found = "".join("\n" + self.articles[i] for i in ids if i in self.articles)
        return self.envelope.replace("<PubmedArticleSet></PubmedArticleSet>",
                                     f"<PubmedArticleSet>{found}\n</PubmedArticleSet>").encode()  # fmt: skip

    def convert(self, ids: list[str], pmc_only: frozenset[str] = frozenset()) -> bytes:
        records = [
            {"pmcid": i.upper(), "requested-id": i}  # in PMC, not in PubMed: a record with no PMID
            if i.upper() in pmc_only
            else self.converted.get(i.upper()) or {**self.unknown, "pmcid": i.upper()}
            for i in ids
        ]
        envelope = {**self.idconv, "request": f"ids={','.join(ids)};format=json", "records": records}
        return json.dumps(envelope).encode()


class RegistryServer:
    def __init__(self, data_root: Path, latency: float = 0.0) -> None:
        self.data = _Data(data_root)
        self.latency = latency
        self.aliases: dict[str, str] = {}
        self.redirects: dict[str, str] = {}  # DOI → the DOI its requests are sent on to
        self.faults: dict[str, deque[str]] = defaultdict(deque)  # route or DOI → faults to serve, in order
        self.log: list[tuple[str, int]] = []  # (path, status) of every request
        self.ncbi_queries: list[dict[str, list[str]]] = []  # the parameters of each request to NCBI
        self.pmc_only: set[str] = set()  # PMCIDs the converter answers with a record naming no PMID
        self.enforce_limits = True
        self._windows: dict[str, deque[float]] = defaultdict(deque)
        self._in_flight: dict[str, int] = defaultdict(int)
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> RegistryServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def fault(self, key: str, *faults: str) -> None:
        self.faults[key].extend(faults)

    def count(self, status: int | None = None, prefix: str = "") -> int:
        return sum(1 for path, s in self.log if path.startswith(prefix) and (status is None or s == status))

    # -- limits --------------------------------------------------------------------

    def _admit(self, route: str) -> bool:
        if not self.enforce_limits or route not in LIMITS:
            return True
        limit, interval, concurrency = LIMITS[route]
        now = time.monotonic()
        with self._lock:
            window = self._windows[route]
            while window and now - window[0] >= interval - ARRIVAL_JITTER:
                window.popleft()
            if len(window) >= limit or self._in_flight[route] >= concurrency:
                return False
            window.append(now)
            self._in_flight[route] += 1
            return True

    def _done(self, route: str) -> None:
        if self.enforce_limits and route in LIMITS:
            with self._lock:
                self._in_flight[route] -= 1

    # -- answers -------------------------------------------------------------------

    def _record(self, table: dict[str, Any], doi: str) -> Any | None:
        source = self.aliases.get(doi, doi)
        found = table.get(source)
        if found is None or source == doi:
            return found
        pattern = re.compile(re.escape(json.dumps(source)[1:-1]), re.IGNORECASE)
        return json.loads(pattern.sub(lambda _: doi, json.dumps(found)))  # the alias's own DOI everywhere

    def not_found(self, route: str) -> tuple[str, bytes]:
        """The recorded not-found answer of a route (content type, body)."""
        if route.startswith("crossref"):
            return "text/plain;charset=utf-8", self.data.crossref_404.encode()
        if route == "datacite":
            missing = {
                "errors": [{"status": "404", "title": "The resource you are looking for doesn't exist."}]
            }
            return "application/json", json.dumps(missing).encode()
        return "text/html;charset=utf-8", self.data.doi_404.encode()

    def answer(self, path: str, query: dict[str, list[str]], accept: str) -> tuple[int, str, bytes]:
        if path.startswith("/crossref/works/"):
            doi = unquote(path[len("/crossref/works/") :]).lower()
            message = self._record(self.data.works, doi)
            if message is None:
                return 404, "text/plain;charset=utf-8", self.data.crossref_404.encode()
            body = {"status": "ok", "message-type": "work", "message-version": "1.0.0", "message": message}
            return 200, "application/json", json.dumps(body).encode()
        if path == "/crossref/works" and "query.bibliographic" in query:
            return self._search(query["query.bibliographic"][0], int(query.get("rows", ["1"])[0]))
        if path == "/crossref/works":
            wanted = [
                f[len("doi:") :].lower()
                for f in query.get("filter", [""])[0].split(",")
                if f.startswith("doi:")
            ]
            items = [m for m in (self._record(self.data.works, d) for d in wanted) if m is not None]
            body = {
                "status": "ok",
                "message-type": "work-list",
                "message": {"items": items, "total-results": len(items)},
            }
            return 200, "application/json", json.dumps(body).encode()
        if path.startswith("/datacite/dois/"):
            doi = unquote(path[len("/datacite/dois/") :]).lower()
            record = self._record(self.data.datacite, doi)
            if record is None:
                missing = {
                    "errors": [{"status": "404", "title": "The resource you are looking for doesn't exist."}]
                }
                return 404, "application/json", json.dumps(missing).encode()
            return 200, "application/vnd.api+json", json.dumps(record).encode()
        if path == "/arxiv/query":
            ids = [i for i in query.get("id_list", [""])[0].split(",") if i]
            return 200, "application/atom+xml", self.data.arxiv_atom(ids)
        if path in ("/ncbi/esummary.fcgi", "/ncbi/efetch.fcgi", "/ncbi-idconv/"):
            ids = [i for i in query.get("id" if path != "/ncbi-idconv/" else "ids", [""])[0].split(",") if i]
            if path == "/ncbi/efetch.fcgi":
                return 200, "text/xml; charset=UTF-8", self.data.ncbi.efetch(ids)
            if path == "/ncbi/esummary.fcgi" and query.get("db") == ["pmc"]:
                return 200, "text/xml; charset=UTF-8", self.data.ncbi.pmc_esummary(ids)
            answered = (
                self.data.ncbi.esummary(ids)
                if path == "/ncbi/esummary.fcgi"
                else self.data.ncbi.convert(ids, frozenset(self.pmc_only))
            )
            return 200, "application/json; charset=UTF-8", answered
        if path.startswith("/doi/ra/"):
            prefix = unquote(path[len("/doi/ra/") :]).lower()
            entry = self.data.agency(prefix, self.aliases)
            if entry is None or entry["RA"] is None:
                return (
                    200,
                    "application/json",
                    json.dumps([{"DOI": prefix, "status": "DOI does not exist"}]).encode(),
                )
            return 200, "application/json", json.dumps([{"DOI": prefix, "RA": entry["RA"]}]).encode()
        if path.startswith("/doi/"):
            doi = unquote(path[len("/doi/") :]).lower()
            csl = self._record(self.data.csl, doi)
            if csl is None or "citationstyles.csl+json" not in accept:
                return 404, "text/html;charset=utf-8", self.data.doi_404.encode()
            return 200, "application/vnd.citationstyles.csl+json", json.dumps(csl).encode()
        return 404, "text/plain", b"no such route"

    def _search(self, text: str, rows: int) -> tuple[int, str, bytes]:
        """Crossref's bibliographic search stands in here as word overlap over the
        recorded works' titles and authors (no search answers were recorded)."""
        words = set(text.lower().split())

        def score(message: dict[str, Any]) -> float:
            title = " ".join(message.get("title") or []).lower().split()
            names = [str(a.get("family", "")).lower() for a in message.get("author") or []]
            hits = len(words & set(title + names))
            return hits / (len(words) or 1) * 100

        ranked = sorted(self.data.works.values(), key=lambda m: (-score(m), m["DOI"]))[:rows]
        items = [{**m, "score": round(score(m), 2)} for m in ranked if score(m) > 0]
        body = {
            "status": "ok",
            "message-type": "work-list",
            "message": {"items": items, "total-results": len(items)},
        }
        return 200, "application/json", json.dumps(body).encode()

    @staticmethod
    def route_of(path: str) -> str:
        if path.startswith("/crossref/works/"):
            return "crossref-single"
        if path == "/crossref/works":
            return "crossref-list"
        return path.split("/")[1]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def _send(self, status: int, content_type: str, body: bytes, extra: dict[str, str] | None = None,
                      length: int | None = None) -> None:  # fmt: skip
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body) if length is None else length))
                for key, value in (extra or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                split = urlsplit(self.path)
                path, query = split.path, parse_qs(split.query)
                route = server.route_of(path)
                doi = unquote(path.split("/", 3)[-1]).lower() if route != "crossref-list" else ""
                headers = {}
                limited = "ncbi-key" if route == "ncbi" and query.get("api_key") else route
                if route.startswith("ncbi"):
                    server.ncbi_queries.append(query)
                if route in _ANNOUNCED:
                    limit, interval, concurrency = LIMITS[route]
                    headers = {"X-Rate-Limit-Limit": str(limit), "X-Rate-Limit-Interval": f"{interval:g}s",
                               "X-Concurrency-Limit": str(concurrency)}  # fmt: skip
                moved = server.redirects.get(doi) if doi else None
                if moved is not None:
                    server.log.append((path, 301))
                    target = path[: len(path) - len(path.split("/", 3)[-1])] + quote(moved, safe="")
                    self._send(301, "text/plain", b"moved", {"Location": target})
                    return
                fault = None
                with server._lock:
                    for key in (doi, route):
                        if server.faults.get(key):
                            fault = server.faults[key].popleft()
                            break
                if fault == "reset":
                    server.log.append((path, 0))
                    self.connection.setsockopt(
                        socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00"
                    )
                    self.connection.close()
                    return
                if fault == "slow":
                    time.sleep(2.0)
                if fault == "404":
                    server.log.append((path, 404))
                    self._send(404, *server.not_found(route))
                    return
                if fault == "html":
                    server.log.append((path, 200))
                    self._send(
                        200, "text/html;charset=utf-8", b"<html><body>Down for maintenance</body></html>"
                    )
                    return
                if fault in ("429", "500", "503"):
                    server.log.append((path, int(fault)))
                    self._send(int(fault), "text/plain", b"try later", {**headers, "Retry-After": "1"})
                    return
                if not server._admit(limited):
                    server.log.append((path, 429))
                    self._send(429, "text/plain", b"rate limit", {**headers, "Retry-After": "1"})
                    return
                try:
                    if server.latency:
                        time.sleep(server.latency)
                    status, content_type, body = server.answer(path, query, self.headers.get("Accept", ""))
                finally:
                    server._done(limited)
                server.log.append((path, status))
                if fault == "truncate":
                    cut = body[: max(1, len(body) // 2)]
                    self._send(status, content_type, cut, headers)  # a complete answer of half a JSON text
                    return
                if fault == "short":
                    self._send(status, content_type, body[: len(body) // 2], headers, length=len(body))
                    self.connection.close()  # promised more bytes than it sent
                    return
                self._send(status, content_type, body, headers)

        return Handler
