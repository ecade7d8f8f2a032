"""The retry policy and the announced limits, on httpx's mock transport with
an injected clock: exact waits, no sleeping."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import httpx
import pytest

from citeaudit.resolve.http import HostLimits, HttpClient, HttpFailure, RetryPolicy, user_agent


class RecordingClock:
    def __init__(self) -> None:
        self.t = 0.0
        self.slept: list[float] = []

    def now(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.t += seconds


def _client(
    responses: list[httpx.Response | Exception], clock: RecordingClock, **policy: float
) -> tuple[HttpClient, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        item = responses.pop(0)
        if isinstance(item, Exception):
            raise item
        return item

    client = HttpClient(mailto="me@example.org", policy=RetryPolicy(**policy), clock=clock,  # type: ignore[arg-type]
                        rand=random.Random(1), transport=httpx.MockTransport(handler))  # fmt: skip
    return client, seen


def _get(client: HttpClient) -> httpx.Response | int:
    async def go() -> int:
        try:
            return (await client.get("https://api.example.org/works/x")).status
        finally:
            await client.aclose()

    return asyncio.run(go())


def test_user_agent_is_versioned_and_carries_mailto() -> None:
    clock = RecordingClock()
    client, seen = _client([httpx.Response(200, json={})], clock)
    _get(client)
    assert seen[0].headers["user-agent"] == user_agent("me@example.org")
    assert "mailto:me@example.org" in seen[0].headers["user-agent"]


def test_retry_after_is_waited_then_the_answer_returned() -> None:
    clock = RecordingClock()
    client, seen = _client(
        [httpx.Response(429, headers={"Retry-After": "7"}), httpx.Response(200, json={})], clock
    )
    assert _get(client) == 200
    assert len(seen) == 2
    assert clock.slept[-1] >= 7


def test_retry_after_beyond_the_bound_gives_up_at_once() -> None:
    clock = RecordingClock()
    client, seen = _client([httpx.Response(503, headers={"Retry-After": "3600"})], clock)
    with pytest.raises(HttpFailure, match="HTTP 503, asked to wait 3600 s"):
        _get(client)
    assert len(seen) == 1


def test_only_transient_statuses_are_retried() -> None:
    for status in (400, 401, 403, 404, 410, 500):
        clock = RecordingClock()
        client, seen = _client([httpx.Response(status, text="no")], clock)
        assert _get(client) == status
        assert len(seen) == 1


def test_backoff_is_capped_full_jitter_and_attempts_are_bounded() -> None:
    clock = RecordingClock()
    errors: list[httpx.Response | Exception] = [httpx.ConnectError("refused")] * 6
    client, seen = _client(errors, clock, attempts=6, base_delay=1.0, max_delay=4.0)
    with pytest.raises(HttpFailure, match="connection failed \\(ConnectError\\) after 6 attempts"):
        _get(client)
    assert len(seen) == 6
    assert len(clock.slept) == 5
    assert all(0 <= s <= 4.0 for s in clock.slept)


def test_timeouts_and_truncated_json_are_retried() -> None:
    clock = RecordingClock()
    client, seen = _client(
        [
            httpx.ReadTimeout("slow"),
            httpx.Response(200, text='{"message": {"ti'),
            httpx.Response(200, json={}),
        ],
        clock,
    )
    assert _get(client) == 200
    assert len(seen) == 3


def test_announced_limits_tighten_rate_and_concurrency() -> None:
    limits = HostLimits(rate=50, concurrency=5, clock=RecordingClock())
    limits.learn({"x-rate-limit-limit": "10", "x-rate-limit-interval": "1s", "x-concurrency-limit": "3"})
    assert (round(limits.rate, 6), limits.concurrency) == (9.0, 3)
    limits.learn({"x-rate-limit-limit": "100", "x-rate-limit-interval": "1s"})  # never loosened
    assert round(limits.rate, 6) == 9.0


def test_requests_are_paced_by_the_rate() -> None:
    clock = RecordingClock()
    limits = HostLimits(rate=4, concurrency=10, clock=clock)

    async def go() -> None:
        for _ in range(5):
            await limits.acquire()
            await limits.release()

    asyncio.run(go())
    assert clock.t == pytest.approx(1.0)  # five starts, 0.25 s apart


async def _pieces(size: int) -> Any:
    for _ in range(size // 100):
        yield b"x" * 100


@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "chunked"])
def test_an_answer_over_the_limit_is_refused_unread_and_not_retried(declared: bool) -> None:
    clock = RecordingClock()
    body: Any = b"x" * 2000 if declared else _pieces(2000)
    client, seen = _client([httpx.Response(200, content=body)], clock, max_answer_bytes=1000)
    with pytest.raises(HttpFailure, match=r"^the answer was over 1000 bytes$"):
        _get(client)
    assert len(seen) == 1
