"""The HTTP API (FastAPI): the app, its body limit and its counters, over the collaborators the
composition root builds.

* API keys map to a tenant and a role (auditor, ingester, reviewer, admin, operator);
  they are kept as SHA-256 hashes, never in clear (:mod:`citeaudit.service.keys`). Every route but
  ``/healthz`` needs one, ``/openapi.json`` included; there is no ``/docs`` page (it would load its
  scripts from a CDN): the schema is ``docs/openapi.json`` and ``citeaudit serve --openapi``.
* ``/metrics`` counts per tenant: a key reads its own tenant's, an operator key every tenant's.
* Every query is scoped by the key's tenant: sources, reports and reviews of
  one tenant are invisible to every other (a foreign id is a plain 404).
* Request bodies are size-limited; every error is one JSON problem document
  (RFC 9457, ``application/problem+json``; :mod:`.problems`).
* The service audits offline against the configured cache and snapshots: it
  never goes online on a request's behalf (:func:`citeaudit.wiring.service_auditor`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse

from citeaudit.config import Config
from citeaudit.service.http.auth import CALLER, Caller, key_of
from citeaudit.service.http.counts import Counts
from citeaudit.service.http.openapi import complete
from citeaudit.service.http.problems import add_problem_handlers, problem_response, too_large
from citeaudit.service.http.routes import BODY_MODELS, Service, router_for
from citeaudit.service.keys import ApiKey
from citeaudit.store.evidence import EvidenceStore, open_store
from citeaudit.store.reports import ReportRecords
from citeaudit.store.reviews import ReviewBook
from citeaudit.store.trail import Trail
from citeaudit.util.version import __version__
from citeaudit.wiring import service_auditor

__all__ = ["Gate", "ServiceSettings", "create_app"]


@dataclass
class ServiceSettings:
    store: str
    keys: list[ApiKey]
    # What the audits are built from (citeaudit.wiring.service_auditor): the cache, the snapshots,
    # the [severity] and [policy] tables, the judge (judge = "none": no semantic stage).
    config: Config = field(default_factory=Config)
    max_body_bytes: int = 2_000_000
    # Responses by status and audits, per tenant ("" for a request with no valid key); made from
    # the keys when not given. ``serve --workers N`` gives each worker its row of shared counts.
    counts: Counts | None = None


class Gate:
    """ASGI middleware around every request: it finds the caller's key (once, for the endpoint's
    dependency too), refuses a declared body over the limit, counts the body as it arrives, so
    that a chunked body (no Content-Length) is held to the limit too and refused before it is all
    in memory (a 5 MB chunked revision was stored through a 100 KB limit before), and counts the
    response by status for the caller's tenant. The refusal of a body that grows over the limit
    is raised in the endpoint that reads it and answered like any other problem. (FastAPI's own
    ``max_body_size`` answers in plain text.) Plain ASGI: a ``@app.middleware("http")`` function
    ran every request through a task group and memory streams."""

    def __init__(self, app: Any, limit: int, keys: Mapping[str, ApiKey], counts: Counts) -> None:
        self.app, self.limit, self.keys, self.counts = app, limit, keys, counts

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        authorization = declared = None
        for name, value in scope["headers"]:  # the first of each, as Request.headers.get has it
            if name == b"authorization" and authorization is None:
                authorization = value.decode("latin-1")
            elif name == b"content-length" and declared is None:
                declared = value.decode("latin-1")
        caller = key_of(authorization, self.keys)
        scope[CALLER] = caller
        tenant = caller.tenant if caller is not None else ""
        counts, limit = self.counts, self.limit
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            counts.response(tenant, 413)
            refused = too_large(limit)
            await problem_response(refused.status, refused.title, refused.detail)(scope, receive, send)
            return
        received = 0

        async def counted() -> Any:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise too_large(limit)
            return message

        async def counted_send(message: Any) -> None:
            if message["type"] == "http.response.start":
                counts.response(tenant, message["status"])
            await send(message)

        await self.app(scope, counted, counted_send)


def _closing(store: EvidenceStore) -> Any:
    """The app's lifespan: the store's connections closed when the server stops (SQLite then
    folds its write-ahead log back into the database file)."""

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        store.close()

    return lifespan


def create_app(settings: ServiceSettings) -> FastAPI:
    auditor = service_auditor(settings.config)
    store = open_store(settings.store, write_ahead=True)  # several workers write it
    counts = settings.counts or Counts(k.tenant for k in settings.keys)
    service = Service(auditor, store, ReportRecords(store), ReviewBook(store), Trail(store), counts)
    app = FastAPI(
        title="citeaudit",
        version=__version__,
        description="Deterministic audits of the citations in what agents write. Every request but "
        "/healthz, /openapi.json included, needs an `Authorization: Bearer <key>` header; keys map to "
        "a tenant and a role. Errors are problem documents (RFC 9457, application/problem+json).",
        openapi_url=None,  # served below, behind a key
        docs_url=None,  # FastAPI's pages load their scripts and styles from a CDN
        redoc_url=None,
        lifespan=_closing(store),
    )
    app.state.store = store
    app.state.keys = keys = {k.sha256: k for k in settings.keys}
    app.add_middleware(Gate, limit=settings.max_body_bytes, keys=keys, counts=counts)

    add_problem_handlers(app)
    app.include_router(router_for(service))

    document: dict[str, Any] = {}

    def openapi() -> dict[str, Any]:
        if not document:
            document.update(complete(get_openapi(
                title=app.title, version=app.version, description=app.description, routes=app.routes
            ), BODY_MODELS))  # fmt: skip
        return document

    app.openapi = openapi  # type: ignore[method-assign]

    @app.get("/openapi.json", include_in_schema=False)
    def openapi_json(_: Caller) -> JSONResponse:
        return JSONResponse(openapi())

    return app
