"""Every error of the HTTP API is one problem document (RFC 9457, ``application/problem+json``):
``type``, ``title``, ``status``, ``detail`` — a 500 included."""

from __future__ import annotations

from collections.abc import Mapping
from http import HTTPStatus

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from citeaudit.formats.validate import NOT_BLANK

__all__ = ["Problem", "add_problem_handlers", "problem_response", "too_large"]


class Problem(HTTPException):
    """An answer in the problem+json format. An HTTPException, so that FastAPI passes it on
    unchanged when it is raised while a body is being read (see ``app.BodyLimit``)."""

    def __init__(
        self, status: int, title: str, detail: str, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(status, detail, dict(headers) if headers is not None else None)
        self.status, self.title = status, title


def too_large(limit: int) -> Problem:
    return Problem(413, "Payload Too Large", f"the body is over the limit of {limit} bytes")


def problem_response(
    status: int, title: str, detail: str, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    body = {"type": "about:blank", "title": title, "status": status, "detail": detail}
    return JSONResponse(body, status_code=status, media_type="application/problem+json", headers=headers)


def _title(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def add_problem_handlers(app: FastAPI) -> None:
    """Problems, FastAPI's own HTTP errors, invalid requests and bugs, all as problem documents."""

    @app.exception_handler(Problem)
    async def on_problem(_: Request, exc: Problem) -> JSONResponse:
        return problem_response(exc.status, exc.title, exc.detail, exc.headers)

    @app.exception_handler(HTTPException)
    async def on_http(_: Request, exc: HTTPException) -> JSONResponse:
        # FastAPI's own: 404 for a path it does not have, 405 (with Allow) for a method, and 400 for
        # a JSON body it cannot decode, a 422 here as for every body that is not valid.
        if exc.status_code == 400:
            return problem_response(422, _title(422), "body: not valid JSON (it cannot be decoded)")
        return problem_response(exc.status_code, _title(exc.status_code), str(exc.detail), exc.headers)

    @app.exception_handler(RequestValidationError)
    async def on_invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        message = first.get("msg")
        if (
            first.get("type") == "string_pattern_mismatch"
            and (first.get("ctx") or {}).get("pattern") == NOT_BLANK
        ):
            message = "must not be blank"
        return problem_response(422, "Unprocessable Content", f"{where}: {message}")

    @app.exception_handler(Exception)
    async def on_bug(_: Request, exc: Exception) -> JSONResponse:  # a bug: say so, in the same format
        return problem_response(500, "Internal Server Error", f"{type(exc).__name__} (please report it)")
