"""A record as the mirror keeps it: one row, built where the dump is read (in the reader process
of an import), so the writer only writes.

A row is ``(key, title_hash, norm, names, year, data, words, date)``:

- ``norm``: the words of the record's titles and subtitles, folded as a query is
  (:func:`fast_words`), the text candidates are scored by;
- ``title_hash``: a 64-bit hash of the folded first title, the key of the exact-title index (an
  exact title is found without the full-text index);
- ``names``: the authors' family names, folded, first author first, ``|`` between them;
- ``data``: the record's JSON (:meth:`Record.to_json` without its empty fields, UTF-8 bytes),
  the abstract included where the dump gives one (a mirror written before abstracts were kept
  has none: its records read back with ``abstract`` None);
- ``words``: what the full-text index is fed: the words of ``norm`` but stopwords, the first
  author's surname as one token ``_surname`` and, with the year, ``_surname_year_word_word``
  for the title's first two and last two words (no title word has an underscore);
- ``date``: the record's own date in the dump (YYYY-MM-DD or ""), for the dump's date.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import orjson

from citeaudit.mirror.interface import MirrorRecord, Row
from citeaudit.mirror.ranking import STOPWORDS, fast_words
from citeaudit.resolve.indexes.interface import surname
from citeaudit.resolve.interface import Author, Record

__all__ = [
    "author_json",
    "author_year_words",
    "fold_name",
    "fts_words",
    "make_row",
    "record_data",
    "record_of",
    "row_of",
    "title_hash",
]


def title_hash(norm: str) -> int:
    """The exact-title key of a folded title: the first 8 bytes of its BLAKE2b, as a signed
    64-bit integer (what SQLite keeps in 8 bytes). A collision only adds a candidate."""
    return int.from_bytes(hashlib.blake2b(norm.encode(), digest_size=8).digest(), "little", signed=True)


# Names recur (an author, a family name): what they fold to, kept while there are not too many.
_FOLDED: dict[str, str] = {}
_SURNAMES: dict[str, str] = {}
_CACHE_MAX = 100_000


def fold_name(name: str) -> str:
    """A family name as ``names`` keeps it: its words, folded."""
    hit = _FOLDED.get(name)
    if hit is None:
        hit = " ".join(fast_words(name))
        if len(_FOLDED) >= _CACHE_MAX:
            _FOLDED.clear()
        _FOLDED[name] = hit
    return hit


def fts_words(norm: str, names: str, year: int | None) -> str:
    """The text the full-text index holds for a record (see the module's docstring); the same
    function of the stored ``norm``, ``names`` and ``year`` when the record is deleted from it."""
    content = [w for w in norm.split() if w not in STOPWORDS]
    words = " ".join(content)
    first = names.split("|", 1)[0]
    if not first:
        return words
    last = _SURNAMES.get(first)
    if last is None:
        last = surname(first)
        if len(_SURNAMES) >= _CACHE_MAX:
            _SURNAMES.clear()
        _SURNAMES[first] = last
    if not last:
        return words
    if year is None or not content:
        return f"{words} _{last}"
    return " ".join([words, f"_{last}", *author_year_words(last, year, content)])


def author_year_words(surname: str, year: int, content: Sequence[str]) -> list[str]:
    """The tokens of a first author's surname, a year and the first two or the last two words of
    a title (stopwords left out): ``_surname_year_word_word``. A title of four words or more with
    one word wrong (or one added or left out) still has one of the two pairs right."""
    key = f"_{surname}_{year}_"
    if len(content) < 2:
        return [key + content[0]]
    first = key + content[0] + "_" + content[1]
    last = key + content[-2] + "_" + content[-1]
    return [first] if first == last else [first, last]


def author_json(a: Author) -> dict[str, str]:
    out = {}
    if a.family is not None:
        out["family"] = a.family
    if a.given is not None:
        out["given"] = a.given
    if a.name is not None:
        out["name"] = a.name
    if a.sequence is not None:
        out["sequence"] = a.sequence
    return out


def record_data(r: Record, arxiv: str | None) -> dict[str, Any]:
    """The JSON of :meth:`Record.to_json` without its empty fields (:meth:`Record.from_json`
    reads them back as empty), built directly: the import writes millions."""
    out: dict[str, Any] = {"doi": r.doi, "agency": r.agency}
    if r.titles:
        out["titles"] = list(r.titles)
    if r.subtitles:
        out["subtitles"] = list(r.subtitles)
    if r.years:
        out["years"] = dict(r.years)
    if r.authors:
        out["authors"] = [author_json(a) for a in r.authors]
    if r.type:
        out["type"] = r.type
    if r.container:
        out["container"] = list(r.container)
    if r.short_container:
        out["short_container"] = list(r.short_container)
    if r.relations:
        out["relations"] = [x.to_json() for x in r.relations]
    if r.volume is not None:
        out["volume"] = r.volume
    if r.issue is not None:
        out["issue"] = r.issue
    if r.pages is not None:
        out["pages"] = r.pages
    if r.article_number is not None:
        out["article_number"] = r.article_number
    if r.abstract is not None:
        out["abstract"] = r.abstract
    if r.full_text_urls:
        out["full_text_urls"] = list(r.full_text_urls)
    if arxiv is not None:
        out["_arxiv"] = arxiv
    return out


def dumps(data: dict[str, Any]) -> bytes:
    return orjson.dumps(data, option=orjson.OPT_SORT_KEYS)


def make_row(
    key: str,
    titles: Sequence[str],
    families: Sequence[str],
    year: int | None,
    data: dict[str, Any],
    date: str,
) -> Row:
    """The row of a record from its parts (the importers that build no :class:`Record` call this)."""
    first = " ".join(fast_words(titles[0])) if titles else ""
    norm = first if len(titles) == 1 else " ".join(fast_words(" ".join(titles)))
    names = "|".join([fold_name(f) for f in families])
    return (key, title_hash(first), norm, names, year, dumps(data), fts_words(norm, names, year), date)


def row_of(item: MirrorRecord) -> Row:
    """The row of a normalised record."""
    rec = item.record
    years = rec.year_values
    return make_row(
        item.key,
        (*rec.titles, *rec.subtitles) if rec.titles else (),  # a subtitle's words found too
        [a.family or a.name or "" for a in rec.authors],
        years[0] if years else None,
        record_data(rec, item.arxiv),
        item.date,
    )


def record_of(fmt: str, row: Row) -> MirrorRecord:
    """The normalised record a row keeps (what a look-up answers with)."""
    raw = orjson.loads(row[5])
    arxiv = raw.pop("_arxiv", None)
    return MirrorRecord(fmt, row[0], Record.from_json(raw), arxiv, row[7])
