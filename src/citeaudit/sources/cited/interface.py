"""What the judge reads of a cited work, and what the report says of it."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from citeaudit.model import TextRead

__all__ = ["Basis", "CitedText"]


class Basis(StrEnum):
    """Which text a citation was judged against, from the most to the least direct."""

    QUOTE = "quote"  # the citation's own quote, found verbatim in the pinned text
    FULL_TEXT = "full_text"  # the work's snapshot, corpus document or store revision
    PAGE = "page"  # the pinned text of a cited web page
    ABSTRACT = "abstract"  # the abstract in the registry's or an index's record


@dataclass(frozen=True, slots=True)
class CitedText:
    """A pinned text of a cited work, named: its basis, what it is, and the text."""

    basis: Basis
    name: str  # for a reader: "snapshot of 10.1000/x", "abstract in the crossref record of …"
    text: str
    sha256: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sha256", hashlib.sha256(self.text.encode("utf-8")).hexdigest())

    @property
    def complete(self) -> bool:
        """The whole work was read (an abstract is not the work: what it lacks, the work may say)."""
        return self.basis is not Basis.ABSTRACT

    def to_json(self) -> dict[str, Any]:
        """What the report names of it: which text, its digest and its length (in characters)."""
        return {"basis": self.basis.value, "length": len(self.text), "name": self.name, "sha256": self.sha256}

    def read_by(self, citation_id: str) -> TextRead:
        return TextRead(citation_id, self.basis.value, self.name, self.sha256, len(self.text))

    def __reduce__(self) -> tuple[type[CitedText], tuple[Basis, str, str]]:
        return CitedText, (self.basis, self.name, self.text)  # the digest is derived, not pickled
