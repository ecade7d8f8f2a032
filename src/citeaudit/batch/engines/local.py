"""The embedded engine: a pool of processes on this machine, no server.

With one worker the parts are audited in this process. With more, each worker
process builds its collaborators once (the pool's initializer) and audits whole
parts; at most two parts per worker are in flight, so the input is read only as
fast as it is audited. A worker that dies takes its pool with it: the pool is
started again and the parts that were in flight are submitted again (a part is
pure, so computing it twice changes nothing).
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from citeaudit.batch.engines import BatchError, Engine, Task
from citeaudit.batch.parts import PartResult, audit_part
from citeaudit.batch.wiring import Worker, WorkerSpec, build_worker
from citeaudit.parallel import can_fork

__all__ = ["LocalEngine"]

_AUDITOR: Worker | None = None
RESTARTS = 3


def _watch_parent(parent: int) -> None:
    """A worker whose driver is gone (killed with SIGKILL) ends instead of waiting forever."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def _start(spec: WorkerSpec, parent: int) -> None:
    global _AUDITOR
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    _AUDITOR = build_worker(spec)


def _work(task: Task) -> PartResult:
    assert _AUDITOR is not None
    index, records = task
    return audit_part(_AUDITOR, index, records)


class LocalEngine(Engine):
    def run(self, spec: WorkerSpec, tasks: Iterator[Task], done: Callable[[PartResult], None]) -> None:
        if self.workers == 1:
            auditor = build_worker(spec)
            for index, records in tasks:
                done(audit_part(auditor, index, records))
            return
        # fork is cheap (nothing to import again); spawn when the driver holds threads (the
        # online resolver's) that a fork would copy mid-flight, or where there is no fork.
        alone = threading.active_count() == 1
        context = multiprocessing.get_context("fork" if alone and can_fork() else "spawn")
        window = 2 * self.workers
        pending: dict[Future[PartResult], Task] = {}
        retry: list[Task] = []
        restarts = 0
        exhausted = False
        while True:
            pool = ProcessPoolExecutor(
                self.workers, mp_context=context, initializer=_start, initargs=(spec, os.getpid())
            )
            try:
                for task in retry:
                    pending[pool.submit(_work, task)] = task
                retry = []
                while pending or not exhausted:
                    while not exhausted and len(pending) < window:
                        following = next(tasks, None)
                        if following is None:
                            exhausted = True
                            break
                        pending[pool.submit(_work, following)] = following
                    if not pending:
                        break
                    finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for future in sorted(finished, key=lambda f: pending[f][0]):
                        result = future.result()  # a broken pool raises here, the part still pending
                        del pending[future]
                        done(result)
                pool.shutdown()
                return
            except BrokenProcessPool as e:
                pool.shutdown(wait=True, cancel_futures=True)
                restarts += 1
                if restarts > RESTARTS:
                    raise BatchError(f"worker processes stopped {restarts} times ({e})") from None
                retry = [pending[f] for f in sorted(pending, key=lambda f: pending[f][0])]
                pending = {}
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)
                raise
