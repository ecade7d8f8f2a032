"""The HTTP API run for real with uvicorn on 127.0.0.1: roles, tenant isolation
(1,000 attempts), body limits, problem documents, reviews, the checked-in
OpenAPI schema, and a property test that finds no 500."""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citeaudit.config import Config
from citeaudit.service.http import ApiKey, ServiceSettings, create_app, hash_key
from tests.conftest import GOLDEN, ROOT, run_cli
from tests.live_service import live_service
from tests.processes import stop

KEYS = {
    ("acme", "auditor"): "key-acme-auditor",
    ("acme", "ingester"): "key-acme-ingester",
    ("acme", "reviewer"): "key-acme-reviewer",
    ("acme", "admin"): "key-acme-admin",
    ("other", "auditor"): "key-other-auditor",
    ("other", "ingester"): "key-other-ingester",
    ("other", "reviewer"): "key-other-reviewer",
    ("ops", "operator"): "key-ops-operator",
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("service")
    shutil.copytree(GOLDEN / "seed000", root / "seed")
    keys = [ApiKey(hash_key(k), tenant, role, f"{tenant}-{role}") for (tenant, role), k in KEYS.items()]  # type: ignore[arg-type]
    config = Config(cache=root / "seed" / "cache", sources=root / "seed" / "sources")
    settings_ = ServiceSettings(store=str(root / "s.db"), keys=keys, config=config, max_body_bytes=200_000)
    with live_service(settings_) as url:
        yield url


def _client(url: str, tenant: str | None = None, role: str | None = None) -> httpx.Client:
    headers = {"Authorization": f"Bearer {KEYS[(tenant, role)]}"} if tenant and role else {}
    return httpx.Client(base_url=url, headers=headers, timeout=30)


def _claims() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((GOLDEN / "seed000" / "claims.json").read_text("utf-8"))
    return data


def _problem(response: httpx.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert set(body) == {"type", "title", "status", "detail"}
    assert body["status"] == status
    return body


def test_audit_and_fetch_the_report(service: str) -> None:
    with _client(service, "acme", "auditor") as c:
        posted = c.post("/v1/audit", json=_claims())
        assert posted.status_code == 200
        digest = posted.json()["digest"]
        assert [r["errors"] for r in posted.json()["report"]["results"]][3] == ["E_UNCITED"]
        fetched = c.get(f"/v1/reports/{digest}")
        assert fetched.json()["report"] == posted.json()["report"]
    assert httpx.get(f"{service}/healthz").json()["status"] == "ok"


def test_a_quote_less_claim_comes_back_judged_on_the_passages_of_the_works_text(service: str) -> None:
    """The service judges a claim whose citation gives no quote on its work's snapshot (the
    service's judge, ``rules``), and its report shows the passages it read, labelled as such."""
    claim = {"id": "k1", "text": "Привязка снизила число неподтверждённых утверждений с 18 до 7 на сотню ответов.",
             "citations": [{"doi": "10.0000/demo.1", "title": "Demo Paper on Retrieval Grounding",
                            "year": 2024, "first_author": "Ivanova"}]}  # fmt: skip
    with _client(service, "acme", "auditor") as c:
        posted = c.post("/v1/audit", json={"claims": [claim]})
    assert posted.status_code == 200, posted.text
    report = posted.json()["report"]
    verdict = report["claims"][0]["verdict"]
    assert verdict["basis"] == "retrieved"
    assert [t["name"] for t in verdict["texts"]] == ["snapshot of 10.0000/demo.1"]
    assert "с 18 до 7 на сотню ответов" in verdict["passages"][0]["text"]
    assert report["results"][0]["errors"] == []  # 18 and 7 are in the full text: no number error
    assert report["decision"] != "accept"


def test_an_audit_is_answered_as_json_response_wrote_the_stored_report(service: str) -> None:
    """The answer is written straight from the report's content now; its bytes are those of the
    stored report read back and encoded by JSONResponse, as before (non-ASCII text included)."""
    claims = _claims()
    claims["claims"][0]["text"] += ' — «café» \u2028 \U0001f600 "quoted" \\ back'
    with _client(service, "acme", "auditor") as c:
        posted = c.post("/v1/audit", json=claims)
        assert posted.status_code == 200
        assert posted.headers["content-type"] == "application/json"
        digest = posted.json()["digest"]
        stored = c.get(f"/v1/reports/{digest}").json()["report"]  # json.loads of the stored body
    assert "«café»" in json.dumps(stored, ensure_ascii=False)
    before = json.dumps(
        {"digest": digest, "report": stored}, ensure_ascii=False, allow_nan=False, indent=None,
        separators=(",", ":"),
    ).encode("utf-8")  # fmt: skip
    assert posted.content == before


def test_each_role_is_denied_what_it_may_not_do(service: str) -> None:
    with _client(service, "acme", "ingester") as c:
        assert (
            _problem(c.post("/v1/audit", json=_claims()), 403)["detail"] == "the role ingester may not audit"
        )
    with _client(service, "acme", "auditor") as c:
        _problem(c.post("/v1/sources", json={"source_id": "s", "title": "T", "locator": "l"}), 403)
        _problem(c.post("/v1/reviews", json={"report_digest": "0" * 64, "claim_id": "c1", "verdict": "supported",
                                             "note": "n"}), 403)  # fmt: skip
    with _client(service, "acme", "reviewer") as c:
        _problem(c.post("/v1/audit", json=_claims()), 403)
        _problem(c.get("/v1/sources/s"), 403)
    with _client(service) as c:
        assert _problem(c.get("/v1/reports/" + "0" * 64), 401)["detail"] == "send Authorization: Bearer <key>"
    with httpx.Client(base_url=service, headers={"Authorization": "Bearer nope"}) as c:
        assert _problem(c.get("/v1/reports/" + "0" * 64), 401)["detail"] == "unknown key"


def test_reviews_only_from_reviewers_and_only_on_own_reports(service: str) -> None:
    with _client(service, "acme", "auditor") as c:
        digest = c.post("/v1/audit", json=_claims()).json()["digest"]
    review = {"report_digest": digest, "claim_id": "c1", "verdict": "supported", "note": "read the source"}
    with _client(service, "acme", "reviewer") as c:
        assert c.post("/v1/reviews", json=review).status_code == 201
        assert _problem(c.post("/v1/reviews", json={**review, "claim_id": "c9"}), 404)["detail"] == (
            "review names claim 'c9', which is not in the report"
        )
        # The same rules as `citeaudit review`: a blank note is refused here, not stored to break audits.
        assert _problem(c.post("/v1/reviews", json={**review, "note": "   "}), 422)["detail"] == (
            "body: $.note: must not be blank"
        )
    with _client(service, "other", "reviewer") as c:
        _problem(c.post("/v1/reviews", json=review), 404)
    with _client(service, "acme", "auditor") as c:
        (stored,) = c.get(f"/v1/reports/{digest}").json()["reviews"]
        assert (stored["claim_id"], stored["verdict"], stored["reviewer"]) == (
            "c1",
            "supported",
            "acme-reviewer",
        )
        again = c.post("/v1/audit", json=_claims()).json()[
            "report"
        ]  # the same submission: the review applies
        assert [(r["claim"], r["verdict"]) for r in again["reviews"]] == [("c1", "supported")]
        assert next(cl for cl in again["claims"] if cl["id"] == "c1")["review_status"] == "supported"
    with _client(service, "other", "auditor") as c:
        assert (
            c.post("/v1/audit", json=_claims()).json()["report"]["reviews"] == []
        )  # another tenant's review


def test_tenants_never_see_or_change_each_other(service: str) -> None:
    with _client(service, "acme", "ingester") as c:
        assert (
            c.post("/v1/sources", json={"source_id": "policy", "title": "Policy", "locator": "x"}).status_code
            == 201
        )
        assert (
            c.post("/v1/sources/policy/revisions", json={"text": "Journals are kept 30 days."}).status_code
            == 201
        )
    with _client(service, "acme", "auditor") as c:
        digest = c.post("/v1/audit", json=_claims()).json()["digest"]
    succeeded = 0
    with _client(service, "other", "auditor") as auditor, _client(service, "other", "ingester") as ingester:
        for i in range(250):
            succeeded += auditor.get(f"/v1/reports/{digest}").status_code != 404
            succeeded += ingester.get("/v1/sources/policy").status_code != 404
            succeeded += (
                ingester.post("/v1/sources/policy/revisions", json={"text": f"overwrite {i}"}).status_code
                != 404
            )
            with _client(service, "other", "reviewer") as reviewer:
                succeeded += reviewer.post("/v1/reviews", json={"report_digest": digest, "claim_id": "c1",
                                           "verdict": "contradicted", "note": "x"}).status_code != 404  # fmt: skip
    assert succeeded == 0  # 1,000 attempts
    with _client(service, "acme", "ingester") as c:
        assert c.get("/v1/sources/policy").json()["current"]["revision"] == 1


def test_the_trail_cannot_be_altered_through_the_service(service: str) -> None:
    with _client(service, "acme", "admin") as c:
        for method in ("PUT", "PATCH", "DELETE"):
            assert c.request(method, "/v1/trail/1").status_code in (404, 405)
            assert c.request(method, "/v1/reports/" + "0" * 64).status_code == 405


def test_oversize_and_malformed_bodies(service: str) -> None:
    with _client(service, "acme", "auditor") as c:
        big = {"claims": [{"id": "c1", "text": "x" * 300_000}]}
        assert (
            _problem(c.post("/v1/audit", json=big), 413)["detail"]
            == "the body is over the limit of 200000 bytes"
        )
        bad = c.post("/v1/audit", content=b"{not json", headers={"content-type": "application/json"})
        assert _problem(bad, 422)["detail"].startswith("body: invalid JSON at line 1 column 2")
        smuggled = c.post("/v1/audit", json={"claims": [{"id": "c", "text": "t", "status": "ok"}]})
        assert (
            _problem(smuggled, 422)["detail"]
            == "body: $.claims[0].status: unknown field (not part of the contract)"
        )


def _chunked(payload: Any) -> Iterator[bytes]:
    """A body sent in pieces with no Content-Length, as a streaming client sends it."""
    data = json.dumps(payload).encode("utf-8")
    for at in range(0, len(data), 65_536):
        yield data[at : at + 65_536]


def test_chunked_bodies_are_held_to_the_limit_too(service: str) -> None:
    """With no Content-Length the body is counted as it arrives: a 1 MB revision went through the
    200 KB limit and was stored before."""
    with _client(service, "acme", "admin") as c:
        assert (
            c.post("/v1/sources", json={"source_id": "chunky", "title": "T", "locator": "l"}).status_code
            == 201
        )
        for path, payload in [("/v1/sources/chunky/revisions", {"text": "x" * 1_000_000}),
                              ("/v1/audit", {"claims": [{"id": "c1", "text": "x" * 1_000_000}]})]:  # fmt: skip
            response = c.post(path, content=_chunked(payload), headers={"content-type": "application/json"})
            assert "content-length" not in response.request.headers
            assert _problem(response, 413)["detail"] == "the body is over the limit of 200000 bytes"
        assert c.get("/v1/sources/chunky").json()["current"] is None  # nothing was stored
        small = c.post("/v1/sources/chunky/revisions", content=_chunked({"text": "fits"}),
                       headers={"content-type": "application/json"})  # fmt: skip
        assert small.status_code == 201


def test_openapi_schema_is_served_and_checked_in(service: str) -> None:
    with _client(service, "acme", "auditor") as c:
        served = c.get("/openapi.json").json()
    checked_in = json.loads((ROOT / "docs" / "openapi.json").read_text("utf-8"))
    assert served == checked_in, "regenerate with: citeaudit serve --openapi > docs/openapi.json"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    path=st.sampled_from(
        ["/v1/audit", "/v1/reviews", "/v1/sources", "/v1/sources/x/revisions", "/v1/reports/abc"]
    ),
    body=st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=20),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
        max_leaves=20,
    ),
)
def test_no_body_makes_a_500(service: str, path: str, body: Any) -> None:
    with _client(service, "acme", "admin") as c:
        response = c.get(path) if path.startswith("/v1/reports") else c.post(path, json=body)
    assert response.status_code < 500, response.text


def test_keys_command_prints_a_key_and_stores_its_hash(tmp_path: Path) -> None:
    keys = tmp_path / "keys.toml"
    result = run_cli("keys", "add", "--keys", keys, "--tenant", "acme", "--role", "reviewer", "--name", "bob")
    key = result.stdout.strip()
    assert key.startswith("ca_")
    text = keys.read_text("utf-8")
    assert key not in text
    assert hash_key(key) in text


def test_the_judge_is_the_operators_choice(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    shutil.copytree(GOLDEN / "seed000", tmp_path / "seed")
    key = ApiKey(hash_key("k"), "acme", "auditor", "acme-auditor")
    config = Config(cache=tmp_path / "seed" / "cache", sources=tmp_path / "seed" / "sources", judge="none")
    settings_ = ServiceSettings(store=str(tmp_path / "s.db"), keys=[key], config=config)
    with TestClient(create_app(settings_)) as c:
        report = c.post("/v1/audit", json=_claims(), headers={"Authorization": "Bearer k"}).json()["report"]
    assert report["settings"]["judge"] is None
    assert all(claim["verdict"] is None for claim in report["claims"])
    keys = tmp_path / "keys.toml"
    assert run_cli("keys", "add", "--keys", keys, "--tenant", "acme", "--role", "auditor").code == 0
    result = run_cli("serve", "--store", tmp_path / "s.db", "--keys", keys, "--judge", "oracle", "--openapi")
    assert (result.code, result.stderr) == (
        2,
        "citeaudit: error: unknown judge 'oracle'; expected 'rules', 'learned[:NAME|MODEL.json]', 'nli:MODEL', "
        "'llm:MODEL@URL' "
        "or 'rules+' and one of these ('none' skips the semantic stage)\n",
    )


def test_serve_listens_and_says_why_it_cannot(tmp_path: Path) -> None:
    keys = tmp_path / "keys.toml"
    assert run_cli("keys", "add", "--keys", keys, "--tenant", "acme", "--role", "auditor").code == 0
    port = _free_port()
    argv = [sys.executable, "-m", "citeaudit", "serve", "--store", str(tmp_path / "s.db"), "--keys", str(keys),
            "--port", str(port)]  # fmt: skip
    server = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline
                assert server.poll() is None
                time.sleep(0.1)
        assert health.json()["status"] == "ok"
        busy = run_cli("serve", "--store", tmp_path / "s.db", "--keys", keys, "--port", str(port))
        assert (busy.code, busy.stderr) == (
            2,
            f"citeaudit: error: cannot listen on 127.0.0.1:{port}: Address already in use\n",
        )
    finally:
        stop(server)


@pytest.mark.parametrize(
    ("content", "args", "message"),
    [
        ('[[keys]]\nsha256 = "x"\n', [], "keys.toml: unknown entry 'keys'; the file holds [[key]] tables"),
        ("# no keys yet\n", [], "keys.toml: no [[key]] table, so no caller could use it (citeaudit keys add)"),
        (None, ["--port", "99999"],
         "usage: argument --port: expected a port from 1 to 65535, got '99999' (see 'citeaudit serve --help')"),
    ],
)  # fmt: skip
def test_serve_refuses_a_key_file_nobody_could_use_and_a_bad_port(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: str | None, args: list[str], message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    if content is None:
        assert (
            run_cli("keys", "add", "--keys", "keys.toml", "--tenant", "acme", "--role", "auditor").code == 0
        )
    else:
        Path("keys.toml").write_text(content, "utf-8")
    result = run_cli("serve", "--store", "s.db", "--keys", "keys.toml", *args)
    assert (result.code, result.stderr) == (2, f"citeaudit: error: {message}\n")
    if content == "# no keys yet\n":  # but a first key can be added to it
        assert (
            run_cli("keys", "add", "--keys", "keys.toml", "--tenant", "acme", "--role", "auditor").code == 0
        )


def test_a_source_never_given_a_revision_has_its_own_code(service: str) -> None:
    """It was E_SOURCE_REVOKED ("was removed") before: nothing was ever removed."""
    with _client(service, "acme", "admin") as c:
        assert (
            c.post("/v1/sources", json={"source_id": "fresh", "title": "T", "locator": "l"}).status_code
            == 201
        )
        claim = {"id": "c1", "text": "Journals are kept.", "citations": [
            {"source_id": "fresh", "revision": 1, "digest": "0" * 64, "start": 0, "end": 8, "quote": "Journals"}]}  # fmt: skip
        report = c.post("/v1/audit", json={"claims": [claim]}).json()["report"]
    (row,) = report["results"]
    assert row["errors"] == ["E_SOURCE_EMPTY"]
    (finding,) = row["findings"]
    assert (
        finding["message"] == "source 'fresh' is registered but has no revision yet; nothing to check against"
    )


def test_a_key_may_act_for_a_user_scope(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sources added from the CLI under acme/alice could not be cited through the service: every
    key acted in acme/service."""
    from fastapi.testclient import TestClient

    from citeaudit.service.http import load_keys

    monkeypatch.chdir(tmp_path)
    Path("plan.md").write_text("Journals are kept 30 days.", "utf-8")
    added = run_cli("sources", "add", "plan.md", "--id", "plan", "--store", "s.db", "--scope", "acme/alice")
    ref = json.loads(added.stdout)
    alice = run_cli(
        "keys", "add", "--keys", "keys.toml", "--tenant", "acme", "--role", "admin", "--user", "alice"
    )
    shared = run_cli("keys", "add", "--keys", "keys.toml", "--tenant", "acme", "--role", "admin")
    keys = load_keys(Path("keys.toml"))
    assert [(k.tenant, k.user, k.scope) for k in keys] == [("acme", "alice", "acme/alice"),
                                                          ("acme", "service", "acme/service")]  # fmt: skip
    assert 'user = "alice"' in Path("keys.toml").read_text("utf-8")
    claim = {"id": "c1", "text": "Journals are kept 30 days.", "citations": [
        {"source_id": "plan", "revision": ref["revision"], "digest": ref["digest"], "start": 0, "end": 26,
         "quote": "Journals are kept 30 days."}]}  # fmt: skip
    settings_ = ServiceSettings(store="s.db", keys=keys, config=Config(judge="none"))
    with TestClient(create_app(settings_)) as c:
        as_alice = {"Authorization": f"Bearer {alice.stdout.strip()}"}
        as_tenant = {"Authorization": f"Bearer {shared.stdout.strip()}"}
        assert c.post("/v1/audit", json={"claims": [claim]}, headers=as_alice).json()["report"]["results"][0][
            "errors"] == []  # fmt: skip
        assert c.post("/v1/audit", json={"claims": [claim]}, headers=as_tenant).json()["report"]["results"][0][
            "errors"] == ["E_DOCUMENT_MISSING"]  # fmt: skip
        source = {"source_id": "web", "title": "Web", "locator": "https://example.org/"}
        assert c.post("/v1/sources", json=source, headers=as_alice).status_code == 201
        assert c.get("/v1/sources/web", headers=as_alice).status_code == 200
        assert c.get("/v1/sources/web", headers=as_tenant).status_code == 404
    listed = run_cli("sources", "list", "--store", "s.db", "--scope", "acme/alice")
    assert [s["source_id"] for s in json.loads(listed.stdout)] == ["plan", "web"]
    Path("bad.toml").write_text(
        f'[[key]]\nsha256 = "{"0" * 64}"\ntenant = "acme"\nrole = "admin"\nuser = "a b"\n'
    )
    bad = run_cli("serve", "--store", "s.db", "--keys", "bad.toml", "--openapi")
    assert (bad.code, bad.stderr) == (
        2, "citeaudit: error: bad.toml: key 1: scope 'acme/a b' is not TENANT/USER (letters, digits, _ . -)\n")  # fmt: skip


def test_the_schema_needs_a_key_and_no_page_loads_from_a_cdn(service: str) -> None:
    """/openapi.json was served to anyone, and /docs and /redoc loaded their scripts from a CDN."""
    assert _problem(httpx.get(f"{service}/openapi.json"), 401)["detail"] == "send Authorization: Bearer <key>"
    with _client(service, "other", "reviewer") as c:
        assert c.get("/openapi.json").json()["info"]["title"] == "citeaudit"
        for page in ("/docs", "/redoc", "/docs/oauth2-redirect"):
            assert _problem(c.get(page), 404)["detail"] == "Not Found"


def _metrics(url: str, tenant: str, role: str) -> list[str]:
    with _client(url, tenant, role) as c:
        response = c.get("/metrics")
    assert response.status_code == 200
    return [line for line in response.text.splitlines() if not line.startswith("#")]


def test_metrics_show_a_key_its_own_tenants_counts(service: str) -> None:
    """Every key read every tenant's counts before."""
    with _client(service, "other", "auditor") as c:
        assert c.post("/v1/audit", json=_claims()).status_code == 200
    httpx.get(f"{service}/v1/reports/{'0' * 64}")  # no key: counted for no tenant
    with _client(service, "acme", "auditor") as c:
        assert c.post("/v1/audit", json=_claims()).status_code == 200
    acme = _metrics(service, "acme", "reviewer")
    assert acme
    assert all('tenant="acme"' in line for line in acme), acme
    assert any(line.startswith('citeaudit_http_responses{status="200",tenant="acme"} ') for line in acme)
    assert any(line.startswith('citeaudit_audits{tenant="acme"} ') for line in acme)
    other = _metrics(service, "other", "ingester")
    assert all('tenant="other"' in line for line in other)
    audits = [line for line in other if line.startswith("citeaudit_audits")]
    assert len(audits) == 1
    assert int(audits[0].split()[-1]) >= 1
    every = _metrics(service, "ops", "operator")
    assert {'tenant="acme"', 'tenant="other"'} <= set(re.findall(r'tenant="[a-z]+"', "\n".join(every)))
    assert any(line.startswith('citeaudit_http_responses{status="401"} ') for line in every)  # no key
    with _client(service, "ops", "operator") as c:  # an operator reads counts and nothing else
        assert (
            _problem(c.post("/v1/audit", json=_claims()), 403)["detail"] == "the role operator may not audit"
        )


def test_the_bearer_scheme_is_matched_in_any_case(service: str) -> None:
    for scheme in ("Bearer", "bearer", "BEARER", "bEaReR"):
        headers = {"Authorization": f"{scheme} {KEYS['acme', 'auditor']}"}
        assert httpx.get(f"{service}/metrics", headers=headers).status_code == 200, scheme
    for header in ("Basic a2V5", "Bearer", "Bearerkey-acme-auditor", f"Token {KEYS['acme', 'auditor']}"):
        response = httpx.get(f"{service}/metrics", headers={"Authorization": header})
        assert _problem(response, 401)["detail"] == "send Authorization: Bearer <key>", header


def test_the_schema_describes_what_the_service_does(service: str) -> None:
    with _client(service, "acme", "auditor") as c:
        doc = c.get("/openapi.json").json()
    assert doc["components"]["securitySchemes"] == {
        "bearer": {"type": "http", "scheme": "bearer", "description": "An API key from `citeaudit keys add`."}
    }
    problems = doc["components"]["responses"]
    for status in ("401", "403", "404", "405", "409", "413", "422"):
        assert problems[status]["content"] == {
            "application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}  # fmt: skip
    assert problems["405"]["headers"]["Allow"]["required"] is True
    audit = doc["paths"]["/v1/audit"]["post"]
    assert sorted(audit["responses"]) == ["200", "401", "403", "405", "413", "415", "422"]
    body = audit["requestBody"]["content"]
    assert body["application/json"]["schema"] == {
        "anyOf": [{"$ref": "#/components/schemas/ClaimsDocument"}, {"$ref": "#/components/schemas/Seed002Report"}]}  # fmt: skip
    assert body["text/x-bibtex"]["schema"]["format"] == "bibtex"
    schemas = doc["components"]["schemas"]
    assert schemas["SourceIn"]["properties"]["source_id"]["pattern"] == "^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$"
    assert sorted(doc["paths"]["/v1/sources/{source_id}/revisions"]["post"]["responses"]) == [
        "201", "401", "403", "404", "405", "409", "413", "415", "422"]  # fmt: skip
    assert all(op.get("security") == [{"bearer": []}] for path, ops in doc["paths"].items()
               for op in ops.values() if path != "/healthz")  # fmt: skip
    assert "HTTPValidationError" not in schemas


def test_bibtex_is_audited_as_text_x_bibtex(service: str) -> None:
    """The README promised BibTeX; the body was read as JSON whatever its type."""
    bib = "@article{grounding,\n  title = {Grounding},\n  doi = {10.5555/no-such-work},\n  year = {2024}\n}\n"
    with _client(service, "acme", "auditor") as c:
        for media in ("text/x-bibtex", "application/x-bibtex", "application/x-www-form-urlencoded"):
            posted = c.post("/v1/audit", content=bib.encode("utf-8"), headers={"content-type": media})
            assert posted.status_code == 200, (media, posted.text)
            report = posted.json()["report"]
            assert (report["input_format"], [r["errors"] for r in report["results"]]) == (
                "bibtex", [["E_NOT_CACHED"]]), media  # fmt: skip
        as_json = c.post(
            "/v1/audit", content=bib.encode("utf-8"), headers={"content-type": "application/json"}
        )
        assert _problem(as_json, 422)["detail"].startswith("body: invalid JSON at line 1 column 1")
        empty = c.post("/v1/audit", content=b"% nothing\n", headers={"content-type": "text/x-bibtex"})
        assert _problem(empty, 422)["detail"] == "body: no BibTeX entries found"


def test_405_names_the_methods_and_bad_bodies_are_422(service: str) -> None:
    with _client(service, "acme", "admin") as c:
        wrong = c.put("/v1/audit", json=_claims())
        assert _problem(wrong, 405)["detail"] == "Method Not Allowed"
        assert wrong.headers["allow"] == "POST"
        assert c.delete("/v1/sources/x").headers["allow"] == "GET"
        undecodable = c.post(
            "/v1/reviews", content=b"\xff\xfe{", headers={"content-type": "application/json"}
        )
        assert _problem(undecodable, 422)["detail"] == "body: not valid UTF-8: byte 0xff at offset 0"
        spaced = c.post("/v1/sources", json={"source_id": "a b", "title": "T", "locator": "l"})
        assert _problem(spaced, 422)["detail"] == (
            "body: $.source_id: does not have the expected form (^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$), got 'a b'")  # fmt: skip
        blank = c.post("/v1/sources", json={"source_id": "s", "title": " ", "locator": "l"})
        assert _problem(blank, 422)["detail"] == "body: $.title: must not be blank"
        assert _problem(c.get("/v1/reports/abc"), 422)["detail"] == (
            "path.digest: String should match pattern '^[0-9a-f]{64}$'")  # fmt: skip
        whole = {"claims": [{"id": "c1", "text": "t", "citations": [{"doi": "10.1/x", "year": 2024.0}]}]}
        assert c.post("/v1/audit", json=whole).status_code == 200  # JSON Schema's integer: 2024.0 is one


def test_a_markdown_report_is_audited_as_text_markdown(service: str) -> None:
    report = (
        "# R\n\nA claim [1]. Another [2].\n\n## References\n\n"
        "1. Ivanova (2024). Demo Paper on Retrieval Grounding. https://doi.org/10.0000/demo.1\n"
    )
    with _client(service, "acme", "auditor") as c:
        for media in ("text/markdown", "text/x-markdown", "text/plain"):
            posted = c.post("/v1/audit", content=report.encode("utf-8"), headers={"content-type": media})
            assert posted.status_code == 200, (media, posted.text)
            body = posted.json()["report"]
            assert body["input_format"] == "markdown-report", media
            assert [r["errors"] for r in body["results"]] == [[], ["E_MARKER_UNDEFINED"]], media
        empty = c.post("/v1/audit", content=b"# R\n", headers={"content-type": "text/markdown"})
        assert (
            _problem(empty, 422)["detail"] == "body: no citation markers and no references: nothing to audit"
        )


def test_a_body_curl_stripped_of_its_newlines_is_named_and_broken_bibtex_gets_its_line(service: str) -> None:
    """A Markdown report sent with `curl --data` (newlines removed) was answered "invalid JSON"."""
    stripped = (
        b"# R A claim [1]. Another [2]. ## References 1. Ivanova (2024). Demo Paper on Retrieval "
        b"Grounding. https://doi.org/10.0000/demo.1"
    )
    named = (
        "body: not JSON (it does not open with { or [), BibTeX (@ or %) or a Markdown report (a References "
        "heading on a line of its own); it has no line breaks: `curl --data` removes them, send the file "
        "with --data-binary @FILE and its Content-Type (application/json, text/x-bibtex or text/markdown)"
    )
    with _client(service, "acme", "auditor") as c:
        for headers in (
            {"content-type": "application/x-www-form-urlencoded"},
            {"content-type": "text/plain"},
            {},
        ):
            posted = c.post("/v1/audit", content=stripped, headers=headers)
            assert _problem(posted, 422)["detail"] == named, headers
        lines = c.post("/v1/audit", content=b"Some notes\nwith no references\n")
        assert _problem(lines, 422)["detail"] == named.split("; it has")[0] + (
            " and its Content-Type (application/json, text/x-bibtex or text/markdown)")  # fmt: skip
        as_json = c.post("/v1/audit", content=stripped, headers={"content-type": "application/json"})
        assert _problem(as_json, 422)["detail"].startswith("body: invalid JSON at line 1 column 1")
        unclosed = b"@article{grounding,\n  title = {Grounding,\n  doi = {10.5555/x},\n  year = {2024}\n"
        for media in ("text/x-bibtex", "application/x-www-form-urlencoded"):
            broken = c.post("/v1/audit", content=unclosed, headers={"content-type": media})
            assert _problem(broken, 422)["detail"] == (
                "body: line 1: Unexpectedly reached end of file (the block starting "
                "'@article{grounding,\\n  title = {Grounding')"), media  # fmt: skip


def test_json_bodies_are_read_as_v1_audit_reads_its_body(service: str) -> None:
    """/v1/sources answered in pydantic's words ("body.14: JSON decode error", "Input should be a
    valid dictionary…"), refused curl's default form-urlencoded body, and answered a body of an
    unsupported media type with 422; /v1/audit read application/xml as JSON."""
    with _client(service, "acme", "admin") as c:
        broken = c.post(
            "/v1/sources", content=b'{"source_id": ', headers={"content-type": "application/json"}
        )
        assert _problem(broken, 422)["detail"] == "body: invalid JSON at line 1 column 15: Expecting value"
        listed = c.post("/v1/sources", json=["s"])
        assert _problem(listed, 422)["detail"] == "body: $: expected an object, got array"
        missing = c.post("/v1/sources", json={"source_id": "s", "title": "T"})
        assert _problem(missing, 422)["detail"] == "body: $.locator: required field is missing"
        extra = c.post("/v1/reviews", json={"report_digest": "0" * 64, "claim_id": "c1", "verdict": "ok",
                                            "note": "n"})  # fmt: skip
        assert _problem(extra, 422)["detail"] == (
            "body: $.verdict: expected 'supported', 'insufficient' or 'contradicted', got 'ok'")  # fmt: skip
        source = json.dumps({"source_id": "curl", "title": "T", "locator": "l"}).encode("utf-8")
        for media in ("application/x-www-form-urlencoded", "text/plain", None):
            headers = {"content-type": media} if media else {}
            posted = c.post("/v1/sources", content=source, headers=headers)
            assert posted.status_code == 201, (media, posted.text)
        revision = c.post("/v1/sources/curl/revisions", content=b'{"text": "Kept 30 days."}',
                          headers={"content-type": "application/x-www-form-urlencoded"})  # fmt: skip
        assert revision.status_code == 201, revision.text
        xml = {"content-type": "application/xml"}
        for path, body in [("/v1/audit", json.dumps(_claims()).encode("utf-8")), ("/v1/sources", source),
                           ("/v1/sources/curl/revisions", b'{"text": "t"}'), ("/v1/reviews", b"{}")]:  # fmt: skip
            refused = c.post(path, content=body, headers=xml)
            assert _problem(refused, 415)["title"] == "Unsupported Media Type", path
        assert _problem(c.post("/v1/sources", content=source, headers=xml), 415)["detail"] == (
            "body: 'application/xml' is not a media type this route reads (application/json, "
            "application/x-www-form-urlencoded, text/plain, or no Content-Type)"
        )
        assert "415" in c.get("/openapi.json").json()["paths"]["/v1/sources"]["post"]["responses"]
