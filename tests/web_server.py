"""A local web server for the web citation tests: pages, redirects, faults and robots.txt on
127.0.0.1, each route what a real site sends (status, headers, body), with a log of what reached it."""

from __future__ import annotations

import ssl
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


@dataclass
class Route:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "text/html; charset=utf-8"})
    delay: float = 0.0  # seconds before answering
    chunks: int = 1  # sent in this many pieces, ``delay`` apart
    answers: list[tuple[int, dict[str, str], bytes]] = field(default_factory=list)  # first answers, in turn


class WebServer:
    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.tls = False
        self.log: list[tuple[str, str]] = []  # (path, Host header)
        self.agents: list[str] = []  # the User-Agent of each request
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                server.log.append((self.path, self.headers.get("Host", "")))
                server.agents.append(self.headers.get("User-Agent", ""))
                route = server.routes.get(self.path)
                if route is None:
                    self._send(404, {"Content-Type": "text/plain"}, b"not here")
                    return
                if route.answers:
                    status, headers, body = route.answers.pop(0)
                    self._send(status, headers, body)
                    return
                if route.delay and route.chunks == 1:
                    time.sleep(route.delay)
                self._send(route.status, route.headers, route.body, route)

            def _send(
                self, status: int, headers: dict[str, str], body: bytes, route: Route | None = None
            ) -> None:
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if route is not None and route.chunks > 1:
                    step = max(1, len(body) // route.chunks)
                    for i in range(0, len(body), step):
                        try:
                            self.wfile.write(body[i : i + step])
                            self.wfile.flush()
                        except OSError:
                            return
                        time.sleep(route.delay)
                    return
                try:
                    self.wfile.write(body)
                except OSError:
                    return

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def port(self) -> int:
        return int(self.httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    def serve_tls(self, context: ssl.SSLContext) -> WebServer:
        """Serve HTTPS with ``context`` (call before :meth:`start`)."""
        self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.tls = True
        return self

    def start(self) -> WebServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def page(self, path: str, html: str, **route: Any) -> str:
        self.routes[path] = Route(body=html.encode("utf-8"), **route)
        return self.url + path

    def redirect(self, path: str, to: str, status: int = 301) -> str:
        self.routes[path] = Route(status=status, headers={"Location": to}, body=b"")
        return self.url + path

    def hits(self, path: str) -> int:
        return sum(1 for p, _ in self.log if p == path)


def wrap(title: str, paragraphs: list[str], extra_head: str = "") -> str:
    """A page as sites write them: navigation, a cookie banner, the article, a footer."""
    body = "\n".join(f"<p>{p}</p>" for p in paragraphs)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title} | Example News</title>
<meta property="og:title" content="{title}">{extra_head}
<script>window.dataLayer = window.dataLayer || []; function gtag(){{dataLayer.push(arguments);}}</script>
<style>.cookie {{ position: fixed; bottom: 0; }}</style></head>
<body>
<div class="cookie" id="cookie-banner">We use cookies to improve your experience. <button>Accept all cookies</button></div>
<header><nav><ul><li><a href="/">Home</a></li><li><a href="/world">World</a></li><li><a href="/business">Business</a></li><li><a href="/about">About us</a></li></ul></nav></header>
<main><article><h1>{title}</h1>
<p class="byline">By Staff Reporter, updated 3 hours ago</p>
{body}
</article></main>
<aside><h3>Most read</h3><ul><li><a href="/a">Ten things you missed this week</a></li><li><a href="/b">Weather warning issued</a></li></ul></aside>
<footer><p>&copy; 2024 Example News Ltd. All rights reserved.</p><p><a href="/privacy">Privacy policy</a> | <a href="/terms">Terms of use</a> | <a href="/cookies">Cookie settings</a></p></footer>
</body></html>
"""


def tls_contexts(tmp: Path, host: str) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """A throwaway certificate authority and a certificate for ``host`` signed by it: the server's
    context, and a client context that trusts only that authority."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "citeaudit test CA")])
    ca = (
        x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
        .serial_number(1).not_valid_before(now - datetime.timedelta(days=3650))
        .not_valid_after(now + datetime.timedelta(days=3650))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )  # fmt: skip
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)]))
        .issuer_name(ca_name).public_key(key.public_key()).serial_number(2)
        .not_valid_before(now - datetime.timedelta(days=3650)).not_valid_after(now + datetime.timedelta(days=3650))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(host)]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )  # fmt: skip
    pem = serialization.Encoding.PEM
    (tmp / "server.pem").write_bytes(
        cert.public_bytes(pem)
        + key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(tmp / "server.pem")
    client = ssl.create_default_context(cadata=ca.public_bytes(pem).decode("ascii"))
    return server, client
