"""DOI syntax and normal form."""

from __future__ import annotations

import re
from urllib.parse import unquote

from citeaudit.checks.codes import FindingMaker
from citeaudit.model import Finding

__all__ = ["DOI_RE", "check_doi_syntax", "normalize_doi"]

# Crossref's recommended pattern, widened to registrant codes with sub-divisions (10.1000.10/…).
DOI_RE = re.compile(r"^10\.\d{4,9}(?:\.\d+)*/\S+$")
_URL_RE = re.compile(r"^(?:https?://)?(?:www\.)?(?:dx\.)?doi\.org/", re.IGNORECASE)
_PREFIX_RE = re.compile(r"^(?:urn:)?doi:\s*", re.IGNORECASE)


def normalize_doi(raw: str) -> str:
    """``https://doi.org/10.1/ABC``, ``doi:10.1/abc`` … → ``10.1/abc``.

    DOIs are case-insensitive; a DOI written as a URL may be percent-encoded.
    """
    doi = raw.strip()
    url = _URL_RE.match(doi)
    doi = unquote(doi[url.end() :]) if url else _PREFIX_RE.sub("", doi)
    return doi.strip().lower()


def check_doi_syntax(raw: str, doi: str, make: FindingMaker) -> list[Finding]:
    if DOI_RE.match(doi):
        return []
    return [make("E_DOI_SYNTAX", f"{raw.strip()!r} is not a DOI (expected 10.NNNN/suffix)")]
