"""The dumps shipped as JSON Lines (OpenAlex's works snapshot, arXiv's metadata snapshot): one
record a line, read by the format's ``record`` function; a line too long or not JSON is a
counted skip."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from citeaudit.mirror.interface import PASSED, DumpFile, Keep, RowUnit, Skip, Unit
from citeaudit.mirror.reading import TOO_DEEP, TOO_DEEP_REASON, json_lines, read_errors
from citeaudit.mirror.rows import row_of

__all__ = ["record_rows", "record_units"]

_UNREADABLE = "a line longer than the limit or not valid JSON"


def _unit(line: Any, record: Callable[[Any], Unit]) -> Unit:
    if line is None:
        return Skip(_UNREADABLE)
    if line is TOO_DEEP:
        return Skip(TOO_DEEP_REASON)
    return record(line)


def record_units(
    dump: DumpFile, skip: int, max_record_bytes: int, record: Callable[[Any], Unit]
) -> Iterator[Unit]:
    """Every line's record (or why it is skipped), after the first ``skip`` lines."""
    with read_errors(dump.name), dump.open() as stream:
        for line in json_lines(stream, skip, max_record_bytes):
            yield _unit(line, record)


def record_rows(
    dump: DumpFile, skip: int, max_record_bytes: int, record: Callable[[Any], Unit], keep: Keep | None = None
) -> Iterator[RowUnit]:
    """As :func:`record_units`, each record as the row written; :data:`PASSED` for a line that
    ``keep`` leaves to another reader."""
    with read_errors(dump.name), dump.open() as stream:
        for line in json_lines(stream, skip, max_record_bytes, keep):
            if line is PASSED:
                yield PASSED
                continue
            unit = _unit(line, record)
            yield unit if isinstance(unit, Skip) else row_of(unit)
