"""Reading batch inputs as a stream of records: JSONL lines and Parquet rows.

Nothing here parses an answer: a record is the untrusted bytes of one line (or
the values of one row) with where it came from. Inputs are read once to be
fingerprinted (SHA-256, size, a count of lines or rows) and again, lazily, to
be audited; no list of records is ever built.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citeaudit.errors import ConfigError

__all__ = ["InputFile", "Record", "fingerprint", "is_parquet", "read_records"]

_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class Record:
    """One answer as read: a JSONL line without its line end, or a Parquet row's values.

    ``oversize`` is the size of a line that was over the input limit (its bytes were skipped);
    ``row`` holds ``(id, answer, labels)`` of a Parquet row as pyarrow gives them."""

    source: str
    number: int  # 1-based line of a JSONL file, 1-based row of a Parquet file
    line: bytes = b""
    row: tuple[Any, Any, Any] | None = None
    oversize: int = 0


@dataclass(frozen=True, slots=True)
class InputFile:
    """What a run records of an input: its name as given, size, digest and count of lines or rows."""

    name: str
    size: int
    sha256: str
    lines: int

    def to_json(self) -> dict[str, Any]:
        return {"lines": self.lines, "name": self.name, "sha256": self.sha256, "size": self.size}


def is_parquet(path: Path) -> bool:
    return path.suffix.lower() in (".parquet", ".pq")


def _pyarrow_parquet() -> Any:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ConfigError("Parquet input needs pyarrow: pip install 'citeaudit[parquet]'") from None
    return pq


def fingerprint(path: Path) -> InputFile:
    """Digest and count in one pass over the bytes (for Parquet, rows from the footer)."""
    digest = hashlib.sha256()
    size = lines = 0
    last = b"\n"
    try:
        with path.open("rb") as fh:
            while chunk := fh.read(_CHUNK):
                digest.update(chunk)
                size += len(chunk)
                lines += chunk.count(b"\n")
                last = chunk[-1:]
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such input file") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a directory, not an input file") from None
    except PermissionError:
        raise ConfigError(f"{path}: permission denied") from None
    if last != b"\n":
        lines += 1
    if is_parquet(path):
        pq = _pyarrow_parquet()
        try:
            lines = pq.ParquetFile(path).metadata.num_rows
        except Exception as e:  # pyarrow raises its own types for a damaged file
            raise ConfigError(f"{path}: not a readable Parquet file: {e}") from None
    return InputFile(str(path), size, digest.hexdigest(), lines)


def _jsonl(path: Path, max_bytes: int) -> Iterator[Record]:
    name = str(path)
    limit = max_bytes + 2  # the line, and its \r\n
    with path.open("rb") as fh:
        number = 0
        while True:
            raw = fh.readline(limit)
            if not raw:
                return
            number += 1
            if len(raw) == limit and not raw.endswith(b"\n"):
                # Over the bound: skip to the line end, counting, never holding the line.
                size = len(raw)
                while raw and not raw.endswith(b"\n"):
                    raw = fh.readline(_CHUNK)
                    size += len(raw)
                size -= len(raw) - len(raw.removesuffix(b"\n").removesuffix(b"\r"))
                yield Record(name, number, oversize=size)
                continue
            line = raw.removesuffix(b"\n").removesuffix(b"\r")
            if line.strip():
                yield Record(name, number, line=line)


_PARQUET_COLUMNS = ("id", "answer", "labels")


def _parquet(path: Path) -> Iterator[Record]:
    pq = _pyarrow_parquet()
    name = str(path)
    try:
        file = pq.ParquetFile(path)
    except Exception as e:
        raise ConfigError(f"{path}: not a readable Parquet file: {e}") from None
    columns = set(file.schema_arrow.names)
    if "answer" not in columns:
        raise ConfigError(f"{path}: a Parquet input needs an 'answer' column (and optionally 'id', 'labels')")
    unknown = sorted(columns - set(_PARQUET_COLUMNS))
    if unknown:
        raise ConfigError(f"{path}: unknown Parquet column {unknown[0]!r} (expected id, answer, labels)")
    present = [c for c in _PARQUET_COLUMNS if c in columns]
    number = 0
    for batch in file.iter_batches(batch_size=256, columns=present):
        values = {c: batch.column(c).to_pylist() for c in present}
        for i in range(batch.num_rows):
            number += 1
            row = tuple(values[c][i] if c in values else None for c in _PARQUET_COLUMNS)
            yield Record(name, number, row=(row[0], row[1], row[2]))


def read_records(paths: Sequence[Path], max_bytes: int) -> Iterator[Record]:
    """Every record of every input, in input order."""
    for path in paths:
        yield from (_parquet(path) if is_parquet(path) else _jsonl(path, max_bytes))
