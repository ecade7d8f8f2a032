"""One interface for every kind of identifier a citation can name its work by.

A handler is the only place that knows what an identifier of its kind looks like: it recognises
one in free text, validates and normalises it, turns it into the key the resolvers, the cache and
the snapshot files know the work by (and the file-name slug of that key), and names the resolver
route that answers it. The formats read citations through the handlers, the core groups and
checks them through the handlers, and the registry routes through them (``registry.py``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar, Literal

from citeaudit.errors import CiteauditError
from citeaudit.util.slugs import hashed_name

__all__ = ["IdentifierError", "IdentifierHandler", "TextSource"]

# Where the text a quote is looked up in comes from: the snapshot directory, by the work's key
# (a DOI's pinned text), or the page as it was pinned when it was fetched (a web citation).
TextSource = Literal["snapshot", "pin"]


class IdentifierError(CiteauditError):
    """An identifier refused where it is read (the formats turn it into an input error)."""


class IdentifierHandler(ABC):
    #: The kind a citation carries, and the field of the input contract that names it.
    kind: ClassVar[str]
    #: The resolver route that answers it (``resolve/registry.py`` dispatches on it).
    route: ClassVar[str]
    #: Where the text its quotes are looked up in comes from.
    text_source: ClassVar[TextSource] = "snapshot"
    #: A malformed identifier is this finding in the audit; None: it is refused as an input error
    #: where it is read (:meth:`read` raises).
    syntax_code: ClassVar[str | None] = None
    #: Whether citations name the work by a field of the kind's own name (``doi``, ``url``); a
    #: kind that is not (``work``: a title and no identifier) is read from its metadata fields.
    named_by_field: ClassVar[bool] = True

    def read(self, raw: object) -> str:
        """The identifier a citation carries, from the value of its field in the input. By default
        a string as written (normalised in the audit); with no ``syntax_code`` an invalid one is
        refused here, and the normal form is what is carried."""
        if not isinstance(raw, str):
            raise IdentifierError(self.invalid(raw))
        if self.syntax_code is not None:
            return raw
        normal = self.normalise(raw)
        if not self.is_valid(normal):
            raise IdentifierError(self.invalid(raw))
        return normal

    @abstractmethod
    def normalise(self, identifier: str) -> str:
        """The one spelling of an identifier (total: an invalid one gets a normal form too)."""

    @abstractmethod
    def is_valid(self, normal: str) -> bool:
        """Whether a normalised identifier has this kind's syntax."""

    @abstractmethod
    def invalid(self, raw: object) -> str:
        """The message for a value that is not an identifier of this kind."""

    def recognise(self, text: str) -> str | None:
        """The normalised identifier if ``text`` is one of this kind (BibTeX fields, free text)."""
        normal = self.normalise(text)
        return normal if self.is_valid(normal) else None

    def form_note(self, raw: str) -> str | None:
        """A warning about the form an accepted identifier was written in, when it is not one the
        kind defines but one it can read unambiguously (``W_IDENTIFIER_FORM``); None otherwise."""
        return None

    @abstractmethod
    def key(self, normal: str) -> str:
        """The key the resolvers, the cache and the snapshots know the work by."""

    @abstractmethod
    def owns(self, key: str) -> bool:
        """Whether a resolver key is one of this kind's (how a resolver routes a key)."""

    def slug(self, key: str) -> str:
        """The collision-safe file-name stem of a key (cache entries, snapshots)."""
        return hashed_name(key, "")

    def report_source(self, identifier: str) -> dict[str, Any]:
        """How the report's ``source`` block names the work (before the metadata as cited)."""
        return {"kind": self.kind, self.kind: identifier}
