"""Crossref's public data file (https://www.crossref.org/learning/public-data-file/): a folder
(or a tar archive) of ``*.json.gz`` files, each ``{"items": [work, …]}``, where a work is what the
REST API answers as ``message``; normalised as the resolver normalises the API's answers (the
``abstract``, JATS, kept as plain text)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from citeaudit.mirror.interface import PASSED, DumpFile, Keep, MirrorRecord, RowUnit, Skip, Unit
from citeaudit.mirror.reading import TOO_DEEP, TOO_DEEP_REASON, dump_files, json_items, read_errors
from citeaudit.mirror.rows import row_of
from citeaudit.resolve.abstracts import plain_abstract
from citeaudit.resolve.crossref import record_from_message
from citeaudit.resolve.interface import Record

__all__ = ["FORMAT", "files", "record", "rows", "units"]

FORMAT = "crossref"
#: An import's readers share out the files (many of them, each costly to read past: every work
#: is decoded) rather than each file's chunks (see ``citeaudit.mirror.load``).
READ_BY_FILE = True


def files(path: str) -> Sequence[DumpFile]:
    return dump_files(path, (".json.gz", ".json"))


def _date(work: dict[str, Any]) -> str:
    indexed = work.get("indexed")
    stamp = indexed.get("date-time") if isinstance(indexed, dict) else None
    return stamp[:10] if isinstance(stamp, str) else ""


_OTHER_TYPE = "a work with a field not of the type Crossref gives it"


def _typed(rec: Record) -> bool:
    """Whether the record's texts are strings and its years integers: a work's fields are taken
    as they come (an author's ``family`` may be a list or a number in a broken file)."""
    texts: list[Any] = [
        *rec.titles,
        *rec.subtitles,
        *rec.container,
        *rec.short_container,
        *rec.full_text_urls,
    ]
    texts += [v for a in rec.authors for v in (a.family, a.given, a.name, a.sequence) if v is not None]
    texts += [v for v in (rec.type, rec.volume, rec.issue, rec.pages, rec.article_number) if v is not None]
    return all(isinstance(t, str) for t in texts) and all(
        isinstance(y, int) and not isinstance(y, bool) for _, y in rec.years
    )


def record(work: Any) -> Unit:
    if work is TOO_DEEP:
        return Skip(TOO_DEEP_REASON)
    if not isinstance(work, dict):
        return Skip("not a work object")
    doi = work.get("DOI")
    if not isinstance(doi, str) or not doi.strip():
        return Skip("no DOI")
    try:
        rec = record_from_message(work)
    except (TypeError, AttributeError, ValueError):  # a field of another type than Crossref's
        return Skip(_OTHER_TYPE)
    if not _typed(rec):
        return Skip(_OTHER_TYPE)
    if not rec.titles:
        return Skip("no title")
    if rec.abstract is None and "abstract" in work:  # JATS, as the REST API gives it
        rec = replace(rec, abstract=plain_abstract(work["abstract"]))
    return MirrorRecord(FORMAT, rec.doi, rec, None, _date(work))


def units(dump: DumpFile, skip: int, max_record_bytes: int) -> Iterator[Unit]:
    with read_errors(dump.name), dump.open() as stream:
        for work in json_items(stream, dump.name, skip, max_record_bytes):
            yield record(work)


def rows(dump: DumpFile, skip: int, max_record_bytes: int, keep: Keep | None = None) -> Iterator[RowUnit]:
    with read_errors(dump.name), dump.open() as stream:
        for i, work in enumerate(json_items(stream, dump.name, skip, max_record_bytes)):
            if keep is not None and not keep(i):
                yield PASSED
                continue
            unit = record(work)
            yield unit if isinstance(unit, Skip) else row_of(unit)
