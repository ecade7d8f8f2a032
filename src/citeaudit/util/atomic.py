"""Writing files.

:func:`atomic_write` is for the files citeaudit keeps (cache entries, snapshots, pins): a temporary
file beside the target, fsync, a rename over the target and an fsync of the directory, so a reader
sees the old file or the new one, never half of one. The new file gets the permissions the umask
gives (0644 under 022), or those of the file it replaces — not the 0600 of ``mkstemp``: a cache
committed by one user must be readable by another.

The temporary file is ``.tmp-<random>.partial``: no reader opens it (readers open a target by its
name) and no glob of the cache (``*.json``) or the snapshots (``*.txt``) matches it. A writer holds
an exclusive ``flock`` on it until the rename; one left behind by a killed process (kill -9) has no
lock holder, and the next writer in that directory removes it.

:func:`write_output` is for the files a person names (``--out``, ``--output``): atomically only
where the target is a regular file or does not exist yet (a symlink is followed and its target
replaced, the link kept); anything else — a FIFO, a terminal, ``/dev/stdout``, ``/proc/self/fd/1``,
``/dev/full``, a process substitution — is opened and written straight through, never replaced (a
FIFO that no reader opens within a second is refused, not waited for).
:func:`check_writable` says beforehand whether a write there can succeed, so that a command with
several outputs writes none when one of them cannot be written.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
import time
from pathlib import Path

try:
    import fcntl
except ImportError:  # not on every platform: no lock, and no removal of others' leftovers
    fcntl = None  # type: ignore[assignment]

__all__ = ["TEMP_PREFIX", "TEMP_SUFFIX", "atomic_write", "check_writable", "output_target", "write_output"]

TEMP_PREFIX = ".tmp-"
TEMP_SUFFIX = ".partial"

# A leftover younger than this is never removed: it may be a writer's between its mkstemp and its
# flock (microseconds apart).
_LEFTOVER_AGE_SECONDS = 1.0

# Directories whose leftovers this process has already looked for (once each: a cache directory
# can hold many thousands of entries).
_SWEPT: set[str] = set()


def current_umask() -> int:
    """The process's umask, read without changing it where the system allows (Linux)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _new_file_mode(path: Path) -> int:
    """The mode of the file being replaced, else what ``open()`` would give a new file."""
    try:
        st = os.stat(path)
    except OSError:
        return 0o666 & ~current_umask()
    if stat.S_ISREG(st.st_mode):
        return stat.S_IMODE(st.st_mode) & 0o777
    return 0o666 & ~current_umask()


def _sweep(directory: Path) -> None:
    """Remove the temporary files of writers that died before their rename."""
    key = str(directory)
    if key in _SWEPT or fcntl is None:
        return
    _SWEPT.add(key)
    try:
        names = [n for n in os.listdir(directory) if n.startswith(TEMP_PREFIX) and n.endswith(TEMP_SUFFIX)]
    except OSError:
        return
    for name in names:
        path = directory / name
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or time.time() - st.st_mtime < _LEFTOVER_AGE_SECONDS:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # a live writer holds it
            path.unlink(missing_ok=True)
        except OSError:
            continue
        finally:
            os.close(fd)


def atomic_write(path: Path, data: bytes) -> None:
    """Write through a temporary file, fsync, then rename over the target."""
    path.parent.mkdir(parents=True, exist_ok=True)
    _sweep(path.parent)
    mode = _new_file_mode(path)
    fd, tmp = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            if fcntl is not None:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX)  # released when the file is closed
            os.fchmod(fh.fileno(), mode)
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
            os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def output_target(path: Path) -> tuple[Path, bool]:
    """Where a write to ``path`` goes, and whether it is written atomically there.

    Symbolic links are followed one hop at a time, so that the link is kept and its target
    replaced; a path that is, or leads through a link into, ``/dev`` or ``/proc`` is written
    straight through (``/dev/stdout`` is a link to ``/proc/self/fd/1``, which may name a regular
    file that the shell has open: replacing it would lose what the shell writes after us)."""
    current = Path(os.path.abspath(path))
    for _ in range(40):
        if current.parts[1:2] in (("dev",), ("proc",)):
            return current, False
        if not current.is_symlink():
            break
        current = Path(os.path.abspath(current.parent / os.readlink(current)))
    else:
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path))
    try:
        st = os.stat(current)
    except FileNotFoundError:
        return current, True
    return current, stat.S_ISREG(st.st_mode)


def _refuse_dangling_link(path: Path, target: Path) -> None:
    """A symbolic link is written through to its target, but the folders a target names are not
    made: a dangling link would otherwise create them wherever it points."""
    if target != Path(os.path.abspath(path)) and not target.parent.is_dir():
        raise OSError(
            errno.ENOENT,
            f"it is a symbolic link to {target}, whose folder {target.parent} does not exist",
            str(path),
        )


def check_writable(path: Path) -> None:
    """Raise the OSError a write to ``path`` would meet, where it can be known without writing."""
    target, atomic = output_target(path)
    _refuse_dangling_link(path, target)
    if target.is_dir():
        raise OSError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    if not atomic:
        if not os.access(target, os.W_OK):
            raise OSError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return
    directory = target.parent
    while not directory.exists():  # atomic_write creates the missing directories
        directory = directory.parent
    if not directory.is_dir():
        raise OSError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(path))
    if os.statvfs(directory).f_flag & os.ST_RDONLY:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
    if not os.access(directory, os.W_OK | os.X_OK):
        raise OSError(errno.EACCES, os.strerror(errno.EACCES), str(path))


# How long a FIFO nobody reads is waited for before it is refused (a reader that opens it just after
# us gets this long to do so).
FIFO_READER_WAIT = 1.0


def _open_straight_through(target: Path) -> int:
    """A descriptor to write ``target`` through, never waiting for a FIFO's reader without bound: a
    FIFO is opened without blocking, and one that no reader opens within a second is refused."""
    flags = os.O_WRONLY | getattr(os, "O_CLOEXEC", 0)
    deadline = time.monotonic() + FIFO_READER_WAIT
    while True:
        try:
            fd = os.open(target, flags | os.O_NONBLOCK)
            break
        except OSError as e:
            if e.errno != errno.ENXIO:  # ENXIO: a FIFO with no reader
                raise
            if time.monotonic() >= deadline:
                raise OSError(
                    errno.ENXIO, "it is a FIFO that nothing reads (not written: it would wait forever)"
                ) from None
            time.sleep(0.01)
    os.set_blocking(fd, True)  # the reader is there: written at its pace
    return fd


def write_output(path: Path, data: bytes) -> None:
    """Write a file a person named: atomically to a regular file, straight through to anything else."""
    target, atomic = output_target(path)
    _refuse_dangling_link(path, target)
    if atomic:
        atomic_write(target, data)
        return
    with os.fdopen(_open_straight_through(target), "wb") as fh:
        fh.write(data)
        fh.flush()
