"""Web page URLs: the normal form pins are kept under, and the URLs refused."""

from __future__ import annotations

import pytest

from citeaudit.identifiers import pin_key, resolver_key, route_of
from citeaudit.identifiers.url import URL
from citeaudit.model import WorkSource


@pytest.mark.parametrize(
    ("raw", "normal"),
    [
        ("HTTPS://Example.COM:443/a/b?utm_source=x&b=2&a=1#frag", "https://example.com/a/b?a=1&b=2"),
        ("http://example.com:80/page?fbclid=abc", "http://example.com/page"),
        ("http://example.com:8080/x", "http://example.com:8080/x"),
        ("https://example.com", "https://example.com/"),
        ("  https://example.com/a#b  ", "https://example.com/a"),
        ("http://[::1]:8080/p", "http://[::1]:8080/p"),
    ],
)
def test_normal_form(raw: str, normal: str) -> None:
    assert URL.normalise(raw) == normal
    assert URL.is_valid(normal)
    assert URL.owns(normal)
    assert route_of(normal) == "web"


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (
            "ftp://x.org/a",
            "'ftp://x.org/a' is not a web page citeaudit can pin: the scheme is ftp; only http and https pages are fetched",
        ),
        (
            "example.org/a",
            "'example.org/a' is not a web page citeaudit can pin: the scheme is (none); only http and https pages are fetched",
        ),
        (
            "javascript:alert(1)",
            "'javascript:alert(1)' is not a web page citeaudit can pin: the scheme is javascript; only http and https pages are fetched",
        ),
        (
            "https://user:pw@x.org/",
            "'https://user:pw@x.org/' is not a web page citeaudit can pin: the URL carries user credentials (user:password@host)",
        ),
        (
            "https://x.org/a b",
            "'https://x.org/a b' is not a web page citeaudit can pin: the URL contains white space or control characters",
        ),
        ("https:///path", "'https:///path' is not a web page citeaudit can pin: the URL names no host"),
        (
            "https://x.org:99999/",
            "'https://x.org:99999/' is not a web page citeaudit can pin: the URL cannot be parsed (Port out of range 0-65535)",
        ),
        ("", "'' is not a web page citeaudit can pin: the URL is empty"),
        # Spellings of 127.0.0.1 the HTTP client refuses to parse: refused here, before any fetch.
        (
            "http://0177.0.0.1/",
            "'http://0177.0.0.1/' is not a web page citeaudit can pin: the host '0177.0.0.1' is not an IPv4 address as written (a leading zero or a part over 255)",
        ),
        (
            "http://127.000.000.001/",
            "'http://127.000.000.001/' is not a web page citeaudit can pin: the host '127.000.000.001' is not an IPv4 address as written (a leading zero or a part over 255)",
        ),
        (
            "http://１２７.０.０.１/",
            "'http://１２７.０.０.１/' is not a web page citeaudit can pin: the host '１２７.０.０.１' writes digits with characters that are not ASCII ('１')",
        ),
        (
            "http://①②⑦.0.0.1/",
            "'http://①②⑦.0.0.1/' is not a web page citeaudit can pin: the host '①②⑦.0.0.1' writes digits with characters that are not ASCII ('①')",
        ),
        (
            "http://1.2.3.256/",
            "'http://1.2.3.256/' is not a web page citeaudit can pin: the host '1.2.3.256' is not an IPv4 address as written (a leading zero or a part over 255)",
        ),
        (
            "https://ｅxample.org/",
            "'https://ｅxample.org/' is not a web page citeaudit can pin: the host 'ｅxample.org' is not a valid internationalised name (Codepoint U+FF45 at position 1 of 'ｅxample' not allowed)",
        ),
    ],
)
def test_refused_urls_say_why(raw: str, message: str) -> None:
    assert not URL.is_valid(URL.normalise(raw))
    assert URL.invalid(raw) == message


def test_a_page_is_pinned_not_resolved() -> None:
    page = WorkSource(identifier="https://Example.com/a?utm_campaign=x", kind="url")
    assert pin_key(page) == "https://example.com/a"
    assert resolver_key(page) is None
    doi = WorkSource(identifier="10.1002/ECE3.2314")
    assert (pin_key(doi), resolver_key(doi)) == (None, "10.1002/ece3.2314")


@pytest.mark.parametrize("raw", ["https://bücher.example/", "http://8.8.8.8/", "http://10.0.0.1/"])
def test_an_international_name_and_plain_addresses_stay_valid(raw: str) -> None:
    assert URL.is_valid(URL.normalise(raw))
