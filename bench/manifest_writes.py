"""Benchmark: the cost of writing one cache entry as the cache grows, since every write records
its line in ``MANIFEST.json`` first (util/manifest.py) and so rewrites the whole manifest.

For caches of 200, 20,000 and 100,000 entries, ``DoiCache.put`` of new entries (the manifest's
line, then the entry, both atomic and fsynced) with the current manifest and, as the baseline in
the same run on identical directories, the manifest as it was: parsed again with the standard
library's ``json`` before every write and written by ``json.dumps(indent=2)``. The baseline's two
methods are kept here, verbatim, only to be measured; the bytes both write are compared.
"""

from __future__ import annotations

import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from citeaudit.resolve.cache import DoiCache
from citeaudit.resolve.interface import Resolution
from citeaudit.util.atomic import atomic_write
from citeaudit.util.files import UnsafeFile, read_regular_file
from citeaudit.util.manifest import (
    MANIFEST_NAME,
    MANIFEST_SCHEMA,
    MAX_MANIFEST_BYTES,
    Manifest,
    ManifestError,
    digest,
    encode,
)


def _old_decode(raw: bytes) -> dict[str, str]:
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise ManifestError(f"{MANIFEST_NAME} is not valid JSON ({e})") from None
    if not isinstance(data, dict) or data.get("schema") != MANIFEST_SCHEMA:
        raise ManifestError(f"{MANIFEST_NAME} is not a {MANIFEST_SCHEMA} manifest")
    files = data.get("files")
    if not isinstance(files, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and v.startswith("sha256:") for k, v in files.items()
    ):
        raise ManifestError(f"{MANIFEST_NAME}: files is not a table of paths to sha256 digests")
    return dict(files)


def _old_encode(files: dict[str, str]) -> bytes:
    body = {"files": dict(sorted(files.items())), "schema": MANIFEST_SCHEMA}
    return (json.dumps(body, ensure_ascii=False, sort_keys=True, indent=2) + "\n").encode("utf-8")


class _RewriteWithJson(Manifest):
    """The manifest before: read and parsed again under the lock before every write."""

    def _read_for_update(self) -> dict[str, str] | None:
        try:
            raw = read_regular_file(self.path, MAX_MANIFEST_BYTES)
        except FileNotFoundError:
            return None
        except UnsafeFile as e:
            raise ManifestError(f"{MANIFEST_NAME} is not read: {e}") from None
        return _old_decode(raw)

    def _write(self, files: dict[str, str]) -> None:
        atomic_write(self.path, _old_encode(files))
        self._files, self._error, self._loaded = dict(files), None, True
        self._signature = self._current_signature()


def _cache_of(root: Path, size: int) -> None:
    """A cache directory whose manifest has ``size`` lines (the entries' bytes are not read here)."""
    root.mkdir(parents=True)
    files = {f"10.5555_bench.{i:07d}.json": digest(f"entry {i}".encode()) for i in range(size)}
    (root / MANIFEST_NAME).write_bytes(encode(files))


def _puts(root: Path, writes: int, baseline: bool) -> list[float]:
    cache = DoiCache(root)
    if baseline:
        cache.manifest = _RewriteWithJson(root)
    seconds = []
    for i in range(writes):
        started = time.perf_counter()
        cache.put(f"10.5555/new.{i}", Resolution.not_found("crossref"))
        seconds.append(time.perf_counter() - started)
    return seconds


def run(quick: bool = False) -> dict[str, Any]:
    sizes = (200, 2_000, 10_000) if quick else (200, 20_000, 100_000)
    writes = 5 if quick else 20
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            row: dict[str, Any] = {"entries": size, "writes": writes}
            written = {}
            for name, baseline in (("baseline", True), ("current", False)):
                root = Path(tmp) / f"{name}-{size}"
                _cache_of(root, size)
                seconds = _puts(root, writes, baseline)
                row[name] = {"median_ms": statistics.median(seconds) * 1e3, "max_ms": max(seconds) * 1e3}
                written[name] = (root / MANIFEST_NAME).read_bytes()
                shutil.rmtree(root)
            row["same_bytes"] = written["baseline"] == written["current"]
            row["manifest_bytes"] = len(written["current"])
            row["speedup"] = row["baseline"]["median_ms"] / row["current"]["median_ms"]
            rows.append(row)
    return {"rows": rows}


def markdown(r: dict[str, Any]) -> str:
    lines = [
        "`DoiCache.put` of one new entry into a cache whose manifest already has N lines: its line "
        "recorded in `MANIFEST.json` (the whole file rewritten, atomic and fsynced), then the entry. "
        "Baseline in the same run: the manifest parsed again before every write and written with the "
        "standard library's `json`. Median and worst of the writes; `same bytes`: both wrote the "
        "same manifest.",
        "",
        "| entries | manifest (MB) | writes | baseline median (ms) | current median (ms) | current worst (ms) "
        "| speed-up | same bytes |",
        "|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for row in r["rows"]:
        lines.append(
            f"| {row['entries']:,} | {row['manifest_bytes'] / 1e6:.2f} | {row['writes']} "
            f"| {row['baseline']['median_ms']:.1f} | {row['current']['median_ms']:.1f} "
            f"| {row['current']['max_ms']:.1f} | {row['speedup']:.1f}× | {'yes' if row['same_bytes'] else 'NO'} |"
        )
    return "\n".join(lines)
