"""The text of a cited work that the semantic stage reads for a citation with no quote:
one small interface (:mod:`.interface`) and one module per basis (``full_text``, ``page``,
``abstract``). Each is a text already pinned and checked against its digest elsewhere
(a snapshot, a corpus document, a store revision, a web pin, a cached registry record);
these modules only name it."""

from citeaudit.sources.cited.abstract import abstract_of
from citeaudit.sources.cited.full_text import document_text, pinned_full_text, revision_text, snapshot_text
from citeaudit.sources.cited.interface import Basis, CitedText
from citeaudit.sources.cited.page import page_text

__all__ = [
    "Basis",
    "CitedText",
    "abstract_of",
    "document_text",
    "page_text",
    "pinned_full_text",
    "revision_text",
    "snapshot_text",
]
