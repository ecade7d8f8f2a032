"""How ``citeaudit serve`` runs uvicorn: in the process itself (:func:`serve_one`, the default,
one worker), or as ``--workers N`` uvicorn worker processes answering on one address and writing
one evidence store (SQLite in write-ahead-log mode, or PostgreSQL). Either way SIGTERM, SIGINT or
SIGHUP (:data:`STOP_SIGNALS`) stops it gracefully: the requests in flight are answered, then
``serve`` exits 0.

With one worker, uvicorn's own handling of the signals is replaced (:class:`_GracefulServer`).
uvicorn handles SIGTERM and SIGINT only, and raises the signal again once it has stopped, so the
process ended killed by SIGTERM (143 in a shell) or, after ``citeaudit: interrupted``, with 130;
SIGHUP killed it at once (129), the requests in flight dropped. What is still waiting 30 s after
the signal is cancelled (uvicorn's ``timeout_graceful_shutdown``; an audit, which runs in the event
loop, finishes first).

With ``--workers N``, the parent resolves everything first — the configuration, the key file, the
store, the listening sockets — so that a mistake is one line before any worker starts. It then
starts the workers with uvicorn's own worker process (``uvicorn.supervisors.multiprocess.Process``:
a spawned interpreter, a health ping over a pipe) and supervises them itself, because each worker
needs its own row of the shared counts and, on Linux, its own socket:

* The settings reach a worker pickled over the pipe that starts it (the key file's hashes, the
  configuration, the store's address), never through the environment or a file; the worker builds
  its app from them (:func:`worker_app`, the factory uvicorn calls).
* On Linux every worker gets its own listening socket on the address (``SO_REUSEPORT``): the
  kernel spreads the connections over them by a hash of each one's addresses and ports, not by
  how busy a worker is (a few connections may all reach one worker). Elsewhere the workers share
  one socket. The parent keeps every socket open, so connections wait in its queue while a worker
  is replaced.
* SIGTERM, SIGINT or SIGHUP to the parent stop every worker (each gets SIGTERM: uvicorn's graceful
  shutdown, the requests in progress answered), then the parent, exit 0; a worker that has not
  stopped 30 s later is killed. A worker whose parent is gone (killed with SIGKILL) stops itself
  within a second.
* A worker that ends, or does not answer its health ping for 30 s, is replaced at once, and the
  parent says so on standard error: the service is never left silently dead. A worker that
  cannot start (its app cannot be built: the store is unreachable…) stops the service, with exit
  2, after its own one-line error: every replacement would fail the same way.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from functools import partial
from types import FrameType
from typing import Any, TextIO

from fastapi import FastAPI
from uvicorn import Server as _Server

from citeaudit.errors import CiteauditError
from citeaudit.service.http.app import ServiceSettings, create_app
from citeaudit.service.http.counts import Counts

__all__ = ["STOP_SIGNALS", "Workers", "serve_one", "worker_app"]

STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGHUP") if hasattr(signal, name)
)


def _caught_signals() -> tuple[int, ...]:
    """The stop signals this process was not started ignoring: under ``nohup`` SIGHUP stays
    ignored, so closing the terminal leaves the service running, as nohup promises."""
    return tuple(sig for sig in STOP_SIGNALS if signal.getsignal(sig) is not signal.SIG_IGN)


HEALTH_SECONDS = 30.0  # a worker that answers no health ping for this long is replaced
STOP_SECONDS = 30.0  # how long the workers get to finish their requests once told to stop
_POLL_SECONDS = 0.5


def serve_one(app: FastAPI, sockets: list[socket.socket], **uvicorn_options: Any) -> int:
    """Serve ``app`` on ``sockets`` in this process until a stop signal; the exit code (0)."""
    from uvicorn import Config

    _GracefulServer(Config(app, timeout_graceful_shutdown=int(STOP_SECONDS), **uvicorn_options)).run(
        sockets=sockets
    )
    return 0


def worker_app(settings: ServiceSettings, parent: int) -> FastAPI:
    """The app of one worker process (uvicorn calls it there, as the app factory)."""
    threading.Thread(target=_leave_with, args=(parent,), name="parent-watch", daemon=True).start()
    try:
        return create_app(settings)
    except CiteauditError as e:
        from uvicorn.config import STARTUP_FAILURE

        # One write of the whole line: workers failing together must not interleave their lines
        # (print writes the text and its newline apart).
        sys.stderr.write(f"citeaudit: error: worker {os.getpid()}: {e.diagnostics()}\n")
        sys.stderr.flush()
        raise SystemExit(STARTUP_FAILURE) from None


def _leave_with(parent: int) -> None:
    """Stop this worker (as SIGTERM does) once its parent is gone."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os.kill(os.getpid(), signal.SIGTERM)


class _GracefulServer(_Server):
    """uvicorn's server, stopped by any of :data:`STOP_SIGNALS` as by its own SIGINT (the
    connections shut, the requests in flight answered, the app's lifespan ended), with the signal
    not raised again afterwards: the process ends normally."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield  # signals reach only the main thread (uvicorn does the same)
            return
        previous = {sig: signal.signal(sig, self._stop) for sig in _caught_signals()}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _stop(self, sig: int, frame: FrameType | None) -> None:
        self.should_exit = True


class Workers:
    """Start ``count`` workers on ``sockets`` (one each, or one shared) and keep them running until
    a stop signal; :meth:`run` returns the exit code."""

    def __init__(
        self,
        settings: ServiceSettings,
        sockets: list[socket.socket],
        count: int,
        stderr: TextIO,
        **uvicorn_options: Any,
    ) -> None:
        from uvicorn import Config

        self.sockets, self.count, self.stderr = sockets, count, stderr
        counts = Counts((k.tenant for k in settings.keys), workers=count)
        self._configs = [
            Config(
                partial(worker_app, replace(settings, counts=counts.for_worker(i)), os.getpid()),
                factory=True,
                **uvicorn_options,
            )
            for i in range(count)
        ]
        self._processes: list[Any] = []
        self._last_answer: list[float] = []
        self._stop = threading.Event()

    def _start(self, index: int) -> Any:
        from uvicorn.supervisors.multiprocess import Process

        process = Process(self._configs[index], [self.sockets[index % len(self.sockets)]])
        process.start()
        return process

    def _say(self, message: str) -> None:
        print(f"citeaudit serve: {message}", file=self.stderr, flush=True)

    def run(self) -> int:
        previous = {sig: signal.signal(sig, lambda *_: self._stop.set()) for sig in _caught_signals()}
        try:
            self._processes = [self._start(i) for i in range(self.count)]
            self._last_answer = [time.monotonic()] * self.count
            code = 0
            while not self._stop.wait(_POLL_SECONDS):
                code = self._keep_alive()
                if code:
                    break
            self._stop_all()
            return code
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _keep_alive(self) -> int:
        from uvicorn.config import STARTUP_FAILURE

        for index, process in enumerate(self._processes):
            if self._stop.is_set():
                return 0
            now = time.monotonic()
            if process.process.is_alive():
                if process.ping(timeout=0.05):
                    self._last_answer[index] = now
                    continue
                if now - self._last_answer[index] < HEALTH_SECONDS:
                    continue
                self._say(
                    f"worker {process.pid} answered no health check for {HEALTH_SECONDS:g} s; replacing it"
                )
                process.kill()
            process.join()
            if process.exitcode == STARTUP_FAILURE:
                self._say(f"worker {process.pid} could not start; stopping the service")
                return 2
            code = process.exitcode
            how = (
                f"was killed by signal {-code}"
                if code is not None and code < 0
                else f"ended with exit code {code}"
            )
            self._say(f"worker {process.pid} {how}; starting another")
            self._processes[index] = self._start(index)
            self._last_answer[index] = time.monotonic()
        return 0

    def _stop_all(self) -> None:
        for process in self._processes:
            if process.process.is_alive():
                process.terminate()
        deadline = time.monotonic() + STOP_SECONDS
        for process in self._processes:
            process.process.join(max(0.0, deadline - time.monotonic()))
            if process.process.is_alive():
                self._say(f"worker {process.pid} did not stop within {STOP_SECONDS:g} s; killing it")
                process.process.kill()
                process.process.join()
