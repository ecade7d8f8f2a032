"""Ending what a test started: a server the test spawned is always stopped and reaped, however the
test ends, and stopping it never waits without bound."""

from __future__ import annotations

import subprocess
from typing import Any


def stop(process: subprocess.Popen[Any], grace: float = 10.0) -> None:
    """SIGTERM, then SIGKILL if it has not ended within ``grace`` seconds; reaped either way."""
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(grace)
