"""Crossref's public data file (https://www.crossref.org/learning/public-data-file/): a folder
(or a tar archive) of ``*.json.gz`` files, each ``{"items": [work, …]}``, where a work is what the
REST API answers as ``message``; normalised as the resolver normalises the API's answers."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from citeaudit.mirror.interface import DumpFile, MirrorRecord, Skip, Unit
from citeaudit.mirror.reading import dump_files, json_items, read_errors
from citeaudit.resolve.crossref import record_from_message

__all__ = ["FORMAT", "files", "record", "units"]

FORMAT = "crossref"


def files(path: str) -> Sequence[DumpFile]:
    return dump_files(path, (".json.gz", ".json"))


def _date(work: dict[str, Any]) -> str:
    indexed = work.get("indexed")
    stamp = indexed.get("date-time") if isinstance(indexed, dict) else None
    return stamp[:10] if isinstance(stamp, str) else ""


def record(work: Any) -> Unit:
    if not isinstance(work, dict):
        return Skip("not a work object")
    doi = work.get("DOI")
    if not isinstance(doi, str) or not doi.strip():
        return Skip("no DOI")
    rec = record_from_message(work)
    if not rec.titles:
        return Skip("no title")
    return MirrorRecord(FORMAT, rec.doi, rec, None, _date(work))


def units(dump: DumpFile, skip: int, max_record_bytes: int) -> Iterator[Unit]:
    with read_errors(dump.name), dump.open() as stream:
        for work in json_items(stream, dump.name, skip, max_record_bytes):
            yield record(work)
