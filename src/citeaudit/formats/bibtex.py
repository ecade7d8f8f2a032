"""BibTeX bibliographies: each entry becomes a claim citing one work, by its
DOI, or by its arXiv identifier (arXiv DOIs are ``10.48550/arXiv.<id>``, which
DataCite registers). An entry with neither cannot be checked and says so.

BibTeX as people write it: ``@string`` macros and ``#`` concatenation are expanded (a
bibtexparser middleware of ours: the library resolves a macro only as a whole value), LaTeX
in the text fields is decoded by pylatexenc as bibtexparser's ``LatexDecodingMiddleware``
does it (``Erd{\\H o}s`` = ``Erdős``), and an entry with a ``crossref`` inherits the fields
it lacks from its parent, which is then not audited on its own."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

from citeaudit.errors import InputError
from citeaudit.identifiers.arxiv import ARXIV
from citeaudit.identifiers.doi import DOI, doi_in_url
from citeaudit.identifiers.pubmed import PMCID, PMID, pmcid_in_url, pmid_in_url
from citeaudit.identifiers.work import WORK
from citeaudit.model import Citation, Claim, Note, ReferenceSource, Submission, WorkSource
from citeaudit.resolve.indexes.interface import WorkQuery

if TYPE_CHECKING:
    from pylatexenc.latex2text import LatexNodes2Text

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
    """BibTeX braces and runs of whitespace out (identifiers, and text pylatexenc cannot read)."""
    return " ".join(_BRACES_RE.sub("", value).split())


@cache
def _decoder() -> LatexNodes2Text:
    """pylatexenc configured as bibtexparser's ``LatexDecodingMiddleware`` configures it:
    braces dropped, math kept verbatim, ``\\url{x}`` as ``x``."""
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

    context = get_default_latex_context_db()
    context.add_context_category(
        "bibtexparse-default-context", prepend=True, macros=[MacroTextSpec("url", simplify_repl="%s")]
    )
    return LatexNodes2Text(latex_context=context, keep_braced_groups=False, math_mode="verbatim")


# In a field, "%" and "&" not escaped are what the author typed ("100% of", "R&D"): to LaTeX
# they are a comment and an alignment tab, which would drop the rest of the title.
_UNESCAPED_RE = re.compile(r"(?<!\\)[%&]")
# What pylatexenc changes besides braces: macros, ties, math, dash and quote ligatures.
_LATEX_RE = re.compile(r"[\\~$]|--|``|''|[!?]`")


def _text(value: str) -> str:
    """A text field (title, author, venue) as Unicode: ``Schr\\"odinger`` → ``Schrödinger``,
    ``{\\AA}str{\\"o}m`` → ``Åström``, ``{GPT}-4`` → ``GPT-4``, ``--`` → ``–``. What pylatexenc
    cannot read (braces nested past its recursion limit) keeps only the braces out."""
    if not _LATEX_RE.search(value):
        return _plain(value)  # nothing but braces to decode: 20 times faster, the same text
    try:
        decoded = _decoder().latex_to_text(_UNESCAPED_RE.sub(r"\\\g<0>", value))
    except (RecursionError, ValueError, TypeError, IndexError, KeyError):
        return _plain(value)
    return " ".join(decoded.split())


def _authors(value: str, clean: Callable[[str], str] = _plain) -> tuple[str, ...]:
    """The names of an author field, split at ``and`` before each is cleaned (decoding first
    would lose the braces that protect an ``and`` inside a name)."""
    # Spaces collapsed first: "\s+and\s+" retries from every position of a long run of spaces.
    names = [clean(n) for n in _SPACES_RE.sub(" ", value).split(" and ") if n.strip()]
    # A name listed twice in a row or apart (as some exporters write it) is one author.
    seen: set[str] = set()
    out = []
    for n in names:
        if n.lower() in {"others", "et al."} or n.casefold() in seen:
            continue
        seen.add(n.casefold())
        out.append(n)
    return tuple(out)


# -- @string macros and # concatenation ----------------------------------------------------

# The macros BibTeX's standard styles define.
_MONTHS = dict(
    zip(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"),
        ("January", "February", "March", "April", "May", "June", "July", "August", "September",
         "October", "November", "December"),
        strict=True,
    )
)  # fmt: skip


def _delimited(value: str, at: int) -> int | None:
    """The end of the braced or quoted part opening at ``at`` (None when it does not close).
    Braces nest; a quote inside braces does not end a quoted part, as in BibTeX."""
    depth = 0
    quoted = value[at] == '"'
    for i in range(at + (1 if quoted else 0), len(value)):
        c = value[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0 and not quoted:
                return i + 1
            if depth < 0:
                return None
        elif c == '"' and quoted and depth == 0:
            return i + 1
    return None


def _parts(value: str) -> list[str] | None:
    """A raw field value split at its top-level ``#``: braced, quoted, number or macro parts
    (None when it is not such a sequence: the value is then left as the parser gave it)."""
    parts: list[str] = []
    i, n = 0, len(value)
    while True:
        while i < n and value[i].isspace():
            i += 1
        if i >= n:
            return None
        if value[i] in '{"':
            end = _delimited(value, i)
            if end is None:
                return None
        else:
            end = i
            while end < n and not value[end].isspace() and value[end] not in '#{}"':
                end += 1
            if end == i:
                return None
        parts.append(value[i:end])
        i = end
        while i < n and value[i].isspace():
            i += 1
        if i >= n:
            return parts
        if value[i] != "#":
            return None
        i += 1


# How much text ``@string`` macros may add: a macro defined as two copies of the one before it
# doubles at each step, and 40 such lines (2 KB) would be a trillion characters. What macros and
# ``#`` write out, all values together, is held to this many characters more than the input has.
_EXPANSION_ALLOWANCE = 1_000_000


class _ExpansionTooLarge(Exception):
    """Raised by the concatenation middleware; ``line`` is the block's (0-based)."""

    def __init__(self, line: int) -> None:
        self.line = line


class _Budget:
    """The characters expansion may still write (the input's length and the allowance)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.left = limit

    def take(self, parts: list[str], macros: dict[str, str], line: int) -> None:
        self.left -= sum(len(macros.get(p.lower(), p)) for p in parts)
        if self.left < 0:
            raise _ExpansionTooLarge(line)


def _expand(value: str, macros: dict[str, str], budget: _Budget | None = None, line: int = 0) -> str | None:
    """The text of a raw value, braces of its own kept (None: leave the value alone). The
    text it writes is counted against ``budget`` before it is made."""
    parts = _parts(value)
    if parts is None:
        return None
    if budget is not None:
        budget.take(parts, macros, line)
    out = []
    for part in parts:
        if part[0] in '{"':
            out.append(part[1:-1])
        else:  # a number, or a macro (case-insensitive; an undefined one stays as written)
            out.append(macros.get(part.lower(), _MONTHS.get(part.lower(), part)))
    return "".join(out)


def _concatenation_middleware(budget: _Budget) -> Any:
    from bibtexparser.library import Library
    from bibtexparser.middlewares.middleware import LibraryMiddleware

    class ConcatenateStrings(LibraryMiddleware):
        """``@string`` macros and ``#`` concatenation expanded, in the ``@string`` definitions
        (each may use the ones before it) and in every field; the result is braced, for the
        library's ``RemoveEnclosingMiddleware`` to take the braces off."""

        @classmethod
        def metadata_key(cls) -> str:
            return "citeaudit_concatenate"

        def transform(self, library: Library) -> Library:
            macros: dict[str, str] = {}
            for string in library.strings:
                text = _expand(str(string.value), macros, budget, string.start_line or 0)
                if text is not None:
                    macros[string.key.lower()] = text
                    string.value = "{" + text + "}"
            for entry in library.entries:
                for field in entry.fields:
                    raw = field.value
                    # An empty value (``title=``) is no delimited part: "" is in every string.
                    if isinstance(raw, str) and not (
                        raw and raw[0] in '{"' and _delimited(raw, 0) == len(raw)
                    ):
                        text = _expand(raw, macros, budget, entry.start_line or 0)
                        if text is not None:
                            field.value = "{" + text + "}"
            return library

    return ConcatenateStrings(allow_inplace_modification=True)


# -- crossref ------------------------------------------------------------------------------

# Fields a child never takes from its parent: its own identity (a proceedings volume's DOI is
# not a paper's), and the parent's title, which becomes the child's booktitle instead.
_NOT_INHERITED = {"doi", "pmid", "pmcid", "eprint", "archiveprefix", "eprinttype", "primaryclass", "url",
                  "crossref", "title", "ids", "key", "label", "isbn"}  # fmt: skip


def _inherit(fields: dict[str, str], parent: dict[str, str]) -> dict[str, str]:
    """The child's fields with those it lacks taken from the parent (BibTeX's rule), and the
    parent's title as the child's booktitle (biblatex's rule for a paper in proceedings or a
    chapter in a book)."""
    merged = dict(fields)
    for key, value in parent.items():
        if key not in _NOT_INHERITED:
            merged.setdefault(key, value)
    if parent.get("title"):
        merged.setdefault("booktitle", parent["title"])
    return merged


# A year of more digits is no year (and Python reads at most 4,300 digits as an integer).
_MAX_YEAR_DIGITS = 18


def _year(text: str) -> int | None:
    """The year a field gives: decimal digits of any script (``٢٠٢٠`` is 2020), at most
    :data:`_MAX_YEAR_DIGITS` of them; anything else is no year, as ``n.d.`` is. Not ``isdigit``:
    ``"²".isdigit()`` is true, and ``int("²")`` a ValueError."""
    if text.isdecimal() and len(text) <= _MAX_YEAR_DIGITS:
        return int(text)
    return None


# biblatex's ``date``: a year, a year and month or a full ISO 8601 date, or a range of them.
_DATE_RE = re.compile(r"^\s*(\d{4})(?:-\d{2}(?:-\d{2})?)?(?:/|\s*$)")


def _year_of(fields: dict[str, str]) -> int | None:
    """The entry's ``year``, else the year of biblatex's ``date`` (``date = {1999}``, ``{2019-05-06}``,
    ``{2019/2020}``: the first), as Zotero's Better BibLaTeX writes it."""
    if fields.get("year", "").strip():
        return _year(_plain(fields["year"]))
    date = _DATE_RE.match(_plain(fields.get("date", "")))
    return int(date.group(1)) if date is not None else None


def _printable(text: str) -> str:
    """The parser's reason as one printable line: a control or line-separator character of the
    input (an entry key with ESC or U+2028 in it) written as its escape."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


# An arXiv eprint given as its page's or its PDF's address (``http://arxiv.org/abs/1312.6114v10``).
_ARXIV_URL_RE = re.compile(
    r"^https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/(.+?)(?:\.pdf)?/?$", re.IGNORECASE
)
# The arXiv id a venue or note names, as exporters write it: Google Scholar's ``journal = {arXiv
# preprint arXiv:1810.04805}``, Zotero's ``journal = {arXiv:1803.10314 [cs]}`` and ``note =
# {arXiv: 1312.5602}``, Better BibTeX's ``number = {arXiv:1709.04060}``.
_ARXIV_NAMED_RE = re.compile(
    r"^\s*(?:arxiv\s+preprint\s+|arxiv\s+e-?prints?,?\s+)?arxiv\s*:\s*(\S+?)(?:\s*\[[^\]]*\])?\s*$",
    re.IGNORECASE,
)
_ARXIV_NAMED_FIELDS = ("journal", "booktitle", "number", "note", "howpublished")
# A DOI resolver's address (``http://dx.doi.org/10.1038/sdata.2016.35``, ACM's ``doi.acm.org``).
_DOI_URL_RE = re.compile(r"^https?://(?:dx\.)?doi\.(?:org|acm\.org)/(10\.\S+)$", re.IGNORECASE)
# LaTeX escapes in an identifier or address, as Mendeley and hand-written entries have them
# (``10.1007/978-3-540-89689-0{\_}23``, ``\%7E``): the characters they stand for.
_ID_ESCAPES_RE = re.compile(r"\\([_%&#$])|\\~\{\}|\\textasciitilde\b|\\textunderscore\b|\$\\backslash\$")


def _id_text(value: str) -> str:
    """An identifier or address field without braces, whitespace and LaTeX escapes."""

    def unescape(m: re.Match[str]) -> str:
        text = m.group(0)
        if m.group(1):
            return m.group(1)
        return "~" if "~" in text or "tilde" in text else ("_" if "underscore" in text else "\\")

    return "".join(_BRACES_RE.sub("", _ID_ESCAPES_RE.sub(unescape, value)).split())


def _arxiv_named(fields: dict[str, str]) -> str | None:
    """The arXiv id the entry's venue, number or note names (``arXiv preprint arXiv:1810.04805``)."""
    for field in _ARXIV_NAMED_FIELDS:
        named = _ARXIV_NAMED_RE.match(_plain(fields.get(field, "")))
        if named is not None and ARXIV.doi_of(named.group(1)) is not None:
            return named.group(1)
    return None


def _identifier(fields: dict[str, str]) -> tuple[str, str, str | None] | None:
    """The entry's identifier kind and value, and the handler's note on its form: its DOI, else
    its arXiv eprint (an id, ``arXiv:id``, or the address of its page), else the arXiv id its
    venue or note names, else the DOI or arXiv id of its ``url`` (an arXiv address only where
    the entry names no other venue: a journal paper's ``url`` may be where it was read)."""
    doi = _id_text(fields.get("doi", ""))
    if doi:
        return DOI.kind, doi, None
    eprint = _id_text(fields.get("eprint", ""))
    prefix = fields.get("archiveprefix", fields.get("eprinttype", "")).strip().lower()
    if (url := _ARXIV_URL_RE.match(eprint)) is not None:
        eprint, prefix = url.group(1), "arxiv"
    if eprint and (prefix == "arxiv" or eprint.lower().startswith("arxiv:")):
        arxiv_doi = ARXIV.doi_of(eprint)
        if arxiv_doi is not None:
            return ARXIV.kind, arxiv_doi, ARXIV.form_note(eprint)
    named = _arxiv_named(fields)
    if named is not None:
        return ARXIV.kind, str(ARXIV.doi_of(named)), ARXIV.form_note(named)
    # PubMed's own BibTeX, Zotero's and Better BibTeX's carry ``pmid`` / ``pmcid`` fields.
    for name, pubmed in (("pmid", PMID), ("pmcid", PMCID)):
        value = _id_text(fields.get(name, ""))
        if value and pubmed.is_valid(pubmed.normalise(value)):
            return pubmed.kind, pubmed.normalise(value), None
    address = _id_text(fields.get("url", ""))
    if (on_resolver := _DOI_URL_RE.match(address)) is not None and DOI.is_valid(
        DOI.normalise(on_resolver.group(1))
    ):
        return DOI.kind, on_resolver.group(1), None
    # A publisher's page of a whole book (``…/book/10.1007/978-…``) names the volume a chapter or a
    # proceedings paper is in, not the entry's own work.
    if "/book/" not in address.lower() and (on_page := doi_in_url(address)) is not None:
        return DOI.kind, on_page, None
    for pubmed, in_url in ((PMID, pmid_in_url), (PMCID, pmcid_in_url)):
        if (on_pubmed := in_url(address)) is not None and pubmed.is_valid(pubmed.normalise(on_pubmed)):
            return pubmed.kind, pubmed.normalise(on_pubmed), None
    venue = _plain(fields.get("journal", fields.get("booktitle", "")))
    if (page := _ARXIV_URL_RE.match(address)) is not None and (not venue or _ARXIV_VENUE_RE.search(venue)):
        arxiv_doi = ARXIV.doi_of(page.group(1))
        if arxiv_doi is not None:
            return ARXIV.kind, arxiv_doi, ARXIV.form_note(page.group(1))
    return None


_ARXIV_VENUE_RE = re.compile(r"^\s*corr\b|\barxiv\b", re.IGNORECASE)


def _issue(fields: dict[str, str]) -> str | None:
    """The issue an entry gives: its ``number`` or ``issue``, unless that is an arXiv id
    (Better BibTeX writes a preprint's report number ``arXiv:1709.04060`` there)."""
    value = _text(fields.get("number", fields.get("issue", "")))
    if not value or _ARXIV_NAMED_RE.match(value):
        return None
    return value


def parse_bibtex(text: str, name: str) -> Submission:
    from bibtexparser import parse_string  # type: ignore[attr-defined]  # re-exported, not in __all__
    from bibtexparser.middlewares import RemoveEnclosingMiddleware

    budget = _Budget(len(text) + _EXPANSION_ALLOWANCE)
    stack = [_concatenation_middleware(budget), RemoveEnclosingMiddleware(allow_inplace_modification=True)]
    try:
        library = parse_string(text, parse_stack=stack)
    except _ExpansionTooLarge as e:
        problem = (
            f"@string macros expand past the limit of {budget.limit} characters "
            f"(the input's length and {_EXPANSION_ALLOWANCE} more)"
        )
        raise InputError(name, f"line {e.line + 1}", problem) from None
    from bibtexparser.model import DuplicateBlockKeyBlock, DuplicateFieldKeyBlock

    notes: list[Note] = []
    failed = []
    for block in library.failed_blocks:
        if not isinstance(block, DuplicateBlockKeyBlock):
            failed.append(block)
            continue
        # BibTeX's own rule: the first entry of a key is the one cited; a later one is reported.
        earlier = block.previous_block
        where = f" (line {(earlier.start_line or 0) + 1})" if earlier is not None else ""
        message = (
            f"the entry key {block.key!r} is used again; the first entry{where} is checked, not this one"
        )
        notes.append(
            Note(
                "W_REFERENCE_DUPLICATE",
                _printable(message),
                None,
                None,
                f"line {(block.start_line or 0) + 1}",
            )
        )
    if failed:
        block = failed[0]
        reason = str(getattr(block.error, "abort_reason", "") or block.error or "").strip().rstrip(".")
        if isinstance(block, DuplicateFieldKeyBlock):  # its own words name the library's attributes
            keys = ", ".join(repr(k) for k in sorted(block.duplicate_keys))
            reason = f"the entry gives a field twice: {keys}"
        problem = _printable(reason.splitlines()[0]) if reason else "cannot parse this block"
        problem += f" (the block starting {(block.raw or '')[:40]!r})"
        raise InputError(name, f"line {(block.start_line or 0) + 1}", problem)
    claims = []
    seen: set[str] = set()
    by_key: dict[str, dict[str, str]] = {}
    for entry in library.entries:
        if not entry.key.strip() or not entry.entry_type.strip():  # "@{,=}": a claim without an id
            missing = "key" if entry.entry_type.strip() else "type"
            problem = f"the entry has no {missing}: an entry is @type{{key, field = {{value}}, …}}"
            raise InputError(name, f"line {(entry.start_line or 0) + 1}", problem)
        if entry.key in seen:
            raise InputError(
                name, f"line {(entry.start_line or 0) + 1}", f"duplicate entry key {entry.key!r}"
            )
        seen.add(entry.key)
        by_key.setdefault(entry.key.lower(), {f.key.lower(): str(f.value) for f in entry.fields})
    # BibTeX keys are case-insensitive; a parent is audited through its children, not as cited.
    parents = {
        target
        for key, f in by_key.items()
        if (target := f.get("crossref", "").strip().lower()) in by_key and target != key
    }
    for entry in library.entries:
        if entry.key.lower() in parents:
            continue
        fields = {f.key.lower(): str(f.value) for f in entry.fields}
        parent = by_key.get(fields.get("crossref", "").strip().lower())
        if parent is not None and fields.get("crossref", "").strip().lower() in parents:
            fields = _inherit(fields, parent)
        title = _text(fields["title"]) if fields.get("title") else None
        year = _year_of(fields)
        authors = _authors(fields.get("author", ""), _text)
        truncated = bool(re.search(r"\band\s+others\s*$", fields.get("author", "")))
        identified = _identifier(fields)
        source: WorkSource | ReferenceSource
        if identified is not None:
            venue = _text(fields.get("journal", fields.get("booktitle", ""))) or None
            first = authors[0] if authors else None
            source = WorkSource(
                identifier=identified[1],
                title=title,
                year=year,
                first_author=first,
                authors=authors + (("others",) if truncated else ()),
                container=venue,
                volume=_text(fields.get("volume", "")) or None,
                issue=_issue(fields),
                pages=_text(fields.get("pages", "")) or None,
                type=_ENTRY_TYPES.get(entry.entry_type.lower()),
                kind=identified[0],
                form_note=identified[2],
            )
        elif title and WORK.is_valid(query := WorkQuery(title, authors[0] if authors else None, year).key):
            # No DOI and no eprint: the work is found by bibliographic search on its metadata.
            source = WorkSource(
                identifier=query,
                title=title,
                year=year,
                first_author=authors[0] if authors else None,
                authors=authors + (("others",) if truncated else ()),
                container=_text(fields.get("journal", fields.get("booktitle", ""))) or None,
                volume=_text(fields.get("volume", "")) or None,
                issue=_issue(fields),
                pages=_text(fields.get("pages", "")) or None,
                type=_ENTRY_TYPES.get(entry.entry_type.lower()),
                kind=WORK.kind,
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
    return Submission(claims=tuple(claims), format="bibtex", notes=tuple(notes))
