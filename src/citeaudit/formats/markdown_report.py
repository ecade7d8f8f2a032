"""Research reports in Markdown (``markdown-report``): the sentences that carry a citation marker
become claims, the entries of the reference list become their citations.

The report is read by a CommonMark parser (markdown-it-py, ``markdown_syntax.py``), never by
patterns over the file. Each sentence of a paragraph, list item or heading, and each table row,
that carries a marker is a claim: its text is the sentence's text without the markers, its place
is its ``[start, end)`` in the file (characters, line ends as ``\\n``) with line and column.
Markers: ``[1]``, ``[1, 3]``, ``[2–4]``, footnote references ``[^note]``, inline links
``[text](https://…)`` (and autolinks, and reference links), author–year citations
``(Vaswani et al., 2017)`` and, when an entry has that author and year, ``Vaswani et al. (2017)``.

Entries: the list items (or paragraphs, or the lines of a paragraph that each open with ``[n]``)
under a heading named References, Sources, Bibliography, Works cited, Reference list, Literature
cited or Citations, up to the next heading of its level; footnote definitions ``[^note]: …`` and
link reference definitions ``[1]: https://… "title"`` wherever they are. An entry is labelled by
its number (an ordered item's, a leading ``[n]``), its footnote or definition label, and by its
first author's surname and year, which author–year markers name.

Each entry is one citation per identifier kind it names (a DOI, an arXiv id, a URL: an entry with
a DOI and a URL is checked as both); one with none is a ``work`` citation, found by search, whose
free text must hold the title, first author and year of the work it is matched to. A quoted
span (``“…”`` or ``"…"``, four words or more) in a claim is the quote of the citation of the one
entry it is attributed to: the marker right after it, else the claim's only entry.

What is wrong with the report's own structure is a finding, not an input error (see
:data:`STRUCTURE_CODES`); a marker inside a code span, a code block or an HTML block is text.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from difflib import get_close_matches
from itertools import pairwise
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from citeaudit.errors import InputError
from citeaudit.formats.markdown_syntax import (
    MAX_NESTING,
    MAX_RANGE,
    STOPPED_AT,
    ContentMap,
    LineIndex,
    label_prefix,
    parser,
)
from citeaudit.formats.reference_entries import (
    EntryFields,
    Identifiers,
    classify_url,
    entry_fields,
    entry_identifiers,
)
from citeaudit.formats.sentences import sentence_spans
from citeaudit.identifiers.arxiv import ARXIV
from citeaudit.identifiers.doi import DOI
from citeaudit.identifiers.registry import HANDLERS
from citeaudit.identifiers.url import URL
from citeaudit.identifiers.work import WORK
from citeaudit.model import (
    Citation,
    Claim,
    ClaimPlace,
    Marker,
    Note,
    ReferenceSource,
    Span,
    Submission,
    WorkSource,
)
from citeaudit.resolve.indexes.interface import WorkQuery, query_words, surname

if TYPE_CHECKING:
    from markdown_it.token import Token

__all__ = ["FORMAT", "REFERENCE_HEADINGS", "STRUCTURE_CODES", "looks_like_report", "parse_markdown"]

FORMAT = "markdown-report"
REFERENCE_HEADINGS = frozenset(
    {"references", "sources", "bibliography", "works cited", "reference list", "literature cited",
     "citations", "literature", "cited works", "sources cited", "references and sources",
     "список литературы", "литература", "источники", "библиография", "список источников",
     "список использованных источников", "ссылки",
     "参考文献", "参考资料", "引用", "引用文献", "来源", "资料来源", "参考来源"}
)  # fmt: skip
# The findings of a report's structure (their catalogue entries: checks/codes.py).
STRUCTURE_CODES = (
    "E_MARKER_UNDEFINED",
    "W_MARKER_MALFORMED",
    "W_REFERENCE_UNUSED",
    "W_REFERENCE_DUPLICATE",
    "W_LABEL_DUPLICATE",
    "W_REFERENCES_EMPTY",
)
MIN_QUOTE_WORDS = 4  # a quoted span shorter than this is a term in quotation marks, not a quote
_JOINERS = "-\u2010\u2011\u2012\u2013\u2014"  # dashes between markers ([4]–[5])


def _heading_name(text: str) -> str:
    """``## 5. References:`` → ``references``."""
    words = text.strip().rstrip(":：").split()
    while words and words[0].rstrip(".").isdigit():
        words = words[1:]
    return " ".join(words).casefold()


_LABEL_LEVEL = 7  # a bold label's section ends at any heading
_TABLE_LABEL = re.compile(r"\[?([A-Za-z]{1,6}) ?(\d{1,4})\]?")  # a table row's label: S1, [S1], Ref 4


def _label_name(inline: Token) -> str | None:
    """The name of a paragraph that is one bold or emphasised label (``**Citations:**``)."""
    children = [c for c in inline.children or [] if not (c.type == "text" and not c.content.strip(" :"))]
    if len(children) < 3 or children[0].type not in ("strong_open", "em_open"):
        return None
    if children[-1].type != children[0].type.replace("_open", "_close"):
        return None
    inner = children[1:-1]
    if any(c.type != "text" for c in inner):
        return None
    return _heading_name("".join(c.content for c in inner))


def looks_like_report(text: str) -> bool:
    """For input with no ``.md`` name: Markdown with a heading of a references section
    (an ATX or a setext heading), and not JSON or BibTeX."""
    lead = text.lstrip("\ufeff \t\r\n")[:1]
    if lead in ("{", "[", "@", "%"):
        return False
    previous = ""
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("#") and _heading_name(s.lstrip("#").rstrip("#")) in REFERENCE_HEADINGS:
            return True
        if s and set(s) <= {"=", "-"} and len(s) >= 2 and _heading_name(previous) in REFERENCE_HEADINGS:
            return True
        previous = s
    return False


# -- plain text of inline tokens -----------------------------------------------------------


def _plain(children: list[Token]) -> str:
    """The text a reader sees: text, code, link texts, image descriptions; markup left out."""
    out: list[str] = []
    for t in children:
        if t.type in ("text", "code_inline"):
            out.append(t.content)
        elif t.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif t.type == "image":
            out.append(_plain(t.children or []))
        elif t.type in ("cite_marker", "cite_malformed"):
            out.append(str((t.meta or {}).get("raw", "")))
    return " ".join("".join(out).split())


def _inline_plain(text: str, env: dict[str, Any] | None = None) -> str:
    if "\r" not in text and "\0" not in text and parser().inline.terminator_re.search(text) is None:
        return " ".join(text.split())  # no character any inline rule reacts to: one text token
    return _plain(_children(text, env))


def _children(text: str, env: dict[str, Any] | None = None) -> list[Token]:
    """The inline tokens of ``text``; ``env`` holds the report's link reference definitions."""
    tokens = parser().parseInline(text, dict(env or {}))
    return list(tokens[0].children or []) if tokens else []


# -- reading the document ------------------------------------------------------------------


@dataclass(slots=True)
class _Block:
    """An inline token a claim may come from, with where its text is in the file."""

    children: list[Token]
    content: str
    cmap: ContentMap
    start: int  # the paragraph (item, row, heading) in the file
    end: int
    kind: str  # "paragraph", "heading", "row"
    env: dict[str, Any]  # the parser's: the report's link reference definitions
    cells: list[tuple[str, list[Token], str, ContentMap]] = field(default_factory=list)  # a row's


@dataclass(slots=True)
class _Entry:
    """One entry of the reference list."""

    labels: list[str]  # numbers, footnote labels (^x), definition labels, as keys
    text: str  # the entry's plain text, its label left out
    words: list[str]
    hrefs: list[str]
    start: int
    end: int
    origin: str
    shown: str  # how a message names it: "[1]", "[^note]", "the entry at line 40"
    ids: list[str] = field(default_factory=list)  # its citations' ids
    citations: list[Citation] = field(default_factory=list)
    identifiers: Identifiers = field(default_factory=Identifiers)
    fields: EntryFields | None = None
    used: bool = False
    link_title: str | None = None  # the text of the one link the entry is ([Title](https://…))
    section: int | None = None  # the references section it is listed in (one per chapter)


@dataclass(slots=True)
class _Found:
    """A marker of a claim: where it is (in the block's text) and what it names."""

    start: int
    end: int
    raw: str
    labels: list[str]
    kind: str  # numeric, footnote, author-year, link
    narrative: bool = False
    conditional: bool = False  # a bare or superscript number: a marker only where it names an entry
    href: str | None = None


class _Reader:
    def __init__(self, text: str, name: str) -> None:
        self.text = text
        self.name = name
        self.index = LineIndex(text)
        self.env: dict[str, Any] = {}
        self.tokens = parser().parse(text, self.env)
        stopped = self.env.get(STOPPED_AT)
        if stopped is not None:
            raise InputError(name, f"line {int(stopped) + 1}", (
                f"blocks nested more than {MAX_NESTING} levels deep (a list level counts two, a quote "
                "one): the report cannot be read past this line, and a report read short is not audited"
            ))  # fmt: skip
        self.blocks: list[_Block] = []
        self.entries: list[_Entry] = []
        self.notes: list[Note] = []
        self.title: str | None = None
        self.malformed: list[tuple[int, str, str]] = []  # file offset, raw, problem
        self.sections: list[int] = []  # where each references section opens (one per chapter)
        self.label_prefixes: set[str] = set()  # of entries labelled [S1], [Ref 2]… (case folded)
        # Where each table opens, and its header cells once read: a row finds its table's headers
        # without going back over the rows before it (a table of n rows is read in n steps, not n²).
        self._tables = [k for k, token in enumerate(self.tokens) if token.type == "table_open"]
        self._headers_of: dict[int, list[str]] = {}

    def origin(self, offset: int) -> str:
        line, column = self.index.line_col(offset)
        return f"line {line}:{column}"

    def _map(self, token: Token, cursor: int = 0) -> ContentMap:
        first = token.map[0] if token.map else 0
        return ContentMap.build(self.index, first, token.content, cursor)

    def _extent(self, cmap: ContentMap, content: str) -> tuple[int, int]:
        stripped = content.rstrip()
        if not stripped:
            at = cmap.to_file(0)
            return at, at
        lead = len(content) - len(content.lstrip())
        return cmap.span(lead, len(stripped))

    def read(self) -> None:
        tokens = self.tokens
        refs_level: int | None = None
        refs_heading: tuple[int, int] | None = None  # its offset, and entries found under it
        i = 0
        while i < len(tokens):
            t = tokens[i]
            if t.type == "heading_open":
                level = int(t.tag[1])
                inline = tokens[i + 1]
                plain = _plain(inline.children or [])
                if refs_level is not None and level <= refs_level:
                    refs_level = self._close_refs(refs_heading)
                if _heading_name(plain) in REFERENCE_HEADINGS:
                    refs_level = level
                    line_start = self.index.line(inline.map[0])[0] if inline.map else 0
                    refs_heading = (line_start, len(self.entries))
                    self.sections.append(line_start)
                    i += 3
                    continue
                if self.title is None and level == 1:
                    self.title = plain or None
                i += 3  # a heading names a part of the report: never a claim
                continue
            if (
                t.type == "paragraph_open"
                and t.level == 0
                and _label_name(tokens[i + 1]) in REFERENCE_HEADINGS
            ):
                # **Citations:** or *Sources* on a line of its own: a references section up to
                # the next heading of any level.
                if refs_level is not None:
                    self._close_refs(refs_heading)
                refs_level = _LABEL_LEVEL
                inline = tokens[i + 1]
                line_start = self.index.line(inline.map[0])[0] if inline.map else 0
                refs_heading = (line_start, len(self.entries))
                self.sections.append(line_start)
                i += 3
                continue
            if t.type == "footnote_def":
                self._footnote(t)
            elif refs_level is not None and t.type in ("bullet_list_open", "ordered_list_open"):
                i = self._list_entries(i)
                continue
            elif refs_level is not None and t.type == "paragraph_open":
                self._paragraph_entries(tokens[i + 1])
                i += 3
                continue
            elif refs_level is None and t.type == "tr_open":
                i = self._row(i)
                continue
            elif refs_level is not None and t.type == "tr_open":
                i = self._labelled_row(i)
                continue
            elif refs_level is None and t.type == "inline":
                self._block(t, "paragraph")
            i += 1
        if refs_level is not None:
            self._close_refs(refs_heading)
        self._definitions()
        self.env[NUMBERED] = any(label.isdigit() for e in self.entries for label in e.labels)
        self.env[LABELLED] = frozenset(self.label_prefixes)

    def _heading_cursor(self, inline: Token) -> int:
        if not inline.map:
            return 0
        start, end = self.index.line(inline.map[0])
        line = self.text[start:end]
        return len(line) - len(line.lstrip(" #")) if line.lstrip().startswith("#") else 0

    def _close_refs(self, heading: tuple[int, int] | None) -> int | None:
        """The end of a references section (None: no section is open any more)."""
        if heading is not None and len(self.entries) == heading[1]:
            where = self.origin(heading[0])
            self.notes.append(
                Note("W_REFERENCES_EMPTY", "the references heading has no entries under it", origin=where)
            )
        return None

    # -- claims' blocks --

    def _block(self, inline: Token, kind: str, cursor: int = 0) -> None:
        cmap = self._map(inline, cursor)
        start, end = self._extent(cmap, inline.content)
        children = list(inline.children or [])
        self._note_malformed(children, cmap)
        self.blocks.append(_Block(children, inline.content, cmap, start, end, kind, self.env))

    def _note_malformed(self, children: list[Token], cmap: ContentMap) -> None:
        for c in children:
            if c.type == "cite_malformed":
                meta = c.meta or {}
                self.malformed.append(
                    (cmap.to_file(int(meta["start"])), str(meta["raw"]), str(meta["problem"]))
                )

    def _row(self, i: int) -> int:
        """A table row: one block whose cells are read as ``header: cell``."""
        cells, i = self._cells(i)
        for _, children, _, cmap in cells:
            self._note_malformed(children, cmap)
        headers = self._headers(i)
        named = [(c, ch, headers[k] if k < len(headers) else "", m) for k, (c, ch, _, m) in enumerate(cells)]
        filled = [c for c in named if c[0].strip()]
        if filled:
            first, last = filled[0], filled[-1]
            start = self._extent(first[3], first[0])[0]
            end = self._extent(last[3], last[0])[1]
            self.blocks.append(_Block([], "", first[3], start, end, "row", self.env, named))
        return i + 1

    def _cells(self, i: int) -> tuple[list[tuple[str, list[Token], str, ContentMap]], int]:
        """The cells of the table row at ``i`` (content, children, "", map), and the row's end."""
        tokens = self.tokens
        cells: list[tuple[str, list[Token], str, ContentMap]] = []
        cursor = 0
        row_map = tokens[i].map
        row_line = row_map[0] if row_map else 0
        i += 1
        while i < len(tokens) and tokens[i].type != "tr_close":
            t = tokens[i]
            if t.type == "inline":
                line_start, _ = self.index.line(row_line)
                cmap = ContentMap.build(self.index, row_line, t.content, cursor)
                if t.content:
                    cursor = cmap.to_file(len(t.content) - 1) + 1 - line_start
                cells.append((t.content, list(t.children or []), "", cmap))
            i += 1
        return cells, i

    def _labelled_row(self, i: int) -> int:
        """A table row under a references heading whose first cell is a label (``S1``,
        ``[S1]``): an entry of that label, its other cells its text."""
        cells, end = self._cells(i)
        if self.tokens[i - 1].type == "thead_open":
            return end + 1  # the header row names the columns
        label = _TABLE_LABEL.fullmatch(cells[0][0].strip().strip("*_").strip()) if cells else None
        if label is not None and any(c[0].strip() for c in cells[1:]):
            shown = label.group(1) + label.group(2)
            self.label_prefixes.add(label_prefix(shown))
            self._entry([(children, cmap, content) for content, children, _, cmap in cells[1:]], shown)
        return end + 1

    def _headers(self, i: int) -> list[str]:
        """The header cells of the table the row at ``i`` is in."""
        at = bisect_right(self._tables, i)
        j = self._tables[at - 1] if at else -1
        if j in self._headers_of:
            return self._headers_of[j]
        out: list[str] = self._headers_of.setdefault(j, [])
        k = j + 1
        while k < len(self.tokens) and self.tokens[k].type != "thead_close":
            if self.tokens[k].type == "inline":
                out.append(_plain(self.tokens[k].children or []))
            k += 1
        return out

    # -- entries --

    def _entry(self, pieces: list[tuple[list[Token], ContentMap, str]], number: str | None) -> None:
        """One entry from its inline pieces (children, map, content)."""
        children = [c for piece in pieces for c in [*piece[0], _SPACE]]
        labels: list[str] = []
        if number is not None:
            labels.append(number)
        lead = next(
            (k for k, c in enumerate(children) if not (c.type == "text" and not c.content.strip())), None
        )
        if lead is not None and children[lead].type == "cite_marker":
            meta = children[lead].meta or {}
            if meta.get("kind") in ("numeric", "label") and len(meta.get("labels", [])) == 1:
                labels.append(str(meta["labels"][0]))
                children = children[lead + 1 :]
                if meta["kind"] == "label":
                    self.label_prefixes.add(label_prefix(labels[-1]))
        elif lead is not None and _bold_label(children, lead):  # **[S12]** Miller et al., …
            labels.append(str((children[lead + 1].meta or {})["labels"][0]))
            self.label_prefixes.add(label_prefix(labels[-1]))
            children = children[lead + 3 :]
        hrefs = [str(c.attrs.get("href", "")) for c in children if c.type == "link_open"]
        text = _plain(children)
        start = self._extent(pieces[0][1], pieces[0][2])[0]
        end = self._extent(pieces[-1][1], pieces[-1][2])[1]
        shown = f"[{labels[0]}]" if labels else f"the entry at {self.origin(start)}"
        if _is_note(children, text, hrefs):
            return
        entry = _Entry(
            list(dict.fromkeys(labels)), text, text.split(), hrefs, start, end, self.origin(start), shown
        )
        entry.link_title = _link_title(children)
        self._add_entry(entry)

    def _add_entry(self, entry: _Entry) -> None:
        if not entry.text.strip() and not entry.hrefs:
            return
        entry.section = len(self.sections) - 1 if self.sections else None
        self.entries.append(entry)

    def _list_entries(self, i: int) -> int:
        """Each item of a list under a references heading is an entry (nested lists with it)."""
        tokens = self.tokens
        depth = 0
        pieces: list[tuple[list[Token], ContentMap, str]] = []
        number: str | None = None
        while i < len(tokens):
            t = tokens[i]
            if t.type in ("bullet_list_open", "ordered_list_open"):
                depth += 1
            elif t.type in ("bullet_list_close", "ordered_list_close"):
                depth -= 1
                if depth == 0:
                    return i + 1
            elif t.type == "list_item_open" and depth == 1:
                pieces, number = [], (t.info or None) if t.markup in (".", ")") else None
                if number is not None and number.isdigit():
                    number = str(int(number))
            elif t.type == "list_item_close" and depth == 1:
                if pieces:
                    self._entry(pieces, number)
            elif t.type == "inline":
                pieces.append((list(t.children or []), self._map(t), t.content))
            elif t.type == "footnote_def":
                self._footnote(t)
            i += 1
        return i

    def _paragraph_entries(self, inline: Token) -> None:
        """A paragraph under a references heading: one entry, or one per line when its lines
        open with ``[n]`` (IEEE) or each holds a year (one reference a line)."""
        cmap = self._map(inline)
        lines = inline.content.split("\n")
        parsed = [(_children(line, self.env), line) for line in lines]
        at = 0
        located: list[tuple[list[Token], ContentMap, str]] = []
        for children, line in parsed:
            first = cmap.to_file(at)
            sub = ContentMap((0,), (first,))
            located.append((children, sub, line))
            at += len(line) + 1

        def labelled(children: list[Token]) -> bool:
            at = next(
                (k for k, c in enumerate(children) if not (c.type == "text" and not c.content.strip())), None
            )
            if at is None:
                return False
            lead = children[at]
            kind = (lead.meta or {}).get("kind")
            return (lead.type == "cite_marker" and kind in ("numeric", "label")) or _bold_label(children, at)

        def has_year(line: str) -> bool:
            from citeaudit.formats.markdown_syntax import is_year

            return any(is_year(w.strip("().,;:")) for w in line.split())

        if len(located) > 1 and labelled(located[0][0]):
            group: list[tuple[list[Token], ContentMap, str]] = []
            for piece in located:
                if labelled(piece[0]) and group:
                    self._entry(group, None)
                    group = []
                group.append(piece)
            if group:
                self._entry(group, None)
        elif len(located) > 1 and all(has_year(p[2]) for p in located):
            for piece in located:
                self._entry([piece], None)
        else:
            self._entry(located, None)

    def _footnote(self, t: Token) -> None:
        label = "^" + str((t.meta or {})["label"])
        line = t.map[0] if t.map else 0
        start, end = self.index.line(line)
        text = self.text[start:end]
        cursor = text.find("]:") + 2
        cmap = ContentMap.build(self.index, line, t.content, cursor)
        children = _children(t.content, self.env)
        hrefs = [str(c.attrs.get("href", "")) for c in children if c.type == "link_open"]
        plain = _plain(children)
        begin = self._extent(ContentMap((0,), (start,)), text)[0]
        finish = self._extent(cmap, t.content)[1] if t.content.strip() else end
        self.entries.append(_Entry([label], plain, plain.split(), hrefs, begin, finish, self.origin(begin),
                                   f"[{label}]"))  # fmt: skip

    def _definitions(self) -> None:
        """Link reference definitions ``[1]: https://… "title"``: entries by their label."""
        references = self.env.get("references", {})
        for key, ref in references.items():
            href = str(ref.get("href", ""))
            if not href.lower().startswith(("http://", "https://")):
                continue
            line = int(ref.get("map", [0])[0])
            start, end = self.index.line(line)
            raw = self.text[start:end]
            begin = start + len(raw) - len(raw.lstrip())
            close = raw.find("]:")
            shown = raw.strip()[: close - (len(raw) - len(raw.lstrip())) + 1] if close > 0 else f"[{key}]"
            title = str(ref.get("title", ""))
            words = title.split()
            self.entries.append(_Entry([str(key).casefold()], title, words, [href], begin, end,
                                       self.origin(begin), shown))  # fmt: skip
        for dup in self.env.get("duplicate_refs", []):
            line = int(dup.get("map", [0])[0])
            start, _ = self.index.line(line)
            label = str(dup.get("label", ""))
            first = references.get(label, {}).get("map", [0])
            message = (f"the link label [{label}] is defined again; links use its first definition "
                       f"(line {int(first[0]) + 1})")  # fmt: skip
            self.notes.append(Note("W_LABEL_DUPLICATE", message, None, None, self.origin(start)))


class _Space:
    type = "softbreak"
    content = " "
    meta: dict[str, Any] = {}
    attrs: dict[str, Any] = {}
    children: list[Any] = []


_SPACE: Any = _Space()


# -- entries to citations ------------------------------------------------------------------


def _url_key(url: str) -> str:
    """The key two spellings of one page share when duplicates are counted: the URL as pinned
    (scheme and host case, tracking parameters, fragment) without ``www.``, the scheme's ``s``
    or a trailing slash (the pin itself keeps them)."""
    normal = URL.normalise(url)
    try:
        parts = urlsplit(normal)
    except ValueError:  # a URL no page can be pinned for ("http://[x"): compared as written
        return "url:" + normal
    if not parts.netloc:
        return "url:" + normal
    host = parts.netloc.removeprefix("www.")
    path = parts.path.rstrip("/")
    return "url:" + urlunsplit(("https", host, path, parts.query, ""))


_NOTE_OPENINGS = ("note", "disclaimer", "this report", "this list", "all sources", "sources were",
                  "last updated", "accessed on", "retrieved on", "as of", "current as of",
                  "примечание", "注")  # fmt: skip


def _is_note(children: list[Token], text: str, hrefs: list[str]) -> bool:
    """A line under the references that is no reference: a date note or a disclaimer, wholly
    emphasised (``*This report is current as of July 18, 2025.*``) or opening as one, with no
    link and no identifier."""
    if hrefs or "10." in text or "arxiv" in text.casefold():
        return False
    if text.casefold().lstrip("*_ ").startswith(_NOTE_OPENINGS):
        return True
    shown = [c for c in children if not (c.type in ("text", "softbreak") and not c.content.strip())]
    return (
        len(shown) >= 3
        and shown[0].type in ("em_open", "strong_open")
        and shown[-1].type == shown[0].type.replace("_open", "_close")
    )


def _link_title(children: list[Token]) -> str | None:
    """The text of the one link an entry is, where nothing but punctuation (or an access date)
    stands outside it."""
    inside: list[Token] = []
    outside: list[str] = []
    depth = links = 0
    for c in children:
        if c.type == "link_open":
            depth += 1
            links += 1
        elif c.type == "link_close":
            depth -= 1
        elif depth:
            inside.append(c)
        elif c.type == "text":
            outside.append(c.content)
    rest = " ".join("".join(outside).split()).strip(" -–—:.,;()").casefold()
    if links != 1 or (rest and not rest.startswith(("accessed", "retrieved", "visited"))):
        return None
    title = _plain(inside)
    return title if title and not title.lower().startswith(("http://", "https://")) else None


def _key(first_author: str | None, year: int | str | None) -> str | None:
    """The author–year key of a work: its first author's folded surname and its year
    (``Vaswani et al.``, ``Vaswani, A.``, ``A. Vaswani`` and 2017 are all ``vaswani2017``)."""
    if not first_author or not year:
        return None
    name = first_author
    for cut in (" et al", " & ", " and ", " and others"):
        at = name.find(cut)
        if at > 0:
            name = name[:at]
    folded = surname(name)
    return f"{folded}{year}" if folded else None


def _author_year_key(label: str) -> tuple[str | None, str | None]:
    """``Vaswani et al.|2017a`` → (``vaswani2017a``, ``vaswani2017``)."""
    name, _, year = label.partition("|")
    full = _key(name, year)
    plain = _key(name, year[:4])
    return full, plain


def _work_source(entry: _Entry, fields: EntryFields) -> WorkSource | ReferenceSource:
    title = fields.title
    if title and WORK.is_valid(query := WorkQuery(title, fields.first_author, fields.year).key):
        return WorkSource(identifier=query, title=title, year=fields.year, first_author=fields.first_author,
                          kind=WORK.kind, reference=entry.text)  # fmt: skip
    return ReferenceSource(title=title, year=fields.year, first_author=fields.first_author)


def _entry_citations(entry: _Entry, base: str) -> list[tuple[str, Citation]]:
    """The citations of an entry (one per identifier kind it names), with the key each is
    recognised by for duplicates (``doi:…``, ``url:…``, ``work:…``)."""
    ids = entry.identifiers
    fields = entry.fields or entry_fields(
        " ".join(w for k, w in enumerate(entry.words) if k not in ids.words)
    )
    title = fields.title if fields.confident else None
    out: list[tuple[str, Citation]] = []
    for n, (kind, value) in enumerate(ids.kinds()):
        cid = base if n == 0 else f"{base}@{kind}"
        if kind == "doi":
            source = WorkSource(identifier=value, title=title, year=fields.year,
                                first_author=fields.first_author, kind="doi")  # fmt: skip
            key = "doi:" + DOI.normalise(value)
        elif kind == "arxiv":
            source = WorkSource(identifier=ARXIV.read(value), title=title, year=fields.year,
                                first_author=fields.first_author, kind="arxiv",
                                form_note=ARXIV.form_note(value))  # fmt: skip
            key = "arxiv:" + ARXIV.normalise(value)
        elif kind != "url":  # a PMID, a PMCID: its handler reads it, and keys it
            handler = HANDLERS[kind]
            source = WorkSource(identifier=handler.read(value), title=title, year=fields.year,
                                first_author=fields.first_author, kind=kind)  # fmt: skip
            key = handler.key(handler.normalise(value))
        else:
            source = WorkSource(identifier=value, kind="url", title=entry.link_title)
            key = _url_key(value)
        out.append((key, Citation(id=cid, source=source, origin=entry.origin)))
    if not out:
        work = _work_source(entry, fields)
        key = ("work:" + work.identifier) if isinstance(work, WorkSource) else ("text:" + " ".join(
            query_words(entry.text)))  # fmt: skip
        out.append((key, Citation(id=base, source=work, origin=entry.origin)))
    return out


# -- claims ----------------------------------------------------------------------------------


NUMBERED = "citeaudit_numbered"  # the parser's env key: the report has a numbered reference list
LABELLED = "citeaudit_labelled"  # the prefixes of the entries labelled [S1], [Ref 2]… (case folded)


def _bold_label(children: list[Token], at: int) -> bool:
    """``**[S12]**`` at ``at``: a labelled entry's label in bold or emphasis."""
    if at + 2 >= len(children) or children[at].type not in ("strong_open", "em_open"):
        return False
    marker, close = children[at + 1], children[at + 2]
    meta = marker.meta or {}
    return (
        marker.type == "cite_marker"
        and meta.get("kind") == "label"
        and len(meta.get("labels", [])) == 1
        and close.type == children[at].type.replace("_open", "_close")
    )


def _markers(
    children: list[Token], numbered: bool = True, labelled: frozenset[str] = frozenset()
) -> Iterator[_Found]:
    """The markers of a block; superscript numbers only where the report's entries are numbered,
    ``[S12]``-style labels only where entries carry labels of that prefix."""
    for c in children:
        meta = c.meta or {}
        if c.type != "cite_marker":
            pass
        elif meta.get("kind") == "label":
            if not all(label_prefix(str(x)) in labelled for x in meta["labels"]):
                continue
            yield _Found(
                int(meta["start"]), int(meta["end"]), str(meta["raw"]), list(meta["labels"]), "label"
            )
            continue
        elif meta.get("conditional") and not numbered:
            continue
        if c.type == "cite_marker":
            yield _Found(int(meta["start"]), int(meta["end"]), str(meta["raw"]), list(meta["labels"]),
                         str(meta["kind"]), bool(meta.get("narrative", False)),
                         conditional=bool(meta.get("conditional", False)))  # fmt: skip
        elif c.type == "link_open" and "start" in meta:
            href = str(c.attrs.get("href", ""))
            if href.lower().startswith(("http://", "https://")):
                yield _Found(int(meta["start"]), int(meta["end"]), "", [href], "link", href=href)


def _protected(children: list[Token]) -> list[tuple[int, int]]:
    out = []
    for c in children:
        meta = c.meta or {}
        if (
            c.type in ("code_inline", "link_open", "image", "html_inline", "cite_malformed")
            and "start" in meta
        ):
            out.append((int(meta["start"]), int(meta["end"])))
    return sorted(set(out))


_CLOSING = {"“": "”", "«": "»"}
_QUOTE_OPEN = re.compile('[“«"]')


def _quotes(text: str, protected: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``[start, end)`` of the inside of each quoted span of a sentence."""
    out: list[tuple[int, int]] = []
    i = 0
    n = len(text)

    def covered(at: int) -> bool:
        return any(a <= at < b for a, b in protected)

    while i < n:
        opening = _QUOTE_OPEN.search(text, i)  # no quote opens before the next quotation mark
        if opening is None:
            break
        i = opening.start()
        c = text[i]
        close = _CLOSING.get(c)
        if close is None and c == '"' and (i == 0 or not text[i - 1].isalnum()) and i + 1 < n:
            close = '"'
        if close is None or covered(i):
            i += 1
            continue
        end = text.find(close, i + 1)
        while end >= 0 and covered(end):
            end = text.find(close, end + 1)
        if end < 0:
            i += 1
            continue
        out.append((i + 1, end))
        i = end + 1
    return out


@dataclass(slots=True)
class _Sentence:
    start: int  # in the file
    end: int
    text: str
    markers: list[tuple[_Found, int, int]]  # with their file range
    quotes: list[tuple[str, int]]  # plain text, and where the quote closes (block offset)
    block: _Block
    malformed: list[_Found] = field(default_factory=list)
    uncited: bool = False  # a checkable sentence with no marker in a paragraph that cites


# Words that state a result a source must back (with a number, what makes a sentence checkable).
_RESULT_WORDS = frozenset(
    ["outperforms", "outperformed", "outperform", "state-of-the-art", "significantly", "doubled",
     "tripled", "halved", "quadrupled", "record", "surpassed", "surpasses", "exceeds", "exceeded"]
)  # fmt: skip


def _checkable(text: str) -> bool:
    """A sentence that states something a source must back: a number, or a named result."""
    if any(c.isdigit() for c in text):
        return True
    return any(w.strip(".,;:()\"'").casefold() in _RESULT_WORDS for w in text.split())


def _outside(content: str, a: int, b: int, protected: list[tuple[int, int]]) -> str:
    """The text of ``[a, b)`` less its code spans, links, HTML and malformed markers (a number in
    code or in a marker never opened is no statement)."""
    out, at = [], a
    for x, y in protected:
        if y <= at or x >= b:
            continue
        out.append(content[at : max(at, x)])
        at = max(at, y)
    out.append(content[at:b])
    return " ".join(out)


def _sentences(block: _Block) -> Iterator[_Sentence]:
    if block.kind == "row":
        yield from _row_sentence(block)
        return
    numbered = bool(block.env.get(NUMBERED))
    labelled = block.env.get(LABELLED, frozenset())
    found = _ranges(
        sorted(_markers(block.children, numbered, labelled), key=lambda f: f.start), block.content
    )
    if not found:
        return
    protected = _protected(block.children)
    marker_ranges = sorted({(f.start, f.end) for f in found if f.kind != "link"})
    starts = [f.start for f in found]  # sorted: each sentence's markers by bisection, not a scan of all
    cites = any(not f.narrative for f in found)
    for a, b in sentence_spans(block.content, protected, marker_ranges):
        inside = found[bisect_left(starts, a) : bisect_left(starts, b)]
        if inside:
            yield _make_sentence(block, block.content, block.cmap, a, b, inside, protected)
        elif cites and _checkable(_outside(block.content, a, b, protected)):
            sentence = _make_sentence(block, block.content, block.cmap, a, b, [], protected)
            sentence.uncited = True
            yield sentence


def _ranges(found: list[_Found], content: str) -> list[_Found]:
    """``[1]–[4]`` names 1 to 4: the entries between two numeric markers a dash joins."""
    for before, after in pairwise(found):
        if before.kind == after.kind == "numeric" and len(before.labels) == len(after.labels) == 1:
            gap = content[before.end : after.start].strip(" \t")
            low, high = int(before.labels[0]), int(after.labels[0])
            if len(gap) == 1 and gap in _JOINERS and low < high <= low + MAX_RANGE:
                after.labels = [str(n) for n in range(low + 1, high + 1)]
    return found


def _make_sentence(
    block: _Block, content: str, cmap: ContentMap, a: int, b: int, inside: list[_Found],
    protected: list[tuple[int, int]],
) -> _Sentence:  # fmt: skip
    pieces: list[str] = []
    at = a_marker_end = a
    for f in inside:
        if f.kind == "link" or f.start < at:
            continue
        cut = f.start
        # The white space before a marker goes with it, and so do the commas or dashes joining it
        # to the marker before it ([2], [3]; [4]–[5]).
        while cut > at and content[cut - 1] in " \t":
            cut -= 1
        if pieces and at == a_marker_end and not content[at:cut].strip(" \t,;" + _JOINERS):
            cut = at
        pieces.append(content[at:cut])
        at = a_marker_end = f.end
    pieces.append(content[at:b])
    text = _inline_plain("".join(pieces), block.env)
    quotes = []
    for qa, qb in _quotes(
        content[a:b], [(x - a, y - a) for x, y in protected] + [(f.start - a, f.end - a) for f in inside]
    ):
        quoted = _inline_plain(content[a + qa : a + qb], block.env).strip().rstrip(",").strip()
        if len(quoted.split()) >= MIN_QUOTE_WORDS:
            quotes.append((quoted, a + qb + 1))
    start, end = cmap.span(a, b)
    markers = [(f, *cmap.span(f.start, f.end)) for f in inside]
    return _Sentence(start, end, text or " ".join(f.raw for f in inside), markers, quotes, block)


def _row_sentence(block: _Block) -> Iterator[_Sentence]:
    parts: list[str] = []
    markers: list[tuple[_Found, int, int]] = []
    quotes: list[tuple[str, int]] = []
    for content, children, header, cmap in block.cells:
        found = _ranges(
            sorted(
                _markers(children, bool(block.env.get(NUMBERED)), block.env.get(LABELLED, frozenset())),
                key=lambda f: f.start,
            ),
            content,
        )
        if not content.strip():
            continue
        sentence = _make_sentence(block, content, cmap, 0, len(content.rstrip()), found, _protected(children))
        cell = sentence.text if found else _inline_plain(content, block.env)
        parts.append(f"{header}: {cell}" if header else cell)
        markers += sentence.markers
        quotes += sentence.quotes
    if markers:
        yield _Sentence(block.start, block.end, "; ".join(parts), markers, quotes, block)


# -- the report ------------------------------------------------------------------------------


class _Linker:
    """Markers to entries, entries to citations, and the findings of the structure."""

    def __init__(self, reader: _Reader) -> None:
        self.reader = reader
        self.by_label: dict[str, _Entry] = {}
        self.by_key: dict[str, _Entry] = {}
        self.by_plain_key: dict[str, list[_Entry]] = {}
        self.by_identifier: dict[str, _Entry] = {}
        self.links: dict[str, _Entry] = {}
        self.notes = reader.notes
        self.used_ids: set[str] = set()
        self.footnotes = any(label.startswith("^") for e in reader.entries for label in e.labels)
        self.in_section: dict[tuple[int | None, str], _Entry] = {}
        self.sections = reader.sections
        self._index()

    def _unique(self, base: str) -> str:
        cid, n = base, 1
        while cid in self.used_ids or f"{cid}@url" in self.used_ids:
            n += 1
            cid = f"{base}-{n}"
        self.used_ids.add(cid)
        return cid

    def _index(self) -> None:
        seen_keys: dict[str, _Entry] = {}
        for number, entry in enumerate(self.reader.entries, 1):
            entry.identifiers = entry_identifiers(entry.words, entry.hrefs)
            for label in entry.labels:
                first = self.by_label.get(label)
                if (
                    first is not None
                    and entry.section != first.section
                    and (entry.section, label) not in self.in_section
                ):
                    # Entry 1 of the next chapter's references: markers before that list name it.
                    self.in_section[(entry.section, label)] = entry
                    continue
                if first is not None:
                    first = self.in_section.get((entry.section, label), first)
                    message = (f"{entry.shown} is defined again ({entry.origin}); markers name the "
                               f"first definition ({first.origin})")  # fmt: skip
                    self.notes.append(Note("W_LABEL_DUPLICATE", message, None, None, entry.origin))
                    entry.labels = [x for x in entry.labels if x != label]
                else:
                    self.by_label[label] = entry
                    self.in_section[(entry.section, label)] = entry
            if not entry.labels and entry.shown.startswith("[") and entry.shown[1:-1] in self.by_label:
                continue  # a second definition of a label: markers never reach it
            plain = (w for k, w in enumerate(entry.words) if k not in entry.identifiers.words)
            fields = entry.fields = entry_fields(" ".join(plain))
            if entry.link_title:  # [CoinLaw - Blockchain Statistics 2025](…): a title, no author
                fields = entry.fields = EntryFields(None, None, entry.link_title, False)
            key = _key(fields.first_author, fields.year)
            suffix = _suffix(entry.words, fields.year)
            base = entry.labels[0] if entry.labels else (key + suffix if key else f"ref-{number}")
            pairs = _entry_citations(entry, self._unique(base))
            for k, (_, citation) in enumerate(pairs):
                if k:
                    self.used_ids.add(citation.id)
            entry.citations = [c for _, c in pairs]
            entry.ids = [c.id for c in entry.citations]
            if key is not None:
                self.by_key.setdefault(key + suffix, entry)
                self.by_plain_key.setdefault(key, []).append(entry)
            for ident, _ in pairs:
                self.by_identifier.setdefault(ident, entry)
                first = seen_keys.get(ident)
                if first is not None:
                    message = (f"{entry.shown} names the same work as {first.shown} ({first.origin}): "
                               f"{ident.split(':', 1)[0]} {ident.split(':', 1)[1]}")  # fmt: skip
                    self.notes.append(
                        Note("W_REFERENCE_DUPLICATE", message, None, entry.ids[0], entry.origin)
                    )
                    break
                seen_keys[ident] = entry
        # The plain keys' lookups only where they are unique.
        for key, entries in self.by_plain_key.items():
            if len(entries) == 1:
                self.by_key.setdefault(key, entries[0])

    def suggest(self, found: _Found, label: str) -> str:
        """``; did you mean [1] (line 40:1)?``: the entry a marker that names none likely means
        (a footnote number over a numbered list, a number over footnotes, the same author with
        another year, the same year with a surname spelled nearly alike, a label in another case);
        empty when none. Labels are matched exactly: a suggestion never links a marker."""
        likely: _Entry | None = None
        if found.kind == "footnote" and label[1:].isdigit():
            likely = self.by_label.get(str(int(label[1:])))
        elif found.kind == "numeric":
            likely = self.by_label.get("^" + label)
        elif found.kind == "author-year":
            name, _, year = label.partition("|")
            wanted = _key(name, year[:4]) or ""
            folded = wanted[:-4]
            same_author = sorted(k for k in self.by_plain_key if k[:-4] == folded and folded)
            if same_author:
                likely = self.by_plain_key[same_author[0]][0]
            else:
                close = get_close_matches(wanted, sorted(k for k in self.by_plain_key if k[-4:] == year[:4]),
                                          n=1, cutoff=0.75)  # fmt: skip
                if close:
                    likely = self.by_plain_key[close[0]][0]
        if likely is None:  # "[S1]" over an entry labelled "[s1]": one label that differs only in case
            cased = [entry for other, entry in self.by_label.items() if other.casefold() == label.casefold()]
            likely = cased[0] if len(cased) == 1 else None
        if likely is None:
            return ""
        shown = likely.shown if likely.shown.startswith("[") else likely.text[:60]
        return f"; did you mean {shown} ({likely.origin})?"

    def numbered(self, label: str, at: int) -> _Entry | None:
        """Entry ``label`` of the references a marker at ``at`` belongs to: the first section
        after it (a chapter's own list), else the last; else the label's first definition."""
        if len(self.sections) > 1:
            after = bisect_right(self.sections, at)
            section = after if after < len(self.sections) else len(self.sections) - 1
            entry = self.in_section.get((section, label))
            if entry is not None:
                return entry
        return self.by_label.get(label)

    def resolve(self, found: _Found, label: str, at: int = 0) -> _Entry | None:
        if found.kind in ("numeric", "label"):
            return self.numbered(label, at)
        if found.kind == "footnote":
            entry = self.by_label.get(label)
            if entry is None and not self.footnotes and label[1:].isdigit():
                return self.numbered(str(int(label[1:])), at)  # [^1,^2] over a numbered list
            return entry
        if found.kind == "author-year":
            full, plain = _author_year_key(label)
            return (self.by_key.get(full) if full else None) or (
                self.by_key.get(plain) if plain and plain != full else None
            )
        kind, value = classify_url(label)
        if kind == "doi":
            ident = "doi:" + DOI.normalise(value)
        elif kind == "arxiv":
            ident = "arxiv:" + ARXIV.normalise(value)
        elif kind != "url":
            ident = HANDLERS[kind].key(HANDLERS[kind].normalise(value))
        else:
            ident = _url_key(value)
        entry = self.by_identifier.get(ident)
        if entry is not None:
            return entry
        entry = self.links.get(ident)
        if entry is None:
            cid = self._unique(f"link-{len(self.links) + 1}")
            entry = _Entry([], "", [], [label], 0, 0, "", label, used=True)
            entry.identifiers = Identifiers.named(kind, value)
            entry.citations = [c for _, c in _entry_citations(entry, cid)]
            entry.ids = [c.id for c in entry.citations]
            self.links[ident] = entry
        return entry


def _suffix(words: list[str], year: int | None) -> str:
    """The letter a year carries in an entry (``2020a``), to tell one author's works apart."""
    if year is None:
        return ""
    for w in words:
        core = w.strip("().,;:[]")
        if core[:4] == str(year) and len(core) == 5 and core[4].isalpha() and core[4].islower():
            return core[4]
    return ""


def _shown_label(found: _Found, label: str) -> str:
    if found.kind == "author-year":
        name, _, year = label.partition("|")
        return f"{name} {year}"
    return label


def parse_markdown(text: str, name: str) -> Submission:
    """A research report in Markdown as a submission (its ``input_sha256`` is set by the caller)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\0", "\ufffd")
    reader = _Reader(text, name)
    reader.read()
    linker = _Linker(reader)
    sentences = [s for block in reader.blocks for s in _sentences(block)]
    width = max(3, len(str(len(sentences))))
    claims: list[Claim] = []
    notes = reader.notes
    # Each block's text, sliced once: the claims of one paragraph share it, not a copy each.
    block_texts: dict[int, str] = {}
    for n, sentence in enumerate(sentences, 1):
        claim_id = f"c{n:0{width}d}"
        entries: list[_Entry] = []
        markers: list[Marker] = []
        by_marker: list[tuple[_Found, list[_Entry]]] = []
        undefined: list[tuple[str, _Found, int, str]] = []
        in_claim: set[int] = set()
        for found, start, end in sentence.markers:
            named: list[_Entry] = []
            labels: list[str] = []
            for label in found.labels:
                entry = linker.resolve(found, label, start)
                if entry is None:
                    if not (found.narrative or found.conditional):
                        undefined.append(
                            (_shown_label(found, label), found, start, linker.suggest(found, label))
                        )
                        labels.append(_shown_label(found, label))
                    continue
                labels.append(_shown_label(found, label))
                named.append(entry)
                entry.used = True
                if id(entry) not in in_claim:  # by identity: a claim may name 20,000 entries
                    in_claim.add(id(entry))
                    entries.append(entry)
            if (found.narrative or found.conditional) and not named:
                continue
            line, column = reader.index.line_col(start)
            ids = tuple(cid for e in named for cid in e.ids)
            shown = found.raw or reader.text[start:end]
            markers.append(Marker(shown, start, end, line, column, tuple(labels), ids))
            by_marker.append((found, named))
        if not markers and not sentence.uncited:
            continue
        quoted = _attribute(sentence, by_marker, entries)
        citations: list[Citation] = []
        first_marker: dict[str, Marker] = {}  # each citation's first marker, found in one pass
        for m in markers:
            for cid in m.citations:
                first_marker.setdefault(cid, m)
        for entry in entries:
            for citation in entry.citations:
                quote = quoted.get(id(entry))
                at = first_marker.get(citation.id)
                origin = f"line {at.line}:{at.column}" if at is not None else ""
                citations.append(
                    Citation(citation.id, citation.source, quote, origin=origin or citation.origin)
                )
        line, column = reader.index.line_col(sentence.start)
        end_line, end_column = reader.index.line_col(max(sentence.start, sentence.end - 1))
        block = sentence.block
        if id(block) not in block_texts:
            block_texts[id(block)] = reader.text[block.start : block.end]
        place = ClaimPlace(sentence.start, sentence.end, line, column, end_line, end_column + 1,
                           Span(block.start, block.end), block_texts[id(block)], tuple(markers))  # fmt: skip
        claims.append(Claim(id=claim_id, text=sentence.text, citations=tuple(citations),
                            origin=f"line {line}:{column}", place=place))  # fmt: skip
        for label, found, start, likely in undefined:
            shown = found.raw or label
            message = f"the marker {shown} names {label!r}, which no entry of the references defines{likely}"
            notes.append(Note("E_MARKER_UNDEFINED", message, claim_id, label, reader.origin(start)))
    for offset, _raw, problem in reader.malformed:
        notes.append(Note("W_MARKER_MALFORMED", f"{problem}: not read as a marker", None, None,
                          reader.origin(offset)))  # fmt: skip
    listed: list[Citation] = []
    for entry in reader.entries:
        if entry.used or not entry.citations:
            continue
        listed.extend(entry.citations)
        message = f"{entry.shown} is never cited: no marker of the report names it"
        notes.append(Note("W_REFERENCE_UNUSED", message, None, entry.ids[0], entry.origin))
    if not claims and not reader.entries:
        raise InputError(name, "", "no citation markers and no references: nothing to audit")
    return Submission(claims=tuple(claims), citations=tuple(listed), title=reader.title, format=FORMAT,
                      notes=tuple(sorted(notes, key=_note_order)))  # fmt: skip


def _note_order(note: Note) -> tuple[int, int, str, str]:
    line, _, column = note.origin.removeprefix("line ").partition(":")
    return (int(line or 0), int(column or 0), note.code, note.citation_id or "")


def _attribute(
    sentence: _Sentence, by_marker: list[tuple[_Found, list[_Entry]]], entries: list[_Entry]
) -> dict[int, str]:
    """The quote of each entry it is attributed to: the marker right after the quote, else the
    claim's only entry (by the entry's ``id()``)."""
    out: dict[int, str] = {}
    content = sentence.block.content
    for quote, after in sentence.quotes:
        target: _Entry | None = None
        for found, named in by_marker:
            if sentence.block.kind != "row" and found.start >= after - 1:
                gap = content[after : found.start] if after <= found.start else ""
                if not gap.strip(" \t\n,.;:") and len(named) == 1:
                    target = named[0]
                break
        if target is None and len(entries) == 1:
            target = entries[0]
        if target is not None:
            out.setdefault(id(target), quote)
    return out
