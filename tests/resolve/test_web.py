"""Fetching cited pages against a local server: redirects recorded, retries only on what says
"try again", bounds on time and size, robots.txt, and addresses refused before any request."""

from __future__ import annotations

import random
import tracemalloc
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from citeaudit.resolve.http import RetryPolicy, user_agent
from citeaudit.resolve.web import PageAnswer, PageFailure, WebFetcher, WebPolicy, address_refusal
from tests.resolve.test_http import RecordingClock
from tests.web_server import Route, WebServer, tls_contexts

PAGE = "<html><head><title>T</title></head><body><p>Hello there, a page.</p></body></html>"
REFUSAL = (
    "not fetched: a URL from the audited input may not reach loopback, private, link-local or "
    "multicast addresses (--allow-private-urls or CITEAUDIT_ALLOW_PRIVATE_URLS allows them)"
)


@pytest.fixture
def server() -> Iterator[WebServer]:
    srv = WebServer().start()
    yield srv
    srv.stop()


def fetcher(clock: RecordingClock | None = None, **policy: object) -> WebFetcher:
    retry = policy.pop("retry", RetryPolicy(attempts=3, timeout=2.0, base_delay=0.01, max_delay=0.02))
    settings = {"delay": 0.0, "allow_private": True, **policy}
    return WebFetcher(
        mailto="tests@example.org",
        policy=WebPolicy(retry=retry, **settings),  # type: ignore[arg-type]
        clock=clock,
        rand=random.Random(1),
    )


def one(f: WebFetcher, url: str) -> PageAnswer | PageFailure:
    return f.fetch_many([url])[url]


def test_a_page_and_the_user_agent_with_mailto(server: WebServer) -> None:
    url = server.page("/p", PAGE)
    answer = one(fetcher(), url)
    assert isinstance(answer, PageAnswer)
    assert (answer.status, answer.final_url, answer.redirects, answer.body) == (200, url, (), PAGE.encode())
    assert [p for p, _ in server.log] == ["/robots.txt", "/p"]
    assert server.agents == [user_agent("tests@example.org")] * 2
    assert "; mailto:tests@example.org" in server.agents[0]


def test_one_request_at_a_time_per_host_and_the_delay_between(server: WebServer) -> None:
    urls = [server.page(f"/p{i}", PAGE) for i in range(3)]
    clock = RecordingClock()
    answers = fetcher(clock, delay=2.0).fetch_many(urls)
    assert all(isinstance(a, PageAnswer) for a in answers.values())
    # robots.txt and three pages: four requests to one host, each 2 s after the one before.
    assert len(server.log) == 4
    assert clock.t == pytest.approx(6.0)


def test_redirects_are_followed_and_each_is_recorded(server: WebServer) -> None:
    final = server.page("/new", PAGE)
    server.redirect("/mid", "/new", 302)
    start = server.redirect("/old", server.url + "/mid#part", 301)
    answer = one(fetcher(), start)
    assert isinstance(answer, PageAnswer)
    assert answer.final_url == final
    assert [h.to_json() for h in answer.redirects] == [
        {"location": server.url + "/mid", "status": 301, "url": start},
        {"location": final, "status": 302, "url": server.url + "/mid"},
    ]


def test_a_redirect_loop_and_too_many_redirects_are_could_not_check(server: WebServer) -> None:
    server.redirect("/a", "/b")
    server.redirect("/b", "/a")
    assert one(fetcher(), server.url + "/a") == PageFailure(
        "E_URL_UNREACHABLE", f"redirect loop: {server.url}/a was already visited"
    )
    for i in range(4):
        server.redirect(f"/r{i}", f"/r{i + 1}")
    server.page("/r4", PAGE)
    assert one(fetcher(max_redirects=3), server.url + "/r0") == PageFailure(
        "E_URL_UNREACHABLE", "more than 3 redirects"
    )
    assert isinstance(one(fetcher(max_redirects=4), server.url + "/r0"), PageAnswer)


def test_503_with_retry_after_is_retried_then_could_not_check(server: WebServer) -> None:
    server.routes["/busy"] = Route(status=503, headers={"Retry-After": "7"}, body=b"busy")
    clock = RecordingClock()
    answer = one(fetcher(clock), server.url + "/busy")
    assert answer == PageFailure("E_URL_UNREACHABLE", f"{server.url}/busy: HTTP 503 after 3 attempts")
    assert server.hits("/busy") == 3
    assert [s for s in clock.slept if s >= 7] == [7.0, 7.0]  # Retry-After honoured between the tries


def test_a_retry_after_over_the_bound_ends_the_retries(server: WebServer) -> None:
    server.routes["/later"] = Route(status=429, headers={"Retry-After": "3600"}, body=b"")
    answer = one(fetcher(RecordingClock()), server.url + "/later")
    assert answer == PageFailure("E_URL_UNREACHABLE", f"{server.url}/later: HTTP 429, asked to wait 3600 s")
    assert server.hits("/later") == 1


def test_a_transient_failure_then_the_page(server: WebServer) -> None:
    url = server.page("/flaky", PAGE)
    server.routes["/flaky"].answers = [(502, {"Content-Type": "text/plain"}, b"bad gateway")]
    answer = one(fetcher(RecordingClock()), url)
    assert isinstance(answer, PageAnswer)
    assert (answer.status, answer.transient) == (200, "HTTP 502")


def test_a_404_is_a_final_answer_not_retried(server: WebServer) -> None:
    answer = one(fetcher(), server.url + "/gone")
    assert isinstance(answer, PageAnswer)
    assert (answer.status, answer.transient, server.hits("/gone")) == (404, "", 1)


def test_a_slow_page_past_the_timeout(server: WebServer) -> None:
    # The headers come at once, then the body trickles in: the time of the whole attempt is bounded.
    server.routes["/slow"] = Route(body=b"x" * 400, delay=0.2, chunks=4)
    retry = RetryPolicy(attempts=2, timeout=0.3, base_delay=0.01, max_delay=0.02)
    answer = one(fetcher(retry=retry), server.url + "/slow")
    assert answer == PageFailure(
        "E_URL_UNREACHABLE", f"{server.url}/slow: timed out after 0.3 s after 2 attempts"
    )
    assert server.hits("/slow") == 2


def test_a_body_over_the_bound_is_refused(server: WebServer) -> None:
    url = server.page("/big", "<p>" + "a" * 5000 + "</p>")
    assert one(fetcher(max_page_bytes=1000), url) == PageFailure(
        "E_URL_UNREADABLE", f"{url}: the page is over 1000 bytes (max_page_bytes)"
    )
    assert server.hits("/big") == 1  # not retried


def _compressed(wbits: int, pieces: Iterator[bytes]) -> bytes:
    c = zlib.compressobj(9, zlib.DEFLATED, wbits)
    return b"".join([*(c.compress(p) for p in pieces), c.flush()])


def test_every_layer_of_content_encoding_is_read(server: WebServer) -> None:
    page = PAGE.encode()
    for i, (encoding, body) in enumerate(
        [
            ("gzip", _compressed(31, iter([page]))),
            ("gzip, gzip", _compressed(31, iter([_compressed(31, iter([page]))]))),
            ("deflate, gzip", _compressed(31, iter([_compressed(15, iter([page]))]))),
            ("deflate", _compressed(-15, iter([page]))),  # raw deflate, as some servers send it
            ("x-gzip", _compressed(31, iter([page]))),
        ]
    ):
        server.routes[f"/e{i}"] = Route(
            body=body, headers={"Content-Type": "text/html", "Content-Encoding": encoding}
        )
        answer = one(fetcher(), f"{server.url}/e{i}")
        assert isinstance(answer, PageAnswer), (encoding, answer)
        assert answer.body == page, encoding


@pytest.mark.parametrize("encoding", ["gzip", "gzip, gzip", "deflate, gzip, gzip"])
def test_a_compression_bomb_is_refused_as_it_inflates(server: WebServer, encoding: str) -> None:
    """64 MiB of zeros in a few kB: refused once the inflated bytes pass the bound, with memory
    near the bound (httpx inflated each layer of a chunk whole: ``gzip, gzip`` of 1.8 kB cost 2 GB)."""
    first, *then = [31 if n.strip() == "gzip" else 15 for n in encoding.split(",")]  # in the order applied
    body = _compressed(first, iter([b"\0" * (1 << 20)] * 64))
    for wbits in then:
        body = _compressed(wbits, iter([body]))
    server.routes["/bomb"] = Route(
        body=body, headers={"Content-Type": "text/html", "Content-Encoding": encoding}
    )
    tracemalloc.start()
    try:
        answer = one(fetcher(max_page_bytes=1 << 20), server.url + "/bomb")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert answer == PageFailure(
        "E_URL_UNREADABLE", f"{server.url}/bomb: the page is over 1048576 bytes (max_page_bytes)"
    )
    assert peak < 8 << 20, peak  # the 1 MiB bound and a few pieces in flight, not 64 MiB


def test_robots_txt_disallows(server: WebServer) -> None:
    server.routes["/robots.txt"] = Route(
        headers={"Content-Type": "text/plain"}, body=b"User-agent: *\nDisallow: /private/\n"
    )
    url = server.page("/private/page", PAGE)
    assert one(fetcher(), url) == PageFailure(
        "E_ROBOTS_DISALLOWED",
        f"{server.url}/robots.txt does not allow citeaudit to fetch {url} (--ignore-robots for a site you own)",
    )
    assert server.hits("/private/page") == 0
    assert isinstance(one(fetcher(), server.page("/public", PAGE)), PageAnswer)
    assert isinstance(one(fetcher(ignore_robots=True), url), PageAnswer)


def test_a_robots_txt_that_fails_allows_nothing(server: WebServer) -> None:
    server.routes["/robots.txt"] = Route(status=500, headers={"Content-Type": "text/plain"}, body=b"")
    url = server.page("/p", PAGE)
    answer = one(fetcher(), url)
    assert answer == PageFailure(
        "E_ROBOTS_DISALLOWED", f"{server.url}/robots.txt answered HTTP 500, so nothing is allowed"
    )
    assert server.hits("/p") == 0


def test_loopback_is_refused_without_the_flag_and_no_request_reaches_it(server: WebServer) -> None:
    url = server.page("/p", PAGE)
    answer = one(fetcher(allow_private=False), url)
    assert answer == PageFailure("E_URL_REFUSED", f"127.0.0.1 is a loopback address; {REFUSAL}")
    assert server.log == []


def test_a_hostname_that_resolves_to_loopback_is_refused(server: WebServer) -> None:
    server.page("/p", PAGE)
    answer = one(fetcher(allow_private=False), f"http://localhost:{server.port}/p")
    assert answer == PageFailure("E_URL_REFUSED", f"localhost is a loopback name; {REFUSAL}")
    assert server.log == []


@pytest.mark.parametrize(
    ("host", "said"),
    [
        ("localhost.", "is a loopback name"),
        ("LOCALHOST.", "is a loopback name"),
        ("api.localhost", "is a loopback name"),
        ("%6c%6f%63%61%6c%68%6f%73%74", "is a loopback name"),
        ("127.0.0.1.", "names the loopback address 127.0.0.1"),
        ("%31%32%37.0.0.1", "names the loopback address 127.0.0.1"),
        ("127.1", "names the loopback address 127.0.0.1"),
        ("0x7f.0.0.1", "names the loopback address 127.0.0.1"),
        ("2130706433", "names the loopback address 127.0.0.1"),
        ("10.0.0.1.", "names the private address 10.0.0.1"),
    ],
)
def test_loopback_spellings_are_refused_before_any_lookup(server: WebServer, host: str, said: str) -> None:
    """A trailing dot or percent-encoded digits went to the system resolver: a DNS query left the
    machine before the refusal."""
    asked: list[str] = []

    async def resolver(name: str, port: int) -> list[str]:
        asked.append(name)
        return ["127.0.0.1"]

    server.page("/p", PAGE)
    f = fetcher(allow_private=False)
    f.resolve_host = resolver
    answer = one(f, f"http://{host}:{server.port}/p")
    assert answer == PageFailure("E_URL_REFUSED", f"{host.lower()} {said}; {REFUSAL}")
    assert asked == []
    assert server.log == []


def test_an_address_spelt_with_the_roots_dot_is_connected_without_a_lookup(server: WebServer) -> None:
    asked: list[str] = []

    async def resolver(name: str, port: int) -> list[str]:
        asked.append(name)
        return []

    url = server.page("/p", PAGE).replace("127.0.0.1", "127.0.0.1.")
    f = fetcher(allow_private=True)
    f.resolve_host = resolver
    assert isinstance(one(f, url), PageAnswer)
    assert asked == []
    assert server.log[-1] == ("/p", f"127.0.0.1.:{server.port}")


def test_a_redirect_to_loopback_is_refused_on_that_hop(server: WebServer) -> None:
    # Here the server's own address stands for a public one; the redirect's target is checked anew.
    start = server.redirect("/out", f"http://127.0.0.2:{server.port}/inside")
    f = fetcher(allow_private=False)
    f.refusal = lambda address: None if address == "127.0.0.1" else address_refusal(address)
    assert one(f, start) == PageFailure("E_URL_REFUSED", f"127.0.0.2 is a loopback address; {REFUSAL}")
    assert [p for p, _ in server.log] == ["/robots.txt", "/out"]


def test_the_connection_goes_to_the_checked_address_with_the_host_header(server: WebServer) -> None:
    # A name no DNS knows: only the fetcher's own resolution can connect it, so the request that
    # arrives proves the checked address was the one connected to (no second lookup to rebind).
    url = server.page("/p", PAGE).replace("127.0.0.1", "pages.test")

    async def local(host: str, port: int) -> list[str]:
        return ["127.0.0.1"]

    f = fetcher(allow_private=True)
    f.resolve_host = local
    answer = one(f, url)
    assert isinstance(answer, PageAnswer)
    assert answer.final_url == url
    assert server.log[-1] == ("/p", f"pages.test:{server.port}")
    f = fetcher(allow_private=False)
    f.resolve_host = local
    assert one(f, url) == PageFailure(
        "E_URL_REFUSED", f"pages.test resolves to the loopback address 127.0.0.1; {REFUSAL}"
    )


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("10.0.0.1", "private address 10.0.0.1"),
        ("192.168.1.1", "private address 192.168.1.1"),
        ("169.254.169.254", "link-local address 169.254.169.254"),  # cloud metadata
        ("224.0.0.1", "multicast address 224.0.0.1"),
        ("::1", "loopback address ::1"),
        ("::ffff:127.0.0.1", "loopback address 127.0.0.1"),
        ("fe80::1", "link-local address fe80::1"),
        ("0.0.0.0", "private address 0.0.0.0"),
        ("8.8.8.8", None),
    ],
)
def test_addresses_refused(address: str, why: str | None) -> None:
    assert address_refusal(address) == why


def test_https_to_the_checked_address_verifies_the_certificate_of_the_host(tmp_path: Path) -> None:
    # The connection goes to the address the fetcher resolved; the TLS server name, and so the
    # certificate check, stay the host's: a certificate for another name is refused.
    server_context, client_context = tls_contexts(tmp_path, "pages.test")
    srv = WebServer().serve_tls(server_context).start()
    try:
        srv.page("/p", PAGE)

        async def local(host: str, port: int) -> list[str]:
            return ["127.0.0.1"]

        def make() -> WebFetcher:
            f = fetcher(ignore_robots=True)
            f.resolve_host, f.verify = local, client_context
            return f

        answer = one(make(), f"https://pages.test:{srv.port}/p")
        assert isinstance(answer, PageAnswer)
        assert (answer.status, answer.body) == (200, PAGE.encode())
        assert srv.log == [("/p", f"pages.test:{srv.port}")]
        wrong = one(make(), f"https://other.test:{srv.port}/p")
        assert isinstance(wrong, PageFailure)
        assert (
            wrong.reason
            == f"https://other.test:{srv.port}/p: connection failed (ConnectError) after 3 attempts"
        )
        assert len(srv.log) == 1
    finally:
        srv.stop()
