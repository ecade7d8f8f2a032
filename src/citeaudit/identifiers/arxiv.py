"""arXiv identifiers (``2401.01234v2``, ``hep-th/9901001``) and the DOIs arXiv registers for them
(``10.48550/arXiv.2401.01234``). The arXiv API answers them (``resolve/arxiv.py``); the version is
not part of the identifier. An identifier that is not one is refused where it is read."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from citeaudit.identifiers.interface import IdentifierHandler

__all__ = ["ARXIV", "ARXIV_DOI_PREFIX", "ArxivHandler", "arxiv_id_of", "normalize_arxiv"]

ARXIV_DOI_PREFIX = "10.48550/arxiv."
# New style (2401.01234), old style (hep-th/9901001, with a subject class: math.GT/0309136), and
# a new-style id with a category put in front (hep-th/1601.07616), as real bibliographies write it.
# ASCII only: ``\d`` would take "２４０１" for a year and month, and [a-z] under IGNORECASE the Kelvin
# sign or a long s.
_ID_RE = re.compile(
    r"^(?:arxiv:\s*)?(?:(?P<new>\d{4}\.\d{4,5})"
    r"|(?P<archive>[a-z-]+)(?:\.(?P<subject>[a-z]{2}))?/(?:(?P<old>\d{7})|(?P<prefixed>\d{4}\.\d{4,5})))"
    r"(?P<version>v\d+)?$",
    re.IGNORECASE | re.ASCII,
)


def _parse(raw: str) -> re.Match[str] | None:
    return _ID_RE.match(raw.strip())


def _versionless(m: re.Match[str]) -> str:
    """The id without version and without an old-style id's subject class (``math/0309136``)."""
    if m["new"] or m["prefixed"]:
        return str(m["new"] or m["prefixed"])
    return f"{m['archive']}/{m['old']}".lower()


def arxiv_id_of(doi: str) -> str | None:
    """The arXiv identifier of an arXiv DOI, without version."""
    if not doi.lower().startswith(ARXIV_DOI_PREFIX):
        return None
    m = _parse(doi[len(ARXIV_DOI_PREFIX) :])
    return _versionless(m) if m else None


def normalize_arxiv(raw: str) -> str | None:
    """``arXiv:2401.01234v2`` → ``2401.01234``, ``math.GT/0309136v2`` → ``math/0309136`` (neither the
    version nor the subject class is part of the identifier or of its DOI)."""
    m = _parse(raw)
    return _versionless(m) if m else None


class ArxivHandler(IdentifierHandler):
    """A citation carries the DOI arXiv registers for the id (``10.48550/arxiv.2401.01234``): the key
    the cache and the snapshots know the work by, and how the report names it."""

    kind: ClassVar[str] = "arxiv"
    route: ClassVar[str] = "arxiv"

    def read(self, raw: object) -> str:
        return self.key(super().read(raw))

    def normalise(self, identifier: str) -> str:
        """The versionless id, from the id in any form or from its DOI."""
        return arxiv_id_of(identifier.lower()) or normalize_arxiv(identifier) or identifier.strip().lower()

    def doi_of(self, raw: str) -> str | None:
        """The DOI of an id, spelt as arXiv spells it (``10.48550/arXiv.2310.01362``), or None."""
        m = _parse(raw)
        return f"10.48550/arXiv.{_versionless(m)}" if m else None

    def form_note(self, raw: str) -> str | None:
        m = _parse(raw)
        if m is not None and m["prefixed"]:
            written = raw.strip()
            return (
                f"{written!r} puts a category before a new-style arXiv id, which has none: "
                f"read as {m['prefixed']}"
            )
        return None

    def is_valid(self, normal: str) -> bool:
        return normalize_arxiv(normal) == normal

    def invalid(self, raw: object) -> str:
        return f"not an arXiv identifier: {raw!r}"

    def key(self, normal: str) -> str:
        return ARXIV_DOI_PREFIX + normal

    def owns(self, key: str) -> bool:
        return arxiv_id_of(key) is not None

    def report_source(self, identifier: str) -> dict[str, Any]:
        # The report names the work by the DOI arXiv registers for it (report schema 1).
        return {"kind": "doi", "doi": identifier}


ARXIV = ArxivHandler()
