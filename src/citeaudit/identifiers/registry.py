"""The identifier kinds citeaudit knows: one line per kind, in the order the input contract lists
them. The formats read citations, the core groups and checks them, and the resolvers route keys
through this table alone."""

from __future__ import annotations

from functools import lru_cache

from citeaudit.identifiers.arxiv import ARXIV
from citeaudit.identifiers.doi import DOI
from citeaudit.identifiers.interface import IdentifierHandler
from citeaudit.identifiers.pubmed import PMCID, PMID
from citeaudit.identifiers.url import URL
from citeaudit.identifiers.work import WORK
from citeaudit.model import Source, WorkSource

__all__ = [
    "FIELD_KINDS",
    "HANDLERS",
    "KINDS",
    "SEARCH_ROUTE",
    "canonical_key",
    "handler",
    "pin_key",
    "resolver_key",
    "route_of",
    "search_key",
]

HANDLERS: dict[str, IdentifierHandler] = {
    DOI.kind: DOI,
    ARXIV.kind: ARXIV,
    URL.kind: URL,
    PMID.kind: PMID,
    PMCID.kind: PMCID,
    WORK.kind: WORK,
}
KINDS: tuple[str, ...] = tuple(HANDLERS)
# The kinds a citation names by a field of their own name (``doi``, ``arxiv``, ``url``).
FIELD_KINDS: tuple[str, ...] = tuple(k for k, h in HANDLERS.items() if h.named_by_field)
# The route of a kind found by bibliographic search rather than resolved by its identifier.
SEARCH_ROUTE = "search"


def handler(kind: str) -> IdentifierHandler:
    """The handler of an identifier kind (a KeyError for a kind that is not one)."""
    return HANDLERS[kind]


def _valid_key(source: Source) -> tuple[IdentifierHandler, str] | None:
    if not isinstance(source, WorkSource):
        return None
    kind = HANDLERS[source.kind]
    normal = kind.normalise(source.identifier)
    return (kind, canonical_key(kind.key(normal))) if kind.is_valid(normal) else None


@lru_cache(maxsize=65536)  # a work is cited by every citation of it: its key is worked out once
def canonical_key(key: str) -> str:
    """A key in the form of the most specific kind that owns it: a DOI that is an arXiv DOI loses
    its version (``10.48550/arxiv.2010.11929v1`` → ``10.48550/arxiv.2010.11929``), so both forms
    are one work in the cache and the snapshots."""
    owner = next((h for h in reversed(HANDLERS.values()) if h.owns(key)), None)
    return owner.key(owner.normalise(key)) if owner is not None else key


def resolver_key(source: Source) -> str | None:
    """The key a resolver is asked for a cited work by; None for a source that names no work by a
    valid identifier (a corpus document, a store source, a reference, a malformed identifier) and
    for a web page, which is fetched and pinned, not resolved (:func:`pin_key`)."""
    found = _valid_key(source)
    if found is None or found[0].text_source != "snapshot" or found[0].route == SEARCH_ROUTE:
        return None
    return found[1]


def search_key(source: Source) -> str | None:
    """The key a reference without an identifier is searched and pinned under (its normalised
    query, ``work:…``); None for any other source."""
    found = _valid_key(source)
    return found[1] if found is not None and found[0].route == SEARCH_ROUTE else None


def pin_key(source: Source) -> str | None:
    """The key a cited web page is pinned under (its normal URL); None for any other source."""
    found = _valid_key(source)
    return found[1] if found is not None and found[0].text_source == "pin" else None


def route_of(key: str) -> str | None:
    """The resolver route of a key. A kind listed later is asked first: it is the more specific
    one (an arXiv DOI is also a DOI, and goes to the arXiv API)."""
    return next((h.route for h in reversed(HANDLERS.values()) if h.owns(key)), None)
