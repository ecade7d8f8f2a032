"""Fetching cited web pages: one GET per page, with every rule of :mod:`citeaudit.resolve.http`
and the ones a URL chosen by the audited agent needs.

* **Addresses.** The host of every hop (the page, each redirect's target, ``robots.txt``) is
  resolved here, every address it resolves to is checked, and the connection goes to the address
  that was checked (the URL is rewritten to it; the ``Host`` header and the TLS server name, which
  the certificate is verified against, stay the host's). A name that resolves to a loopback,
  private, link-local, multicast, reserved or unspecified address is refused before anything is
  sent, unless ``allow_private``; a second lookup by the HTTP stack, which a rebinding DNS server
  could answer differently, never happens. Proxies from the environment are not used: the check
  would then be of the proxy, not of the page. No connection is reused: one verified for one host
  never carries the request of another host on the same address.
* **Redirects** are followed here, at most ``max_redirects``, each one recorded, a loop refused.
* **Politeness.** At most eight pages at once, one request at a time per host, ``delay`` seconds
  apart (or the site's ``Crawl-delay``, up to a bound); ``robots.txt`` honoured (protego) unless
  ``ignore_robots``.
* **Retries** only on 429, 502, 503, 504, timeouts and connection errors, with the backoff and the
  bounded ``Retry-After`` of :class:`~citeaudit.resolve.http.RetryPolicy`; the time of one attempt
  is bounded as a whole (a page that trickles in is a timeout).
* **Size.** A body over ``max_page_bytes`` is refused unread beyond the bound, counted as it is
  inflated through every layer of ``Content-Encoding``.

What comes back is the answer as the server gave it (:class:`PageAnswer`) or why there is none
(:class:`PageFailure`, always "could not check"). Reading the body into text and pinning it is the
sources layer's (:mod:`citeaudit.sources.pins`).
"""

from __future__ import annotations

import asyncio
import ipaddress
import random
import re
import socket
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx

from citeaudit.identifiers.url import url_problem
from citeaudit.resolve.http import (
    ACCEPT_ENCODING,
    BodyOverLimit,
    Clock,
    HostLimits,
    RetryPolicy,
    SystemClock,
    _retry_after,
    read_bounded,
    user_agent,
)

__all__ = [
    "Hop",
    "HostResolver",
    "PageAnswer",
    "PageFailure",
    "WebFetcher",
    "WebPolicy",
    "address_refusal",
    "system_resolver",
]

ROBOTS_AGENT = "citeaudit"  # the token robots.txt rules name us by
MAX_ROBOTS_BYTES = 512 * 1024  # what RFC 9309 asks a crawler to read at least
MAX_CRAWL_DELAY = 30.0  # a longer Crawl-delay is honoured up to this
MAX_PAGES_IN_FLIGHT = 8  # pages fetched at once, over all hosts (one at a time per host)


@dataclass(frozen=True)
class WebPolicy:
    retry: RetryPolicy = field(default_factory=lambda: RetryPolicy(attempts=4, timeout=20.0))
    max_redirects: int = 10
    max_page_bytes: int = 16 * 1024 * 1024
    delay: float = 1.0  # seconds between two requests to one host
    allow_private: bool = False
    ignore_robots: bool = False


@dataclass(frozen=True)
class Hop:
    """One redirect: where it was, its status, where it pointed."""

    url: str
    status: int
    location: str

    def to_json(self) -> dict[str, Any]:
        return {"location": self.location, "status": self.status, "url": self.url}


@dataclass(frozen=True)
class PageAnswer:
    """A final answer: any status that is neither a redirect nor one to retry."""

    url: str  # as requested
    final_url: str
    status: int
    content_type: str  # the header as sent ("" when none)
    body: bytes
    redirects: tuple[Hop, ...] = ()
    transient: str = ""  # the last transient failure before this answer ("" on a first try)


@dataclass(frozen=True)
class PageFailure:
    """No final answer: a could-not-check finding code and its reason."""

    code: str  # E_URL_UNREACHABLE, E_URL_REFUSED, E_ROBOTS_DISALLOWED, E_URL_UNREADABLE
    reason: str


# (host, port) → the addresses it resolves to.
HostResolver = Callable[[str, int], Awaitable[list[str]]]


async def system_resolver(host: str, port: int) -> list[str]:
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return sorted({str(info[4][0]) for info in infos})


def address_refusal(address: str) -> str | None:
    """Why an address is not one to fetch an agent's URL from, or None."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    for test, what in (
        ("is_loopback", "loopback"),
        ("is_link_local", "link-local"),
        ("is_multicast", "multicast"),
        ("is_private", "private"),
        ("is_reserved", "reserved"),
        ("is_unspecified", "unspecified"),
    ):
        if getattr(ip, test):
            return f"{what} address {ip}"
    return None


class _Refused(Exception):
    def __init__(self, code: str, reason: str, *, unanswered: bool = False) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.unanswered = unanswered  # no server answered at all (a name not resolved, no connection)


class _Transient(Exception):
    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after


@dataclass(frozen=True)
class _Raw:
    status: int
    headers: httpx.Headers
    body: bytes


class WebFetcher:
    """Fetches pages; :meth:`fetch_many` runs one event loop for a list of URLs."""

    def __init__(
        self,
        mailto: str = "",
        policy: WebPolicy | None = None,
        clock: Clock | None = None,
        rand: random.Random | None = None,
        resolve_host: HostResolver | None = None,
        verify: ssl.SSLContext | None = None,
    ) -> None:
        self.policy = policy or WebPolicy()
        self.clock = clock or SystemClock()
        self.rand = rand or random.Random()
        self.mailto = mailto
        self.resolve_host = resolve_host or system_resolver
        self.verify: ssl.SSLContext | bool = verify if verify is not None else True  # certifi's roots
        self.refusal: Callable[[str], str | None] = address_refusal
        self.requests = 0
        self._limits: dict[str, HostLimits] = {}
        self._robots: dict[str, Any] = {}  # origin → parsed rules, or a PageFailure
        self._robots_locks: dict[str, asyncio.Lock] = {}

    def fetch_many(self, urls: list[str]) -> dict[str, PageAnswer | PageFailure]:
        return asyncio.run(self._fetch_all(urls))

    async def _fetch_all(self, urls: list[str]) -> dict[str, PageAnswer | PageFailure]:
        self._limits, self._robots, self._robots_locks = {}, {}, {}
        async with httpx.AsyncClient(
            headers={"User-Agent": user_agent(self.mailto), "Accept-Encoding": ACCEPT_ENCODING},
            timeout=self.policy.retry.timeout,
            follow_redirects=False,
            trust_env=False,
            verify=self.verify,
            # No connection is kept for another request: the pool knows connections by address, and
            # one made (and its certificate verified) for one host must not carry another's request.
            limits=httpx.Limits(max_keepalive_connections=0),
        ) as client:
            gate = asyncio.Semaphore(MAX_PAGES_IN_FLIGHT)

            async def one(url: str) -> PageAnswer | PageFailure:
                async with gate:
                    return await self.fetch(client, url)

            answers = await asyncio.gather(*(one(url) for url in urls))
        return dict(zip(urls, answers, strict=True))

    async def fetch(self, client: httpx.AsyncClient, url: str) -> PageAnswer | PageFailure:
        try:
            return await self._follow(client, url)
        except _Refused as e:
            return PageFailure(e.code, e.reason)

    async def _follow(self, client: httpx.AsyncClient, url: str) -> PageAnswer:
        hops: list[Hop] = []
        seen = {url}
        current = url
        transient = ""
        while True:
            await self._robots_allow(client, current)
            raw, last = await self._with_retries(client, current, self.policy.max_page_bytes)
            transient = last or transient
            location = raw.headers.get("location")
            if raw.status not in (301, 302, 303, 307, 308) or location is None:
                return PageAnswer(
                    url=url,
                    final_url=current,
                    status=raw.status,
                    content_type=raw.headers.get("content-type", ""),
                    body=raw.body,
                    redirects=tuple(hops),
                    transient=transient,
                )
            try:
                target = str(httpx.URL(current).join(location).copy_with(fragment=None))
            except (httpx.InvalidURL, ValueError):
                raise _Refused(
                    "E_URL_UNREACHABLE", f"{current} redirects to {location!r}, not a URL"
                ) from None
            hops.append(Hop(current, raw.status, target))
            problem = url_problem(target)
            if problem is not None:
                raise _Refused("E_URL_UNREACHABLE", f"{current} redirects to {target}: {problem}")
            if target in seen:
                raise _Refused("E_URL_UNREACHABLE", f"redirect loop: {target} was already visited")
            if len(hops) > self.policy.max_redirects:
                raise _Refused("E_URL_UNREACHABLE", f"more than {self.policy.max_redirects} redirects")
            seen.add(target)
            current = target

    def _host_limits(self, url: str) -> HostLimits:
        host = urlsplit(url).netloc.lower()
        limits = self._limits.get(host)
        if limits is None:
            rate = 1 / self.policy.delay if self.policy.delay > 0 else 1e9
            limits = HostLimits(rate, 1, self.clock)
            self._limits[host] = limits
        return limits

    async def _with_retries(self, client: httpx.AsyncClient, url: str, bound: int) -> tuple[_Raw, str]:
        """A final answer of one hop (redirects included), and the last transient failure before
        it ("" for none); retries by the policy, and a could-not-check refusal when they run out."""
        retry = self.policy.retry
        limits = self._host_limits(url)
        last = ""
        unanswered = False  # the last failure: no answer from a server (not an HTTP status)
        for attempt in range(retry.attempts):
            retry_after: float | None = None
            await limits.acquire()
            try:
                raw = await self._once(client, url, bound)
            except _Transient as e:
                last, retry_after, unanswered = e.reason, e.retry_after, True
            else:
                if raw.status not in retry.retry_statuses:
                    return raw, last
                last, unanswered = f"HTTP {raw.status}", False
                retry_after = _retry_after(raw.headers)
                if raw.status == 429:
                    limits.rest(
                        min(retry.base_delay if retry_after is None else retry_after, retry.max_retry_after)
                    )
            finally:
                await limits.release()
            if retry_after is not None and retry_after > retry.max_retry_after:
                raise _Refused("E_URL_UNREACHABLE", f"{url}: {last}, asked to wait {retry_after:g} s")
            if attempt + 1 < retry.attempts:
                await self.clock.sleep(max(retry.backoff(attempt, self.rand), retry_after or 0.0))
        raise _Refused(
            "E_URL_UNREACHABLE", f"{url}: {last} after {retry.attempts} attempts", unanswered=unanswered
        )

    async def _address(self, url: str) -> tuple[httpx.URL, str]:
        """The URL rewritten to the checked address of its host, and the host (for Host and SNI)."""
        target = httpx.URL(url)
        host = target.host
        port = target.port or (443 if target.scheme == "https" else 80)
        # An address the host spells otherwise (percent-encoded, with the root's dot, 127.1) and a
        # localhost name are told before any lookup: no query for them leaves the machine.
        literal = literal_address(host)
        if literal is None and not self.policy.allow_private and is_localhost_name(host):
            raise _Refused("E_URL_REFUSED", f"{host} is a loopback name; {_NOT_FETCHED}")
        try:
            addresses = [literal] if literal is not None else await self.resolve_host(host, port)
        except (OSError, UnicodeError) as e:
            raise _Transient(f"the name {host} could not be resolved ({e})") from None
        if not addresses:
            raise _Transient(f"the name {host} resolves to no address")
        if not self.policy.allow_private:
            for address in addresses:
                why = self.refusal(address)
                if why is not None:
                    what = why.rsplit(" ", 1)[0]  # "loopback address"
                    if address == host:
                        said = f"is a {what}"
                    else:
                        said = f"{'names' if literal is not None else 'resolves to'} the {what} {address}"
                    raise _Refused("E_URL_REFUSED", f"{host} {said}; {_NOT_FETCHED}")
        return target.copy_with(host=addresses[0]), host

    async def _once(self, client: httpx.AsyncClient, url: str, bound: int) -> _Raw:
        connect_to, host = await self._address(url)
        original = httpx.URL(url)
        headers = {"Host": original.netloc.decode("ascii")}
        extensions = {"sni_hostname": host} if original.scheme == "https" else {}
        request = client.build_request("GET", connect_to, headers=headers, extensions=extensions)
        self.requests += 1
        try:
            return await asyncio.wait_for(self._send(client, request, bound, url), self.policy.retry.timeout)
        except (TimeoutError, httpx.TimeoutException):
            raise _Transient(f"timed out after {self.policy.retry.timeout:g} s") from None
        except httpx.TransportError as e:
            raise _Transient(f"connection failed ({type(e).__name__})") from None
        except httpx.DecodingError as e:
            raise _Transient(f"the body could not be decoded ({e})") from None

    async def _send(self, client: httpx.AsyncClient, request: httpx.Request, bound: int, url: str) -> _Raw:
        response = await client.send(request, stream=True)
        try:
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > bound:
                raise _Refused("E_URL_UNREADABLE", f"{url}: the page is over {bound} bytes (max_page_bytes)")
            try:  # every layer of content encoding inflated and counted as it comes: gzip, gzip too
                body = await read_bounded(response, bound)
            except BodyOverLimit:
                raise _Refused(
                    "E_URL_UNREADABLE", f"{url}: the page is over {bound} bytes (max_page_bytes)"
                ) from None
        finally:
            await response.aclose()
        return _Raw(response.status_code, response.headers, body)

    async def _robots_allow(self, client: httpx.AsyncClient, url: str) -> None:
        if self.policy.ignore_robots:
            return
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        lock = self._robots_locks.setdefault(origin, asyncio.Lock())
        async with lock:
            if origin not in self._robots:
                self._robots[origin] = await self._read_robots(client, origin)
        rules = self._robots[origin]
        if isinstance(rules, PageFailure):
            raise _Refused(rules.code, rules.reason)
        if rules is not None and not rules.can_fetch(url, ROBOTS_AGENT):
            raise _Refused(
                "E_ROBOTS_DISALLOWED",
                f"{origin}/robots.txt does not allow {ROBOTS_AGENT} to fetch {url} "
                "(--ignore-robots for a site you own)",
            )

    async def _read_robots(self, client: httpx.AsyncClient, origin: str) -> Any:
        """The site's rules; None (everything allowed) for a robots.txt that is not there; a
        failure when it cannot be read (RFC 9309: an unreachable robots.txt allows nothing)."""
        from protego import Protego

        url = f"{origin}/robots.txt"
        try:
            current = url
            for _ in range(5):  # RFC 9309: follow at least five redirects
                raw, _last = await self._with_retries(client, current, MAX_ROBOTS_BYTES)
                location = raw.headers.get("location")
                if raw.status in (301, 302, 303, 307, 308) and location:
                    current = str(httpx.URL(current).join(location))
                    if url_problem(current) is not None:
                        return None
                    continue
                break
        except _Refused as e:
            # A refused address, and a site that could not be reached at all (a name that does not
            # resolve, no connection, no answer in time), are what they are: the page cannot be
            # fetched either. Only a server that answered robots.txt with errors allows nothing.
            if e.code == "E_URL_REFUSED" or e.unanswered:
                raise
            return PageFailure(
                "E_ROBOTS_DISALLOWED", f"{url} could not be read ({e.reason}), so nothing is allowed"
            )
        if 400 <= raw.status < 500:
            return None
        if raw.status != 200:
            return PageFailure(
                "E_ROBOTS_DISALLOWED", f"{url} answered HTTP {raw.status}, so nothing is allowed"
            )
        rules = Protego.parse(raw.body.decode("utf-8", "replace"))
        delay = rules.crawl_delay(ROBOTS_AGENT)
        if delay:
            limits = self._host_limits(url)
            limits.rate = min(limits.rate, 1 / min(float(delay), MAX_CRAWL_DELAY))
        return rules


_NOT_FETCHED = (
    "not fetched: a URL from the audited input may not reach loopback, private, link-local or multicast "
    "addresses (--allow-private-urls or CITEAUDIT_ALLOW_PRIVATE_URLS allows them)"
)
# The numbers-and-dots forms the system resolver reads as an IPv4 address: 127.1, 0x7f.0.0.1, 2130706433.
_NUMERIC_HOST = re.compile(r"(?:0[xX][0-9a-fA-F]*|[0-9]+)(?:\.(?:0[xX][0-9a-fA-F]*|[0-9]+)){0,3}")


def _bare(host: str) -> str:
    """The name a resolver is asked for: percent-decoded, without the root's trailing dot."""
    name = unquote(host)
    return name[:-1] if name.endswith(".") else name


def literal_address(host: str) -> str | None:
    """The address a URL's host spells, in its usual form, or None for a name to resolve:
    ``127.0.0.1``, ``127.0.0.1.``, ``%31%32%37.0.0.1``, ``127.1`` and ``2130706433`` all spell
    127.0.0.1, and none is a name to send to a DNS server."""
    name = _bare(host)
    if _is_address(name):
        return str(ipaddress.ip_address(name))
    if _NUMERIC_HOST.fullmatch(name):
        try:
            return socket.inet_ntoa(socket.inet_aton(name))
        except OSError:
            return None
    return None


def is_localhost_name(host: str) -> bool:
    """``localhost`` and the names under it (RFC 6761: always the loopback), in any spelling."""
    name = _bare(host).lower()
    return name == "localhost" or name.endswith(".localhost")


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True
