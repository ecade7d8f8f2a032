"""References that name a work by its title, authors and year alone (kind ``work``).

A citation of this kind carries no identifier: it is found by bibliographic search (the local
mirrors of the public dumps, then the online indexes) and then checked against the record found,
as a DOI citation is against its registry record. What the kind knows is how such a reference is
keyed: by its normalised query (title, first author's surname, year), so that two spellings of
one reference are one search, pinned once, and the same reference gives the same answer offline.
"""

from __future__ import annotations

from typing import Any, ClassVar

from citeaudit.identifiers.interface import IdentifierHandler

__all__ = ["WORK", "WORK_PREFIX", "WorkHandler"]

WORK_PREFIX = "work:"


class WorkHandler(IdentifierHandler):
    """The identifier of a ``work`` citation is its normalised query (``WorkQuery.key`` of the
    search interface: ``title words|surname|year``); its key adds the kind's prefix, so that no
    DOI, arXiv id or URL is ever read as one."""

    kind: ClassVar[str] = "work"
    route: ClassVar[str] = "search"
    named_by_field: ClassVar[bool] = False

    def normalise(self, identifier: str) -> str:
        return identifier.removeprefix(WORK_PREFIX)

    def is_valid(self, normal: str) -> bool:
        return bool(normal.split("|", 1)[0].strip())  # a title to search by

    def invalid(self, raw: object) -> str:
        return f"a reference without an identifier needs a title to be looked up: {raw!r}"

    def key(self, normal: str) -> str:
        return WORK_PREFIX + normal

    def owns(self, key: str) -> bool:
        return key.startswith(WORK_PREFIX)

    def report_source(self, identifier: str) -> dict[str, Any]:
        return {"kind": self.kind}


WORK = WorkHandler()
