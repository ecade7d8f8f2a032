"""What a batch run is asked to do, apart from the driver that does it: the command line builds
its parser from these defaults without importing the audit."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from citeaudit.batch.wiring import WorkerSpec

__all__ = ["DEFAULT_PART_SIZE", "BatchOptions"]

DEFAULT_PART_SIZE = 1000


@dataclass(frozen=True)
class BatchOptions:
    inputs: tuple[Path, ...]
    out: Path
    spec: WorkerSpec
    engine: str = "local"
    workers: int = 1
    ray_address: str | None = None
    part_size: int = DEFAULT_PART_SIZE
    fresh: bool = False
