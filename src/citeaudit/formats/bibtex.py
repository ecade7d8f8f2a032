"""BibTeX bibliographies: each entry becomes a claim citing one work, by its
DOI, or by its arXiv identifier (arXiv DOIs are ``10.48550/arXiv.<id>``, which
DataCite registers). An entry with neither cannot be checked and says so."""

from __future__ import annotations

import logging
import re

from citeaudit.errors import InputError
from citeaudit.identifiers.arxiv import ARXIV
from citeaudit.identifiers.doi import DOI
from citeaudit.model import Citation, Claim, ReferenceSource, Submission, WorkSource

__all__ = ["parse_bibtex"]

# bibtexparser logs each block it cannot parse; with no handler configured Python would print
# that to stderr beside our own one-line error. The reason is reported from the failed block.
logging.getLogger("bibtexparser").addHandler(logging.NullHandler())

_BRACES_RE = re.compile(r"[{}]")
_SPACES_RE = re.compile(r"\s+")


# BibTeX entry types as kinds of work (the types Crossref uses).
_ENTRY_TYPES = {
    "article": "journal-article",
    "inproceedings": "proceedings-article",
    "conference": "proceedings-article",
    "book": "book",
    "incollection": "book-chapter",
    "inbook": "book-chapter",
    "phdthesis": "dissertation",
    "mastersthesis": "dissertation",
    "techreport": "report",
    "dataset": "dataset",
}


def _plain(value: str) -> str:
    """BibTeX braces and runs of whitespace out; LaTeX accents are left to the name folding."""
    return " ".join(_BRACES_RE.sub("", value).split())


def _authors(value: str) -> tuple[str, ...]:
    # Spaces collapsed first: "\s+and\s+" retries from every position of a long run of spaces.
    names = [_plain(n) for n in _SPACES_RE.sub(" ", value).split(" and ") if n.strip()]
    return tuple(n for n in names if n.lower() not in {"others", "et al."})


def _identifier(fields: dict[str, str]) -> tuple[str, str] | None:
    """The entry's identifier kind and value: its DOI, else its arXiv eprint."""
    doi = _plain(fields.get("doi", ""))
    if doi:
        return DOI.kind, doi
    eprint = fields.get("eprint", "").strip()
    prefix = fields.get("archiveprefix", fields.get("eprinttype", "")).strip().lower()
    if eprint and (prefix == "arxiv" or eprint.lower().startswith("arxiv:")):
        arxiv_doi = ARXIV.doi_of(eprint)
        if arxiv_doi is not None:
            return ARXIV.kind, arxiv_doi
    return None


def parse_bibtex(text: str, name: str) -> Submission:
    from bibtexparser import parse_string  # type: ignore[attr-defined]  # re-exported, not in __all__

    library = parse_string(text)
    if library.failed_blocks:
        block = library.failed_blocks[0]
        reason = str(getattr(block.error, "abort_reason", "") or block.error or "").strip().rstrip(".")
        problem = reason.splitlines()[0] if reason else "cannot parse this block"
        problem += f" (the block starting {(block.raw or '')[:40]!r})"
        raise InputError(name, f"line {(block.start_line or 0) + 1}", problem)
    claims = []
    seen: set[str] = set()
    for entry in library.entries:
        if entry.key in seen:
            raise InputError(
                name, f"line {(entry.start_line or 0) + 1}", f"duplicate entry key {entry.key!r}"
            )
        seen.add(entry.key)
        fields = {f.key.lower(): str(f.value) for f in entry.fields}
        title = _plain(fields["title"]) if fields.get("title") else None
        year_text = _plain(fields.get("year", ""))
        year = int(year_text) if year_text.isdigit() else None
        authors = _authors(fields.get("author", ""))
        truncated = bool(re.search(r"\band\s+others\s*$", fields.get("author", "")))
        identified = _identifier(fields)
        source: WorkSource | ReferenceSource
        if identified is not None:
            venue = _plain(fields.get("journal", fields.get("booktitle", ""))) or None
            first = authors[0] if authors else None
            source = WorkSource(
                identifier=identified[1],
                title=title,
                year=year,
                first_author=first,
                authors=authors + (("others",) if truncated else ()),
                container=venue,
                volume=_plain(fields.get("volume", "")) or None,
                issue=_plain(fields.get("number", fields.get("issue", ""))) or None,
                pages=_plain(fields.get("pages", "")) or None,
                type=_ENTRY_TYPES.get(entry.entry_type.lower()),
                kind=identified[0],
            )
        else:
            source = ReferenceSource(title=title, year=year, first_author=authors[0] if authors else None)
        origin = f"line {(entry.start_line or 0) + 1}"
        citation = Citation(id=entry.key, source=source, origin=origin)
        claims.append(
            Claim(
                id=entry.key,
                text=f"bibliography entry ({entry.entry_type})",
                citations=(citation,),
                origin=origin,
            )
        )
    if not claims:
        raise InputError(name, "", "no BibTeX entries found")
    return Submission(claims=tuple(claims), format="bibtex")
