"""The service's counts for ``/metrics``: responses by status and audits run, per tenant, summed
over the worker processes of ``citeaudit serve --workers N``.

The counts live in memory the workers share (created by the parent before it starts them), one
row per worker: a worker adds only to its own row, so no lock is needed — a worker killed in the
middle of an addition cannot leave a lock held that would stop the others — and a read sums the
rows. A worker started in place of one that died takes over its row, so nothing counted is lost.
The tenants are those of the key file (and ``""`` for requests with no valid key), fixed when
the service starts.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterable, MutableSequence

__all__ = ["Counts"]

_FIRST_STATUS, _LAST_STATUS = 100, 599
_AUDITS = 0  # column 0: audits; column 1 + status - 100: responses of that status
_WIDTH = 1 + _LAST_STATUS - _FIRST_STATUS + 1


class Counts:
    """Responses by status (``"200"``…) and ``"audits"`` per tenant; ``workers`` rows."""

    def __init__(self, tenants: Iterable[str], workers: int = 1) -> None:
        self._tenants = {t: i for i, t in enumerate(sorted({"", *tenants}))}
        self._workers = workers
        size = workers * len(self._tenants) * _WIDTH
        self._cells: MutableSequence[int]
        if workers > 1:  # shared with the worker processes (passed to them as they are started)
            from multiprocessing.sharedctypes import RawArray

            self._cells = RawArray("q", size)
        else:
            self._cells = array("q", bytes(8 * size))
        self._base = 0

    def for_worker(self, index: int) -> Counts:
        """The same counts, adding to worker ``index``'s row."""
        if not 0 <= index < self._workers:
            raise ValueError(f"worker {index} of {self._workers}")
        view = Counts.__new__(Counts)
        view.__dict__.update(self.__dict__)
        view._base = index * len(self._tenants) * _WIDTH
        return view

    def _cell(self, tenant: str, column: int) -> int:
        return self._base + self._tenants[tenant] * _WIDTH + column

    def response(self, tenant: str, status: int) -> None:
        if tenant in self._tenants and _FIRST_STATUS <= status <= _LAST_STATUS:
            self._cells[self._cell(tenant, 1 + status - _FIRST_STATUS)] += 1

    def audit(self, tenant: str) -> None:
        if tenant in self._tenants:
            self._cells[self._cell(tenant, _AUDITS)] += 1

    def snapshot(self) -> Counter[tuple[str, str]]:
        """(tenant, what) → count, over every worker; only what is not zero."""
        out: Counter[tuple[str, str]] = Counter()
        block = len(self._tenants) * _WIDTH
        cells = self._cells
        for tenant, row in self._tenants.items():
            for column in range(_WIDTH):
                n = sum(cells[w * block + row * _WIDTH + column] for w in range(self._workers))
                if n:
                    what = "audits" if column == _AUDITS else str(column - 1 + _FIRST_STATUS)
                    out[tenant, what] = n
        return out
