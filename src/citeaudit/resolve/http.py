"""HTTP for the resolvers: the only place citeaudit touches the network.

* Every request has a timeout and a versioned User-Agent with the user's
  ``mailto`` (Crossref's polite pool asks for both).
* Retries only on answers that say "try again": 429, 502, 503, 504, timeouts,
  connection errors and truncated bodies. Never on 4xx: a 404 is an answer.
* Backoff is exponential, capped, with full jitter, from an injectable clock
  and random source, so tests run without sleeping. ``Retry-After`` is
  honoured up to a bound; a longer one ends the retries ("could not check").
* The limits a server announces (``X-Rate-Limit-Limit`` /
  ``X-Rate-Limit-Interval`` / ``X-Concurrency-Limit``) tighten the client's
  own rate and concurrency for that host.
* With :meth:`HttpClient.share_limits`, the processes that use one cache share
  each route's schedule and in-flight slots (:mod:`citeaudit.resolve.ratelimit`),
  and a 429 makes all of them rest, not only the one that drew it.
"""

from __future__ import annotations

import asyncio
import random
import re
import time
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx

from citeaudit.resolve.ratelimit import SharedLimits, SharedRoute
from citeaudit.util.version import __version__

__all__ = [
    "ACCEPT_ENCODING",
    "BodyOverLimit",
    "BoundedDecoder",
    "Clock",
    "HostLimits",
    "HttpAnswer",
    "HttpClient",
    "HttpFailure",
    "RetryPolicy",
    "SystemClock",
    "read_bounded",
    "user_agent",
]


# The encodings BoundedDecoder reads, and all that is asked for (httpx would add br or zstd where
# their packages happen to be installed, and decode those unbounded).
ACCEPT_ENCODING = "gzip, deflate"
_PIECE = 64 * 1024  # the most one inflation step produces


class BodyOverLimit(Exception):
    """A body, or one of its layers of content encoding, inflated past the bound."""


class _Inflater:
    """One layer of gzip or deflate, inflated at most ``_PIECE`` bytes a step."""

    def __init__(self, name: str) -> None:
        self.deflate = name == "deflate"
        self._z = zlib.decompressobj(zlib.MAX_WBITS if self.deflate else zlib.MAX_WBITS | 16)
        self._first = True
        self.size = 0

    def pieces(self, data: bytes) -> Iterator[bytes]:
        while True:
            try:
                out = self._z.decompress(data, _PIECE)
            except zlib.error as e:
                if self._first and self.deflate:  # "deflate" sent raw, as some servers do (httpx reads both)
                    self._first = False
                    self._z = zlib.decompressobj(-zlib.MAX_WBITS)
                    continue
                raise httpx.DecodingError(str(e)) from None
            self._first = False
            if out:
                yield out
            data = self._z.unconsumed_tail
            if not data and len(out) < _PIECE:  # all input taken and no output left pending
                return


class BoundedDecoder:
    """The body of a response from its raw bytes, every layer of ``Content-Encoding`` undone as the
    bytes arrive and counted as they are produced: past ``limit`` bytes, in the wire bytes, any
    layer or the body, it raises :class:`BodyOverLimit` (``gzip, gzip`` of 1.8 kB is 1 GB).
    An encoding it does not know is passed through, as httpx does."""

    def __init__(self, content_encoding: str, limit: int) -> None:
        names = [n.strip().lower() for n in content_encoding.split(",")]
        names = ["gzip" if n == "x-gzip" else n for n in names]
        # Listed in the order applied: undone last first.
        self._layers = [_Inflater(n) for n in reversed(names) if n in ("gzip", "deflate")]
        self.limit = limit
        self._raw = 0
        self.size = 0

    def feed(self, data: bytes) -> Iterator[bytes]:
        self._raw += len(data)
        if self._raw > self.limit:
            raise BodyOverLimit
        for piece in self._through(0, data):
            self.size += len(piece)
            if self.size > self.limit:
                raise BodyOverLimit
            yield piece

    def _through(self, i: int, data: bytes) -> Iterator[bytes]:
        if i == len(self._layers):
            yield data
            return
        layer = self._layers[i]
        for out in layer.pieces(data):
            layer.size += len(out)
            if layer.size > self.limit:
                raise BodyOverLimit
            yield from self._through(i + 1, out)


async def read_bounded(response: httpx.Response, limit: int) -> bytes:
    """The decoded body of a streamed response, or :class:`BodyOverLimit` as soon as it passes ``limit``."""
    decoder = BoundedDecoder(response.headers.get("content-encoding", ""), limit)
    chunks: list[bytes] = []
    try:
        async for raw in response.aiter_raw():
            chunks.extend(decoder.feed(raw))
    except httpx.StreamConsumed:  # a response built in memory (a mock transport): read already
        if len(response.content) > limit:
            raise BodyOverLimit from None
        return response.content
    return b"".join(chunks)


def user_agent(mailto: str) -> str:
    contact = f"; mailto:{mailto}" if mailto else ""
    return f"citeaudit/{__version__} (https://pypi.org/project/citeaudit/{contact})"


class Clock(Protocol):
    def now(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


@dataclass(frozen=True)
class RetryPolicy:
    # Statuses that mean "not now" rather than "no": rate limited, or a gateway/upstream hiccup.
    retry_statuses: frozenset[int] = frozenset({429, 502, 503, 504})
    attempts: int = 5  # tries in all, the first included
    base_delay: float = 0.5
    max_delay: float = 20.0
    max_retry_after: float = 60.0  # a server asking for longer than this is "could not check"
    timeout: float = 20.0
    max_answer_bytes: int = 32 * 1024 * 1024  # registry answers are kilobytes; more is refused unread

    def backoff(self, attempt: int, rand: random.Random) -> float:
        """Full jitter: uniform in [0, min(cap, base · 2^attempt)]."""
        return rand.uniform(0, min(self.max_delay, self.base_delay * 2**attempt))


@dataclass(frozen=True)
class HttpAnswer:
    status: int
    body: bytes
    headers: Mapping[str, str]
    url: str  # where the answer came from, after redirects
    transient: str = ""  # the last transient failure before this answer ("" on a first try)
    redirects: int = 0  # redirects followed to reach it (0: the URL asked answered itself)


class HttpFailure(Exception):
    """Retries exhausted, or a wait longer than allowed: "could not check"."""


SAFETY = 0.9  # share of an announced rate the client uses
SLOT_POLL = 0.02  # seconds between looks for a free shared slot
_INTERVAL_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$")


def _interval_seconds(value: str) -> float | None:
    m = _INTERVAL_RE.match(value)
    if not m:
        return None
    number, unit = float(m.group(1)), m.group(2) or "s"
    return number / 1000 if unit == "ms" else number * 60 if unit == "m" else number


@dataclass
class HostLimits:
    """Rate and concurrency for one host, tightened by what the server announces."""

    rate: float  # requests per second
    concurrency: int
    clock: Clock
    shared: SharedRoute | None = None  # the schedule and slots of every process on one cache
    _next_start: float = 0.0
    _in_flight: int = 0
    _changed: asyncio.Condition = field(default_factory=asyncio.Condition)

    async def acquire(self) -> int | None:
        """Wait for a slot and a start time; the shared slot held, if any, for :meth:`release`."""
        async with self._changed:
            await self._changed.wait_for(lambda: self._in_flight < self.concurrency)
            self._in_flight += 1
        slot: int | None = None
        try:
            slot, wait = await self._shared_start() if self.shared is not None else (None, None)
            if wait is None:  # this process's own schedule
                start = max(self.clock.now(), self._next_start)
                self._next_start = start + 1 / self.rate
                wait = start - self.clock.now()
            if wait > 0:
                await self.clock.sleep(wait)
            while self.shared is not None:  # woken late, right after another process's start?
                try:
                    late = self.shared.start_now(self.rate)
                except OSError:
                    self.shared = None
                    break
                if not late:
                    break
                await self.clock.sleep(late)
        except BaseException:  # cancelled while waiting: give the slot back
            await self.release(slot)
            raise
        return slot

    async def _shared_start(self) -> tuple[int | None, float | None]:
        """A shared slot and the wait for the shared schedule; (None, None) when the state
        beside the cache cannot be used, and from then on this process paces alone."""
        assert self.shared is not None
        try:
            while (slot := self.shared.try_slot(self.concurrency)) is None:
                await self.clock.sleep(SLOT_POLL)  # other processes hold every slot
            try:
                return slot, self.shared.reserve(self.rate)
            except OSError:
                SharedRoute.release(slot)
                raise
        except OSError:
            self.shared = None
            return None, None

    async def release(self, slot: int | None = None) -> None:
        if slot is not None:
            SharedRoute.release(slot)
        async with self._changed:
            self._in_flight -= 1
            self._changed.notify_all()

    def rest(self, seconds: float) -> None:
        """After a 429: no request of this route starts for ``seconds``, in any process sharing it."""
        self._next_start = max(self._next_start, self.clock.now() + seconds)
        if self.shared is not None:
            try:
                self.shared.rest(seconds)
            except OSError:
                self.shared = None

    def learn(self, headers: Mapping[str, str]) -> None:
        limit = headers.get("x-rate-limit-limit")
        interval = _interval_seconds(headers.get("x-rate-limit-interval", "1s"))
        if limit and limit.isdigit() and int(limit) > 0 and interval:
            # A margin below the announced rate: arrivals jitter even when departures do not.
            self.rate = min(self.rate, SAFETY * int(limit) / interval)
        concurrency = headers.get("x-concurrency-limit")
        if concurrency and concurrency.isdigit() and int(concurrency) > 0:
            self.concurrency = min(self.concurrency, int(concurrency))


class HttpClient:
    """One async client per run; per-host limits; retries by the policy."""

    def __init__(
        self,
        mailto: str = "",
        policy: RetryPolicy | None = None,
        clock: Clock | None = None,
        rand: random.Random | None = None,
        default_rate: float = 50.0,
        default_concurrency: int = 5,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.policy = policy or RetryPolicy()
        self.clock = clock or SystemClock()
        self.rand = rand or random.Random()
        self.default_rate = default_rate
        self.default_concurrency = default_concurrency
        self.mailto = mailto
        self._limits: dict[str, HostLimits] = {}
        self._shared: SharedLimits | None = None
        self._client = httpx.AsyncClient(
            headers={"User-Agent": user_agent(mailto), "Accept-Encoding": ACCEPT_ENCODING},
            timeout=self.policy.timeout,
            transport=transport,
            follow_redirects=True,
        )
        self.requests = 0
        self.throttled = 0  # 429 answers seen

    def share_limits(self, shared: SharedLimits | None) -> None:
        """Share every route's schedule and slots with the other processes using ``shared``."""
        self._shared = shared
        for route, limits in self._limits.items():
            limits.shared = shared.route(route) if shared is not None else None

    def limits_for(self, route: str, rate: float | None = None, concurrency: int | None = None) -> HostLimits:
        """The limits of one route (a host, or a host's API with limits of its own)."""
        limits = self._limits.get(route)
        if limits is None:
            limits = HostLimits(
                rate or self.default_rate,
                concurrency or self.default_concurrency,
                self.clock,
                self._shared.route(route) if self._shared is not None else None,
            )
            self._limits[route] = limits
        return limits

    async def get(
        self,
        url: str,
        params: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
        expect_json: bool = True,
        route: str | None = None,
    ) -> HttpAnswer:
        """A final answer (any status that is not retryable), or HttpFailure."""
        limits = self.limits_for(route or httpx.URL(url).host)
        last = "no attempt"
        for attempt in range(self.policy.attempts):
            slot = await limits.acquire()
            try:
                self.requests += 1
                async with self._client.stream("GET", url, params=params, headers=headers) as response:
                    body = await self._bounded_body(response)
            except httpx.TimeoutException:
                last = f"timed out after {self.policy.timeout:g} s"
                response = None
            except httpx.TransportError as e:  # refused, reset, truncated mid-body
                last = f"connection failed ({type(e).__name__})"
                response = None
            finally:
                await limits.release(slot)
            retry_after: float | None = None
            if response is not None:
                limits.learn(response.headers)
                if response.status_code not in self.policy.retry_statuses:
                    if response.status_code == 200 and expect_json and not _is_json(body):
                        last = "the answer was not complete JSON"
                    else:
                        return HttpAnswer(
                            response.status_code, body, response.headers, str(response.url),
                            transient=last if attempt else "", redirects=len(response.history),
                        )  # fmt: skip
                else:
                    last = f"HTTP {response.status_code}"
                    retry_after = _retry_after(response.headers)
                    if response.status_code == 429:  # the limit is the route's: every request rests
                        self.throttled += 1
                        pause = self.policy.base_delay if retry_after is None else retry_after
                        limits.rest(min(pause, self.policy.max_retry_after))
                    if retry_after is not None and retry_after > self.policy.max_retry_after:
                        raise HttpFailure(f"{last}, asked to wait {retry_after:g} s")
            if attempt + 1 < self.policy.attempts:
                delay = self.policy.backoff(attempt, self.rand)
                await self.clock.sleep(max(delay, retry_after or 0.0))
        raise HttpFailure(f"{last} after {self.policy.attempts} attempts")

    async def _bounded_body(self, response: httpx.Response) -> bytes:
        """The body, read only up to ``max_answer_bytes``: a larger answer is no registry's and
        is refused at once, not retried (a mirror could otherwise fill the memory)."""
        limit = self.policy.max_answer_bytes
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise HttpFailure(f"the answer was over {limit} bytes")
        try:
            return await read_bounded(response, limit)  # inflated bytes counted as they are produced
        except BodyOverLimit:
            raise HttpFailure(f"the answer was over {limit} bytes") from None

    async def aclose(self) -> None:
        await self._client.aclose()


def _retry_after(headers: Mapping[str, str]) -> float | None:
    value = headers.get("retry-after", "").strip()
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff


def _is_json(body: bytes) -> bool:
    import json

    try:
        json.loads(body)
    except ValueError:
        return False
    return True


def as_json(answer: HttpAnswer) -> Any:
    import json

    return json.loads(answer.body)
