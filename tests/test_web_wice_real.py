"""Real cited web pages (WiCE) served as sites serve them — navigation, a cookie banner, a sidebar,
a footer around the page's own sentences — fetched and pinned, then checked offline: every real
supporting sentence, quoted as it is, is found in the pin."""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citeaudit.config import Config
from citeaudit.formats import parse_document
from citeaudit.resolve.http import RetryPolicy
from citeaudit.resolve.web import WebFetcher, WebPolicy
from citeaudit.sources.pins import PinDirectory, Pinner
from citeaudit.wiring import build_auditor
from tests.conftest import read_jsonl, shared_data
from tests.web_server import Route, WebServer, wrap

MIN_QUOTE = 30  # the default shortest quote; shorter supporting sentences are not quotes
# One WiCE sentence opens with U+0095, a bullet mis-decoded in the data set: a control character no
# browser shows, which trafilatura drops as well. The quote is the sentence as a reader copies it.
_CONTROLS = dict.fromkeys([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), *range(0x7F, 0xA0)])
META = "(meta data) TITLE:"


@pytest.fixture(scope="module")
def wice() -> list[dict[str, Any]]:
    rows = read_jsonl(shared_data("semantic", "wice", "entailment_retrieval_claim", "dev.jsonl"))
    cases = []
    for row in rows:
        evidence: list[str] = row["evidence"]
        chosen = sorted({i for group in row["supporting_sentences"] for i in group})
        quotes = [evidence[i].translate(_CONTROLS).strip() for i in chosen]
        quotes = [q for q in quotes if len(" ".join(q.split())) >= MIN_QUOTE]
        quotes = [q for q in quotes if not q.startswith(META)]
        if not quotes:
            continue
        title = next((s[len(META) :].strip() for s in evidence if s.startswith(META)), row["meta"]["id"])
        paragraphs = [html.escape(s) for s in evidence if not s.startswith(META)]
        cases.append(
            {
                "id": row["meta"]["id"],
                "claim": row["claim"],
                "title": title,
                "page": wrap(html.escape(title), paragraphs),
                "quotes": quotes,
            }
        )
    return cases


@pytest.fixture(scope="module")
def server() -> Iterator[WebServer]:
    srv = WebServer().start()
    yield srv
    srv.stop()


def test_every_real_supporting_sentence_is_found_in_the_pinned_page(
    wice: list[dict[str, Any]], server: WebServer, tmp_path: Path
) -> None:
    assert len(wice) > 250
    for case in wice:
        server.routes[f"/wice/{case['id']}"] = Route(body=case["page"].encode("utf-8"))
    urls = [f"{server.url}/wice/{case['id']}" for case in wice]
    fetcher = WebFetcher(
        policy=WebPolicy(retry=RetryPolicy(attempts=2, timeout=10.0), delay=0.0, allow_private=True)
    )
    outcomes = Pinner(PinDirectory(tmp_path), fetcher).pin_many(urls)
    assert Counter(o.action for o in outcomes.values()) == Counter({"created": len(wice)})
    claims = [
        {"id": case["id"], "text": case["claim"],
         "citations": [{"id": f"{case['id']}-{j}", "url": url, "quote": q} for j, q in enumerate(case["quotes"])]}
        for case, url in zip(wice, urls, strict=True)
    ]  # fmt: skip
    submission = parse_document({"claims": claims}, "wice.json")
    auditor = build_auditor(
        Config(offline=True, sources=tmp_path, cache=tmp_path / "cache", judge="none", jobs=2)
    )
    report = auditor.audit(submission)
    quote_codes = Counter(f.code for r in report.rows for f in r.errors if f.code != "E_NUMBER_UNSUPPORTED")
    assert quote_codes == Counter()
    found = sum(1 for r in report.rows if r.location is not None)
    assert found == sum(len(c["quotes"]) for c in wice)
    exact = sum(
        1
        for r in report.rows
        if r.location is not None and not any(f.code == "I_QUOTE_NORMALIZED" for f in r.findings)
    )
    print(f"WiCE pages={len(wice)} quotes={found} exact={exact} normalised={found - exact}")


def _gold_in(passage: str, gold: list[str]) -> bool:
    """A gold supporting sentence inside a passage (white space as the pin has it)."""
    text = " ".join(passage.split())
    return any(" ".join(g.split()) in text for g in gold if len(" ".join(g.split())) >= 20)


def test_quote_less_claims_are_judged_on_passages_of_the_pinned_page(
    wice: list[dict[str, Any]], server: WebServer, tmp_path: Path
) -> None:
    """A claim that cites a real page with no quote is judged on the page's best passages: every
    claim gets a verdict, a gold supporting sentence is among the top three passages, and the
    judge's "entailed" is mostly right. WiCE's dev split (the test split is held out)."""
    rows = {
        r["meta"]["id"]: r
        for r in read_jsonl(shared_data("semantic", "wice", "entailment_retrieval_claim", "dev.jsonl"))
    }
    for case in wice:
        server.routes[f"/wice/{case['id']}"] = Route(body=case["page"].encode("utf-8"))
    urls = [f"{server.url}/wice/{case['id']}" for case in wice]
    fetcher = WebFetcher(
        policy=WebPolicy(retry=RetryPolicy(attempts=2, timeout=10.0), delay=0.0, allow_private=True)
    )
    Pinner(PinDirectory(tmp_path), fetcher).pin_many(urls)
    claims = [
        {"id": case["id"], "text": case["claim"], "citations": [{"id": case["id"], "url": url}]}
        for case, url in zip(wice, urls, strict=True)
    ]
    submission = parse_document({"claims": claims}, "wice.json")
    auditor = build_auditor(
        Config(offline=True, sources=tmp_path, cache=tmp_path / "cache", judge="learned", jobs=2)
    )
    report = auditor.audit(submission)
    labels = {case["id"]: rows[case["id"]]["label"] for case in wice}
    # The one error a page read in full can give: a number of the claim it does not contain.
    errors = Counter(f.code for r in report.rows for f in r.errors)
    assert set(errors) <= {"E_NUMBER_UNSUPPORTED"}
    misses = sum(1 for r in report.rows if r.errors and labels[r.claim_id or ""] == "supported")
    verdicts = {c.id: c.verdict for c in report.claims if c.verdict is not None}
    assert {c.id for c in report.claims if not c.verdict} == {r.claim_id for r in report.rows if r.errors}
    assert all(v.basis == "retrieved" and v.texts[0].basis == "page" for v in verdicts.values())
    gold = {case["id"]: case["quotes"] for case in wice}
    supported = [i for i in gold if labels[i] == "supported" and i in verdicts]
    at1 = sum(1 for i in supported if _gold_in(verdicts[i].passages[0].text, gold[i]))
    at3 = sum(1 for i in supported if any(_gold_in(p.text, gold[i]) for p in verdicts[i].passages))
    entailed = [i for i, v in verdicts.items() if v.label == "entailed"]
    right = sum(1 for i in entailed if labels[i] == "supported")
    print(
        f"WiCE dev quote-less: claims={len(wice)} verdicts={len(verdicts)} number errors={sum(errors.values())}"
        f" (on supported claims {misses}) supported judged={len(supported)} recall@1={at1} recall@3={at3}"
        f" entailed={len(entailed)} of them supported={right}"
    )
    assert len(verdicts) >= 0.5 * len(wice)
    assert misses <= 0.05 * len(supported)
    assert at1 >= 0.75 * len(supported)
    assert at3 >= 0.9 * len(supported)
