"""A directory of text snapshots, ``sources/<slug>.txt`` as in seed 000."""

from __future__ import annotations

from pathlib import Path

from citeaudit.errors import SourceError
from citeaudit.sources.interface import SnapshotStore, normalize_newlines
from citeaudit.util.slugs import hashed_name, slug

__all__ = ["SnapshotDirectory"]


class SnapshotDirectory(SnapshotStore):
    """Looks for ``<slug>-<hash>.txt`` first, then the seed's ``<slug>.txt``."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def text_for_doi(self, doi: str) -> str | None:
        seed_name = slug(doi)
        for name in (hashed_name(doi, ".txt"), f"{seed_name}.txt" if len(seed_name) <= 200 else None):
            if name is None:
                continue
            path = self.root / name
            try:
                data = path.read_bytes()
            except FileNotFoundError:
                continue
            except OSError as e:
                raise SourceError(f"{path}: cannot read snapshot: {e.strerror}") from None
            try:
                return normalize_newlines(data.decode("utf-8-sig"))
            except UnicodeDecodeError as e:
                raise SourceError(
                    f"{path}: snapshot is not valid UTF-8 (byte 0x{data[e.start]:02x} at offset {e.start})"
                ) from None
        return None
