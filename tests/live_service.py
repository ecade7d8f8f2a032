"""The HTTP service in a thread of the test process, on a free loopback port: what the tests that talk to
it over real HTTP share (bounded: it must start within 20 seconds and stop within 10)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn

from citeaudit.service.http import ServiceSettings, create_app


@contextmanager
def live_service(settings: ServiceSettings) -> Iterator[str]:
    """The service of ``settings`` running; yields its base URL and stops it on exit."""
    server = uvicorn.Server(uvicorn.Config(create_app(settings), host="127.0.0.1", port=0, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        assert server.started, "the HTTP service did not start within 20 s"
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
