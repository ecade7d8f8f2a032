"""Local mirrors of the public bibliographic dumps (DBLP, Crossref, OpenAlex, arXiv): imported
once, searched offline by title as one more bibliographic index.

``open_mirror(path)`` is the index; ``SqliteStore`` and ``import_dump`` the import."""

from __future__ import annotations

from citeaudit.mirror.interface import FORMATS, MirrorError, MirrorStore, SourceState
from citeaudit.mirror.load import ImportReport, import_dump
from citeaudit.mirror.sqlite import SqliteMirror, SqliteStore, open_mirror

__all__ = [
    "FORMATS",
    "ImportReport",
    "MirrorError",
    "MirrorStore",
    "SourceState",
    "SqliteMirror",
    "SqliteStore",
    "import_dump",
    "open_mirror",
]
