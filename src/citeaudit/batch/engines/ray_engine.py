"""The Ray engine: one actor per worker, on a local Ray or an existing cluster.

Each actor builds its collaborators once (a judge that loads a model loads it once
per worker) and audits whole parts sent to it through the object store; at most two
parts per actor are in flight. An actor whose process dies is restarted by Ray and
its parts are retried (``max_restarts``, ``max_task_retries``); a part is pure, so a
retry changes nothing. The results come back to the driver, which writes them, so
the output directory needs no shared storage; the cache, the snapshots and any
corpus or model must be readable at the same paths on every node.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from citeaudit.batch.engines import BatchError, Engine, Task
from citeaudit.batch.parts import PartResult, audit_part
from citeaudit.batch.wiring import WorkerSpec, build_worker
from citeaudit.errors import ConfigError

__all__ = ["RETRIES", "RayEngine"]

RETRIES = 3


class PartWorker:
    """The actor: collaborators built at start, then one call per part."""

    def __init__(self, spec: WorkerSpec) -> None:
        self.auditor = build_worker(spec)

    def audit(self, task: Task) -> PartResult:
        index, records = task
        return audit_part(self.auditor, index, records)

    def pid(self) -> int:
        return os.getpid()


def _ray(local: bool = False) -> Any:
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage report leaves the machine
    if local:
        # A Ray started here serves this machine alone: its node address is the loopback one. Ray
        # otherwise learns the address by opening a UDP socket towards a public DNS server
        # (8.8.8.8), and maps an explicit 127.0.0.1 back through the same probe; with clusters off
        # (read when Ray is imported, and by the processes it starts) it takes the loopback address.
        os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    try:
        import ray
    except ImportError:
        raise ConfigError("--engine ray needs Ray: pip install 'citeaudit[ray]'") from None
    return ray


# Where the API server's plain-HTTP requests go: a loopback port nothing serves (discard), so they
# fail at once on this machine.
NOWHERE = "http://127.0.0.1:9"


@contextmanager
def _no_cloud_probes(ray: Any) -> Iterator[None]:
    """Ray's API server (started even with no dashboard, for usage statistics) asks which cloud it
    runs on, by plain HTTP to 169.254.169.254 and to metadata.google.internal (a DNS lookup first),
    unless it finds the config of a cluster Ray's launcher started; nothing in Ray turns this off.
    While the local Ray starts, the API server alone is given a plain-HTTP proxy that leads nowhere,
    so these requests never leave the machine. Its other traffic is unchanged: gRPC to the local
    Ray reads ``grpc_proxy`` first and is given what it would have used before, and a usage report
    (HTTPS, only with ``RAY_USAGE_STATS_ENABLED=1``) reads ``https_proxy``."""
    services: Any = getattr(getattr(ray, "_private", None), "services", None)
    start = getattr(services, "start_ray_process", None)
    if start is None:  # another Ray than the pinned one: nothing to hook
        yield
        return
    proxies = {"http_proxy": NOWHERE, "HTTP_PROXY": NOWHERE}
    if not any(os.environ.get(name) is not None for name in ("grpc_proxy", "https_proxy")):
        proxies["grpc_proxy"] = os.environ.get("http_proxy", "")  # empty: no proxy

    def started(command: list[str], process_type: str, *args: Any, **kwargs: Any) -> Any:
        if process_type == "dashboard":
            kwargs["env_updates"] = {**(kwargs.get("env_updates") or {}), **proxies}
        return start(command, process_type, *args, **kwargs)

    services.start_ray_process = started
    try:
        yield
    finally:
        services.start_ray_process = start


class RayEngine(Engine):
    def __init__(self, workers: int, address: str | None = None) -> None:
        super().__init__(workers)
        self.address = address

    def run(self, spec: WorkerSpec, tasks: Iterator[Task], done: Callable[[PartResult], None]) -> None:
        ray = _ray(local=self.address is None)
        started = False
        if not ray.is_initialized():
            options: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.WARNING}
            try:
                if self.address is not None:
                    ray.init(address=self.address, **options)
                else:
                    with _no_cloud_probes(ray):
                        ray.init(
                            num_cpus=self.workers,
                            include_dashboard=False,
                            _node_ip_address="127.0.0.1",
                            **options,
                        )
            except (ConnectionError, RuntimeError, ValueError) as e:
                raise ConfigError(f"cannot start or reach Ray ({self.address or 'local'}): {e}") from None
            started = True
        remote = ray.remote(num_cpus=1, max_restarts=RETRIES, max_task_retries=RETRIES)(PartWorker)
        actors = [remote.remote(spec) for _ in range(self.workers)]
        load = [0] * self.workers
        pending: dict[Any, int] = {}  # object ref → actor
        exhausted = False
        try:
            while pending or not exhausted:
                for a in range(self.workers):
                    while not exhausted and load[a] < 2:
                        task = next(tasks, None)
                        if task is None:
                            exhausted = True
                            break
                        pending[actors[a].audit.remote(task)] = a
                        load[a] += 1
                if not pending:
                    break
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    try:
                        result = ray.get(ref)
                    except ray.exceptions.RayTaskError as e:  # the part itself raised: as if local
                        raise e.as_instanceof_cause() from None
                    except ray.exceptions.RayError as e:  # an actor or an object lost beyond retries
                        first = str(e).strip().splitlines()[0] if str(e).strip() else ""
                        raise BatchError(f"a Ray worker was lost ({type(e).__name__}: {first})") from None
                    load[pending.pop(ref)] -= 1
                    done(result)
        finally:
            for actor in actors:
                ray.kill(actor)
            if started:
                ray.shutdown()
