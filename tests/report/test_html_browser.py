"""The HTML report in real headless Chromium: it renders, the highlighted
text is the quote, filtering works with mouse and keyboard, it prints, and
hostile text runs no script, sends no request and shows literally."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Dialog, Page, sync_playwright

from tests.conftest import GOLDEN, run_cli

CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run", "--disable-quic"]  # fmt: skip


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    path = shutil.which("chromium")
    assert path is not None, "chromium is not installed; `make test` installs Debian's chromium package"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


class Watched:
    """A page with every request, dialog and console message recorded."""

    def __init__(self, browser: Browser, url: str) -> None:
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        self.page: Page = browser.new_page(viewport={"width": 1100, "height": 1400})
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("dialog", self._dialog)
        self.page.goto(url)
        self.page.wait_for_load_state("load")

    def _dialog(self, dialog: Dialog) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def outside_requests(self, own: str) -> list[str]:
        return [u for u in self.requests if u != own]


def _html(tmp_path: Path, claims: dict[str, Any] | None = None) -> Path:
    work = tmp_path / "case"
    shutil.copytree(GOLDEN / "seed000", work)
    if claims is not None:
        (work / "claims.json").write_text(json.dumps(claims, ensure_ascii=False), "utf-8")
    out = work / "report.html"
    result = run_cli("check", work / "claims.json", "--offline", "--cache", work / "cache", "--sources",
                     work / "sources", "--out", work / "report.json", "--format", "html", "--output", out)  # fmt: skip
    assert result.code == 1, result.stderr
    return out


def test_renders_highlights_filters_and_prints(browser: Browser, tmp_path: Path) -> None:
    path = _html(tmp_path)
    url = path.as_uri()
    seen = Watched(browser, url)
    page = seen.page
    quote = "снизила число неподтверждённых утверждений с 18 до 7 на сотню ответов"
    assert page.locator("mark[data-citation='c1#1']").text_content() == quote
    assert page.locator("li.claim").count() == 4
    assert page.locator("#shown").inner_text() == "4"

    page.click("button[data-filter='invalid_reference']")
    assert page.locator("#shown").inner_text() == "1"
    assert page.locator("li.claim[data-status='requires_entailment_check']").is_hidden()
    assert page.locator("li.claim[data-status='invalid_reference']").is_visible()

    page.focus("button[data-filter='unsupported']")  # the keyboard alone works too
    page.keyboard.press("Space")
    assert page.get_attribute("button[data-filter='unsupported']", "aria-pressed") == "true"
    assert page.locator("#shown").inner_text() == "2"

    page.emulate_media(media="print")
    assert page.locator("li.claim[data-status='requires_entailment_check']").is_visible()
    assert page.locator(".filters").is_hidden()
    page.emulate_media(media="screen")

    screenshot = tmp_path / "report.png"
    page.screenshot(path=str(screenshot), full_page=True)
    assert screenshot.stat().st_size > 10_000
    assert seen.outside_requests(url) == []
    assert seen.dialogs == []
    csp = page.get_attribute("meta[http-equiv='Content-Security-Policy']", "content") or ""
    assert "default-src 'none'" in csp


HOSTILE = [
    "<script>window.pwned = 1; alert('script')</script>",
    "<img src=x onerror=\"window.pwned = 2; alert('img')\">",
    "<a href=\"javascript:alert('link')\">click</a>",
    "![tracker](http://evil.example/pixel.png)",
    "<style>body { display: none }</style><link rel=stylesheet href=http://evil.example/x.css>",
    "<iframe src=http://evil.example/></iframe>",
]


def test_hostile_text_runs_nothing_loads_nothing_and_shows_literally(
    browser: Browser, tmp_path: Path
) -> None:
    claims = {"claims": [
        {"id": f"h{i}", "text": f"claim {text}", "citations": [
            {"doi": "10.0000/demo.1", "title": text, "year": 2024, "first_author": "Ivanova", "quote": text * 2}]}
        for i, text in enumerate(HOSTILE)
    ]}  # fmt: skip
    path = _html(tmp_path, claims)
    url = path.as_uri()
    seen = Watched(browser, url)
    page = seen.page
    page.wait_for_timeout(300)  # give any injected script or image a chance to fire
    assert seen.dialogs == []
    assert page.evaluate("window.pwned") is None
    assert seen.outside_requests(url) == []
    body = page.inner_text("body")
    for text in HOSTILE:
        assert f"claim {text}" in body
    assert page.locator("main img, main iframe, main a[href], main link, main style").count() == 0
    assert page.locator("body").is_visible()
