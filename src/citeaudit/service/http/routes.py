"""The endpoints of the HTTP API, over the collaborators :mod:`citeaudit.service.http.app` builds."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from pydantic import BaseModel, Field

from citeaudit.errors import CiteauditError, InputError
from citeaudit.formats import InputFormat, parse_bytes, submission_from_bytes
from citeaudit.formats.validate import expect_object, validate
from citeaudit.model import Review
from citeaudit.policy import ReviewError, check_review
from citeaudit.report.json import compact_json, dump_report_dict, report_to_dict
from citeaudit.service.http.auth import Caller, allowed
from citeaudit.service.http.counts import Counts
from citeaudit.service.http.openapi import (
    AUDIT_MEDIA_TYPES,
    BIBTEX_TYPES,
    JSON_MEDIA_TYPES,
    MARKDOWN_TYPES,
    NOT_BLANK,
    json_body,
    problem_responses,
)
from citeaudit.service.http.problems import Problem
from citeaudit.service.keys import PERMISSIONS
from citeaudit.store.evidence import EvidenceStore, ScopedLookup, StoreConflict, StoreError
from citeaudit.store.reports import ReportRecords
from citeaudit.store.reviews import ReviewBook
from citeaudit.store.trail import Trail
from citeaudit.util.jsonload import load_json_bytes
from citeaudit.util.version import __version__
from citeaudit.wiring import Auditor

__all__ = ["BODY_MODELS", "ReviewIn", "RevisionIn", "Service", "SourceIn", "router_for"]


SOURCE_ID = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$"  # the evidence store's rule for source ids
DIGEST = r"^[0-9a-f]{64}$"


class SourceIn(BaseModel):
    model_config = {"extra": "forbid"}
    source_id: Annotated[str, Field(min_length=1, max_length=200, pattern=SOURCE_ID)]
    title: Annotated[str, Field(min_length=1, max_length=1000, pattern=NOT_BLANK)]
    locator: Annotated[str, Field(min_length=1, max_length=1000, pattern=NOT_BLANK)]
    kind: Annotated[str, Field(min_length=1, max_length=32, pattern=NOT_BLANK)] = "document"


class RevisionIn(BaseModel):
    model_config = {"extra": "forbid"}
    text: Annotated[str, Field(min_length=1, pattern=NOT_BLANK)]


class ReviewIn(BaseModel):
    model_config = {"extra": "forbid"}
    report_digest: Annotated[str, Field(pattern=DIGEST)]
    claim_id: Annotated[str, Field(min_length=1, max_length=200)]
    verdict: Literal["supported", "insufficient", "contradicted"]
    note: Annotated[str, Field(min_length=1, max_length=1000, pattern=NOT_BLANK)]


class AuditOut(BaseModel):
    digest: Annotated[str, Field(pattern=DIGEST, description="the SHA-256 of report.json")]
    report: dict[str, Any] = Field(description="report.json's content")


class ReviewOut(BaseModel):
    claim_id: str
    verdict: str
    note: str
    reviewer: str


class ReportOut(AuditOut):
    reviews: list[ReviewOut]


@dataclass
class Service:
    """What the endpoints work with: the auditor (from the composition root) and the store's books."""

    auditor: Auditor
    store: EvidenceStore
    records: ReportRecords
    book: ReviewBook
    trail: Trail
    counts: Counts  # see app.ServiceSettings

    def reviews_json(self, tenant: str, report_body: str) -> list[dict[str, str]]:
        submission_sha256 = json.loads(report_body)["submission_sha256"]
        return [
            {"claim_id": r.claim_id, "verdict": r.verdict, "note": r.note, "reviewer": r.reviewer}
            for r in self.book.latest_for(tenant, submission_sha256)
        ]


async def _body_bytes(request: Request) -> bytes:
    return await request.body()  # held to max_body_bytes as it arrives (app.BodyLimit)


def _media_type(request: Request) -> str:
    return request.headers.get("content-type", "").split(";")[0].strip().lower()


def _is_json(media: str) -> bool:
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


# Media types that do not say what the body is (``curl --data`` sends form-urlencoded; no
# Content-Type at all is one of them): the content decides on /v1/audit, and it is JSON elsewhere.
UNTYPED_MEDIA_TYPES = ("", "application/x-www-form-urlencoded", "text/plain")


def _refuse_unsupported(request: Request, accepted: tuple[str, ...]) -> None:
    """A 415 for a body of a media type the route does not read (``application/xml``…)."""
    media = _media_type(request)
    if media in UNTYPED_MEDIA_TYPES or _is_json(media) or media in accepted:
        return
    shown = ", ".join(t for t in (*accepted, *UNTYPED_MEDIA_TYPES) if t)
    raise Problem(
        415,
        "Unsupported Media Type",
        f"body: {media!r} is not a media type this route reads ({shown}, or no Content-Type)",
    )


M = TypeVar("M", bound=BaseModel)


def _validated(model: type[M], data: bytes) -> M:
    """A JSON body as ``model``, with /v1/audit's words for what is wrong (a 422 otherwise)."""
    try:
        document = expect_object(load_json_bytes(data, "body"), "body", [])
        return validate(model, document, "body", [])
    except InputError as e:
        problem = e.problem
        if problem.startswith(f"does not have the expected form ({NOT_BLANK})"):
            problem = "must not be blank"
        where = f"{e.path}: " if e.path else ""
        raise Problem(422, "Unprocessable Content", f"body: {where}{problem}") from None


def _body_format(request: Request) -> InputFormat | Literal[False] | None:
    """The body's format by its media type: BibTeX or a Markdown report, False for JSON, None when
    the content decides (``curl --data`` sends form-urlencoded)."""
    media = _media_type(request)
    if media in BIBTEX_TYPES:
        return InputFormat.BIBTEX
    if media in MARKDOWN_TYPES:
        return InputFormat.MARKDOWN_REPORT
    if _is_json(media):
        return False
    return None


def _undetected(data: bytes, given: InputFormat | Literal[False] | None, error: CiteauditError) -> str:
    """What is wrong with an audit body, in words about the body: one with no media type that is
    not JSON, BibTeX or a Markdown report read as JSON said only "invalid JSON at line 1"."""
    said = error.diagnostics()
    lead = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if given is not None or lead in (b"{", b"[", b"@", b"%") or not said.startswith("body: invalid JSON"):
        return said
    why = (
        "body: not JSON (it does not open with { or [), BibTeX (@ or %) or a Markdown report (a "
        "References heading on a line of its own)"
    )
    if b"\n" not in data.strip():
        why += "; it has no line breaks: `curl --data` removes them, send the file with --data-binary @FILE"
    return why + " and its Content-Type (application/json, text/x-bibtex or text/markdown)"


def _json_body(model: type[M]) -> Callable[[Request], Awaitable[M]]:
    """A dependency that reads the body as ``model`` (415 for another media type, 422 when it is
    not one): the endpoint itself stays a plain function, run in the thread pool."""

    async def body(request: Request) -> M:
        _refuse_unsupported(request, JSON_MEDIA_TYPES)
        return _validated(model, await _body_bytes(request))

    return body


# The models of the JSON bodies, described in the OpenAPI document by :func:`openapi.json_body`.
BODY_MODELS: tuple[type[BaseModel], ...] = (SourceIn, RevisionIn, ReviewIn)


R = problem_responses
# JSONResponse's encoding (starlette.responses.JSONResponse.render) with keys sorted: what the
# report's own encoder writes (orjson), so an answer is encoded at its speed.
_compact = compact_json


def router_for(service: Service) -> APIRouter:
    router = APIRouter()
    auditor, store, records, book, trail = (
        service.auditor, service.store, service.records, service.book, service.trail
    )  # fmt: skip
    counts = service.counts
    reviews_json = service.reviews_json
    body_bytes = _body_bytes

    @router.get("/healthz", responses=R(405))
    def healthz() -> dict[str, str]:
        return {"status": "ok", "version": __version__}

    @router.get("/metrics", response_class=PlainTextResponse, responses=R(401, 405))
    def metrics(key: Caller) -> str:
        """The key's tenant's counts; an operator's key reads every tenant's, and those of requests
        with no valid key (no tenant label)."""
        every = "read_every_tenants_metrics" in PERMISSIONS[key.role]
        counters = counts.snapshot()
        shown = sorted((t, what, n) for (t, what), n in counters.items() if every or t == key.tenant)
        tenants = sorted({t for t, _, _ in shown if t} | ({key.tenant} if not every else set()))

        def labels(tenant: str, **more: str) -> str:
            pairs = ({"tenant": tenant} if tenant else {}) | more
            return "{" + ",".join(f'{k}="{v}"' for k, v in sorted(pairs.items())) + "}" if pairs else ""

        lines = ["# HELP citeaudit_http_responses Responses by status.",
                 "# TYPE citeaudit_http_responses counter"]  # fmt: skip
        lines += [
            f"citeaudit_http_responses{labels(t, status=what)} {n}" for t, what, n in shown if what.isdigit()
        ]
        lines += ["# HELP citeaudit_audits Audits run.", "# TYPE citeaudit_audits counter"]
        lines += [f"citeaudit_audits{labels(t)} {counters[t, 'audits']}" for t in tenants]
        return "\n".join(lines) + "\n"

    @router.post("/v1/audit", response_model=AuditOut, responses=R(401, 403, 405, 413, 415, 422))
    async def post_audit(request: Request, key: Caller) -> Response:
        """Audit the body (its schema: see the request body; BibTeX as ``text/x-bibtex``, a Markdown
        report as ``text/markdown``)."""
        scope = allowed(key, "audit")
        _refuse_unsupported(request, AUDIT_MEDIA_TYPES)
        data = await body_bytes(request)
        given = _body_format(request)
        try:
            submission = (
                parse_bytes(data, "body")
                if given is False
                else submission_from_bytes(data, "body", input_format=given)
            )
            report = auditor.audit(
                submission,
                store=ScopedLookup(store, scope),
                reviews=book.latest_for(key.tenant, submission.digest),
            )
        except CiteauditError as e:
            raise Problem(422, "Unprocessable Content", _undetected(data, given, e)) from None
        content = report_to_dict(report)
        body = dump_report_dict(content)
        digest = hashlib.sha256(body).hexdigest()
        # Here, not in a worker thread: the hop and the GIL passed between two threads cost more
        # CPU than the commit's wait for the disk (3.9–5.3 ms of CPU a request against 3.2–3.3).
        records.save_audit(key.tenant, digest, body.decode("utf-8"), trail, scope, report)
        counts.audit(key.tenant)
        # What JSONResponse({"digest": …, "report": json.loads(body)}) wrote, byte for byte, without
        # reading the report back: report.json's keys are sorted at every level, so the compact
        # encoding of the same content with sorted keys is that of the report read back.
        return Response(
            b'{"digest":"' + digest.encode("ascii") + b'","report":' + _compact(content) + b"}",
            media_type="application/json",
        )

    @router.get("/v1/reports/{digest}", response_model=ReportOut, responses=R(401, 403, 404, 405))
    def get_report(digest: Annotated[str, Path(pattern=DIGEST)], key: Caller) -> JSONResponse:
        allowed(key, "read_reports")
        body = records.report(key.tenant, digest)
        if body is None:
            raise Problem(404, "Not Found", f"no report {digest} in this tenant")
        return JSONResponse(
            {"digest": digest, "report": json.loads(body), "reviews": reviews_json(key.tenant, body)}
        )

    @router.post(
        "/v1/sources",
        status_code=201,
        responses=R(401, 403, 405, 413, 415, 422),
        openapi_extra=json_body(SourceIn),
    )
    def post_source(
        key: Caller, source: Annotated[SourceIn, Depends(_json_body(SourceIn))]
    ) -> dict[str, str]:
        scope = allowed(key, "ingest")
        try:
            store.register(scope, source.source_id, source.title, source.locator, source.kind)
        except StoreConflict as e:  # another writer kept the source locked
            raise Problem(409, "Conflict", e.diagnostics()) from None
        except StoreError as e:
            raise Problem(422, "Unprocessable Content", e.diagnostics()) from None
        return {"source_id": source.source_id}

    @router.post(
        "/v1/sources/{source_id}/revisions",
        status_code=201,
        responses=R(401, 403, 404, 405, 409, 413, 415, 422),
        openapi_extra=json_body(RevisionIn),
    )
    def post_revision(
        source_id: Annotated[str, Path(pattern=SOURCE_ID)],
        key: Caller,
        revision: Annotated[RevisionIn, Depends(_json_body(RevisionIn))],
    ) -> dict[str, Any]:
        scope = allowed(key, "ingest")
        if store.get(scope, source_id, with_text=False) is None:
            raise Problem(404, "Not Found", f"no source {source_id!r} in this tenant")
        try:
            added, created = store.ingest(scope, source_id, revision.text)
        except StoreConflict as e:  # another writer kept the source locked
            raise Problem(409, "Conflict", e.diagnostics()) from None
        except StoreError as e:
            raise Problem(422, "Unprocessable Content", e.diagnostics()) from None
        return {**added.ref(), "created": created, "entered_at": added.entered_at}

    @router.get("/v1/sources/{source_id}", responses=R(401, 403, 404, 405))
    def get_source(source_id: Annotated[str, Path(pattern=SOURCE_ID)], key: Caller) -> dict[str, Any]:
        scope = allowed(key, "read_sources")
        found = store.get(scope, source_id, with_text=False)
        if found is None:
            raise Problem(404, "Not Found", f"no source {source_id!r} in this tenant")
        return found.to_json()

    @router.post(
        "/v1/reviews",
        status_code=201,
        responses=R(401, 403, 404, 405, 413, 415, 422),
        openapi_extra=json_body(ReviewIn),
    )
    def post_review(
        key: Caller, review: Annotated[ReviewIn, Depends(_json_body(ReviewIn))]
    ) -> dict[str, str]:
        allowed(key, "review")
        body = records.report(key.tenant, review.report_digest)
        if body is None:
            raise Problem(404, "Not Found", f"no report {review.report_digest} in this tenant")
        report = json.loads(body)
        if review.claim_id not in {c["id"] for c in report["claims"]}:  # a claim of the report, or nothing
            raise Problem(
                404, "Not Found", f"review names claim {review.claim_id!r}, which is not in the report"
            )
        digest = report["submission_sha256"]
        recorded = Review(digest, review.claim_id, review.verdict, review.note, key.name or key.sha256[:12])
        try:  # the rules every audit applies to a review, so none is stored that would break them
            check_review(recorded, digest, {c["id"] for c in report["claims"]})
        except ReviewError as e:
            raise Problem(422, "Unprocessable Content", str(e)) from None
        with records.lock:
            book.record(key.tenant, recorded)
        return {"report_digest": review.report_digest, "claim_id": review.claim_id, "verdict": review.verdict}

    return router
