"""The recorded digests of a cache or snapshot directory, as a lock file records its packages:
``MANIFEST.json`` in the directory, one line per entry (its path under the directory and the
SHA-256 of its bytes), sorted, no time in it, written atomically.

A committed cache is what CI trusts, and a pull request can change any byte of it. An entry is
trusted only when its bytes are the bytes its line records; an entry with no line, or whose bytes
differ, is "could not check" (``E_CACHE_CORRUPT``), never a verdict. A directory with no manifest
at all is read as before manifests existed (old caches keep working); ``citeaudit cache manifest``
records one for it, and the first entry written into it records one too, taking in the entries
already there as they are.

A manifest cannot tell a pull request that changed an entry *and* its line from one that did not:
``citeaudit cache verify`` (online) re-resolves the entries, and the GitHub Action names the cache
files a pull request changes.

Writers record an entry's line *before* they write the entry (under an exclusive ``flock`` of the
directory, re-reading the manifest, so two processes never lose each other's lines; a writer
parses it again only when its bytes are not those it wrote last). A writer killed
between the two leaves a line whose file is missing (a cache miss: the next ``fetch`` asks again) or,
when it was replacing an entry, an entry that its line refuses (``E_CACHE_CORRUPT`` until the entry is
written again or ``citeaudit cache manifest`` is run) — never an entry trusted that nobody recorded.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from citeaudit.util.atomic import atomic_write
from citeaudit.util.files import UnsafeFile, read_regular_file

try:
    import fcntl
except ImportError:  # not on every platform: writers in one process only
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "MANIFEST_NAME",
    "MANIFEST_SCHEMA",
    "Manifest",
    "ManifestError",
    "Survey",
    "digest",
    "encode",
    "entry_paths",
    "survey",
]

MANIFEST_NAME = "MANIFEST.json"
MANIFEST_SCHEMA = "citeaudit-manifest/1"
# A line is about 100 bytes: a million entries fit.
MAX_MANIFEST_BYTES = 256 * 1024 * 1024
# The largest entry a survey reads to digest it (a snapshot's default bound).
MAX_SURVEYED_BYTES = 256 * 1024 * 1024

# The files a cache or snapshot directory holds as entries (a directory may serve as both):
# registry answers and the seed's files (*.json), agencies, pinned searches, snapshots (*.txt),
# page pins (*.pin.json, *.pin.txt). Hidden files (.limits/, a writer's .tmp-*.partial), the
# verdict cache of the judges (verdicts/) and the manifest itself are not entries.
_PATTERNS = ("*.json", "*.txt", "agencies/*.json", "searches/*/*.json")


class ManifestError(Exception):
    """The manifest cannot be read or written: the message says why (no entry is trusted)."""


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def entry_paths(root: Path) -> list[str]:
    """The entries under ``root`` (paths relative to it, ``/``-separated), sorted; links and other
    files that are not regular are listed too: a survey refuses them by name."""
    found: set[str] = set()
    if not root.is_dir():
        return []
    for pattern in _PATTERNS:
        for path in root.glob(pattern):
            relative = path.relative_to(root).as_posix()
            if relative == MANIFEST_NAME or any(part.startswith(".") for part in relative.split("/")):
                continue
            if path.is_symlink() or not path.is_dir():
                found.add(relative)
    return sorted(found)


@dataclass
class Survey:
    """What a directory holds against its manifest."""

    files: dict[str, str] = field(default_factory=dict)  # relative path → digest, of every entry read
    refused: dict[str, str] = field(default_factory=dict)  # relative path → why it was not read


def survey(root: Path) -> Survey:
    """The digest of every entry under ``root``, each read as a bounded regular file."""
    out = Survey()
    for relative in entry_paths(root):
        try:
            out.files[relative] = digest(read_regular_file(root / relative, MAX_SURVEYED_BYTES))
        except UnsafeFile as e:
            out.refused[relative] = str(e)
        except FileNotFoundError:
            continue  # removed while we looked
        except OSError as e:
            out.refused[relative] = f"it cannot be read ({e.strerror})"
    return out


_Signature = tuple[int, int, int, int]


def _decode(raw: bytes) -> dict[str, str]:
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        raise ManifestError(f"{MANIFEST_NAME} is not valid JSON ({e})") from None
    if not isinstance(data, dict) or data.get("schema") != MANIFEST_SCHEMA:
        raise ManifestError(f"{MANIFEST_NAME} is not a {MANIFEST_SCHEMA} manifest")
    files = data.get("files")
    if not isinstance(files, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and v.startswith("sha256:") for k, v in files.items()
    ):
        raise ManifestError(f"{MANIFEST_NAME}: files is not a table of paths to sha256 digests")
    return dict(files)


def encode(files: Mapping[str, str]) -> bytes:
    """The manifest's bytes: sorted keys, one line per entry, no time; the bytes of
    ``json.dumps(…, ensure_ascii=False, sort_keys=True, indent=2)``, written by orjson, since a
    writer writes them once per entry it records (with the re-read it skips, a write into a cache of
    100,000 entries takes a third of the time it did: bench/RESULTS.md, "Cache writes")."""
    body = {"files": dict(sorted(files.items())), "schema": MANIFEST_SCHEMA}  # keys in order already
    return orjson.dumps(body, option=orjson.OPT_INDENT_2) + b"\n"


class Manifest:
    """The manifest of one directory: checks entries read, records entries written."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.path = root / MANIFEST_NAME
        self._signature: _Signature | None = None
        self._files: dict[str, str] | None = None  # None: there is no manifest
        self._error: str | None = None  # the manifest is there but cannot be read
        self._loaded = False
        self._written: tuple[bytes, dict[str, str]] | None = None  # what this object last wrote

    # -- reading ---------------------------------------------------------------------

    def _current_signature(self) -> _Signature | None:
        try:
            st = os.lstat(self.path)
        except FileNotFoundError:
            return None
        except OSError as e:
            return (-1, e.errno or 0, 0, 0)
        return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)

    def _refresh(self) -> None:
        """Read the manifest again when the file changed since it was read (a cheap lstat)."""
        signature = self._current_signature()
        if self._loaded and signature == self._signature:
            return
        self._signature, self._loaded = signature, True
        self._files, self._error = None, None
        if signature is None:
            return
        try:
            self._files = _decode(read_regular_file(self.path, MAX_MANIFEST_BYTES))
        except FileNotFoundError:
            self._signature = None
        except UnsafeFile as e:
            self._error = f"{MANIFEST_NAME} is not read: {e}"
        except OSError as e:
            self._error = f"{MANIFEST_NAME} cannot be read ({e.strerror})"
        except ManifestError as e:
            self._error = str(e)

    def exists(self) -> bool:
        self._refresh()
        return self._files is not None or self._error is not None

    def files(self) -> dict[str, str]:
        """The recorded lines; ManifestError when the manifest cannot be read; {} when there is none."""
        self._refresh()
        if self._error is not None:
            raise ManifestError(self._error)
        return dict(self._files or {})

    def problem(self, relative: str, data: bytes) -> str | None:
        """None when the bytes of the entry at ``relative`` may be trusted, else why not."""
        self._refresh()
        if self._error is not None:
            return f"{self._error}, so no entry of {self.root.name}/ is trusted"
        if self._files is None:
            return None  # no manifest: read as before manifests existed
        want = self._files.get(relative)
        if want is None:
            return f"{MANIFEST_NAME} records no digest for {relative}"
        have = digest(data)
        if have != want:
            return f"its bytes ({have[:19]}…) are not those {MANIFEST_NAME} records ({want[:19]}…)"
        return None

    # -- writing ---------------------------------------------------------------------

    @contextmanager
    def _locked(self) -> Iterator[None]:
        self.root.mkdir(parents=True, exist_ok=True)
        if fcntl is None:
            yield
            return
        fd = os.open(self.root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # releases the lock

    def _read_for_update(self) -> dict[str, str] | None:
        try:
            raw = read_regular_file(self.path, MAX_MANIFEST_BYTES)
        except FileNotFoundError:
            return None
        except UnsafeFile as e:
            raise ManifestError(f"{MANIFEST_NAME} is not read: {e}") from None
        except OSError as e:
            raise ManifestError(f"{MANIFEST_NAME} cannot be read ({e.strerror})") from None
        if self._written is not None and raw == self._written[0]:
            return dict(self._written[1])  # nobody wrote since: no need to parse it again
        return _decode(raw)

    def record(self, entries: Mapping[str, bytes | None]) -> None:
        """Record the digests of entries about to be written (None: an entry about to be removed).
        With no manifest yet, one is made that takes in every entry already there. A manifest that
        cannot be read is not written over (ManifestError): ``citeaudit cache manifest`` rebuilds it."""
        if not entries:
            return
        with self._locked():
            files = self._read_for_update()
            if files is None:
                files = survey(self.root).files
            for relative, data in entries.items():
                if data is None:
                    files.pop(relative, None)
                else:
                    files[relative] = digest(data)
            self._write(files)

    def rebuild(self) -> Survey:
        """Record every entry as it is now (``citeaudit cache manifest``); what could not be read is
        left out, so that it stays untrusted."""
        with self._locked():
            found = survey(self.root)
            self._write(found.files)
        return found

    def _write(self, files: dict[str, str]) -> None:
        data = encode(files)
        try:
            atomic_write(self.path, data)
        except OSError as e:
            raise ManifestError(f"cannot write {self.path}: {e.strerror}") from None
        kept = dict(files)  # neither copy is changed in place: files() and record() take copies
        self._written = (data, kept)
        self._files, self._error, self._loaded = kept, None, True
        self._signature = self._current_signature()
