"""Identifier kinds (doi, arxiv, url): one handler module per kind behind one interface, and the
registry the formats, the core and the resolvers dispatch through."""

from citeaudit.identifiers.interface import IdentifierError, IdentifierHandler, TextSource
from citeaudit.identifiers.registry import (
    HANDLERS,
    KINDS,
    canonical_key,
    handler,
    pin_key,
    resolver_key,
    route_of,
)

__all__ = [
    "HANDLERS",
    "KINDS",
    "IdentifierError",
    "IdentifierHandler",
    "TextSource",
    "canonical_key",
    "handler",
    "pin_key",
    "resolver_key",
    "route_of",
]
