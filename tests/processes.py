"""Ending what a test started: a server the test spawned is always stopped and reaped, however the
test ends, and stopping it never waits without bound."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from typing import Any

import httpx


def stop(process: subprocess.Popen[Any], grace: float = 10.0) -> None:
    """SIGTERM, then SIGKILL if it has not ended within ``grace`` seconds; reaped either way."""
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(grace)


def wait_until_healthy(
    process: subprocess.Popen[Any], url: str, deadline: float, why: Callable[[], str]
) -> None:
    """Until ``url``/healthz answers 200; fails at once if the server exits, and at ``deadline``
    (``time.monotonic()``) if it never answers, with ``why()`` (its stderr) as the message."""
    while True:
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert process.poll() is None, why()
        assert time.monotonic() < deadline, why()
        time.sleep(0.1)
