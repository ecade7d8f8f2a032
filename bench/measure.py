"""Run a command in a child process and measure wall time and peak memory."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Measurement", "measure"]


@dataclass(frozen=True)
class Measurement:
    seconds: float
    peak_mib: float
    exit_code: int


def measure(argv: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> Measurement:
    """Wall time and the child's peak resident memory (from wait4's rusage); ``env``: the
    child's environment instead of this process's.

    posix_spawn, not fork + exec: a forked child inherits the parent's peak RSS
    (Linux keeps the high-water mark across exec), which would report the
    benchmark driver's memory instead of the command's.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    actions = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
    old = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        start = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, dict(os.environ) if env is None else env, file_actions=actions)
        _, status, usage = os.wait4(pid, 0)
        seconds = time.perf_counter() - start
    finally:
        os.chdir(old)
        os.close(devnull)
    return Measurement(seconds, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status))
