"""The registry cache: a directory of JSON files meant to be committed.

Only final answers are stored (a record, or "not registered"); a transient
failure never is. Reads accept the seed's own files (``10.0000_demo.1.json``)
as they are; writes use collision-safe names (slug + short hash), sorted keys
and an atomic replace, so a crash never leaves half a file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from citeaudit.errors import CacheError
from citeaudit.resolve.interface import Author, Record, Resolution, ResolutionStatus, Resolver
from citeaudit.util.atomic import atomic_write
from citeaudit.util.files import UnsafeFile, read_regular_file
from citeaudit.util.slugs import hashed_name, slug

__all__ = ["CACHE_SCHEMA", "CachingResolver", "DoiCache", "atomic_write", "doi_slug"]

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

    def path_for(self, doi: str) -> Path:
        return self.root / hashed_name(doi, ".json")

    def _legacy_path(self, doi: str) -> Path | None:
        slug = doi_slug(doi)
        return self.root / f"{slug}.json" if len(slug) <= 200 else None

    def dois(self) -> list[str]:
        """Every DOI the cache holds an entry for (the seed's files as well as ours)."""
        found = set()
        for path in sorted(self.root.glob("*.json")):
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
                return self._decode(doi, json.loads(raw.decode("utf-8")))
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
        try:
            data = json.loads(read_regular_file(self._agency_path(prefix), MAX_AGENCY_BYTES).decode("utf-8"))
        except (OSError, ValueError, UnsafeFile):
            return None  # a miss, or a broken entry that a fresh lookup replaces
        agency = data.get("agency") if isinstance(data, dict) and data.get("prefix") == prefix else None
        return agency if isinstance(agency, str) else None

    def put_agency(self, prefix: str, agency: str) -> None:
        entry = {"agency": agency, "prefix": prefix, "schema": CACHE_SCHEMA}
        data = json.dumps(entry, sort_keys=True, indent=2) + "\n"
        try:
            atomic_write(self._agency_path(prefix), data.encode("utf-8"))
        except OSError as e:
            raise CacheError(f"cannot write cache entry for prefix {prefix}: {e.strerror}") from None

    def put(self, doi: str, resolution: Resolution) -> None:
        """Store a final answer; refuses anything that is not one."""
        if resolution.status is ResolutionStatus.UNAVAILABLE:
            raise CacheError(f"refusing to cache a transient failure for {doi}")
        if resolution.record is not None and resolution.record.doi.lower() != doi.lower():
            raise CacheError(f"refusing to cache the record of {resolution.record.doi} for {doi}")
        entry: dict[str, Any] = {"doi": doi, "schema": CACHE_SCHEMA, "status": resolution.status.value}
        if resolution.agency:
            entry["agency"] = resolution.agency
        if resolution.record is not None:
            entry["record"] = resolution.record.to_json()
        data = json.dumps(entry, ensure_ascii=False, sort_keys=True, indent=2) + "\n"
        try:
            atomic_write(self.path_for(doi), data.encode("utf-8"))
        except OSError as e:
            raise CacheError(f"cannot write cache entry for {doi}: {e.strerror}") from None


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
                answers[doi] = Resolution.unavailable("E_NOT_CACHED", "offline and not in the cache")
            return answers
        fetched = self.upstream.resolve_many(misses)
        for doi in misses:
            answer = fetched[doi]
            if answer.status is not ResolutionStatus.UNAVAILABLE:
                self.cache.put(doi, answer)
            answers[doi] = answer
        return answers
