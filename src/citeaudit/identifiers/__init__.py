"""Identifier kinds (doi, arxiv, url, pmid, pmcid, work): one handler module per kind behind one
interface, and the registry the formats, the core and the resolvers dispatch through."""

from citeaudit.identifiers.interface import IdentifierError, IdentifierHandler, TextSource
from citeaudit.identifiers.registry import (
    FIELD_KINDS,
    HANDLERS,
    KINDS,
    canonical_key,
    handler,
    pin_key,
    resolver_key,
    route_of,
    search_key,
)

__all__ = [
    "FIELD_KINDS",
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
    "search_key",
]
