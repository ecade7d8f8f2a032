"""A fix an agent can apply: a reference matched by bibliographic search is offered its DOI as the
fix, and ``citeaudit fetch`` pins that DOI's registry record along with the search answer, so the
citation, the fix applied, is still checked offline. An agent that applies every suggested fix and
checks again offline reaches a clean report (the fix turned it into E_NOT_CACHED before)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli, shared_data
from tests.dblp_dump import dblp_record, write_dblp
from tests.registry_server import RegistryServer
from tests.resolve.conftest import environment_of

# A work the recorded Crossref answers hold (../shared/data/registry), as DBLP lists it.
DOI = "10.1016/j.eng.2019.09.010"
RECORD = ("article", "journals/engineering/LeiAGSLLYG20", {
    "author": "Na Lei and Dongsheng An and Yang Guo and Kehua Su and Shixia Liu and Zhongxuan Luo and "
              "Shing-Tung Yau and Xianfeng Gu",
    "title": "A Geometric Understanding of Deep Learning", "pages": "361-374", "year": "2020",
    "volume": "6", "journal": "Engineering", "doi": DOI.upper()})  # fmt: skip
CITATION_FIELDS = {"doi", "arxiv", "title", "year", "first_author", "authors", "container"}


@pytest.fixture
def registry() -> Any:
    srv = RegistryServer(shared_data("registry")).start()
    yield srv
    srv.stop()


def _apply_fixes(claims: dict[str, Any], report: dict[str, Any]) -> int:
    """What an agent told to apply the fixes does: each suggestion made of citation fields is
    merged into its citation. Returns how many were applied."""
    by_id = {c["id"]: c for claim in claims["claims"] for c in claim["citations"]}
    applied = 0
    for result in report["results"]:
        for finding in result["findings"]:
            fix = finding.get("suggestion")
            if isinstance(fix, dict) and fix and set(fix) <= CITATION_FIELDS:
                citation = by_id[result["citation"]]
                if any(citation.get(k) != v for k, v in fix.items()):
                    citation.update(fix)
                    applied += 1
    return applied


@pytest.mark.timeout(90)
def test_an_agent_applying_every_fix_offline_reaches_a_clean_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, registry: RegistryServer
) -> None:
    monkeypatch.chdir(tmp_path)
    for var in [v for v in os.environ if v.startswith("CITEAUDIT_")]:
        monkeypatch.delenv(var)
    dump = write_dblp(tmp_path / "dblp-2026-11-01.xml.gz", [dblp_record(*RECORD)])
    assert run_cli("mirror", "import", "--format", "dblp", dump, "--mirror", "refs.mirror").code == 0
    claims: dict[str, Any] = {"claims": [{"id": "c1", "text": "Deep learning has a geometric reading.", "citations": [
        {"id": "q1", "title": "A geometric understanding of deep learning", "year": 2020, "first_author": "Lei"}]}]}  # fmt: skip
    Path("claims.json").write_text(json.dumps(claims), "utf-8")
    common = ("--mirror", "refs.mirror", "--indexes", "", "--cache", "cache")

    # Online once: the search answer, and the record of the DOI offered as the fix.
    for name, value in environment_of(registry).items():
        monkeypatch.setenv(name, value)
    fetched = run_cli("fetch", "claims.json", *common, "--mailto", "tests@example.org")
    assert fetched.code == 0, fetched.stderr
    assert fetched.stdout.splitlines() == [
        "references=1 matched=1 ambiguous=0 not_found=0 could_not_check=0 cache=cache",
        "fixes=1 found=1 not_found=0 could_not_check=0 cache=cache",
    ]
    for name in environment_of(registry):
        monkeypatch.setenv(name, "http://127.0.0.1:9/offline")  # any request now would fail

    rounds = []
    for _ in range(3):  # the agent's loop: check offline, apply the fixes, until none is left
        checked = run_cli("check", "claims.json", "--offline", *common, "--judge", "none", "--out", "r.json")
        report = json.loads(Path("r.json").read_text("utf-8"))
        codes = sorted(f["code"] for r in report["results"] for f in r["findings"])
        rounds.append((checked.code, codes))
        if not _apply_fixes(claims, report):
            break
        Path("claims.json").write_text(json.dumps(claims), "utf-8")
    assert rounds[0] == (0, ["I_MATCHED_BY_SEARCH", "I_QUOTE_ABSENT"]), rounds
    assert claims["claims"][0]["citations"][0]["doi"] == DOI
    final_code, final_codes = rounds[-1]
    assert len(rounds) == 2, rounds
    assert final_code == 0, rounds
    assert not [c for c in final_codes if c.startswith(("E_", "W_"))], rounds
    assert "E_NOT_CACHED" not in final_codes


@pytest.mark.timeout(90)
def test_an_mcp_agent_applying_every_fix_reaches_a_clean_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, registry: RegistryServer
) -> None:
    """Through the SDK's client: the server never goes online, so the fix it offers must be
    checkable from what fetch pinned."""
    import asyncio

    from mcp import Client

    from citeaudit.config import Config
    from citeaudit.service.mcp import McpOptions, build_server
    from citeaudit.wiring import read_only_auditor

    monkeypatch.chdir(tmp_path)
    for var in [v for v in os.environ if v.startswith("CITEAUDIT_")]:
        monkeypatch.delenv(var)
    dump = write_dblp(tmp_path / "dblp-2026-11-01.xml.gz", [dblp_record(*RECORD)])
    assert run_cli("mirror", "import", "--format", "dblp", dump, "--mirror", "refs.mirror").code == 0
    claims: dict[str, Any] = {"claims": [{"id": "c1", "text": "Deep learning has a geometric reading.",
                                          "citations": [{"id": "q1", "title": "A geometric understanding of deep learning",
                                                         "year": 2020, "first_author": "Lei"}]}]}  # fmt: skip
    Path("claims.json").write_text(json.dumps(claims), "utf-8")
    for name, value in environment_of(registry).items():
        monkeypatch.setenv(name, value)
    fetched = run_cli("fetch", "claims.json", "--mirror", "refs.mirror", "--indexes", "", "--cache", "cache")
    assert fetched.code == 0, fetched.stdout + fetched.stderr
    config = Config(cache=tmp_path / "cache", mirrors=(tmp_path / "refs.mirror",), indexes=())
    options = McpOptions(auditor=read_only_auditor(config))

    async def agent() -> list[dict[str, Any]]:
        rounds = []
        async with Client(build_server(options)) as client:
            for _ in range(3):
                result = await client.call_tool("audit_claims", claims)
                assert not result.is_error, result.content
                compact: dict[str, Any] = result.structured_content
                rounds.append(compact)
                fixes = [s for c in compact["claims"] for s in c["suggestions"] if "fix" in s]
                if not fixes:
                    break
                by_id = {c["id"]: c for claim in claims["claims"] for c in claim["citations"]}
                for suggestion in fixes:
                    by_id[suggestion["citation"]].update(suggestion["fix"])
        return rounds

    rounds = asyncio.run(agent())
    assert [s["fix"] for s in rounds[0]["claims"][0]["suggestions"]] == [{"doi": DOI}]
    assert len(rounds) == 2
    final = rounds[-1]
    assert final["counts"]["errors"] == 0
    assert final["counts"]["warnings"] == 0
    assert not [c for claim in final["claims"] for c in claim["codes"] if c.startswith(("E_", "W_"))], final
