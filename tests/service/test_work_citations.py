"""References without an identifier through the services: the MCP server (the SDK's real client,
over stdio) and the HTTP API (uvicorn on 127.0.0.1) search the operator's mirror, read the pinned
search answers, and never go online on a request's behalf."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client, StdioServerParameters

from citeaudit.config import Config
from citeaudit.service.http import ApiKey, ServiceSettings, hash_key
from tests.dblp_dump import sample_mirror
from tests.live_service import live_service

CLAIMS: dict[str, Any] = {
    "claims": [
        {"id": "c1", "text": "LSTMs gate their memory.",
         "citations": [{"title": "Long Short-Term Memory", "year": 1997, "first_author": "Hochreiter"}]},
        {"id": "c2", "text": "A made-up result.",
         "citations": [{"title": "A work nobody wrote", "year": 2020, "first_author": "Nobody"}]},
        {"id": "c3", "text": "Transformers.",
         "citations": [{"title": "Attention is all you need", "year": 2017, "first_author": "Smith"}]},
    ]
}  # fmt: skip


@pytest.fixture(scope="module")
def mirror(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return sample_mirror(tmp_path_factory.mktemp("mirror"))


def test_mcp_audit_claims_searches_the_operator_s_mirror(mirror: Path, tmp_path: Path) -> None:
    command = [sys.executable, "-m", "citeaudit", "mcp", "--cache", str(tmp_path / "cache"), "--sources",
               str(tmp_path / "sources"), "--mirror", str(mirror), "--indexes", ""]  # fmt: skip
    params = StdioServerParameters(command=command[0], args=command[1:])

    async def run() -> Any:
        async with Client(params, read_timeout_seconds=60) as client:
            listed = await client.list_tools()
            audited = await client.call_tool("audit_claims", CLAIMS)
            return listed, audited

    listed, audited = asyncio.run(run())
    schema = next(t for t in listed.tools if t.name == "audit_claims").input_schema
    assert "WorkCitation" in str(schema) or "bibliographic search" in str(schema)
    assert not audited.is_error
    claims = {c["id"]: c for c in audited.structured_content["claims"]}
    assert claims["c1"]["codes"] == ["I_MATCHED_BY_SEARCH", "I_QUOTE_ABSENT"]
    assert claims["c1"]["status"] == "requires_entailment_check"
    assert claims["c2"]["codes"] == ["E_WORK_NOT_FOUND"]
    # The title and the year: the work, cited with a first author who is not one of its authors.
    assert claims["c3"]["codes"][:2] == ["I_MATCHED_BY_SEARCH", "E_AUTHOR_MISMATCH"]


def test_http_audit_of_references_without_an_identifier(mirror: Path, tmp_path: Path) -> None:
    key = "key-acme-auditor"
    config = Config(cache=tmp_path / "cache", sources=tmp_path / "sources", mirrors=(mirror,), indexes=())
    settings = ServiceSettings(
        store=str(tmp_path / "s.db"), keys=[ApiKey(hash_key(key), "acme", "auditor", "acme")], config=config
    )
    with (
        live_service(settings) as url,
        httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=30) as c,
    ):
        posted = c.post("/v1/audit", json=CLAIMS)
        assert posted.status_code == 200, posted.text
        report = posted.json()["report"]
        blank = c.post(
            "/v1/audit", json={"claims": [{"id": "c", "text": "t", "citations": [{"title": " "}]}]}
        )
    rows = {r["claim"]: r for r in report["results"]}
    assert rows["c1"]["findings"][0]["code"] == "I_MATCHED_BY_SEARCH"
    assert rows["c1"]["findings"][0]["suggestion"] == {"doi": "10.1162/neco.1997.9.8.1735"}
    assert rows["c2"]["errors"] == ["E_WORK_NOT_FOUND"]
    assert blank.status_code == 422
    assert "needs a title to be looked up" in blank.json()["detail"]
