"""Batch audits: many answers from JSONL or Parquet into a resumable output directory,
on the embedded local engine or on Ray. See :func:`citeaudit.batch.run.run_batch`."""

from citeaudit.batch.run import BatchOptions, BatchOutcome, run_batch
from citeaudit.batch.wiring import WorkerSpec

__all__ = ["BatchOptions", "BatchOutcome", "WorkerSpec", "run_batch"]
