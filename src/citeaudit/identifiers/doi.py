"""DOIs: syntax and normal form (``https://doi.org/10.1/ABC``, ``doi:10.1/abc`` → ``10.1/abc``;
a publisher's landing page, ``https://onlinelibrary.wiley.com/doi/full/10.1/abc``, too).
A malformed DOI is the finding ``E_DOI_SYNTAX``; the registries answer it through its agency."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import ClassVar
from urllib.parse import unquote

from citeaudit.identifiers.interface import IdentifierHandler

__all__ = ["DOI", "DOI_RE", "DoiHandler", "doi_in_url", "normalize_doi"]

# Crossref's recommended pattern, widened to registrant codes with sub-divisions (10.1000.10/…). The
# prefix is ASCII digits only: ``\d`` would take "１２３４" or "١٢٣٤" for a registrant code.
DOI_RE = re.compile(r"^10\.[0-9]{4,9}(?:\.[0-9]+)*/\S+$")
_URL_RE = re.compile(r"^(?:https?://)?(?:www\.)?(?:dx\.)?doi\.org/", re.IGNORECASE)
_PREFIX_RE = re.compile(r"^(?:urn:)?doi:\s*", re.IGNORECASE)


# Publishers' landing pages that carry the DOI in their path: ``…/doi/[abs|full|pdf|…/]10.…``
# (Wiley, SAGE, ACM, Taylor & Francis, Emerald, Science, PNAS…), Springer's
# ``/article|chapter|book|…/10.…`` and ``/content/pdf/10.….pdf``.
_DOI_PATH_RE = re.compile(
    r"^https?://(?P<host>[a-z0-9.-]+)(?::\d+)?/(?:[^?#]*?/)?"
    r"(?:doi/(?:(?:abs|full|pdf|epdf|pdfdirect|fullhtml|book|reader|figure|suppl)/)?"
    r"|(?P<springer>article|chapter|book|referenceworkentry|protocol|content/pdf)/)"
    r"(?P<doi>10\.[0-9]{4,9}(?:\.[0-9]+)*/[^?#]+)",
    re.IGNORECASE,
)
_NATURE_RE = re.compile(
    r"^https?://(?:www\.)?nature\.com/articles/([a-z0-9][a-z0-9.-]*[0-9])/?(?:[?#].*)?$", re.I
)
# What a landing page adds after the DOI in its path.
_PAGE_TAILS = ("/full/html", "/full", "/html", "/abstract", "/pdf", "/epdf", "/summary", ".pdf", "/")


def doi_in_url(url: str) -> str | None:
    """The DOI a publisher's landing page URL carries in its path, as written there (percent-
    decoded, a page suffix like ``/full/html`` or ``.pdf`` left out); None for any other URL."""
    match = _DOI_PATH_RE.match(url.strip())
    if match is None:
        nature = _NATURE_RE.match(url.strip())  # nature.com/articles/ID is the DOI 10.1038/ID
        return "10.1038/" + nature.group(1) if nature is not None else None
    if match.group("springer") and "springer" not in match.group("host").lower():
        return None
    doi = unquote(match.group("doi"))
    changed = True
    while changed:
        changed = False
        for tail in _PAGE_TAILS:
            if doi.lower().endswith(tail) and DOI_RE.match(doi[: -len(tail)]):
                doi, changed = doi[: -len(tail)], True
    return doi if DOI_RE.match(doi) else None


@lru_cache(maxsize=65536)  # every citation of a work writes its DOI, mostly the same way
def normalize_doi(raw: str) -> str:
    """``https://doi.org/10.1/ABC``, ``doi:10.1/abc`` … → ``10.1/abc``.

    DOIs are case-insensitive; a DOI written as a URL may be percent-encoded, and its fragment
    (``#anchor``) is not part of it.
    """
    doi = raw.strip()
    url = _URL_RE.match(doi)
    if url is None and (on_page := doi_in_url(doi)) is not None:
        return on_page.strip().lower()
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
