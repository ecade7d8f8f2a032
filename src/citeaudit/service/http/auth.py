"""Who is calling, and what they may do: the key of a request (``Authorization: Bearer <key>``, the
scheme in any case, as RFC 9110 has it), and the scope an allowed action runs in (``<tenant>/<user>``:
the user the key names, else the tenant's shared ``service`` scope)."""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from citeaudit.service.http.problems import Problem
from citeaudit.service.keys import PERMISSIONS, ApiKey, hash_key
from citeaudit.store.evidence import Scope

__all__ = ["BEARER", "CALLER", "Caller", "allowed", "key_of"]

MISSING = "send Authorization: Bearer <key>"
# Where app.Gate leaves the key it found for the request (None: no valid key), so that the key
# is looked up once per request.
CALLER = "citeaudit.caller"

# Declared in the OpenAPI schema as the HTTP bearer scheme; the header is read by _caller, so a
# missing or malformed one is our own 401 problem document.
BEARER = HTTPBearer(
    scheme_name="bearer", description="An API key from `citeaudit keys add`.", auto_error=False
)


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization`` header whose scheme is Bearer (in any case), else None."""
    scheme, _, token = (authorization or "").strip().partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def key_of(authorization: str | None, keys: Mapping[str, ApiKey]) -> ApiKey | None:
    """The key an ``Authorization`` header carries, if it is one of ``keys``."""
    token = bearer_token(authorization)
    if token is None:
        return None
    digest = hash_key(token)
    key = keys.get(digest)
    return key if key is not None and hmac.compare_digest(key.sha256, digest) else None


async def _caller(
    request: Request, _: Annotated[HTTPAuthorizationCredentials | None, Depends(BEARER)]
) -> ApiKey:
    """The key of the request, from ``Authorization: Bearer <key>``. A coroutine, though it waits
    for nothing: FastAPI runs a plain function dependency in a worker thread, a thread hop on
    every request."""
    authorization = request.headers.get("authorization")
    if bearer_token(authorization) is None:
        raise Problem(401, "Unauthorized", MISSING)
    scope = request.scope
    key = scope[CALLER] if CALLER in scope else key_of(authorization, request.app.state.keys)
    if key is None:
        raise Problem(401, "Unauthorized", "unknown key")
    return key


Caller = Annotated[ApiKey, Depends(_caller)]


def allowed(key: ApiKey, action: str) -> Scope:
    """The key's scope, if its role may do ``action``; a 403 problem otherwise."""
    if action not in PERMISSIONS[key.role]:
        raise Problem(403, "Forbidden", f"the role {key.role} may not {action.replace('_', ' ')}")
    return Scope(key.tenant, key.user)
