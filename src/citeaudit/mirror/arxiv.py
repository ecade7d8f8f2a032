"""arXiv's metadata snapshot (``arxiv-metadata-oai-snapshot.json``, published on Kaggle and in
``gs://arxiv-dataset``): JSON Lines, one paper per line with ``authors_parsed`` as
``[family, given, suffix]``; normalised as the resolver normalises the arXiv API's answers, the
``abstract`` kept as plain text."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import cache
from typing import Any

from citeaudit.mirror.interface import DumpFile, Keep, MirrorRecord, RowUnit, Skip, Unit
from citeaudit.mirror.jsonlines import record_rows, record_units
from citeaudit.mirror.reading import dump_files
from citeaudit.resolve.abstracts import plain_abstract
from citeaudit.resolve.arxiv import ARXIV_DOI_PREFIX
from citeaudit.resolve.interface import Author, Record, Relation

__all__ = ["FORMAT", "files", "record", "rows", "units"]

FORMAT = "arxiv"

_YEAR = re.compile(r"\b(1[89]\d\d|2\d\d\d)\b")


def files(path: str) -> Sequence[DumpFile]:
    return dump_files(path, (".json", ".jsonl", ".json.gz", ".jsonl.gz"))


@cache
def _latex() -> Any:
    from pylatexenc.latex2text import LatexNodes2Text

    return LatexNodes2Text(math_mode="verbatim")


def _plain(text: str) -> str:
    """TeX accents of names (``Bal\\'azs``) as letters; most names have none."""
    if "\\" in text or "{" in text:
        text = _latex().latex_to_text(text)
    return " ".join(text.split())


def _author(parts: Any) -> Author | None:
    if not isinstance(parts, list) or not parts or not all(isinstance(p, str) for p in parts):
        return None
    family = _plain(parts[0])
    given = _plain(parts[1]) if len(parts) > 1 else ""
    suffix = _plain(parts[2]) if len(parts) > 2 else ""
    if suffix:
        family = f"{family} {suffix}"
    if not family:
        return None
    return Author(family=family, given=given or None)


def _year(paper: dict[str, Any]) -> int | None:
    versions = paper.get("versions")
    first = versions[0] if isinstance(versions, list) and versions else None
    created = first.get("created") if isinstance(first, dict) else None
    m = _YEAR.search(created) if isinstance(created, str) else None
    return int(m.group(1)) if m else None


def record(paper: Any) -> Unit:
    if not isinstance(paper, dict):
        return Skip("not a JSON object or not valid JSON")
    aid = paper.get("id")
    if not isinstance(aid, str) or not aid.strip():
        return Skip("no id")
    aid = aid.strip().lower()
    title = paper.get("title")
    if not isinstance(title, str) or not title.strip():
        return Skip("no title")
    parsed = paper.get("authors_parsed")
    authors = [_author(p) for p in parsed] if isinstance(parsed, list) else []
    journal_doi = paper.get("doi")
    journal_doi = (
        journal_doi.strip().lower().split()[0] if isinstance(journal_doi, str) and journal_doi.strip() else ""
    )
    year = _year(paper)
    rec = Record(
        doi=ARXIV_DOI_PREFIX + aid,
        agency=FORMAT,
        titles=(" ".join(title.split()),),
        years=(("issued", year),) if year is not None else (),
        authors=tuple(a for a in authors if a is not None),
        type="posted-content",
        relations=(Relation("is-preprint-of", None, journal_doi),) if journal_doi else (),
        abstract=plain_abstract(paper.get("abstract")),
        full_text_urls=(f"https://arxiv.org/pdf/{aid}",),  # open access, every paper (as the API's records)
    )
    date = paper.get("update_date")
    return MirrorRecord(FORMAT, aid, rec, aid, date[:10] if isinstance(date, str) else "")


def units(dump: DumpFile, skip: int, max_record_bytes: int) -> Iterator[Unit]:
    return record_units(dump, skip, max_record_bytes, record)


def rows(dump: DumpFile, skip: int, max_record_bytes: int, keep: Keep | None = None) -> Iterator[RowUnit]:
    return record_rows(dump, skip, max_record_bytes, record, keep)
