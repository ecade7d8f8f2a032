"""Rate and concurrency limits shared by every process that uses one cache.

Several ``citeaudit check`` or ``fetch`` runs on one cache directory (parallel CI
jobs, a build system's workers) ask the same registries; each pacing itself
alone would together exceed the registry's limits and draw 429s. Their limiter
state lives beside the cache, in ``<cache>/.limits/`` (ignored by git):

* ``<route>.json`` — the earliest time the next request of that route may start
  and, after a 429, the time until which the route rests; read and written
  under an exclusive ``flock`` on ``<route>.lock``, so each request takes the
  next free start time of one schedule that all the processes share, and
  records when it really started, so that one that wakes late waits again;
* ``<route>.slot<N>`` — one lock file per request that may be in flight at once;
  a request holds one while it runs. The kernel drops the lock of a process
  that dies, so a killed run never holds a slot.

Times are wall-clock seconds (the processes share no other clock). A schedule
further ahead than :data:`MAX_AHEAD` (a clock set back, a stale file) is not
waited for. Where the directory cannot be written, each process keeps its own
limits only.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["MAX_AHEAD", "SharedLimits", "SharedRoute"]

MAX_AHEAD = 120.0  # seconds: a schedule (or a rest) further ahead than this is stale
_GITIGNORE = "# citeaudit's rate-limit state for this cache: not part of it\n*\n"


class SharedRoute:
    """One route's shared schedule and in-flight slots."""

    def __init__(self, root: Path, route: str, wall: Callable[[], float]) -> None:
        self.root = root
        self.route = route
        self.wall = wall

    @contextmanager
    def _locked(self) -> Iterator[dict[str, float]]:
        fd = os.open(self.root / f"{self.route}.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            state = self._read()
            yield state
            data = json.dumps(state, sort_keys=True).encode("ascii")
            with open(self.root / f"{self.route}.json", "wb") as fh:  # under the lock: no rename needed
                fh.write(data)
        finally:
            os.close(fd)  # releases the lock

    def _read(self) -> dict[str, float]:
        try:
            data = json.loads((self.root / f"{self.route}.json").read_bytes())
        except (OSError, ValueError):
            return {}  # no state yet, or a file cut short by a crash: start afresh
        if not isinstance(data, dict):
            return {}
        return {k: float(v) for k, v in data.items() if isinstance(v, (int, float))}

    def reserve(self, rate: float) -> float:
        """Take the next start time of the shared schedule; the seconds to wait for it."""
        with self._locked() as state:
            now = start = self.wall()
            for key in ("next", "rest"):
                t = state.get(key, 0.0)
                if t <= now + MAX_AHEAD:
                    start = max(start, t)
            state["next"] = start + 1 / rate
            if state.get("rest", 0.0) <= start:
                state.pop("rest", None)
        return start - now

    def start_now(self, rate: float) -> float:
        """Start a request now, if the last one that started did so a full interval ago: 0.0, and
        the start is recorded. Otherwise the seconds still to wait (a process that woke late, on
        a busy machine, must not start right after a punctual one)."""
        with self._locked() as state:
            now = self.wall()
            last = state.get("last", 0.0)
            if last <= now + MAX_AHEAD and now < last + 1 / rate:
                return last + 1 / rate - now
            state["last"] = now
            state["next"] = max(state.get("next", 0.0), now + 1 / rate)
        return 0.0

    def rest(self, seconds: float) -> None:
        """No process starts a request of this route for ``seconds`` (a 429 is for every client)."""
        with self._locked() as state:
            state["rest"] = max(state.get("rest", 0.0), self.wall() + min(seconds, MAX_AHEAD))

    def try_slot(self, concurrency: int) -> int | None:
        """A held in-flight slot (a file descriptor to :meth:`release`), or None when all are taken."""
        for n in range(concurrency):
            fd = os.open(self.root / f"{self.route}.slot{n}", os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            return fd
        return None

    @staticmethod
    def release(slot: int) -> None:
        os.close(slot)


class SharedLimits:
    """The limiter state of one cache directory."""

    def __init__(self, root: Path, wall: Callable[[], float] = time.time) -> None:
        root.mkdir(parents=True, exist_ok=True)
        ignore = root / ".gitignore"
        if not ignore.exists():
            ignore.write_text(_GITIGNORE, "utf-8")
        self.root = root
        self.wall = wall

    @classmethod
    def beside(cls, cache_root: Path) -> SharedLimits | None:
        """The state beside a cache, or None where it cannot be kept (a read-only cache)."""
        try:
            return cls(cache_root / ".limits")
        except OSError:
            return None

    def route(self, name: str) -> SharedRoute:
        return SharedRoute(self.root, name, self.wall)
