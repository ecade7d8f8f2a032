"""Web citations end to end through the CLI, against a local server on 127.0.0.1: fetch and pin,
then check offline; every outcome with its code and exit code; the services never fetch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citeaudit.config import Config
from citeaudit.formats import parse_document
from citeaudit.sources.pins import PinDirectory
from citeaudit.wiring import read_only_auditor, service_auditor
from tests.conftest import run_cli
from tests.sources.test_pins import RUSSIAN, _pdf
from tests.web_server import Route, WebServer, wrap

QUOTE = "The committee approved the new budget of 4.2 million euros after a long debate on Tuesday evening."
PARAGRAPHS = [
    "The city council met for most of the day to discuss the plans for the coming year.",
    QUOTE,
    "The mayor told reporters afterwards that the vote had been closer than expected.",
]
CLAIM = "The council approved a budget of 4.2 million euros."


@pytest.fixture
def server() -> Iterator[WebServer]:
    srv = WebServer().start()
    yield srv
    srv.stop()


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CITEAUDIT_HOST_DELAY_MS", "0")
    return tmp_path


def claims(*citations: dict[str, Any], text: str = CLAIM) -> Path:
    path = Path("claims.json")
    path.write_text(
        json.dumps({"claims": [{"id": "c1", "text": text, "citations": list(citations)}]}), "utf-8"
    )
    return path


def report() -> Any:
    return json.loads(Path("report.json").read_text("utf-8"))


def codes(data: Any) -> list[list[str]]:
    return [r["errors"] + r["warnings"] for r in data["results"]]


def test_an_exact_quote_passes_also_behind_a_redirect(server: WebServer, work: Path) -> None:
    page = server.page("/news/budget", wrap("Budget approved", PARAGRAPHS))
    moved = server.redirect("/old/budget", "/news/budget")
    claims(
        {"id": "a", "url": page + "#vote", "quote": QUOTE, "title": "Budget approved"},
        {"id": "b", "url": moved + "?utm_source=feed", "quote": QUOTE, "accessed": "2024-05-02"},
    )
    fetched = run_cli("fetch", "claims.json", "--allow-private-urls")
    assert fetched.code == 0, fetched.stderr
    assert fetched.stdout.splitlines()[-1] == (
        "urls=2 created=2 unchanged=0 changed=0 replaced=0 failed=0 sources=sources"
    )
    requests = len(server.log)
    result = run_cli("check", "claims.json", "--offline")
    assert result.code == 0, result.stdout
    assert len(server.log) == requests
    data = report()
    assert codes(data) == [[], []]
    a, b = data["results"]
    assert a["source"] == {"kind": "url", "title": "Budget approved", "url": page + "#vote"}
    assert b["source"] == {"accessed": "2024-05-02", "kind": "url", "url": moved + "?utm_source=feed"}
    assert (a["doi"], b["doi"]) == (page, moved)  # the normal URLs the pins are kept under
    assert b["record"]["final_url"] == page
    assert b["record"]["redirects"] == 1
    assert a["record"]["text_sha256"] == b["record"]["text_sha256"]
    assert a["excerpt"]["match"] == QUOTE
    assert a["location"]["start"] >= 0


def test_an_altered_quote_is_not_found_with_the_closest_passage(server: WebServer, work: Path) -> None:
    page = server.page("/news/budget", wrap("Budget approved", PARAGRAPHS))
    altered = QUOTE.replace("4.2 million", "6.8 million")
    claims({"url": page, "quote": altered}, text="The council approved a budget of 6.8 million euros.")
    result = run_cli("check", "claims.json", "--allow-private-urls")
    assert result.code == 1
    (row,) = report()["results"]
    assert row["errors"] == ["E_QUOTE_NOT_FOUND"]
    (finding,) = [f for f in row["findings"] if f["code"] == "E_QUOTE_NOT_FOUND"]
    assert finding["suggestion"]["closest"] == QUOTE


@pytest.mark.parametrize("status", [404, 410])
def test_404_and_410_are_not_found_and_stay_so_offline(server: WebServer, work: Path, status: int) -> None:
    server.routes["/gone"] = Route(status=status, body=b"<html><body>Gone</body></html>")
    claims({"url": server.url + "/gone", "quote": QUOTE})
    online = run_cli("check", "claims.json", "--allow-private-urls")
    assert online.code == 1
    assert codes(report()) == [["E_URL_NOT_FOUND"]]
    (finding,) = report()["results"][0]["findings"]
    assert finding["message"].startswith(f"{server.url}/gone answered HTTP {status} when it was fetched (")
    assert finding["outcome"] == "not_registered"
    hits = server.hits("/gone")
    offline = run_cli("check", "claims.json", "--offline")
    assert (offline.code, codes(report()), server.hits("/gone")) == (1, [["E_URL_NOT_FOUND"]], hits)


def test_503_with_retry_after_is_retried_then_could_not_check_and_not_pinned(
    server: WebServer, work: Path
) -> None:
    server.routes["/busy"] = Route(
        status=503, headers={"Retry-After": "0", "Content-Type": "text/html"}, body=b""
    )
    claims({"url": server.url + "/busy", "quote": QUOTE})
    result = run_cli("check", "claims.json", "--allow-private-urls")
    assert result.code == 3
    (row,) = report()["results"]
    assert row["errors"] == ["E_URL_UNREACHABLE"]
    assert row["findings"][0]["message"] == f"{server.url}/busy: HTTP 503 after 4 attempts"
    assert server.hits("/busy") == 4
    assert list(Path("sources").glob("*.pin.*")) == []
    offline = run_cli("check", "claims.json", "--offline")
    assert (offline.code, codes(report())) == (3, [["E_NOT_PINNED"]])


def test_without_the_flag_no_request_reaches_loopback_and_the_message_says_why(
    server: WebServer, work: Path
) -> None:
    claims({"url": server.page("/p", wrap("Budget approved", PARAGRAPHS)), "quote": QUOTE})
    result = run_cli("check", "claims.json")
    assert result.code == 3
    (row,) = report()["results"]
    assert row["errors"] == ["E_URL_REFUSED"]
    assert row["findings"][0]["message"] == (
        "127.0.0.1 is a loopback address; not fetched: a URL from the audited input may not reach "
        "loopback, private, link-local or multicast addresses "
        "(--allow-private-urls or CITEAUDIT_ALLOW_PRIVATE_URLS allows them)"
    )
    claims({"url": f"http://localhost:{server.port}/p", "quote": QUOTE})
    assert run_cli("fetch", "claims.json").code == 3
    assert server.log == []


def test_the_environment_variable_allows_private_addresses(
    server: WebServer, work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    claims({"url": server.page("/p", wrap("Budget approved", PARAGRAPHS)), "quote": QUOTE})
    monkeypatch.setenv("CITEAUDIT_ALLOW_PRIVATE_URLS", "1")
    assert run_cli("check", "claims.json").code == 0


def _outcome_pages(server: WebServer, tmp: Path) -> dict[str, tuple[str, str, list[str]]]:
    """path → (url, quote, codes expected) for the outcomes the README documents."""
    server.routes["/robots.txt"] = Route(
        headers={"Content-Type": "text/plain"}, body=b"User-agent: *\nDisallow: /members/\n"
    )
    js = '<html><head><script src="/app.js"></script></head><body><div id="root"></div></body></html>'
    pdf = _pdf(
        tmp / "report.pdf",
        ["The committee approved the new budget of 4.2 million", "euros after a long debate."],
    )
    server.routes["/report.pdf"] = Route(headers={"Content-Type": "application/pdf"}, body=pdf)
    cyrillic = wrap("Бюджет", [RUSSIAN]).replace('<meta charset="utf-8">', "").encode("windows-1251")
    server.routes["/ru"] = Route(headers={"Content-Type": "text/html"}, body=cyrillic)
    server.redirect("/loop1", "/loop2")
    server.redirect("/loop2", "/loop1")
    server.routes["/huge"] = Route(body=b"<html><body><p>" + b"budget " * 400_000 + b"</p></body></html>")
    return {
        "robots": (server.page("/members/p", wrap("Budget", PARAGRAPHS)), QUOTE, ["E_ROBOTS_DISALLOWED"]),
        "js": (server.page("/app", js), QUOTE, ["E_URL_NO_TEXT"]),
        "pdf": (server.url + "/report.pdf", "The committee approved the new budget of 4.2 million euros", []),
        "cp1251": (server.url + "/ru", RUSSIAN, []),
        "loop": (server.url + "/loop1", QUOTE, ["E_URL_UNREACHABLE"]),
        "huge": (server.url + "/huge", QUOTE, ["E_URL_UNREADABLE"]),
    }


def test_each_outcome_has_its_documented_code(
    server: WebServer, work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEAUDIT_MAX_PAGE_BYTES", "1000000")
    pages = _outcome_pages(server, work)
    claims(
        *({"id": name, "url": url, "quote": quote} for name, (url, quote, _) in pages.items()),
        text="A budget.",
    )
    result = run_cli("check", "claims.json", "--allow-private-urls")
    assert result.code == 3
    got = {r["citation"]: r["errors"] for r in report()["results"]}
    assert got == {name: expected for name, (_, _, expected) in pages.items()}
    messages = {r["citation"]: r["findings"][0]["message"] for r in report()["results"] if r["errors"]}
    assert "it may need a browser to render" in messages["js"]
    assert messages["huge"] == f"{server.url}/huge: the page is over 1000000 bytes (max_page_bytes)"
    assert messages["loop"] == f"redirect loop: {server.url}/loop1 was already visited"
    assert server.hits("/members/p") == 0


def test_offline_reports_are_byte_identical_and_fetch_twice_changes_nothing(
    server: WebServer, work: Path
) -> None:
    page = server.page("/news/budget", wrap("Budget approved", PARAGRAPHS))
    claims({"url": page, "quote": QUOTE, "title": "Budget approved"})
    assert run_cli("fetch", "claims.json", "--allow-private-urls").code == 0
    pins = sorted(Path("sources").iterdir())
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in pins}
    again = run_cli("fetch", "claims.json", "--allow-private-urls")
    assert again.code == 0
    assert again.stdout.splitlines()[0].startswith(f"unchanged {page} HTTP 200 text_sha256=")
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(Path("sources").iterdir())} == before
    outputs = []
    for jobs in ("1", "2", "1"):
        assert run_cli("check", "claims.json", "--offline", "--jobs", jobs).code == 0
        outputs.append(Path("report.json").read_bytes())
    for seed in ("1", "2"):  # another process, another hash seed, another locale
        env = {**os.environ, "PYTHONHASHSEED": seed, "LC_ALL": "C"}
        cmd = [
            sys.executable,
            "-m",
            "citeaudit",
            "check",
            "claims.json",
            "--offline",
            "--out",
            f"r{seed}.json",
        ]
        assert subprocess.run(cmd, env=env, capture_output=True, check=False, timeout=120).returncode == 0
        outputs.append(Path(f"r{seed}.json").read_bytes())
    assert len(set(outputs)) == 1


def test_a_changed_page_is_kept_unless_replace(server: WebServer, work: Path) -> None:
    page = server.page("/news/budget", wrap("Budget approved", PARAGRAPHS))
    claims({"url": page, "quote": QUOTE})
    assert run_cli("fetch", "claims.json", "--allow-private-urls").code == 0
    old = PinDirectory(Path("sources")).lookup(page).pin
    assert old is not None
    server.page("/news/budget", wrap("Budget approved", [PARAGRAPHS[0], PARAGRAPHS[2]]))  # the quote is gone
    changed = run_cli("fetch", "claims.json", "--allow-private-urls")
    assert changed.code == 0
    line = changed.stdout.splitlines()[0]
    assert line.startswith(f"changed {page} HTTP 200 text_sha256={old.text_sha256} -> HTTP 200 text_sha256=")
    assert line.endswith("; kept the old pin (--replace takes the new one)")
    assert PinDirectory(Path("sources")).lookup(page).pin == old
    assert run_cli("check", "claims.json", "--offline").code == 0  # still the pinned text
    assert run_cli("fetch", "claims.json", "--allow-private-urls", "--replace").stdout.startswith(
        f"replaced {page}"
    )
    assert run_cli("check", "claims.json", "--offline").code == 1
    assert codes(report()) == [["E_QUOTE_NOT_FOUND"]]


def test_the_cited_title_against_the_page_titles(server: WebServer, work: Path) -> None:
    page = server.page("/news/budget", wrap("Budget approved", PARAGRAPHS))
    claims(
        {"id": "site", "url": page, "quote": QUOTE, "title": "Budget Approved | Example News"},
        {"id": "bare", "url": page, "quote": QUOTE, "title": "Budget approved"},
        {"id": "other", "url": page, "quote": QUOTE, "title": "Council rejects the budget"},
    )
    assert run_cli("check", "claims.json", "--allow-private-urls").code == 0  # a warning only
    got = {r["citation"]: r["warnings"] for r in report()["results"]}
    assert got == {"site": [], "bare": [], "other": ["W_URL_TITLE_MISMATCH"]}


def test_a_malformed_url_is_a_finding(work: Path) -> None:
    claims(
        {"id": "a", "url": "ftp://files.example/x.pdf", "quote": QUOTE},
        {"id": "b", "url": "https://u:p@x.example/", "quote": QUOTE},
    )
    assert run_cli("check", "claims.json", "--offline").code == 1
    messages = [r["findings"][0]["message"] for r in report()["results"]]
    assert messages == [
        "'ftp://files.example/x.pdf' is not a web page citeaudit can pin: the scheme is ftp; only http and https pages are fetched",
        "'https://u:p@x.example/' is not a web page citeaudit can pin: the URL carries user credentials (user:password@host)",
    ]
    assert codes(report()) == [["E_URL_SYNTAX"], ["E_URL_SYNTAX"]]


@pytest.mark.parametrize("host", ["0177.0.0.1", "127.000.000.001", "１２７.０.０.１", "①②⑦.0.0.1"])
def test_odd_spellings_of_loopback_are_refused_online_without_a_connection(
    server: WebServer, work: Path, host: str
) -> None:
    """Spellings the HTTP client cannot parse once crashed fetch and check (exit 4, no report)."""
    server.page("/p", wrap("Budget approved", PARAGRAPHS))
    url = f"http://{host}:{server.port}/p"
    claims({"url": url, "quote": QUOTE})
    fetched = run_cli("fetch", "claims.json", "--allow-private-urls")
    assert (fetched.code, fetched.stderr) == (0, "")  # nothing to fetch
    checked = run_cli("check", "claims.json", "--allow-private-urls")
    assert (checked.code, checked.stderr) == (1, "")
    assert codes(report()) == [["E_URL_SYNTAX"]]
    assert report()["results"][0]["findings"][0]["message"].startswith(
        f"{url!r} is not a web page citeaudit can pin: the host {host!r} "
    )
    assert server.log == []
    assert list(Path("sources").glob("*.pin.*")) == []


def test_an_unknown_field_in_a_web_citation_is_an_input_error(work: Path) -> None:
    claims({"url": "https://x.example/", "quote": QUOTE, "year": 2020})
    result = run_cli("check", "claims.json", "--offline")
    assert result.code == 2
    assert result.stderr == (
        "citeaudit: error: claims.json: $.claims[0].citations[0].year: unknown field (not part of the contract)\n"
    )


def test_snapshot_pins_a_saved_page_by_hand(work: Path) -> None:
    saved = Path("saved.html")
    saved.write_text(wrap("Budget approved", PARAGRAPHS), "utf-8")
    url = "https://news.example/budget"
    result = run_cli("snapshot", "saved.html", "--url", url + "?utm_medium=x")
    assert result.code == 0, result.stderr
    assert result.stdout.endswith(" status=created\n")
    assert run_cli("snapshot", "saved.html", "--url", url).stdout.endswith(" status=unchanged\n")
    claims({"url": url, "quote": QUOTE})
    assert run_cli("check", "claims.json", "--offline").code == 0
    assert report()["results"][0]["record"]["final_url"] == url


def test_the_service_and_the_mcp_server_never_fetch(server: WebServer, work: Path) -> None:
    page = server.page("/p", wrap("Budget approved", PARAGRAPHS))
    submission = parse_document(
        {"claims": [{"id": "c1", "text": CLAIM, "citations": [{"url": page, "quote": QUOTE}]}]}, "x"
    )
    config = Config(allow_private_urls=True, offline=False, host_delay_ms=0, judge="none")
    for auditor in (service_auditor(config), read_only_auditor(config)):
        assert isinstance(auditor.pins, PinDirectory)
        (row,) = auditor.audit(submission).rows
        assert [f.code for f in row.findings] == ["E_NOT_PINNED"]
    assert server.log == []


@pytest.mark.parametrize("fmt", ["md", "sarif", "junit", "html"])
def test_every_format_shows_the_url_the_final_url_and_the_pinned_digest(
    server: WebServer, work: Path, fmt: str
) -> None:
    server.page("/news/budget", wrap("Budget approved", PARAGRAPHS))
    moved = server.redirect("/old/budget", "/news/budget")
    claims({"url": moved, "quote": QUOTE.replace("Tuesday", "Monday")})
    assert run_cli("check", "claims.json", "--allow-private-urls").code == 1
    record = report()["results"][0]["record"]
    rendered = run_cli("render", "report.json", "--format", fmt)
    assert rendered.code == 0, rendered.stderr
    text = rendered.stdout.replace("\\", "")  # Markdown escapes the dots
    for shown in (moved, record["final_url"], record["text_sha256"]):
        assert shown in text


def test_cache_refresh_refetches_pins_and_names_a_quote_that_vanished(server: WebServer, work: Path) -> None:
    page = server.page("/news/budget", wrap("Budget approved", PARAGRAPHS))
    kept = server.page("/news/other", wrap("Other", PARAGRAPHS))
    claims({"id": "q", "url": page, "quote": QUOTE}, {"id": "k", "url": kept, "quote": QUOTE})
    assert run_cli("fetch", "claims.json", "--allow-private-urls").code == 0
    same = run_cli("cache", "refresh", "--allow-private-urls", "--claims", "claims.json")
    assert (same.code, same.stdout.splitlines()[-1]) == (0, "pinned=2 changed=0 could_not_check=0 written=0")
    old = PinDirectory(Path("sources")).lookup(page).pin
    assert old is not None
    server.page("/news/budget", wrap("Budget approved", [PARAGRAPHS[0], PARAGRAPHS[2]]))
    refreshed = run_cli("cache", "refresh", "--allow-private-urls", "--claims", "claims.json")
    assert refreshed.code == 1
    lines = refreshed.stdout.splitlines()
    assert lines[1].startswith(f"{page}: text_sha256: {old.text_sha256!r} -> ")
    assert lines[2] == f"{page}: the quote of q is no longer on the page: {QUOTE[:80]!r}"
    assert lines[3] == "pinned=2 changed=1 could_not_check=0 written=0"
    assert PinDirectory(Path("sources")).lookup(page).pin == old  # only --write replaces it
    written = run_cli("cache", "refresh", "--allow-private-urls", "--write")
    assert written.stdout.splitlines()[-1] == "pinned=2 changed=1 could_not_check=0 written=1"
    assert run_cli("check", "claims.json", "--offline").code == 1


def test_a_doi_named_with_a_page_must_be_its_citation_doi(server: WebServer, work: Path) -> None:
    head = '<meta name="citation_doi" content="10.1234/Budget.5">'
    page = server.page("/article", wrap("Budget approved", PARAGRAPHS, extra_head=head))
    claims(
        {"id": "same", "url": page, "doi": "https://doi.org/10.1234/budget.5", "quote": QUOTE},
        {"id": "other", "url": page, "doi": "10.1234/budget.6", "quote": QUOTE},
    )
    assert run_cli("check", "claims.json", "--allow-private-urls").code == 1
    rows = {r["citation"]: r for r in report()["results"]}
    assert rows["same"]["errors"] == []
    assert rows["other"]["errors"] == ["E_URL_DOI_MISMATCH"]
    assert rows["other"]["findings"][0]["message"] == (
        "the citation names the DOI 10.1234/budget.6; the page gives 10.1234/budget.5"
    )
    assert rows["same"]["record"]["citation_doi"] == "10.1234/Budget.5"
    assert rows["other"]["source"]["doi"] == "10.1234/budget.6"


def test_the_python_api_takes_web_citations(server: WebServer, work: Path) -> None:
    from citeaudit import api

    page = server.page("/news/budget", wrap("Budget approved", PARAGRAPHS))
    answer = {"claims": [{"id": "c1", "text": CLAIM, "citations": [{"url": page, "quote": QUOTE}]}]}
    offline = api.audit(answer, sources=work / "pins", judge=None)
    assert [f.code for f in offline.rows[0].findings] == ["E_NOT_PINNED"]
    assert server.log == []  # a library call is offline unless asked
    online = Config(offline=False, allow_private_urls=True, host_delay_ms=0, sources=work / "pins", jobs=1)
    fetched = api.audit(answer, config=online, judge=None)
    assert [f.code for f in fetched.rows[0].findings] == []
    again = api.audit(answer, sources=work / "pins", judge=None)
    assert [f.code for f in again.rows[0].findings] == []
    assert again.rows[0].location == fetched.rows[0].location


def test_fetching_without_the_web_extra_says_what_to_install(
    server: WebServer, work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    claims({"url": server.page("/p", wrap("Budget approved", PARAGRAPHS)), "quote": QUOTE})
    monkeypatch.setitem(sys.modules, "protego", None)  # as if not installed
    result = run_cli("fetch", "claims.json", "--allow-private-urls")
    assert (result.code, result.stderr) == (
        2,
        "citeaudit: error: fetching cited web pages needs the web extra (protego not installed): "
        "pip install 'citeaudit[web]'\n",
    )
    assert server.log == []
    assert run_cli("check", "claims.json", "--offline").code == 3  # offline needs none of them
