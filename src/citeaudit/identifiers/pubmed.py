"""PubMed and PubMed Central identifiers: a PMID (``31452104``, ``PMID: 31452104``) and a PMCID
(``PMC6718211``, ``pmcid:pmc6718211``), written alone or inside the links that carry them
(``pubmed.ncbi.nlm.nih.gov/31452104/``, ``www.ncbi.nlm.nih.gov/pmc/articles/PMC6718211/``,
``europepmc.org/article/MED/31452104``…). NCBI's E-utilities answer both (``resolve/ncbi.py``);
a PMCID's version (``PMC6718211.2``) is not part of the identifier. A value that is not one is
the citation's ``E_PMID_SYNTAX`` / ``E_PMCID_SYNTAX``, as a malformed DOI is ``E_DOI_SYNTAX``."""

from __future__ import annotations

import re
from typing import ClassVar
from urllib.parse import urlsplit

from citeaudit.identifiers.interface import IdentifierError, IdentifierHandler

__all__ = [
    "PMCID",
    "PMCID_PREFIX",
    "PMID",
    "PMID_PREFIX",
    "PmcidHandler",
    "PmidHandler",
    "pmcid_in_url",
    "pmid_in_url",
]

PMID_PREFIX = "pmid:"
PMCID_PREFIX = "pmcid:"
# PMIDs are positive integers given in order since 1996 (about 41 million by 2026): nine digits
# leave room, and a leading zero is no PMID anyone writes. ASCII only: ``\d`` would take "４２".
_PMID_RE = re.compile(r"[1-9][0-9]{0,8}", re.ASCII)
_PMCID_RE = re.compile(r"PMC[1-9][0-9]{0,9}", re.ASCII)
_PMID_LABEL = re.compile(r"^(?:pmid|pubmed(?:\s+id)?)\s*[:#]?\s*", re.IGNORECASE)
_PMCID_LABEL = re.compile(r"^(?:pmcid|pmc\s+id)\s*[:#]?\s*", re.IGNORECASE)
_PMCID_FORM = re.compile(r"^pmc\s*([0-9]+)(?:\.[0-9]+)?$", re.IGNORECASE | re.ASCII)

# The pages that name one PubMed record by its PMID in their path, host → path patterns.
_PMID_PAGES: dict[str, tuple[re.Pattern[str], ...]] = {
    "pubmed.ncbi.nlm.nih.gov": (re.compile(r"^/([0-9]+)/?$"),),
    "ncbi.nlm.nih.gov": (re.compile(r"^/pubmed/([0-9]+)/?$", re.IGNORECASE),),
    "europepmc.org": (re.compile(r"^/(?:article|abstract)/MED/([0-9]+)/?$", re.IGNORECASE),),
}
_PMCID_PAGES: dict[str, tuple[re.Pattern[str], ...]] = {
    "ncbi.nlm.nih.gov": (re.compile(r"^/pmc/articles/(PMC[0-9]+(?:\.[0-9]+)?)(?:/.*)?$", re.IGNORECASE),),
    "pmc.ncbi.nlm.nih.gov": (re.compile(r"^/articles/(PMC[0-9]+(?:\.[0-9]+)?)(?:/.*)?$", re.IGNORECASE),),
    "europepmc.org": (
        re.compile(r"^/articles?/(PMC[0-9]+)/?$", re.IGNORECASE),
        re.compile(r"^/(?:article|abstract)/PMC/(PMC[0-9]+)/?$", re.IGNORECASE),
    ),
}


def _in_url(url: str, pages: dict[str, tuple[re.Pattern[str], ...]]) -> str | None:
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or parts.username or parts.password:
        return None
    host = (parts.hostname or "").lower().removeprefix("www.")
    for pattern in pages.get(host, ()):
        found = pattern.match(parts.path)
        if found is not None:
            return found.group(1)
    return None


def pmid_in_url(url: str) -> str | None:
    """The PMID a PubMed (or Europe PMC ``MED``) page's URL names, as written there; None else."""
    return _in_url(url, _PMID_PAGES)


def pmcid_in_url(url: str) -> str | None:
    """The PMCID a PMC (or Europe PMC) article page's URL names, as written there; None else."""
    return _in_url(url, _PMCID_PAGES)


def _normal_pmid(raw: str) -> str:
    text = raw.strip()
    on_page = pmid_in_url(text)
    if on_page is not None:
        text = on_page
    text = _PMID_LABEL.sub("", text).strip()
    if text.isascii() and text.isdigit() and text.lstrip("0"):
        return text.lstrip("0")
    return text


def _normal_pmcid(raw: str) -> str:
    text = raw.strip()
    on_page = pmcid_in_url(text)
    if on_page is not None:
        text = on_page
    text = _PMCID_LABEL.sub("", text).strip()
    form = _PMCID_FORM.match(text)
    if form is not None and form.group(1).lstrip("0"):
        return "PMC" + form.group(1).lstrip("0")
    return text


class _NcbiHandler(IdentifierHandler):
    def read(self, raw: object) -> str:
        """The normal form of a valid identifier (``PMID: 31452104`` → ``31452104``); an invalid
        one as written, which the audit reports as this kind's syntax finding."""
        if not isinstance(raw, str):
            raise IdentifierError(self.invalid(raw))
        normal = self.normalise(raw)
        return normal if self.is_valid(normal) else raw


class PmidHandler(_NcbiHandler):
    """A citation carries the PMID's digits; the cache and the snapshots know the work as
    ``pmid:31452104``."""

    kind: ClassVar[str] = "pmid"
    route: ClassVar[str] = "ncbi"
    # A malformed PMID is a finding of the citation, as a malformed DOI is: the rest is audited.
    syntax_code: ClassVar[str | None] = "E_PMID_SYNTAX"

    def normalise(self, identifier: str) -> str:
        return _normal_pmid(identifier.removeprefix(PMID_PREFIX))

    def is_valid(self, normal: str) -> bool:
        return _PMID_RE.fullmatch(normal) is not None

    def invalid(self, raw: object) -> str:
        shown = raw.strip() if isinstance(raw, str) else raw
        return f"{shown!r} is not a PubMed identifier (expected digits: 31452104 or PMID: 31452104)"

    def key(self, normal: str) -> str:
        return PMID_PREFIX + normal

    def owns(self, key: str) -> bool:
        return key.startswith(PMID_PREFIX) and self.is_valid(key[len(PMID_PREFIX) :])


class PmcidHandler(_NcbiHandler):
    """A citation carries the PMCID as PMC writes it (``PMC6718211``); the cache and the
    snapshots know the work as ``pmcid:PMC6718211``."""

    kind: ClassVar[str] = "pmcid"
    route: ClassVar[str] = "ncbi"
    syntax_code: ClassVar[str | None] = "E_PMCID_SYNTAX"

    def normalise(self, identifier: str) -> str:
        return _normal_pmcid(identifier.removeprefix(PMCID_PREFIX))

    def is_valid(self, normal: str) -> bool:
        return _PMCID_RE.fullmatch(normal) is not None

    def invalid(self, raw: object) -> str:
        shown = raw.strip() if isinstance(raw, str) else raw
        return f"{shown!r} is not a PubMed Central identifier (expected PMC and digits: PMC6718211)"

    def key(self, normal: str) -> str:
        return PMCID_PREFIX + normal

    def owns(self, key: str) -> bool:
        return key.startswith(PMCID_PREFIX) and self.is_valid(key[len(PMCID_PREFIX) :])


PMID = PmidHandler()
PMCID = PmcidHandler()
