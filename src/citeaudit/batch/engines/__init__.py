"""Engines run the parts of a batch: ``local`` (processes on this machine) and ``ray``.

An engine takes the worker spec and a lazy stream of parts, keeps a bounded number
of parts in flight, and hands each finished part back as it completes; the driver
writes it. Every engine runs the same :func:`citeaudit.batch.parts.audit_part`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from citeaudit.errors import CiteauditError, ConfigError

if TYPE_CHECKING:  # the audit's modules: not for the command line's parser, which names ENGINES
    from citeaudit.batch.parts import PartResult
    from citeaudit.batch.records import Record
    from citeaudit.batch.wiring import WorkerSpec

__all__ = ["ENGINES", "BatchError", "Engine", "Task", "make_engine"]

Task = tuple[int, Sequence["Record"]]
ENGINES = ("local", "ray")


class BatchError(CiteauditError):
    """The engine stopped before the run was complete; the same command finishes it."""

    def diagnostics(self) -> str:
        return f"{self}; the parts written so far are kept: run the same command again to finish"


class Engine(ABC):
    def __init__(self, workers: int) -> None:
        self.workers = workers

    @abstractmethod
    def run(self, spec: WorkerSpec, tasks: Iterator[Task], done: Callable[[PartResult], None]) -> None:
        """Audit every part of ``tasks``; call ``done`` once per part, in completion order."""


def make_engine(name: str, workers: int, ray_address: str | None = None) -> Engine:
    if name == "local":
        if ray_address is not None:
            raise ConfigError("--ray-address needs --engine ray")
        from citeaudit.batch.engines.local import LocalEngine

        return LocalEngine(workers)
    if name == "ray":
        from citeaudit.batch.engines.ray_engine import RayEngine

        return RayEngine(workers, ray_address)
    raise ConfigError(f"unknown engine {name!r} (expected one of {', '.join(ENGINES)})")
