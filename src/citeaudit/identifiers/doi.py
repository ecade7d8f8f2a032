"""DOIs: syntax and normal form (``https://doi.org/10.1/ABC``, ``doi:10.1/abc`` → ``10.1/abc``).
A malformed DOI is the finding ``E_DOI_SYNTAX``; the registries answer it through its agency."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import ClassVar
from urllib.parse import unquote

from citeaudit.identifiers.interface import IdentifierHandler

__all__ = ["DOI", "DOI_RE", "DoiHandler", "normalize_doi"]

# Crossref's recommended pattern, widened to registrant codes with sub-divisions (10.1000.10/…). The
# prefix is ASCII digits only: ``\d`` would take "１２３４" or "١٢٣٤" for a registrant code.
DOI_RE = re.compile(r"^10\.[0-9]{4,9}(?:\.[0-9]+)*/\S+$")
_URL_RE = re.compile(r"^(?:https?://)?(?:www\.)?(?:dx\.)?doi\.org/", re.IGNORECASE)
_PREFIX_RE = re.compile(r"^(?:urn:)?doi:\s*", re.IGNORECASE)


@lru_cache(maxsize=65536)  # every citation of a work writes its DOI, mostly the same way
def normalize_doi(raw: str) -> str:
    """``https://doi.org/10.1/ABC``, ``doi:10.1/abc`` … → ``10.1/abc``.

    DOIs are case-insensitive; a DOI written as a URL may be percent-encoded, and its fragment
    (``#anchor``) is not part of it.
    """
    doi = raw.strip()
    url = _URL_RE.match(doi)
    # In a URL a '#' starts the fragment, never the DOI (a DOI's own '#' is written %23 there).
    doi = unquote(doi[url.end() :].partition("#")[0]) if url else _PREFIX_RE.sub("", doi)
    return doi.strip().lower()


class DoiHandler(IdentifierHandler):
    kind: ClassVar[str] = "doi"
    route: ClassVar[str] = "doi"
    syntax_code: ClassVar[str | None] = "E_DOI_SYNTAX"

    def normalise(self, identifier: str) -> str:
        return normalize_doi(identifier)

    def is_valid(self, normal: str) -> bool:
        return DOI_RE.match(normal) is not None

    def invalid(self, raw: object) -> str:
        shown = raw.strip() if isinstance(raw, str) else raw
        return f"{shown!r} is not a DOI (expected 10.NNNN/suffix)"

    def key(self, normal: str) -> str:
        return normal

    def owns(self, key: str) -> bool:
        return self.is_valid(key)


DOI = DoiHandler()
