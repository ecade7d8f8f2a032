"""The answer's ``question`` in the input schemas of the MCP tools and of the HTTP API, and a short claim
read with it by the HTTP service."""

from __future__ import annotations

import shutil
from pathlib import Path

import httpx

from citeaudit.config import Config
from citeaudit.semantic.stage import READ_WITH_QUESTION
from citeaudit.service.http import ApiKey, ServiceSettings, hash_key
from citeaudit.service.http.openapi import audit_schemas
from citeaudit.service.mcp import submission_schema
from tests.conftest import GOLDEN
from tests.live_service import live_service

KEY = "key-acme-auditor"


def test_the_mcp_input_schema_describes_the_question() -> None:
    schema = submission_schema(10, {})["properties"]["question"]
    assert schema == {
        "type": "string",
        "maxLength": 2000,
        "description": "The question the answer answers, if any: a claim of one to three words is judged "
        "as its answer.",
    }


def test_the_http_claims_document_takes_the_question() -> None:
    schema = audit_schemas()["ClaimsDocument"]
    assert schema["properties"]["question"]["anyOf"] == [
        {"maxLength": 2000, "type": "string"},
        {"type": "null"},
    ]
    assert "question" not in schema.get("required", [])


def _settings(root: Path) -> ServiceSettings:
    shutil.copytree(GOLDEN / "seed000", root / "seed")
    keys = [ApiKey(hash_key(KEY), "acme", "auditor", "acme-auditor")]
    config = Config(cache=root / "seed" / "cache", sources=root / "seed" / "sources", judge="rules")
    return ServiceSettings(store=str(root / "s.db"), keys=keys, config=config)


def test_the_http_api_reads_a_short_claim_with_the_question(tmp_path: Path) -> None:
    quote = "снизила число неподтверждённых утверждений с 18 до 7 на сотню ответов"
    claim = {"id": "k1", "text": "18 до 7",
             "citations": [{"doi": "10.0000/demo.1", "title": "Demo Paper on Retrieval Grounding",
                            "year": 2024, "first_author": "Ivanova", "quote": quote}]}  # fmt: skip
    question = "На сколько снизилось число неподтверждённых утверждений на сотню ответов?"
    with (
        live_service(_settings(tmp_path)) as url,
        httpx.Client(base_url=url, headers={"Authorization": f"Bearer {KEY}"}, timeout=30) as c,
    ):
        asked = c.post("/v1/audit", json={"question": question, "claims": [claim]})
        bare = c.post("/v1/audit", json={"claims": [claim]})
    assert asked.status_code == bare.status_code == 200, (asked.text, bare.text)
    asked_verdict = asked.json()["report"]["claims"][0]["verdict"]
    bare_verdict = bare.json()["report"]["claims"][0]["verdict"]
    assert asked_verdict["signals"][0] == READ_WITH_QUESTION == "S_READ_WITH_QUESTION"  # the rules judge too
    assert READ_WITH_QUESTION not in bare_verdict["signals"]
    assert asked.json()["digest"] != bare.json()["digest"]
