"""The OpenAlex works snapshot (https://docs.openalex.org/download-all-data/openalex-snapshot):
``data/works/updated_date=…/part_*.gz``, gzip JSON Lines, one work object per line (the API's
work object). Both the older form (``host_venue``) and the newer (``primary_location``) are read;
the abstract, given as an inverted index (``abstract_inverted_index``), is kept as its text."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from citeaudit.mirror.interface import DumpFile, Keep, MirrorRecord, RowUnit, Skip, Unit
from citeaudit.mirror.jsonlines import record_rows, record_units
from citeaudit.mirror.reading import dump_files
from citeaudit.resolve.abstracts import abstract_from_inverted_index
from citeaudit.resolve.fields import split_name
from citeaudit.resolve.interface import Author, Record

__all__ = ["FORMAT", "TYPES", "files", "record", "rows", "units"]

FORMAT = "openalex"

#: OpenAlex's own work types as Crossref names them (its older snapshots used Crossref's already).
TYPES = {
    "article": "journal-article",
    "preprint": "posted-content",
    "review": "journal-article",
    "letter": "journal-article",
    "editorial": "journal-article",
    "erratum": "journal-article",
    "book-chapter": "book-chapter",
    "book": "book",
    "dissertation": "dissertation",
    "dataset": "dataset",
    "report": "report",
    "standard": "standard",
    "reference-entry": "reference-entry",
    "peer-review": "peer-review",
}
_PREFIX = "https://openalex.org/"


def files(path: str) -> Sequence[DumpFile]:
    return dump_files(path, (".gz", ".jsonl", ".json"))


def _author(authorship: Any) -> Author | None:
    if not isinstance(authorship, dict):
        return None
    found = authorship.get("author")
    person: dict[str, Any] = found if isinstance(found, dict) else {}
    name = person.get("display_name") or authorship.get("raw_author_name")
    if not isinstance(name, str) or not name.strip():
        return None
    given, family = split_name(name)
    return Author(name=family) if given is None else Author(family=family, given=given)


def _source(work: dict[str, Any]) -> dict[str, Any]:
    location = work.get("primary_location")
    if isinstance(location, dict) and isinstance(location.get("source"), dict):
        source: dict[str, Any] = location["source"]
        return source
    venue = work.get("host_venue")
    return venue if isinstance(venue, dict) else {}


def _type(work: dict[str, Any], source: dict[str, Any]) -> str | None:
    crossref = work.get("type_crossref")
    if isinstance(crossref, str) and crossref:
        return crossref
    kind = work.get("type")
    if not isinstance(kind, str):
        return None
    if kind == "article" and source.get("type") == "conference":
        return "proceedings-article"
    return TYPES.get(kind, kind)


def _text(value: Any) -> str | None:
    return str(value).strip() or None if isinstance(value, (str, int)) else None


def record(work: Any) -> Unit:
    if not isinstance(work, dict):
        return Skip("not a JSON object or not valid JSON")
    wid = work.get("id")
    if not isinstance(wid, str) or not wid.strip():
        return Skip("no id")
    key = wid.removeprefix(_PREFIX)
    title = work.get("display_name") or work.get("title")
    if not isinstance(title, str) or not title.strip():
        return Skip("no title")
    source = _source(work)
    doi = work.get("doi")
    doi = doi.lower().removeprefix("https://doi.org/") if isinstance(doi, str) else ""
    year = work.get("publication_year")
    found = work.get("biblio")
    biblio: dict[str, Any] = found if isinstance(found, dict) else {}
    first, last = _text(biblio.get("first_page")), _text(biblio.get("last_page"))
    pages = f"{first}-{last}" if first and last and first != last else first
    container = source.get("display_name")
    authorships = work.get("authorships")
    authors = [_author(a) for a in authorships] if isinstance(authorships, list) else []
    rec = Record(
        doi=doi,
        agency=FORMAT,
        titles=(" ".join(title.split()),),
        years=(("issued", year),) if isinstance(year, int) and not isinstance(year, bool) else (),
        authors=tuple(a for a in authors if a is not None),
        type=_type(work, source),
        container=(container,) if isinstance(container, str) and container else (),
        volume=_text(biblio.get("volume")),
        issue=_text(biblio.get("issue")),
        pages=pages,
        abstract=abstract_from_inverted_index(work.get("abstract_inverted_index")),
    )
    date = work.get("updated_date")
    return MirrorRecord(FORMAT, key, rec, None, date[:10] if isinstance(date, str) else "")


def units(dump: DumpFile, skip: int, max_record_bytes: int) -> Iterator[Unit]:
    return record_units(dump, skip, max_record_bytes, record)


def rows(dump: DumpFile, skip: int, max_record_bytes: int, keep: Keep | None = None) -> Iterator[RowUnit]:
    return record_rows(dump, skip, max_record_bytes, record, keep)
