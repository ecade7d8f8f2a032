"""Reading untrusted JSON: bounded size and nesting, strict UTF-8, no
duplicate keys, no NaN. Every failure is an :class:`InputError` that names
the file, the JSON path and the problem.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, BinaryIO

from citeaudit.errors import InputError

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_DEPTH",
    "json_path",
    "load_json_bytes",
    "read_input",
    "read_stream",
]

DEFAULT_MAX_BYTES = 32 * 1024 * 1024
DEFAULT_MAX_DEPTH = 32


def json_path(parts: Sequence[str | int]) -> str:
    """``("claims", 1, "year")`` → ``$.claims[1].year``. A key with a character that is not
    printable (a line break, U+2028, a control) is written as a JSON string in brackets,
    ``$.claims[0]["a\\nb"]``, so that a message naming the path stays one line."""
    out = "$"
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            out += f".{p}" if p.isprintable() else f"[{json.dumps(p)}]"
    return out


# How long a FIFO nobody writes to is waited for before it is refused (a writer that opens it just
# after us gets this long to do so; a pipe that has a writer is then read as long as it writes).
FIFO_WRITER_WAIT = 1.0


def _read_fd(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = os.read(fd, min(1 << 20, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _read_fifo(fd: int, limit: int, wait: float) -> bytes | None:
    """A FIFO's bytes; None when no writer comes within ``wait`` seconds. A blocking read of a FIFO
    with no writer ends at once (end of file); one with a writer waits for what it writes."""
    data = _read_fd(fd, limit)
    deadline = time.monotonic() + wait
    while not data and time.monotonic() < deadline:  # a writer may be opening it right now
        time.sleep(0.02)
        data = _read_fd(fd, limit)
    return data or None


def read_input(path: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """Read a file, refusing it before reading when it is over the bound. A pipe (``<(…)``, a FIFO
    that is written to) is read to the bound; a FIFO that nobody writes to is refused, not waited
    for: it is opened without blocking, and refused when no writer comes within a second."""
    name = str(path)
    try:
        st = path.stat()
        if stat.S_ISDIR(st.st_mode):
            raise InputError(name, "", "is a directory, not a file")
        if not (stat.S_ISREG(st.st_mode) or stat.S_ISFIFO(st.st_mode)):  # a pipe is read to the bound
            raise InputError(name, "", "not a regular file (a device or a socket)")
        if st.st_size > max_bytes:
            raise InputError(name, "", f"input is {st.st_size} bytes, over the limit of {max_bytes}")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        try:
            opened = os.fstat(fd)
            if not (stat.S_ISREG(opened.st_mode) or stat.S_ISFIFO(opened.st_mode)):  # swapped since
                raise InputError(name, "", "not a regular file (a device or a socket)")
            if stat.S_ISFIFO(opened.st_mode):
                os.set_blocking(fd, True)  # a pipe with a writer is read as long as it writes
                fifo = _read_fifo(fd, max_bytes, FIFO_WRITER_WAIT)
                if fifo is None:
                    raise InputError(
                        name, "", "is a FIFO that nothing writes to (not read: it would wait forever)"
                    )
                data = fifo
            else:
                data = _read_fd(fd, max_bytes)
        finally:
            os.close(fd)
    except FileNotFoundError:
        raise InputError(name, "", "no such file") from None
    except IsADirectoryError:
        raise InputError(name, "", "is a directory, not a file") from None
    except PermissionError:
        raise InputError(name, "", "permission denied") from None
    except OSError as e:  # /proc/self/mem: EIO
        raise InputError(name, "", f"cannot read: {e.strerror}") from None
    if len(data) > max_bytes:
        raise InputError(name, "", f"input is over the limit of {max_bytes} bytes")
    return data


def read_stream(stream: BinaryIO, name: str, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """Read a stream (standard input) to its end, refusing it once it passes the bound."""
    data = stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise InputError(name, "", f"input is over the limit of {max_bytes} bytes")
    return data


class _DuplicateKeys(dict[str, Any]):
    """Stands in for an object that repeated a key, so its path can be found."""

    def __init__(self, key: str, pairs: list[tuple[str, Any]]) -> None:
        super().__init__(pairs)
        self.duplicate = key


def _object_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    document = dict(pairs)
    if len(document) == len(pairs):  # no key repeated: decided in C, no loop here
        return document
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            return _DuplicateKeys(key, pairs)
        seen.add(key)
    raise AssertionError("unreachable: fewer keys than pairs means one repeats")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _walk(document: Any, max_depth: int) -> tuple[list[str | int], str] | None:
    """Find the first over-deep value or repeated key, iteratively."""
    stack: list[tuple[Any, list[str | int]]] = [(document, [])]
    while stack:
        value, path = stack.pop()
        if len(path) > max_depth:
            return path, f"nesting deeper than {max_depth} levels"
        if isinstance(value, _DuplicateKeys):
            return path, f"duplicate key {value.duplicate!r} in one object"
        if isinstance(value, dict):
            for key in reversed(list(value)):
                stack.append((value[key], [*path, key]))
        elif isinstance(value, list):
            for i in range(len(value) - 1, -1, -1):
                stack.append((value[i], [*path, i]))
    return None


def _too_deep_or_repeated(document: Any, max_depth: int) -> bool:
    """Fast pass over containers only; paths are found by _walk when needed."""
    stack: list[tuple[Any, int]] = [(document, 0)]
    while stack:
        value, depth = stack.pop()
        if depth > max_depth or isinstance(value, _DuplicateKeys):
            return True
        children = value.values() if isinstance(value, dict) else value
        if children and depth + 1 > max_depth:
            return True
        for child in children:
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1))
    return False


_DIGITS_RE = re.compile(r"-?[0-9]+")


def _long_number(text: str) -> tuple[str, str]:
    """The message for an integer too long to read (Python's own names its setting)."""
    limit = sys.get_int_max_str_digits()
    for m in _DIGITS_RE.finditer(text):
        if len(m.group().lstrip("-")) <= limit:
            continue
        # A number follows [ , : or nothing; the digits of a string do not.
        if text[: m.start()].rstrip()[-1:] in ("", "[", ",", ":"):
            line = text.count("\n", 0, m.start()) + 1
            column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
            return "", f"invalid JSON at line {line} column {column}: a number with more than {limit} digits"
    return "", f"invalid JSON: a number with more than {limit} digits"


def load_json_bytes(data: bytes, name: str, max_depth: int = DEFAULT_MAX_DEPTH) -> Any:
    """Parse JSON bytes with the rules above."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(
            name, "", f"not valid UTF-8: byte 0x{data[e.start]:02x} at offset {e.start}"
        ) from None
    try:
        document = json.loads(text, object_pairs_hook=_object_hook, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        raise InputError(name, "", f"invalid JSON at line {e.lineno} column {e.colno}: {e.msg}") from None
    except RecursionError:
        raise InputError(name, "", f"nesting deeper than {max_depth} levels") from None
    except ValueError as e:  # NaN/Infinity, integers too long to convert
        if "integer string conversion" in str(e):
            raise InputError(name, *_long_number(text)) from None
        raise InputError(name, "", f"invalid JSON: {e}") from None
    problem = None
    if isinstance(document, (dict, list)) and _too_deep_or_repeated(document, max_depth):
        problem = _walk(document, max_depth)
    if problem is not None:
        path, message = problem
        raise InputError(name, json_path(path), message)
    return document
