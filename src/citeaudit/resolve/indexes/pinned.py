"""Search answers pinned in the cache directory, so that ``fetch`` then ``--offline`` gives the same
candidates, byte for byte, and the same report.

Every answer an online index gave is pinned — an empty list of candidates too: "DBLP knows no such
title" is an answer — under ``<cache>/searches/<index>/<slug>-<hash>.json``, keyed by (index,
normalised query). A pin holds the index, the query and the candidates, in sorted-key JSON with a
schema tag, and nothing that changes between two fetches of one answer (no time, no score, no
request URL). "Could not be asked" is never pinned.

A pin is read as untrusted input: opened without following a link and without blocking on a FIFO,
only when it is a regular file, at most :data:`MAX_PIN_BYTES`, and only when it says it is the
answer of that index to that query, and — where the cache has a ``MANIFEST.json`` — only when its
bytes are the ones the manifest records (:mod:`citeaudit.util.manifest`; a pin's line is recorded
before the pin is written). Anything else is ``E_CACHE_CORRUPT``: reported, never used.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path
from typing import Any

from citeaudit.errors import CacheError
from citeaudit.resolve.indexes.interface import Candidate, IndexAnswer
from citeaudit.util.atomic import atomic_write
from citeaudit.util.manifest import Manifest, ManifestError
from citeaudit.util.slugs import hashed_name, slug

__all__ = ["MAX_PIN_BYTES", "PIN_SCHEMA", "SearchPins"]

PIN_SCHEMA = "citeaudit-search/1"
MAX_PIN_BYTES = 16 * 1024 * 1024  # an answer is kilobytes; a pin this large is not one of ours
CORRUPT = "E_CACHE_CORRUPT"


class SearchPins:
    """The pinned search answers of one cache directory (the DOI cache's)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.manifest = Manifest(root)

    def path_for(self, index: str, key: str) -> Path:
        return self.root / "searches" / slug(index) / hashed_name(key, ".json")

    def get(self, index: str, key: str) -> IndexAnswer | None:
        """The pinned answer; None when there is none; ``E_CACHE_CORRUPT`` when it is not one."""
        path = self.path_for(index, key)
        try:
            raw = _read_bounded(path)
        except FileNotFoundError:
            return None
        except OSError as e:
            problem = "is a symbolic link" if e.errno == errno.ELOOP else f"cannot be read ({e.strerror})"
            return self._corrupt(index, path, problem)
        except _NotAPin as e:
            return self._corrupt(index, path, str(e))
        try:
            answer = _decode(index, key, json.loads(raw.decode("utf-8")))
        except (ValueError, KeyError, TypeError, AttributeError) as e:  # bad JSON and UTF-8 are ValueErrors
            return self._corrupt(index, path, f"is not valid ({type(e).__name__}: {e})")
        untrusted = self.manifest.problem(path.relative_to(self.root).as_posix(), raw)
        if untrusted is not None:
            return self._corrupt(index, path, f"does not match the manifest ({untrusted})")
        return answer

    def put(self, key: str, answer: IndexAnswer) -> None:
        """Pin an answer; refuses one that says the index could not be asked."""
        if not answer.answered:
            raise CacheError(f"refusing to pin a failed search of {answer.index} ({answer.code})")
        if any(c.index != answer.index for c in answer.candidates):
            raise CacheError(f"refusing to pin another index's candidates as {answer.index}'s")
        entry = {
            "candidates": [c.to_json() for c in answer.candidates],
            "index": answer.index,
            "query": key,
            "schema": PIN_SCHEMA,
        }
        data = (json.dumps(entry, ensure_ascii=False, sort_keys=True, indent=2) + "\n").encode("utf-8")
        path = self.path_for(answer.index, key)
        try:
            self.manifest.record({path.relative_to(self.root).as_posix(): data})  # before the pin
        except ManifestError as e:
            raise CacheError(
                f"cannot record the answer of {answer.index} in the cache's manifest: {e}"
            ) from None
        try:
            atomic_write(path, data)
        except OSError as e:
            raise CacheError(f"cannot pin the answer of {answer.index}: {e.strerror}") from None

    def _corrupt(self, index: str, path: Path, problem: str) -> IndexAnswer:
        where = path.relative_to(self.root).as_posix()
        reason = f"the pinned answer {where} {problem} and was not trusted"
        return IndexAnswer.unavailable(index, CORRUPT, reason)


class _NotAPin(Exception):
    pass


def _read_bounded(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)  # a link or a FIFO is never followed
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _NotAPin("is not a regular file")
        if st.st_size > MAX_PIN_BYTES:
            raise _NotAPin(f"is over {MAX_PIN_BYTES} bytes")
        chunks, size = [], 0
        while chunk := os.read(fd, min(1 << 20, MAX_PIN_BYTES + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_PIN_BYTES:  # it grew while being read
                raise _NotAPin(f"is over {MAX_PIN_BYTES} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _decode(index: str, key: str, data: Any) -> IndexAnswer:
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    if data.get("schema") != PIN_SCHEMA:
        raise ValueError(f"unknown schema {data.get('schema')!r}")
    if data.get("index") != index or data.get("query") != key:
        raise ValueError(f"it is the answer of {data.get('index')!r} to {data.get('query')!r}")
    items = data["candidates"]
    if not isinstance(items, list) or not all(isinstance(c, dict) for c in items):
        raise ValueError("its candidates are not a list of objects")
    candidates = tuple(Candidate.from_json(c) for c in items)
    if any(c.index != index for c in candidates):
        raise ValueError("it holds candidates of another index")
    return IndexAnswer(index, candidates)
