"""arXiv identifiers (``2401.01234v2``, ``hep-th/9901001``) and the DOIs arXiv registers for them
(``10.48550/arXiv.2401.01234``). The arXiv API answers them (``resolve/arxiv.py``); the version is
not part of the identifier. An identifier that is not one is refused where it is read."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from citeaudit.identifiers.interface import IdentifierHandler

__all__ = ["ARXIV", "ARXIV_DOI_PREFIX", "ArxivHandler", "arxiv_id_of", "normalize_arxiv"]

ARXIV_DOI_PREFIX = "10.48550/arxiv."
_ID_RE = re.compile(r"^(?:arxiv:\s*)?(\d{4}\.\d{4,5}|[a-z-]+(?:\.[a-z]{2})?/\d{7})(v\d+)?$", re.IGNORECASE)


def arxiv_id_of(doi: str) -> str | None:
    """The arXiv identifier of an arXiv DOI, without version."""
    if not doi.startswith(ARXIV_DOI_PREFIX):
        return None
    m = _ID_RE.match(doi[len(ARXIV_DOI_PREFIX) :])
    return m.group(1).lower() if m else None


def normalize_arxiv(raw: str) -> str | None:
    """``arXiv:2401.01234v2`` → ``2401.01234`` (the version is not part of the DOI)."""
    m = _ID_RE.match(raw.strip())
    return m.group(1).lower() if m else None


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
        m = _ID_RE.match(raw.strip())
        return f"10.48550/arXiv.{m.group(1)}" if m else None

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
