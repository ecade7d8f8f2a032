"""``citeaudit serve``: the HTTP API (FastAPI).

* API keys map to a tenant and a role (auditor, ingester, reviewer, admin);
  they are kept as SHA-256 hashes, never in clear.
* Every query is scoped by the key's tenant: sources, reports and reviews of
  one tenant are invisible to every other (a foreign id is a plain 404).
* Request bodies are size-limited; every error is one JSON problem document
  (RFC 9457, ``application/problem+json``).
* The service audits offline against the configured cache and snapshots: it
  never goes online on a request's behalf.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, Header, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException

from citeaudit import __version__
from citeaudit.config import Config
from citeaudit.errors import CiteauditError, ConfigError
from citeaudit.formats import parse_bytes
from citeaudit.model import Review
from citeaudit.policy import ReviewError, check_review
from citeaudit.report.json import dump_report_dict, report_to_dict
from citeaudit.sources.reviews import ReviewBook
from citeaudit.sources.schema import schema_lock
from citeaudit.sources.store import EvidenceStore, Scope, ScopedLookup, StoreError, open_store
from citeaudit.sources.trail import Trail
from citeaudit.wiring import service_auditor

__all__ = ["ROLES", "ApiKey", "ServiceSettings", "create_app", "hash_key", "load_keys"]

Role = Literal["auditor", "ingester", "reviewer", "admin"]
ROLES: tuple[Role, ...] = ("auditor", "ingester", "reviewer", "admin")
# What each role may do; admin may do everything.
PERMISSIONS: dict[str, set[str]] = {
    "auditor": {"audit", "read_reports"},
    "ingester": {"ingest", "read_sources"},
    "reviewer": {"review", "read_reports"},
    "admin": {"audit", "read_reports", "ingest", "read_sources", "review"},
}
SHARED_USER = "service"  # one scope per tenant: what an ingester adds, an auditor of the tenant cites


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ApiKey:
    sha256: str
    tenant: str
    role: Role
    name: str = ""


def load_keys(path: Path, *, require_one: bool = True) -> list[ApiKey]:
    """``[[key]]`` tables of ``sha256``, ``tenant``, ``role`` (and ``name``) in a TOML file.

    Anything else in the file is an error, and so (unless ``require_one`` is false) is a file
    with no key: a ``[[keys]]`` typo used to start a service that refused every caller."""
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read the key file: {e}") from None
    unknown = sorted(set(data) - {"key"})
    if unknown:
        raise ConfigError(f"{path}: unknown entry {unknown[0]!r}; the file holds [[key]] tables")
    if require_one and not data.get("key"):
        raise ConfigError(f"{path}: no [[key]] table, so no caller could use it (citeaudit keys add)")
    keys = []
    for i, entry in enumerate(data.get("key", [])):
        where = f"{path}: key {i + 1}"
        if not isinstance(entry, dict) or set(entry) - {"sha256", "tenant", "role", "name"}:
            raise ConfigError(f"{where}: expected sha256, tenant, role and an optional name")
        digest, tenant, role = entry.get("sha256"), entry.get("tenant"), entry.get("role")
        if (
            not isinstance(digest, str)
            or len(digest) != 64
            or not all(c in "0123456789abcdef" for c in digest)
        ):
            raise ConfigError(f"{where}: sha256 must be 64 lowercase hex digits")
        if role not in ROLES:
            raise ConfigError(f"{where}: role must be one of {', '.join(ROLES)}")
        Scope.parse(f"{tenant}/{SHARED_USER}")  # the tenant must be a valid scope part
        keys.append(ApiKey(digest, str(tenant), role, str(entry.get("name", ""))))
    return keys


@dataclass
class ServiceSettings:
    store: str
    keys: list[ApiKey]
    # What the audits are built from (citeaudit.wiring.service_auditor): the cache, the snapshots,
    # the [severity] and [policy] tables, the judge (judge = "none": no semantic stage).
    config: Config = field(default_factory=Config)
    max_body_bytes: int = 2_000_000
    counters: Counter[str] = field(default_factory=Counter)


class Problem(HTTPException):
    """An answer in the problem+json format. An HTTPException, so that FastAPI passes it on
    unchanged when it is raised while a body is being read (see :class:`_BodyLimit`)."""

    def __init__(self, status: int, title: str, detail: str) -> None:
        super().__init__(status, detail)
        self.status, self.title = status, title


def _too_large(limit: int) -> Problem:
    return Problem(413, "Payload Too Large", f"the body is over the limit of {limit} bytes")


class _BodyLimit:
    """ASGI middleware counting a body as it arrives, so that a chunked body (no
    Content-Length) is held to the limit too and refused before it is all in memory (a 5 MB
    chunked revision was stored through a 100 KB limit before). It sits inside the
    counting middleware, so the refusal is raised in the endpoint that reads the body and
    answered like any other problem. (FastAPI's own ``max_body_size`` answers in plain text.)"""

    def __init__(self, app: Any, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        received = 0

        async def counted() -> Any:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    raise _too_large(self.limit)
            return message

        await self.app(scope, counted, send)


def _problem(status: int, title: str, detail: str) -> JSONResponse:
    body = {"type": "about:blank", "title": title, "status": status, "detail": detail}
    return JSONResponse(body, status_code=status, media_type="application/problem+json")


class SourceIn(BaseModel):
    model_config = {"extra": "forbid"}
    source_id: Annotated[str, Field(min_length=1, max_length=200)]
    title: Annotated[str, Field(min_length=1, max_length=1000)]
    locator: Annotated[str, Field(min_length=1, max_length=1000)]
    kind: Annotated[str, Field(min_length=1, max_length=32)] = "document"


class RevisionIn(BaseModel):
    model_config = {"extra": "forbid"}
    text: Annotated[str, Field(min_length=1)]


class ReviewIn(BaseModel):
    model_config = {"extra": "forbid"}
    report_digest: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
    claim_id: Annotated[str, Field(min_length=1, max_length=200)]
    verdict: Literal["supported", "insufficient", "contradicted"]
    note: Annotated[str, Field(min_length=1, max_length=1000)]


def _caller(request: Request, authorization: Annotated[str | None, Header()] = None) -> ApiKey:
    """The key of the request, from ``Authorization: Bearer <key>``."""
    if not authorization or not authorization.startswith("Bearer "):
        raise Problem(401, "Unauthorized", "send Authorization: Bearer <key>")
    digest = hash_key(authorization[len("Bearer ") :].strip())
    key: ApiKey | None = request.app.state.keys.get(digest)
    if key is None or not hmac.compare_digest(key.sha256, digest):
        raise Problem(401, "Unauthorized", "unknown key")
    return key


Caller = Annotated[ApiKey, Depends(_caller)]


class _Records:
    """Reports per tenant, in the evidence store's database (reviews are in :class:`ReviewBook`)."""

    def __init__(self, store: EvidenceStore) -> None:
        from sqlalchemy import Column, MetaData, String, Table, Text

        self.store = store
        meta = MetaData()
        self.reports = Table(
            "citeaudit_reports", meta,
            Column("tenant", String(64), primary_key=True), Column("digest", String(64), primary_key=True),
            Column("body", Text, nullable=False),
        )  # fmt: skip
        with schema_lock(store.engine) as conn:
            meta.create_all(conn)
        self.lock = threading.Lock()  # SQLite: one writer at a time within this process

    def save_report(self, tenant: str, digest: str, body: str) -> None:
        from sqlalchemy import select

        with self.lock, self.store.engine.begin() as conn:
            exists = conn.execute(
                select(self.reports.c.digest).where(
                    self.reports.c.tenant == tenant, self.reports.c.digest == digest
                )
            ).first()
            if exists is None:
                conn.execute(self.reports.insert().values(tenant=tenant, digest=digest, body=body))

    def report(self, tenant: str, digest: str) -> str | None:
        from sqlalchemy import select

        with self.store.engine.connect() as conn:
            row = conn.execute(
                select(self.reports.c.body).where(
                    self.reports.c.tenant == tenant, self.reports.c.digest == digest
                )
            ).first()
        return None if row is None else str(row.body)


def create_app(settings: ServiceSettings) -> FastAPI:
    auditor = service_auditor(settings.config)
    store = open_store(settings.store)
    records = _Records(store)
    book = ReviewBook(store)

    def reviews_json(tenant: str, report_body: str) -> list[dict[str, str]]:
        submission_sha256 = json.loads(report_body)["submission_sha256"]
        return [
            {"claim_id": r.claim_id, "verdict": r.verdict, "note": r.note, "reviewer": r.reviewer}
            for r in book.latest_for(tenant, submission_sha256)
        ]

    trail = Trail(store)
    by_hash = {k.sha256: k for k in settings.keys}
    app = FastAPI(
        title="citeaudit",
        version=__version__,
        description="Deterministic audits of the citations in what agents write. Every request but "
        "/healthz needs an `Authorization: Bearer <key>` header; keys map to a tenant and a role.",
    )
    counters = settings.counters
    app.state.keys = by_hash
    app.add_middleware(_BodyLimit, limit=settings.max_body_bytes)  # added first: inside the next one

    @app.middleware("http")
    async def limit_and_count(request: Request, call_next: Any) -> Response:
        declared = request.headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > settings.max_body_bytes):
            counters["413"] += 1
            too_large = _too_large(settings.max_body_bytes)
            return _problem(too_large.status, too_large.title, too_large.detail)
        response: Response = await call_next(request)
        counters[str(response.status_code)] += 1
        return response

    @app.exception_handler(Problem)
    async def on_problem(_: Request, exc: Problem) -> JSONResponse:
        return _problem(exc.status, exc.title, exc.detail)

    @app.exception_handler(HTTPException)
    async def on_http(_: Request, exc: HTTPException) -> JSONResponse:
        return _problem(
            exc.status_code, str(exc.detail) if exc.status_code != 404 else "Not Found", str(exc.detail)
        )

    @app.exception_handler(RequestValidationError)
    async def on_invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        return _problem(422, "Unprocessable Content", f"{where}: {first.get('msg')}")

    @app.exception_handler(Exception)
    async def on_bug(_: Request, exc: Exception) -> JSONResponse:  # a bug: say so, in the same format
        return _problem(500, "Internal Server Error", f"{type(exc).__name__} (please report it)")

    def allowed(key: ApiKey, action: str) -> Scope:
        if action not in PERMISSIONS[key.role]:
            raise Problem(403, "Forbidden", f"the role {key.role} may not {action.replace('_', ' ')}")
        return Scope(key.tenant, SHARED_USER)

    async def body_bytes(request: Request) -> bytes:
        return await request.body()  # held to max_body_bytes as it arrives (_BodyLimit)

    @app.get("/healthz")
    def healthz() -> dict[str, str]:
        return {"status": "ok", "version": __version__}

    @app.get("/metrics", response_class=PlainTextResponse)
    def metrics(key: Caller) -> str:
        lines = [
            "# HELP citeaudit_http_responses Responses by status.",
            "# TYPE citeaudit_http_responses counter",
        ]
        lines += [
            f'citeaudit_http_responses{{status="{s}"}} {n}'
            for s, n in sorted(counters.items())
            if s.isdigit()
        ]
        lines += ["# HELP citeaudit_audits Audits run.", "# TYPE citeaudit_audits counter",
                  f"citeaudit_audits {counters['audits']}"]  # fmt: skip
        return "\n".join(lines) + "\n"

    @app.post(
        "/v1/audit",
        openapi_extra={
            "requestBody": {"content": {"application/json": {"schema": {"type": "object"}}}, "required": True}
        },
    )
    async def post_audit(request: Request, key: Caller) -> JSONResponse:
        scope = allowed(key, "audit")
        data = await body_bytes(request)
        try:
            submission = parse_bytes(data, "body")
            report = auditor.audit(
                submission,
                store=ScopedLookup(store, scope),
                reviews=book.latest_for(key.tenant, submission.digest),
            )
        except CiteauditError as e:
            raise Problem(422, "Unprocessable Content", e.diagnostics()) from None
        body = dump_report_dict(report_to_dict(report))
        digest = hashlib.sha256(body).hexdigest()
        records.save_report(key.tenant, digest, body.decode("utf-8"))
        with records.lock:
            trail.append(scope, report)
        counters["audits"] += 1
        return JSONResponse({"digest": digest, "report": json.loads(body)})

    @app.get("/v1/reports/{digest}")
    def get_report(digest: str, key: Caller) -> JSONResponse:
        allowed(key, "read_reports")
        body = records.report(key.tenant, digest)
        if body is None:
            raise Problem(404, "Not Found", f"no report {digest} in this tenant")
        return JSONResponse(
            {"digest": digest, "report": json.loads(body), "reviews": reviews_json(key.tenant, body)}
        )

    @app.post("/v1/sources", status_code=201)
    def post_source(source: SourceIn, key: Caller) -> dict[str, str]:
        scope = allowed(key, "ingest")
        try:
            store.register(scope, source.source_id, source.title, source.locator, source.kind)
        except StoreError as e:
            raise Problem(422, "Unprocessable Content", e.diagnostics()) from None
        return {"source_id": source.source_id}

    @app.post("/v1/sources/{source_id}/revisions", status_code=201)
    def post_revision(source_id: str, revision: RevisionIn, key: Caller) -> dict[str, Any]:
        scope = allowed(key, "ingest")
        if store.get(scope, source_id, with_text=False) is None:
            raise Problem(404, "Not Found", f"no source {source_id!r} in this tenant")
        try:
            added, created = store.ingest(scope, source_id, revision.text)
        except StoreError as e:
            raise Problem(422, "Unprocessable Content", e.diagnostics()) from None
        return {**added.ref(), "created": created, "entered_at": added.entered_at}

    @app.get("/v1/sources/{source_id}")
    def get_source(source_id: str, key: Caller) -> dict[str, Any]:
        scope = allowed(key, "read_sources")
        found = store.get(scope, source_id, with_text=False)
        if found is None:
            raise Problem(404, "Not Found", f"no source {source_id!r} in this tenant")
        return found.to_json()

    @app.post("/v1/reviews", status_code=201)
    def post_review(review: ReviewIn, key: Caller) -> dict[str, str]:
        allowed(key, "review")
        body = records.report(key.tenant, review.report_digest)
        if body is None:
            raise Problem(404, "Not Found", f"no report {review.report_digest} in this tenant")
        report = json.loads(body)
        digest = report["submission_sha256"]
        recorded = Review(digest, review.claim_id, review.verdict, review.note, key.name or key.sha256[:12])
        try:  # the rules every audit applies to a review, so none is stored that would break them
            check_review(recorded, digest, {c["id"] for c in report["claims"]})
        except ReviewError as e:
            raise Problem(422, "Unprocessable Content", str(e)) from None
        with records.lock:
            book.record(key.tenant, recorded)
        return {"report_digest": review.report_digest, "claim_id": review.claim_id, "verdict": review.verdict}

    return app
