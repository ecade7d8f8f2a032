"""Every cited claim judged, end to end through the CLI: claims that cite a DOI with no quote are
pinned by ``fetch`` against the local registry replaying real Crossref answers (which carry the
abstract), then ``check --offline --judge learned`` judges each on the passages of the abstract
that best match it, names the text it read, offers the passage as the quote, and gives the
same bytes for any ``--jobs`` and hash seed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citeaudit.resolve.crossref import record_from_message
from citeaudit.resolve.interface import Record
from tests.conftest import read_jsonl, shared_data
from tests.registry_server import RegistryServer
from tests.resolve.conftest import environment_of

CITEAUDIT = str(Path(sys.executable).parent / "citeaudit")
CLAIMS = 12  # supported claims; as many unsupported ones cite another work's abstract


def _records() -> list[Record]:
    rows = read_jsonl(shared_data("registry", "crossref_works.jsonl"))
    out: list[Record] = []
    for row in rows:
        if row["partial_select"] or "abstract" not in row["message"]:
            continue
        record = record_from_message(row["message"])
        if record.abstract and record.titles and record.authors and record.years and len(out) < CLAIMS * 2:
            out.append(record)
    return out


def _sentence(abstract: str) -> str:
    """The abstract's longest sentence: what an agent writing from the abstract would state."""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", abstract) if 60 <= len(s) <= 300]
    return max(sentences or [abstract[:200]], key=len)


def _citation(record: Record) -> dict[str, Any]:
    first = record.authors[0]
    return {"doi": record.doi, "title": record.titles[0], "year": record.year_values[0],
            "first_author": first.family or first.name}  # fmt: skip


@pytest.fixture(scope="module")
def records() -> list[Record]:
    found = _records()
    assert len(found) == CLAIMS * 2, "the recordings hold fewer Crossref answers with an abstract"
    return found


@pytest.fixture(scope="module")
def registry() -> Iterator[RegistryServer]:
    srv = RegistryServer(shared_data("registry")).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def pinned(records: list[Record], registry: RegistryServer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with claims.json (quote-less DOI citations) and the cache fetch pinned for it."""
    work = tmp_path_factory.mktemp("cited")
    claims = []
    for i, record in enumerate(records[:CLAIMS]):
        claims.append(
            {"id": f"s{i:02d}", "text": _sentence(record.abstract or ""), "citations": [_citation(record)]}
        )
    for i, record in enumerate(records[CLAIMS:]):  # another work's finding, cited to this one
        other = records[(i + 1) % CLAIMS]
        claims.append(
            {"id": f"u{i:02d}", "text": _sentence(other.abstract or ""), "citations": [_citation(record)]}
        )
    (work / "claims.json").write_text(json.dumps({"claims": claims}, ensure_ascii=False), "utf-8")
    fetched = _run(work, "fetch", "claims.json", "--mailto", "tests@example.org", server=registry)
    assert fetched.returncode == 0, fetched.stderr
    return work


def _run(
    work: Path, *args: str, server: RegistryServer | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("CITEAUDIT_")}
    if server is not None:
        environ.update(environment_of(server))
    environ.update(env or {})
    return subprocess.run(
        [CITEAUDIT, *args], cwd=work, env=environ, capture_output=True, text=True, timeout=300
    )


def _check(
    work: Path, out: str, *extra: str, env: dict[str, str] | None = None, codes: tuple[int, ...] = (0, 3)
) -> dict[str, Any]:
    result = _run(
        work, "check", "claims.json", "--offline", "--judge", "learned", "--out", out, *extra, env=env
    )
    assert result.returncode in codes, result.stdout + result.stderr
    data: dict[str, Any] = json.loads((work / out).read_text("utf-8"))
    return data


def test_every_quote_less_claim_is_judged_on_passages_of_the_pinned_abstract(
    pinned: Path, records: list[Record]
) -> None:
    report = _check(pinned, "report.json")
    by_id = {c["id"]: c for c in report["claims"]}
    abstracts = {r.doi: r.abstract or "" for r in records}
    for claim in report["claims"]:
        verdict = claim["verdict"]
        assert verdict is not None, claim["id"]
        assert verdict["basis"] == "retrieved"
        (text,) = verdict["texts"]
        doi = next(r["doi"] for r in report["results"] if r["claim"] == claim["id"])
        assert text["basis"] == "abstract"
        assert text["name"] == f"abstract in the crossref record of {doi}"
        assert text["length"] == len(abstracts[doi])
        assert 1 <= len(verdict["passages"]) <= 3
        for rank, passage in enumerate(verdict["passages"], 1):
            assert passage["rank"] == rank
            assert abstracts[doi][passage["start"] : passage["end"]] == passage["text"]
            assert passage["text_sha256"] == text["sha256"]
    # The sentence a supported claim restates is the best passage of its abstract.
    for i in range(CLAIMS):
        assert by_id[f"s{i:02d}"]["verdict"]["passages"][0]["text"] in by_id[f"s{i:02d}"]["text"] or (
            by_id[f"s{i:02d}"]["text"] in by_id[f"s{i:02d}"]["verdict"]["passages"][0]["text"]
        )
    labels = {c["id"]: c["verdict"]["label"] for c in report["claims"]}
    assert all(labels[f"s{i:02d}"] == "entailed" for i in range(CLAIMS)), labels
    assert not any(labels[f"u{i:02d}"] == "entailed" for i in range(CLAIMS)), labels
    # Judged, not proved: no answer judged on retrieved passages is accepted by default.
    assert report["decision"] == "manual_review"
    # No number is called unsupported in a text that was never read in full.
    assert not [f for r in report["results"] for f in r["findings"] if f["code"] == "E_NUMBER_UNSUPPORTED"]


def test_an_abstract_that_does_not_say_it_says_the_full_text_was_not_read(pinned: Path) -> None:
    report = _check(pinned, "report.json")
    insufficient = [c["verdict"] for c in report["claims"] if c["verdict"]["label"] == "insufficient"]
    assert insufficient, "no unsupported claim was judged insufficient"
    for verdict in insufficient:
        assert verdict["reason"].startswith("the abstract does not state this; the full text was not read")


def test_the_passage_offered_as_the_quote_makes_the_citation_a_proved_one(pinned: Path) -> None:
    report = _check(pinned, "report.json")
    feedback = _run(pinned, "feedback", "report.json", "--format", "json")
    assert feedback.returncode == 0, feedback.stderr
    to_quote = json.loads(feedback.stdout)["quote"]
    supported = [c["id"] for c in report["claims"] if c["verdict"]["label"] == "entailed"]
    assert sorted({q["claim"] for q in to_quote}) == sorted(supported)
    # The agent applies every fix; the next audit finds each quote in the pinned abstract.
    claims = json.loads((pinned / "claims.json").read_text("utf-8"))
    fixes = {q["claim"]: q["fix"] for q in to_quote}
    for claim in claims["claims"]:
        claim["citations"][0] |= fixes.get(claim["id"], {})
    (pinned / "fixed.json").write_text(json.dumps(claims, ensure_ascii=False), "utf-8")
    result = _run(
        pinned, "check", "fixed.json", "--offline", "--judge", "learned", "--out", "fixed-report.json"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    fixed = json.loads((pinned / "fixed-report.json").read_text("utf-8"))
    for row in fixed["results"]:
        if row["claim"] in fixes:
            assert [f["code"] for f in row["findings"]][:1] == ["I_QUOTE_IN_ABSTRACT"], row["findings"]
            assert row["errors"] == []
    verdicts = {c["id"]: c["verdict"] for c in fixed["claims"]}
    assert all(verdicts[claim_id]["basis"] == "quote" for claim_id in fixes)


def test_offline_reports_with_retrieved_passages_are_byte_identical(pinned: Path) -> None:
    _check(pinned, "one.json", "--jobs", "1", env={"PYTHONHASHSEED": "1", "LC_ALL": "C"})
    _check(pinned, "two.json", "--jobs", "2", env={"PYTHONHASHSEED": "2", "LC_ALL": "C.UTF-8"})
    assert (pinned / "one.json").read_bytes() == (pinned / "two.json").read_bytes()


FULL_TEXT = [
    "Methods. We sampled 240 sites along the coast between March and June.",
    "Results. Baited cameras recorded 31 species, against 19 species without bait.",
    "The difference held at every depth we sampled.",
]


def test_full_text_is_fetched_only_when_asked_pinned_and_read_as_the_works_text(tmp_path: Path) -> None:
    """``fetch --full-text`` pins the full text a record names (here a Crossref text-mining link,
    pointed at a local server), and the quote-less claim is judged on it (basis ``full_text``);
    its numbers are then checked in it: one it lacks is ``E_NUMBER_UNSUPPORTED``."""
    from citeaudit.resolve.cache import DoiCache
    from citeaudit.resolve.interface import Resolution
    from tests.sources.test_pins import _pdf
    from tests.web_server import Route, WebServer

    rows = read_jsonl(shared_data("registry", "crossref_works.jsonl"))
    message = next(
        r["message"]
        for r in rows
        if any(k.get("intended-application") == "text-mining" for k in r["message"].get("link", []))
    )
    server = WebServer().start()
    try:
        pdf = _pdf(tmp_path / "paper.pdf", FULL_TEXT)
        server.routes["/tdm/paper.pdf"] = Route(body=pdf, headers={"Content-Type": "application/pdf"})
        message = {
            **message,
            "link": [{"URL": f"{server.url}/tdm/paper.pdf", "content-type": "application/pdf",
                      "content-version": "vor", "intended-application": "text-mining"}],
        }  # fmt: skip
        record = record_from_message(message)
        assert record.full_text_urls == (f"{server.url}/tdm/paper.pdf",)
        DoiCache(tmp_path / "cache").put(record.doi, Resolution.found(record))
        citation = _citation(record)
        claims = [
            {
                "id": "a",
                "text": "Baited cameras recorded 31 species, against 19 without bait.",
                "citations": [citation],
            },
            {"id": "b", "text": "Baited cameras recorded 45 species.", "citations": [citation]},
        ]
        (tmp_path / "claims.json").write_text(json.dumps({"claims": claims}), "utf-8")
        env = {"CITEAUDIT_HOST_DELAY_MS": "0"}
        plain = _run(tmp_path, "fetch", "claims.json", "--allow-private-urls", env=env)
        assert plain.returncode == 0, plain.stderr
        assert not server.log  # not asked for: nothing fetched
        fetched = _run(tmp_path, "fetch", "claims.json", "--allow-private-urls", "--full-text", env=env)
        assert fetched.returncode == 0, fetched.stderr
        assert f"created {server.url}/tdm/paper.pdf HTTP 200" in fetched.stdout
        requests = len(server.log)
        report = _check(tmp_path, "report.json", codes=(1,))
        assert len(server.log) == requests  # offline: read from the pin
    finally:
        server.stop()
    verdicts = {c["id"]: c["verdict"] for c in report["claims"]}
    (text,) = verdicts["a"]["texts"]
    assert text["basis"] == "full_text"
    assert text["name"].startswith(f"full text at {server.url}/tdm/paper.pdf as pinned ")
    assert "31 species" in verdicts["a"]["passages"][0]["text"]
    assert verdicts["b"] is None  # a number the full text lacks is an error: no verdict hides it
    errors = {r["claim"]: r["errors"] for r in report["results"]}
    assert errors == {"a": [], "b": ["E_NUMBER_UNSUPPORTED:45"]}
