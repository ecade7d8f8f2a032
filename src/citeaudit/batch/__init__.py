"""Batch audits: many answers from JSONL or Parquet into a resumable output directory,
on the embedded local engine or on Ray. See :func:`citeaudit.batch.run.run_batch`."""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from citeaudit.batch.options import BatchOptions
    from citeaudit.batch.run import BatchOutcome, run_batch
    from citeaudit.batch.wiring import WorkerSpec

__all__ = ["BatchOptions", "BatchOutcome", "WorkerSpec", "run_batch"]

# Imported when first used (PEP 562): the command line reads the engines and the defaults of
# this package to build its parser, and that must not import the audit.
_MODULE_OF = {
    "BatchOptions": "citeaudit.batch.options",
    "BatchOutcome": "citeaudit.batch.run",
    "WorkerSpec": "citeaudit.batch.wiring",
    "run_batch": "citeaudit.batch.run",
}


def __getattr__(name: str) -> object:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'citeaudit.batch' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module), name)
    globals()[name] = value
    return value
