"""A local stand-in for the four online indexes on 127.0.0.1, replaying the real sample answers in
``data/`` (where each came from: ``data/README.md``), with faults injected on demand.

Routes: ``/crossref/works``, ``/dblp/search/publ/api``, ``/arxiv/query``, ``/openalex/works``. Each
route serves the answer registered for the request's query text (``query.bibliographic``, ``q``,
``search_query``, ``filter``), else the route's default answer.

Faults (``fault(route, ...)``, served in order): ``429`` and ``503`` (with ``Retry-After: 1``),
``500``; ``slow`` (the answer 1.5 s late); ``truncate`` (a complete answer of half the body);
``html`` (a 200 with an HTML page, as a proxy or maintenance page sends).
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

__all__ = ["DATA", "ROUTES", "IndexServer"]

DATA = Path(__file__).parent / "data"
# route → (path, the parameter holding the query text, content type)
ROUTES = {
    "crossref": ("/crossref/works", "query.bibliographic", "application/json"),
    "dblp": ("/dblp/search/publ/api", "q", "application/json"),
    "arxiv": ("/arxiv/query", "search_query", "application/atom+xml; charset=utf-8"),
    "openalex": ("/openalex/works", "filter", "application/json"),
}
DEFAULTS = {
    "crossref": "crossref_works_query_ecology.json",
    "dblp": "dblp_publ_basov_oleg.json",
    "arxiv": "arxiv_query_all_gan.xml",
    "openalex": "openalex_works_state_of_oa.json",
}


class IndexServer:
    def __init__(self) -> None:
        self.answers: dict[str, dict[str, bytes]] = defaultdict(dict)  # route → query text → body
        self.faults: dict[str, deque[str]] = defaultdict(deque)
        self.log: list[tuple[str, dict[str, str], str]] = []  # (route, parameters, User-Agent)
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> IndexServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def reset(self) -> None:
        with self._lock:
            self.answers.clear()
            self.faults.clear()
            self.log.clear()

    def serve(self, route: str, query_text: str, data_file: str) -> None:
        self.answers[route][query_text] = (DATA / data_file).read_bytes()

    def fault(self, route: str, *faults: str) -> None:
        self.faults[route].extend(faults)

    def count(self, route: str | None = None) -> int:
        return sum(1 for r, _, _ in self.log if route is None or r == route)

    def _answer(self, route: str, params: dict[str, str]) -> bytes:
        text = params.get(ROUTES[route][1], "")
        found = self.answers.get(route, {}).get(text)
        return found if found is not None else (DATA / DEFAULTS[route]).read_bytes()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def _send(
                self, status: int, content_type: str, body: bytes, extra: dict[str, str] | None = None
            ) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                for key, value in (extra or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                split = urlsplit(self.path)
                route = next((r for r, (p, _, _) in ROUTES.items() if p == split.path), None)
                if route is None:
                    self._send(404, "text/plain", b"no such route")
                    return
                params = {k: v[0] for k, v in parse_qs(split.query).items()}
                with server._lock:
                    server.log.append((route, params, self.headers.get("User-Agent", "")))
                    fault = server.faults[route].popleft() if server.faults.get(route) else None
                if fault in ("429", "503", "500"):
                    self._send(int(fault), "text/plain", b"try later", {"Retry-After": "1"})
                    return
                if fault == "html":
                    self._send(
                        200, "text/html;charset=utf-8", b"<html><body>Down for maintenance</body></html>"
                    )
                    return
                if fault == "slow":
                    time.sleep(1.5)
                body = server._answer(route, params)
                if fault == "truncate":
                    body = body[: len(body) // 2]
                self._send(200, ROUTES[route][2], body)

        return Handler
