"""The HTTP API's keys: each maps to a tenant and a role, and is kept only as its SHA-256 hash in a
TOML file of ``[[key]]`` tables (``citeaudit keys add`` writes them). Nothing here needs FastAPI.

A key acts in the evidence-store scope ``<tenant>/<user>``: the user its table names, else
``service`` (:data:`SHARED_USER`), the scope every key of the tenant without a user shares."""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from citeaudit.errors import CiteauditError, ConfigError

__all__ = ["FIELDS", "PERMISSIONS", "ROLES", "SHARED_USER", "ApiKey", "Role", "hash_key", "load_keys"]

Role = Literal["auditor", "ingester", "reviewer", "admin", "operator"]
ROLES: tuple[Role, ...] = ("auditor", "ingester", "reviewer", "admin", "operator")
# What each role may do; admin may do everything in its tenant. Every key may read its tenant's
# metrics; only an operator (who may do nothing else) reads every tenant's.
PERMISSIONS: dict[str, set[str]] = {
    "auditor": {"audit", "read_reports"},
    "ingester": {"ingest", "read_sources"},
    "reviewer": {"review", "read_reports"},
    "admin": {"audit", "read_reports", "ingest", "read_sources", "review"},
    "operator": {"read_every_tenants_metrics"},
}
SHARED_USER = "service"  # the tenant's shared scope: what an ingester adds, an auditor of the tenant cites
FIELDS = ("sha256", "tenant", "role", "name", "user")


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ApiKey:
    sha256: str
    tenant: str
    role: Role
    name: str = ""
    user: str = SHARED_USER  # the evidence-store scope is <tenant>/<user>

    @property
    def scope(self) -> str:
        return f"{self.tenant}/{self.user}"


def load_keys(path: Path, *, require_one: bool = True) -> list[ApiKey]:
    """``[[key]]`` tables of ``sha256``, ``tenant``, ``role`` (and ``name``, ``user``) in a TOML file.

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
        if not isinstance(entry, dict) or set(entry) - set(FIELDS):
            raise ConfigError(f"{where}: expected sha256, tenant, role and an optional name and user")
        digest, tenant, role = entry.get("sha256"), entry.get("tenant"), entry.get("role")
        if (
            not isinstance(digest, str)
            or len(digest) != 64
            or not all(c in "0123456789abcdef" for c in digest)
        ):
            raise ConfigError(f"{where}: sha256 must be 64 lowercase hex digits")
        if role not in ROLES:
            raise ConfigError(f"{where}: role must be one of {', '.join(ROLES)}")
        from citeaudit.store.evidence import Scope  # SQLAlchemy only when a key file is read

        user = entry.get("user", SHARED_USER)
        try:  # the tenant and the user must be valid scope parts
            Scope.parse(f"{tenant}/{user}")
        except CiteauditError as e:
            raise ConfigError(f"{where}: {e.diagnostics()}") from None
        keys.append(ApiKey(digest, str(tenant), role, str(entry.get("name", "")), str(user)))
    return keys
