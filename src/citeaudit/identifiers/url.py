"""Web pages: ``http``/``https`` URLs, normalised for pinning by courlan (scheme and host in lower
case, the default port dropped, tracking parameters such as ``utm_*`` and ``fbclid`` dropped, query
parameters sorted) and with the fragment dropped. A URL that is not one, or that carries user
credentials, is the finding ``E_URL_SYNTAX``. Its quotes are looked up in the page as it was pinned
when it was fetched (``text_source = "pin"``), never in a snapshot someone saved under its name."""

from __future__ import annotations

import ipaddress
import re
from typing import ClassVar
from urllib.parse import urlsplit, urlunsplit

from citeaudit.identifiers.interface import IdentifierHandler, TextSource

__all__ = ["MAX_URL_LENGTH", "URL", "UrlHandler", "normalize_url", "url_problem"]

MAX_URL_LENGTH = 2_000
_SCHEMES = ("http", "https")
_DOTTED_QUAD = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+", re.ASCII)  # what the HTTP client reads as IPv4


def url_problem(raw: str) -> str | None:
    """Why ``raw`` is not a URL citeaudit fetches, or None."""
    text = raw.strip()
    if not text:
        return "the URL is empty"
    if len(text) > MAX_URL_LENGTH:
        return f"the URL has {len(text)} characters, over {MAX_URL_LENGTH}"
    if any(c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F for c in text):
        return "the URL contains white space or control characters"
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as e:
        return f"the URL cannot be parsed ({e})"
    if parts.scheme.lower() not in _SCHEMES:
        shown = parts.scheme or "(none)"
        return f"the scheme is {shown}; only http and https pages are fetched"
    if parts.username is not None or parts.password is not None:
        return "the URL carries user credentials (user:password@host)"
    host = parts.hostname or ""
    if not host:
        return "the URL names no host"
    if port == 0:
        return "the URL names port 0"
    if host.startswith("[") or ":" in host:
        try:
            ipaddress.IPv6Address(host.strip("[]"))
        except ValueError:
            return f"the host {host!r} is not a name or an address"
    elif not all(label and len(label) <= 63 for label in host.rstrip(".").split(".")):
        return f"the host {host!r} is not a name or an address"
    else:
        return _host_problem(host)
    return None


def _host_problem(host: str) -> str | None:
    """What makes a name no host the HTTP client would connect to: each rule here is one the client
    applies itself (it raises on such a URL rather than send it), said before any fetch is tried."""
    if _DOTTED_QUAD.fullmatch(host):
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            # 0177.0.0.1 is 127.0.0.1 to inet_aton (octal) and 177.0.0.1 to others: no one address.
            return f"the host {host!r} is not an IPv4 address as written (a leading zero or a part over 255)"
    if host.isascii():
        return None
    digits = [c for c in host if not c.isascii() and c.isnumeric()]
    if digits:  # １２７ or ①②⑦: digits to a name's normalisation, and then maybe an address
        return f"the host {host!r} writes digits with characters that are not ASCII ({digits[0]!r})"
    import idna  # only for a name that is not ASCII

    try:
        idna.encode(host)
    except idna.IDNAError as e:
        return f"the host {host!r} is not a valid internationalised name ({e})"
    return None


def normalize_url(raw: str) -> str:
    """The one spelling of a URL a pin is kept under (total: an invalid URL is only stripped)."""
    text = raw.strip()
    if url_problem(text) is not None:
        return text
    import courlan  # 50 ms of imports (tld, urllib3), paid only where a URL is cited

    parts = urlsplit(text)
    bare = urlunsplit((parts.scheme, parts.netloc, parts.path, parts.query, ""))  # the fragment dropped
    try:
        normal = courlan.normalize_url(bare, strict=False)
    except ValueError:
        return bare
    again = urlsplit(normal)
    # courlan keeps a fragment it finds; a page is one page whatever part of it is linked.
    return urlunsplit((again.scheme, again.netloc, again.path or "/", again.query, ""))


class UrlHandler(IdentifierHandler):
    kind: ClassVar[str] = "url"
    route: ClassVar[str] = "web"
    text_source: ClassVar[TextSource] = "pin"
    syntax_code: ClassVar[str | None] = "E_URL_SYNTAX"

    def normalise(self, identifier: str) -> str:
        return normalize_url(identifier)

    def is_valid(self, normal: str) -> bool:
        return url_problem(normal) is None

    def invalid(self, raw: object) -> str:
        if not isinstance(raw, str):
            return f"{raw!r} is not a URL"
        return f"{raw.strip()!r} is not a web page citeaudit can pin: {url_problem(raw)}"

    def key(self, normal: str) -> str:
        return normal

    def owns(self, key: str) -> bool:
        return key.startswith(("http://", "https://")) and self.is_valid(key)


URL = UrlHandler()
