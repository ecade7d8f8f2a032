"""``citeaudit fetch`` of citations whose identifier is not valid: each is named with its code and
why, and nothing is fetched or written (it exited 0 saying nothing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli


def test_invalid_identifiers_are_named_and_nothing_is_fetched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for var in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.setenv(var, "http://127.0.0.1:9")  # any request would fail: none is made
    claims = {
        "claims": [
            {"id": "c1", "text": "One thing is said here.",
             "citations": [{"url": "http://exa mple.org/page", "quote": "one thing that is said in the page"}]},
            {"id": "c2", "text": "Another thing is said here.", "citations": [{"doi": "10.abc/x", "year": 2020}]},
            {"id": "c3", "text": "The same page again.",
             "citations": [{"url": "http://exa mple.org/page", "quote": "one thing that is said in the page"}]},
        ]
    }  # fmt: skip
    (tmp_path / "claims.json").write_text(json.dumps(claims), "utf-8")
    result = run_cli("fetch", "claims.json")
    assert (result.code, result.stderr) == (0, "")
    assert result.stdout == (
        "invalid 10.abc/x E_DOI_SYNTAX: '10.abc/x' is not a DOI (expected 10.NNNN/suffix)\n"
        "invalid http://exa mple.org/page E_URL_SYNTAX: 'http://exa mple.org/page' is not a web page "
        "citeaudit can pin: the URL contains white space or control characters\n"
        "invalid=2 (not fetched)\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["claims.json"]
