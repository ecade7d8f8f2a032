"""Reading a file that someone else may have put there (a committed cache, a pull request's pins):
only a regular file, never more than a bound, and never a wait. The file is opened without
blocking (a FIFO with no writer opens at once) and, unless links are allowed, without following a
symbolic link; its type and size are then taken from the open file itself, so nothing can be
swapped in between the check and the read. A link to /dev/zero, a FIFO or a 2 GB sparse file is
refused before a byte of it is read."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

__all__ = ["UnsafeFile", "read_regular_file"]

_STEP = 1024 * 1024


class UnsafeFile(Exception):
    """Not a regular file, or over its bound: the message says which (no file name in it)."""


def read_regular_file(path: Path, limit: int, *, follow_links: bool = False) -> bytes:
    """The bytes of ``path``, at most ``limit`` of them. FileNotFoundError on a miss, OSError when it
    cannot be read, UnsafeFile when it is a link (unless ``follow_links``), not a regular file, or
    over ``limit``."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow_links:
        flags |= os.O_NOFOLLOW
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if e.errno == errno.ELOOP and not follow_links:
            raise UnsafeFile("it is a symbolic link, not a regular file") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeFile("it is not a regular file (a FIFO, a device, a socket or a directory)")
        if st.st_size > limit:
            raise UnsafeFile(f"it is {st.st_size} bytes, over the limit of {limit}")
        chunks: list[bytes] = []
        size = 0
        while size <= limit:  # the size may have grown since fstat: the bound holds while reading
            chunk = os.read(fd, min(_STEP, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise UnsafeFile(f"it is over the limit of {limit} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)
