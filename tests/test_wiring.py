"""The composition root: one configuration gives one report, whichever shell runs it."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import pickle
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

import citeaudit
from citeaudit.config import Config, load_config
from citeaudit.report.json import dump_report_dict, render_json
from citeaudit.wiring import build_auditor, read_only_auditor, service_auditor
from tests.conftest import GOLDEN, run_cli

CONFIG = """\
cache = "seed/cache"
sources = "seed/sources"
offline = true

[severity]
E_TITLE_MISMATCH = "warning"
E_YEAR_MISMATCH = "warning"

[policy]
unchecked = "manual_review"
"""


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Seed 000's cache and snapshots, its claims written as the MCP server serialises a dict (so
    that every shell digests the same bytes), and a citeaudit.toml with [severity] and [policy]."""
    shutil.copytree(GOLDEN / "seed000", tmp_path / "seed")
    data = json.loads((GOLDEN / "seed000" / "claims.json").read_text("utf-8"))
    (tmp_path / "claims.json").write_bytes(json.dumps(data, ensure_ascii=False, sort_keys=True).encode())
    (tmp_path / "citeaudit.toml").write_text(CONFIG, "utf-8")
    monkeypatch.chdir(tmp_path)
    for var in [v for v in os.environ if v.startswith("CITEAUDIT_")]:
        monkeypatch.delenv(var)
    return tmp_path


def _through_check(world: Path) -> bytes:
    result = run_cli("check", "claims.json", "--out", "report.json")
    assert result.code == 1, result.stderr
    return (world / "report.json").read_bytes()


def _through_api(world: Path) -> bytes:
    return render_json(citeaudit.audit(world / "claims.json", config=load_config(world)))


def _through_http(world: Path) -> bytes:
    from fastapi.testclient import TestClient

    from citeaudit.service.http import ApiKey, ServiceSettings, create_app, hash_key

    key = ApiKey(hash_key("k"), "acme", "auditor", "acme-auditor")
    settings = ServiceSettings(store=str(world / "s.db"), keys=[key], config=load_config(world))
    with TestClient(create_app(settings)) as client:
        answer = client.post(
            "/v1/audit", content=(world / "claims.json").read_bytes(), headers={"Authorization": "Bearer k"}
        )
    assert answer.status_code == 200, answer.text
    body = dump_report_dict(answer.json()["report"])
    assert hashlib.sha256(body).hexdigest() == answer.json()["digest"]  # the bytes the service stored
    return body


def _through_mcp(world: Path) -> bytes:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "citeaudit", "mcp", "--config", str(world / "citeaudit.toml")]
    )
    claims = json.loads((world / "claims.json").read_text("utf-8"))

    async def run() -> Any:
        async with Client(params, read_timeout_seconds=30) as client:
            return await client.call_tool("audit_claims", {**claims, "detail": "full"})

    result = asyncio.run(run())
    assert not result.is_error
    return dump_report_dict(result.structured_content)


def test_check_the_api_http_and_mcp_write_the_same_bytes_under_one_configuration(world: Path) -> None:
    reports = {
        "check": _through_check(world),
        "api": _through_api(world),
        "http": _through_http(world),
        "mcp": _through_mcp(world),
    }
    assert len(set(reports.values())) == 1, {k: hashlib.sha256(v).hexdigest() for k, v in reports.items()}
    report = json.loads(reports["check"])
    # The configuration is what made it: [severity] and [policy] from the file, in every shell.
    assert report["settings"]["severity"] == {"E_TITLE_MISMATCH": "warning", "E_YEAR_MISMATCH": "warning"}
    assert report["settings"]["policy"]["unchecked"] == "manual_review"
    years = [f for r in report["results"] for f in r["findings"] if f["code"] == "E_YEAR_MISMATCH"]
    assert years
    assert {f["severity"] for f in years} == {"warning"}
    assert reports["check"] != (GOLDEN / "seed000" / "expected.json").read_bytes()


def test_the_services_read_the_registries_offline_in_one_process(world: Path) -> None:
    online = Config(cache=world / "seed" / "cache", sources=world / "seed" / "sources", offline=False, jobs=4)
    for auditor in (service_auditor(online), read_only_auditor(online)):
        assert (auditor.settings.offline, auditor.settings.jobs, auditor.suggester) == (True, 1, None)
        assert auditor.resolver.upstream is None
    checking = build_auditor(online)
    assert (checking.settings.offline, checking.settings.jobs) == (False, 4)
    assert checking.resolver.upstream is not None
    assert checking.suggester is not None


def test_a_worker_builds_the_same_auditor_from_a_pickled_configuration(world: Path) -> None:
    config = load_config(world)
    copy = pickle.loads(pickle.dumps(config))
    assert copy == config
    submission = citeaudit.load_submission(world / "claims.json")
    assert render_json(build_auditor(copy).audit(submission)) == render_json(
        build_auditor(config).audit(submission)
    )
