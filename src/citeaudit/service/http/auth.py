"""Who is calling, and what they may do: the key of a request (``Authorization: Bearer <key>``),
and the scope an allowed action runs in (``<tenant>/<user>``: the user the key names, else the
tenant's shared ``service`` scope)."""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends, Header, Request

from citeaudit.service.http.problems import Problem
from citeaudit.service.keys import PERMISSIONS, ApiKey, hash_key
from citeaudit.store.evidence import Scope

__all__ = ["Caller", "allowed"]


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


def allowed(key: ApiKey, action: str) -> Scope:
    """The key's scope, if its role may do ``action``; a 403 problem otherwise."""
    if action not in PERMISSIONS[key.role]:
        raise Problem(403, "Forbidden", f"the role {key.role} may not {action.replace('_', ' ')}")
    return Scope(key.tenant, key.user)
