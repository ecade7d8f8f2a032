"""A directory of text snapshots, ``sources/<slug>.txt`` as in seed 000.

Each snapshot's digest is recorded in the directory's ``MANIFEST.json`` when ``citeaudit snapshot``
writes it (:mod:`citeaudit.util.manifest`); a snapshot whose bytes are not the ones recorded, or
that has no line while there is a manifest, is not read (:class:`CorruptSnapshot`: could not check,
never a quote "not found")."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from citeaudit.errors import SourceError
from citeaudit.sources.interface import SnapshotStore, normalize_newlines
from citeaudit.util.atomic import atomic_write
from citeaudit.util.manifest import Manifest, ManifestError
from citeaudit.util.slugs import hashed_name, slug

__all__ = ["CorruptSnapshot", "SnapshotDirectory"]


class CorruptSnapshot(SourceError):
    """A snapshot whose bytes are not those its manifest records: could not check."""

    code = "E_CACHE_CORRUPT"


# The default of ``max_document_bytes``: a snapshot is a document's text.
DEFAULT_MAX_SNAPSHOT_BYTES = 256 * 1024 * 1024


class SnapshotDirectory(SnapshotStore):
    """Looks for ``<slug>-<hash>.txt`` first, then the seed's ``<slug>.txt``. A snapshot is read
    only when it is a regular file within ``max_bytes``; anything else is a SourceError (the
    audit makes it "could not check" for the citations of that work)."""

    def __init__(self, root: Path, max_bytes: int = DEFAULT_MAX_SNAPSHOT_BYTES) -> None:
        self.root = root
        self.max_bytes = max_bytes
        self.manifest = Manifest(root)

    def path_for(self, doi: str) -> Path:
        """Where :meth:`write` puts the snapshot of ``doi``."""
        return self.root / hashed_name(doi, ".txt")

    def write(self, doi: str, data: bytes) -> Path:
        """Record the snapshot's digest in the manifest, then write it atomically."""
        path = self.path_for(doi)
        try:
            self.manifest.record({path.name: data})
        except ManifestError as e:
            raise SourceError(f"{path}: cannot record the snapshot in the manifest: {e}") from None
        try:
            atomic_write(path, data)
        except OSError as e:
            raise SourceError(f"{path}: cannot write the snapshot: {e.strerror}") from None
        return path

    def text_for_doi(self, doi: str) -> str | None:
        seed_name = slug(doi)
        for name in (hashed_name(doi, ".txt"), f"{seed_name}.txt" if len(seed_name) <= 200 else None):
            if name is None:
                continue
            path = self.root / name
            try:
                data = self._read(path)
            except FileNotFoundError:
                continue
            except OSError as e:
                raise SourceError(f"{path}: cannot read snapshot: {e.strerror}") from None
            try:
                text = normalize_newlines(data.decode("utf-8-sig"))
            except UnicodeDecodeError as e:
                raise SourceError(
                    f"{path}: snapshot is not valid UTF-8 (byte 0x{data[e.start]:02x} at offset {e.start})"
                ) from None
            untrusted = self.manifest.problem(name, data)
            if untrusted is not None:
                raise CorruptSnapshot(f"{path}: the snapshot was not trusted (E_CACHE_CORRUPT): {untrusted}")
            return text
        return None

    def _read(self, path: Path) -> bytes:
        limit = self.max_bytes
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise SourceError(f"{path}: the snapshot is not a regular file")
        if st.st_size > limit:
            raise SourceError(f"{path}: the snapshot is {st.st_size} bytes, over the limit of {limit}")
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
        if len(data) > limit:
            raise SourceError(f"{path}: the snapshot is over the limit of {limit} bytes")
        return data
