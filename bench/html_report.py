"""Benchmark: the HTML report of a 10,000-claim audit in headless Chromium
(Debian's ``chromium``, driven by Playwright, as the tests drive it).

Measured per run, the median of five page loads in a fresh tab: the time from
navigation to the table drawn and ready (the page stamps ``data-ready-ms``),
then search, a filter pill, a sort and expand-all, each until two frames have
been painted. Baseline in the same run: Chromium opening the same report's
``report.json`` as a plain-text page (the bytes with no page at all).
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, sync_playwright
from tests.report.html_cases import audit_html
from tests.report.test_html_browser import CHROMIUM_FLAGS

LOADS = 5
# Runs an action in the page and resolves after two painted frames: the time a person waits.
_TIMED = """async (action) => {
  const t0 = performance.now();
  if (action === "search") { const s = document.getElementById("search"); s.value = "устраняет";
    s.dispatchEvent(new Event("input")); }
  if (action === "pill") document.querySelector("button[data-value='E_NOT_CACHED']").click();
  if (action === "clear") document.getElementById("clear").click();
  if (action === "sort") document.querySelector("button[data-sort='text']").click();
  if (action === "expand") document.getElementById("expand-all").click();
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  return performance.now() - t0;
}"""
ACTIONS = ("search", "clear", "pill", "clear", "sort", "expand")


def _load(page: Page, url: str, ready: str) -> float:
    start = time.perf_counter()
    page.goto(url)
    page.wait_for_selector(ready, state="attached")
    return time.perf_counter() - start


def run(quick: bool = False) -> dict[str, Any]:
    claims = 1_000 if quick else 10_000
    chromium = shutil.which("chromium")
    assert chromium is not None, "the html benchmark needs Debian's chromium (make browser-tools)"
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        html = audit_html(Path(tmp), claims)
        audit_seconds = time.perf_counter() - t
        report = html.parent / "report.json"
        out: dict[str, Any] = {"claims": claims, "html_bytes": html.stat().st_size,
                               "json_bytes": report.stat().st_size, "audit_seconds": audit_seconds}  # fmt: skip
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
            opened, ready_ms, baseline = [], [], []
            actions: dict[str, list[float]] = {a: [] for a in ACTIONS if a != "clear"}
            drawn = matched = 0
            for _ in range(LOADS):
                page = browser.new_page(viewport={"width": 1200, "height": 1000})
                opened.append(_load(page, html.as_uri(), "html[data-ready-ms]"))
                ready_ms.append(float(page.get_attribute("html", "data-ready-ms") or "nan"))
                drawn = page.locator("tbody.claim").count()
                for action in ACTIONS:
                    ms = page.evaluate(_TIMED, action)
                    if action == "search":
                        matched = int(page.inner_text("#shown"))
                    if action != "clear":
                        actions[action].append(ms)
                page.close()
                page = browser.new_page(viewport={"width": 1200, "height": 1000})
                baseline.append(_load(page, report.as_uri(), "body"))
                page.close()
            browser.close()
    out |= {
        "open_seconds": statistics.median(opened),
        "open_max_seconds": max(opened),
        "ready_ms": statistics.median(ready_ms),
        "rows_drawn": drawn,
        "search_matches": matched,
        "baseline_json_seconds": statistics.median(baseline),
        "actions_ms": {a: statistics.median(v) for a, v in actions.items()},
        "actions_max_ms": {a: max(v) for a, v in actions.items()},
    }
    return out


def markdown(r: dict[str, Any]) -> str:
    a, mx = r["actions_ms"], r["actions_max_ms"]
    lines = [
        f"A {r['claims']:,}-claim offline audit (eight kinds of claim, from passing to not cached; the audit "
        f"took {r['audit_seconds']:.1f} s) rendered as HTML ({r['html_bytes'] / 1e6:.1f} MB; report.json "
        f"{r['json_bytes'] / 1e6:.1f} MB), opened {LOADS} times in headless Chromium; medians, worst in "
        "brackets. The page draws the first "
        f"{r['rows_drawn']} rows and the rest as they scroll into view.",
        "",
        "| step | time |",
        "|---|---:|",
        f"| open: navigation to the table drawn (Playwright's clock) | {r['open_seconds']:.2f} s "
        f"({r['open_max_seconds']:.2f}) |",
        f"| open: the page's own clock (navigation start to ready) | {r['ready_ms']:.0f} ms |",
        f"| baseline: report.json opened as plain text | {r['baseline_json_seconds']:.2f} s |",
        f'| search ("устраняет", {r["search_matches"]:,} claims match) | {a["search"]:.0f} ms ({mx["search"]:.0f}) |',
        f"| filter pill (E_NOT_CACHED) | {a['pill']:.0f} ms ({mx['pill']:.0f}) |",
        f"| sort by claim text | {a['sort']:.0f} ms ({mx['sort']:.0f}) |",
        f"| expand all | {a['expand']:.0f} ms ({mx['expand']:.0f}) |",
    ]
    return "\n".join(lines)
