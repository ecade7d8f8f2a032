"""The registry cache: a directory of JSON files meant to be committed.

Only final answers are stored (a record, or "not registered"); a transient
failure never is. Reads accept the seed's own files (``10.0000_demo.1.json``)
as they are; writes use collision-safe names (slug + short hash), sorted keys
and an atomic replace, so a crash never leaves half a file.

Every entry's digest is recorded in the directory's ``MANIFEST.json``
(:mod:`citeaudit.util.manifest`), before the entry is written; an entry whose
bytes are not the ones recorded, or that has no line while there is a manifest,
is ``E_CACHE_CORRUPT`` (could not check), never a verdict. Online, each answer is
written as it arrives, so a process killed mid-fetch keeps what it was told.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from citeaudit.errors import CacheError
from citeaudit.resolve.interface import Author, Record, Resolution, ResolutionStatus, Resolver
from citeaudit.util.atomic import atomic_write
from citeaudit.util.files import UnsafeFile, read_regular_file
from citeaudit.util.manifest import MANIFEST_NAME, Manifest, ManifestError
from citeaudit.util.slugs import hashed_name, slug

__all__ = ["CACHE_SCHEMA", "AnswerStream", "CachingResolver", "DoiCache", "atomic_write", "doi_slug"]

CACHE_SCHEMA = "citeaudit-cache/1"
# The file names and atomic writes moved to citeaudit.util; the old names stay importable here.
doi_slug = slug


def _from_seed_entry(doi: str, data: dict[str, Any]) -> Record:
    """The seed's cache entry: ``{status, title, year, authors: [family…]}``."""
    title, year, authors = data.get("title"), data.get("year"), data.get("authors", [])
    if not isinstance(authors, list) or not all(isinstance(a, str) for a in authors):
        raise ValueError("authors must be a list of strings")
    if year is not None and not isinstance(year, int):
        raise ValueError("year must be an integer")
    if title is not None and not isinstance(title, str):
        raise ValueError("title must be a string")
    return Record(
        doi=doi,
        agency="seed-cache",
        titles=(title,) if title else (),
        years=(("issued", year),) if year is not None else (),
        authors=tuple(
            Author(family=a, sequence="first" if i == 0 else "additional") for i, a in enumerate(authors)
        ),
    )


# An entry holds one record, which came in an answer of at most RetryPolicy.max_answer_bytes; a
# larger file, or one that is not a regular file (a committed link to /dev/zero, a FIFO), is no
# entry of ours: "could not check" (E_CACHE_CORRUPT), read no further.
MAX_ENTRY_BYTES = 32 * 1024 * 1024
MAX_AGENCY_BYTES = 64 * 1024


class DoiCache:
    """Reads and writes cache entries under one directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.manifest = Manifest(root)

    def path_for(self, doi: str) -> Path:
        return self.root / hashed_name(doi, ".json")

    def _legacy_path(self, doi: str) -> Path | None:
        slug = doi_slug(doi)
        return self.root / f"{slug}.json" if len(slug) <= 200 else None

    def dois(self) -> list[str]:
        """Every DOI the cache holds an entry for (the seed's files as well as ours)."""
        found = set()
        for path in sorted(self.root.glob("*.json")):
            if path.name == MANIFEST_NAME:
                continue
            try:
                data = json.loads(read_regular_file(path, MAX_ENTRY_BYTES).decode("utf-8"))
            except (OSError, ValueError, UnsafeFile):
                continue
            if isinstance(data, dict) and isinstance(data.get("doi"), str):
                found.add(data["doi"])
            elif isinstance(data, dict) and "status" in data:
                found.add(path.stem.replace("_", "/", 1))  # a seed file: the slug is the DOI
        return sorted(found)

    def get(self, doi: str) -> Resolution | None:
        """The cached answer, None on a miss, or "could not check" when corrupt."""
        for path in (self.path_for(doi), self._legacy_path(doi)):
            if path is None:
                continue
            try:
                raw = read_regular_file(path, MAX_ENTRY_BYTES)
                answer = self._decode(doi, json.loads(raw.decode("utf-8")))
                untrusted = self.manifest.problem(path.name, raw)  # well formed; the bytes recorded?
                if untrusted is not None:
                    return Resolution.unavailable(
                        "E_CACHE_CORRUPT", f"cache entry {path.name} was not trusted: {untrusted}"
                    )
                return answer
            except FileNotFoundError:
                continue
            except OSError as e:
                raise CacheError(f"cannot read cache entry {path.name}: {e.strerror}") from None
            except (ValueError, KeyError, TypeError, UnsafeFile) as e:
                return Resolution.unavailable(
                    "E_CACHE_CORRUPT", f"cache entry {path.name} is not valid and was not trusted: {e}"
                )
        return None

    @staticmethod
    def _decode(doi: str, data: Any) -> Resolution:
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        status = data.get("status")
        if data.get("schema") == CACHE_SCHEMA:
            if data.get("doi") != doi:
                raise ValueError(f"entry is for DOI {data.get('doi')!r}")
            if status == "found":
                record = Record.from_json(data["record"])
                if record.doi.lower() != doi.lower():  # written for one DOI, the record of another
                    raise ValueError(f"its record is for DOI {record.doi!r}")
                return Resolution.found(record)
        elif "schema" in data:
            raise ValueError(f"unknown schema {data['schema']!r}")
        elif status == "found":
            return Resolution.found(_from_seed_entry(doi, data))
        if status == "not_found":
            return Resolution.not_found(str(data.get("agency", "")))
        raise ValueError(f"unknown status {status!r}")

    def _agency_path(self, prefix: str) -> Path:
        return self.root / "agencies" / hashed_name(prefix, ".json")

    def get_agency(self, prefix: str) -> str | None:
        """The registration agency of a DOI prefix ("none": no such prefix), if known."""
        path = self._agency_path(prefix)
        try:
            raw = read_regular_file(path, MAX_AGENCY_BYTES)
            if self.manifest.problem(path.relative_to(self.root).as_posix(), raw) is not None:
                return None  # not trusted: a fresh lookup replaces it
            data = json.loads(raw.decode("utf-8"))
        except (OSError, ValueError, UnsafeFile):
            return None  # a miss, or a broken entry that a fresh lookup replaces
        agency = data.get("agency") if isinstance(data, dict) and data.get("prefix") == prefix else None
        return agency if isinstance(agency, str) else None

    def put_agency(self, prefix: str, agency: str) -> None:
        entry = {"agency": agency, "prefix": prefix, "schema": CACHE_SCHEMA}
        data = json.dumps(entry, sort_keys=True, indent=2) + "\n"
        try:
            self._write(self._agency_path(prefix), data.encode("utf-8"))
        except OSError as e:
            raise CacheError(f"cannot write cache entry for prefix {prefix}: {e.strerror}") from None

    def _write(self, path: Path, data: bytes) -> None:
        """The entry's line in the manifest first, then the entry (see util/manifest.py)."""
        try:
            self.manifest.record({path.relative_to(self.root).as_posix(): data})
        except ManifestError as e:
            raise CacheError(f"cannot record {path.name} in the cache's manifest: {e}") from None
        atomic_write(path, data)

    def put(self, doi: str, resolution: Resolution) -> None:
        """Store a final answer; refuses anything that is not one."""
        self.put_many({doi: resolution})

    def put_many(self, answers: dict[str, Resolution]) -> None:
        """Store final answers: their lines in the manifest in one update, then each entry."""
        entries: dict[str, tuple[Path, bytes]] = {}
        for doi, resolution in answers.items():
            if resolution.status is ResolutionStatus.UNAVAILABLE:
                raise CacheError(f"refusing to cache a transient failure for {doi}")
            if resolution.record is not None and resolution.record.doi.lower() != doi.lower():
                raise CacheError(f"refusing to cache the record of {resolution.record.doi} for {doi}")
            entry: dict[str, Any] = {"doi": doi, "schema": CACHE_SCHEMA, "status": resolution.status.value}
            if resolution.agency:
                entry["agency"] = resolution.agency
            if resolution.record is not None:
                entry["record"] = resolution.record.to_json()
            text = json.dumps(entry, ensure_ascii=False, sort_keys=True, indent=2) + "\n"
            entries[doi] = (self.path_for(doi), text.encode("utf-8"))
        if not entries:
            return
        try:
            self.manifest.record({path.name: body for path, body in entries.values()})
        except ManifestError as e:
            raise CacheError(f"cannot record the cache's entries in its manifest: {e}") from None
        for doi, (path, body) in entries.items():
            try:
                atomic_write(path, body)
            except OSError as e:
                raise CacheError(f"cannot write cache entry for {doi}: {e.strerror}") from None


@runtime_checkable
class AnswerStream(Protocol):
    """An upstream resolver that hands each answer over as it arrives (the registries do)."""

    def resolve_each(
        self, dois: list[str], keep: Callable[[dict[str, Resolution]], None]
    ) -> dict[str, Resolution]: ...


class CachingResolver(Resolver):
    """Cache first; the upstream resolver only for misses. With no upstream
    (``--offline``) a miss is "could not check" and no socket is opened."""

    def __init__(self, cache: DoiCache, upstream: Resolver | None = None) -> None:
        self.cache = cache
        self.upstream = upstream

    def resolve_many(self, dois: list[str]) -> dict[str, Resolution]:
        answers: dict[str, Resolution] = {}
        misses: list[str] = []
        for doi in dict.fromkeys(dois):
            hit = self.cache.get(doi)
            if hit is None:
                misses.append(doi)
            else:
                answers[doi] = hit
        if not misses:
            return answers
        if self.upstream is None:
            for doi in misses:
                answers[doi] = Resolution.unavailable(
                    "E_NOT_CACHED",
                    "offline and not in the cache: run `citeaudit fetch` on this input online (same --cache) "
                    "to pin the registry's answer",
                )
            return answers
        kept: set[str] = set()
        wanted = set(misses)

        def keep(arrived: dict[str, Resolution]) -> None:
            """Written as they arrive: a process killed mid-fetch keeps every answer it had."""
            new = {d: a for d, a in arrived.items() if d in wanted and d not in kept}
            kept.update(new)
            self.cache.put_many(
                {d: a for d, a in new.items() if a.status is not ResolutionStatus.UNAVAILABLE}
            )

        if isinstance(self.upstream, AnswerStream):
            fetched = self.upstream.resolve_each(misses, keep)
        else:
            fetched = self.upstream.resolve_many(misses)
        keep({doi: fetched[doi] for doi in misses})
        answers.update((doi, fetched[doi]) for doi in misses)
        return answers
