"""File names from identifiers: the seed's slug, and the collision-safe ``<slug>-<hash>``.

A utility every layer may import (the cache, the snapshot directory, the identifier handlers)."""

from __future__ import annotations

import hashlib
import re

__all__ = ["hashed_name", "slug"]

_SLUG_RE = re.compile(r"[^a-z0-9._-]")


def slug(key: str) -> str:
    """The seed's file-name slug of a normalised identifier (not collision-safe)."""
    return _SLUG_RE.sub("_", key)


def hashed_name(key: str, suffix: str) -> str:
    """``<slug>-<hash>``: two identifiers that share a slug still get two files."""
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]
    return f"{slug(key)[:120]}-{digest}{suffix}"
