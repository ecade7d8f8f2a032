"""The Markdown parser of research reports: markdown-it-py (CommonMark, tables) with the rules a
report's citations need, and the map from the parser's inline text back to the file.

CommonMark knows no citation markers, so they are inline rules of the parser, next to its own
(a marker is then never found inside a code span, a code block, an HTML block or a link
destination: the parser has consumed those before a rule of ours could see them):

- ``cite_marker`` tokens for ``[1]``, ``[1, 3]``, ``[2–4]``, footnote references ``[^note]``
  and author–year citations ``(Vaswani et al., 2017)`` or, narrative, ``Vaswani et al. (2017)``;
- ``cite_malformed`` tokens for a marker opened and never closed (``[1, 3.``);
- ``footnote_def`` block tokens for footnote definitions (``[^note]: text``), the form
  mdit-py-plugins reads, without its rendering;
- the source range (in the inline text) of each code span, link, autolink, image and inline
  HTML tag, in the token's ``meta``, so that sentences are never split inside one.

markdown-it gives block tokens their lines (``map``) but inline text no columns; an inline
token's ``content`` is its lines with the container prefixes (``>``, list indentation) taken off,
so :class:`ContentMap` places each line of it back in its line of the file.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from citeaudit.formats.sentences import ABBREVIATIONS

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_block import StateBlock
    from markdown_it.rules_inline import StateInline

__all__ = [
    "MAX_NESTING",
    "MAX_RANGE",
    "STOPPED_AT",
    "AuthorYear",
    "ContentMap",
    "LineIndex",
    "author_year_cites",
    "is_year",
    "label_prefix",
    "parser",
]

# How deep blocks may nest (a list level is two: the list and its item; a quote is one). Real
# reports nest lists a few levels; the parser's own default (20) stopped at ten list levels and
# dropped the rest of the report. Past this limit reading stops, and the report is refused
# with the line where it stopped (``STOPPED_AT``), never read short.
MAX_NESTING = 200
STOPPED_AT = "citeaudit_stopped_at"  # the parser's env key: 0-based line where reading stopped
MAX_RANGE = 100  # the most entries a numeric range ([2–4]) may span; a longer one is malformed
_MAX_MARKER = 60  # characters between the brackets of a numeric marker
_MAX_LABEL = 100  # characters of a footnote label
_MAX_PARENS = 300  # characters between the parentheses of an author–year citation
_DASHES = "-\u2010\u2011\u2012\u2013\u2014"
_NUMERIC = set("0123456789 ,;") | set(_DASHES)
# Surname particles: lower-case words that belong to a name (``van der Berg``).
_PARTICLES = frozenset(
    [
        "van",
        "von",
        "der",
        "den",
        "de",
        "del",
        "della",
        "di",
        "da",
        "dos",
        "du",
        "la",
        "le",
        "ten",
        "ter",
        "al",
        "bin",
        "el",
        "ibn",
        "op",
        "zu",
    ]
)
# Words of a date: a parenthesised date (``(January 2025)``, ``(Q3 2024)``) is never a citation.
_DATE_WORDS = frozenset(
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "spring",
        "summer",
        "autumn",
        "fall",
        "winter",
        "q1",
        "q2",
        "q3",
        "q4",
        "h1",
        "h2",
        "fy",
        "cy",
        "early",
        "mid",
        "late",
        "end",
        "since",
        "until",
        "through",
        "updated",
        "accessed",
        "retrieved",
        "published",
        "est",
        "circa",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "январь",
        "февраль",
        "март",
        "апрель",
        "май",
        "июнь",
        "июль",
        "август",
        "сентябрь",
        "октябрь",
        "ноябрь",
        "декабрь",
        "января",
        "февраля",
        "марта",
        "апреля",
        "мая",
        "июня",
        "июля",
        "августа",
        "сентября",
        "октября",
        "ноября",
        "декабря",
    ]
)
# Words a bare number after them numbers a thing of the text, not a citation (``Fig.3``).
_NOT_BEFORE_SUPERSCRIPT = frozenset(
    [
        "fig",
        "figs",
        "figure",
        "table",
        "tab",
        "eq",
        "eqs",
        "no",
        "nos",
        "vol",
        "vols",
        "pp",
        "p",
        "ch",
        "chap",
        "sec",
        "section",
        "ref",
        "refs",
        "page",
        "pages",
        "version",
        "v",
        "art",
        "para",
        "step",
        "item",
        "appendix",
        "part",
        "lines",
        "line",
    ]
)
# Words that may open an author–year part before the name (``see Smith, 2020``).
_LEADS = frozenset(
    ["see", "also", "cf", "e.g", "eg", "i.e", "ie", "for", "example", "compare", "reviewed", "in"]
)


class LineIndex:
    """Line and column (1-based, in characters) of an offset of the text."""

    def __init__(self, text: str) -> None:
        starts = [0]
        at = text.find("\n")
        while at >= 0:
            starts.append(at + 1)
            at = text.find("\n", at + 1)
        self.starts = starts
        self.text = text

    def line_col(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset) - 1
        return line + 1, offset - self.starts[line] + 1

    def line(self, number: int) -> tuple[int, int]:
        """``[start, end)`` of a 0-based line, without its line end."""
        start = self.starts[number]
        end = self.starts[number + 1] - 1 if number + 1 < len(self.starts) else len(self.text)
        return start, end


@dataclass(frozen=True, slots=True)
class ContentMap:
    """Offsets of an inline token's ``content`` in the file, line by line."""

    content_starts: tuple[int, ...]  # where each line of the content starts in the content
    file_starts: tuple[int, ...]  # where it starts in the file

    def to_file(self, offset: int) -> int:
        i = bisect.bisect_right(self.content_starts, offset) - 1
        return self.file_starts[i] + offset - self.content_starts[i]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The file range of the content range ``[start, end)`` (non-empty)."""
        return self.to_file(start), self.to_file(end - 1) + 1

    @classmethod
    def build(cls, index: LineIndex, first_line: int, content: str, cursor: int = 0) -> ContentMap:
        """Each line of ``content`` found in its line of the file: as the end of it (a paragraph's
        lines lose only their prefix and trailing spaces), else at its first occurrence from
        ``cursor`` (a table cell, a heading between its ``#`` marks)."""
        content_starts: list[int] = []
        file_starts: list[int] = []
        at = 0
        for i, piece in enumerate(content.split("\n")):
            content_starts.append(at)
            at += len(piece) + 1
            number = min(first_line + i, len(index.starts) - 1)
            start, end = index.line(number)
            line = index.text[start:end]
            stripped = piece.rstrip(" \t")
            body = line.rstrip(" \t")
            found = line.find(stripped, cursor if i == 0 else 0) if stripped else len(body)
            if stripped and body.endswith(stripped) and (i > 0 or len(body) - len(stripped) >= cursor):
                found = len(body) - len(stripped)
            if found < 0:  # a tab of the indentation made spaces by the parser: placed by the rest
                rest = stripped.lstrip(" ")
                found = len(body) - len(rest) - (len(stripped) - len(rest))
                if not rest or not body.endswith(rest):
                    found = max(0, len(body) - len(stripped))
            file_starts.append(start + found)
        return cls(tuple(content_starts), tuple(file_starts))


# -- author–year citations ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AuthorYear:
    """One work an author–year citation names: its first author's name as written, the year."""

    name: str
    year: str  # four digits and an optional letter (2020a)


def is_year(word: str) -> bool:
    """``2017``, ``2017a``: a year from 1000 to 2999, a letter after it to tell works apart."""
    core = word[:4]
    rest = word[4:]
    return (
        len(core) == 4
        and core.isascii()
        and core.isdigit()
        and core[0] in "12"
        and (rest == "" or (len(rest) == 1 and rest.isascii() and rest.isalpha() and rest.islower()))
    )


def _name_word(word: str) -> bool:
    plain = word.rstrip(",.")
    if not plain:
        return False
    if plain in ("et", "al", "&", "and") or plain.lower() in _PARTICLES:
        return True
    letters = plain.replace("-", "").replace("'", "").replace("\u2019", "").replace(".", "")
    return bool(letters) and letters.isalpha() and plain[0].isupper()


def _name(words: list[str]) -> str | None:
    """The author part of a citation, when every word of it is a word of names (a surname may
    open with its particle: ``van der Maaten & Hinton``), and no date (``January 2025``)."""
    while words and words[0].lower().rstrip(",.:") in _LEADS:
        words = words[1:]
    if not words or len(words) > 10:
        return None
    first = words[0].rstrip(",.")
    if not (first[:1].isupper() or (first in _PARTICLES and len(words) > 1)):
        return None
    if any(w.rstrip(",.").casefold() in _DATE_WORDS for w in words):
        return None  # (January 2025), (Q3 2024), (as of March 2025): a date, not a work
    if not all(_name_word(w) for w in words):
        return None
    return " ".join(words).rstrip(",")


def author_year_cites(inner: str) -> list[AuthorYear] | None:
    """The works of ``Vaswani et al., 2017; Devlin et al., 2019`` (the text between the
    parentheses), or None when a part of it is not an author and a year."""
    cites: list[AuthorYear] = []
    for part in inner.replace("\n", " ").split(";"):
        words = part.split()
        at = next((i for i, w in enumerate(words) if is_year(w.rstrip(",.:"))), None)
        if at is None or at == 0:
            return None
        name = _name(words[:at])
        if name is None:
            return None
        cites.append(AuthorYear(name, words[at].rstrip(",.:")))
        for w in words[at + 1 :]:  # (Smith, 2019, 2020): more works of the same author
            if is_year(w.rstrip(",.:")):
                cites.append(AuthorYear(name, w.rstrip(",.:")))
            else:
                break
    return cites or None


def _narrative_name(before: str) -> str | None:
    """The name a narrative citation's year follows: ``Vaswani et al.``, ``Smith and Jones``."""
    words = before.split()[-7:]
    for take in (6, 5, 4, 3, 2, 1):  # the longest tail of names that reads as an author part
        if len(words) < take:
            continue
        tail = words[-take:]
        if tail[0] in ("et", "al.", "al", "&", "and") or not (tail[0][:1].isupper() or tail[0] in _PARTICLES):
            continue
        if take > 1 and not any(w in ("et", "&", "and") or w in _PARTICLES for w in tail):
            continue  # capitalised words are a name only around "et al.", "and", "&" or a particle
        name = _name(list(tail))
        if name is not None and name == " ".join(tail) and not name.endswith(","):
            return name
    return None


# -- inline rules ----------------------------------------------------------------------------


def _numbers(inner: str) -> tuple[list[str], bool]:
    """The entry numbers of ``1, 3`` or ``2–4``; whether a range was malformed."""
    labels: list[str] = []
    for part in inner.replace(";", ",").split(","):
        piece = part.strip()
        if not piece:
            return labels, True
        dash = next((i for i, c in enumerate(piece) if c in _DASHES), None)
        if dash is None:
            if not piece.isdigit():
                return labels, True
            labels.append(str(int(piece)))
            continue
        low, high = piece[:dash].strip(), piece[dash + 1 :].strip()
        if not (low.isdigit() and high.isdigit()) or int(high) < int(low) or int(high) - int(low) > MAX_RANGE:
            return labels, True
        labels.extend(str(n) for n in range(int(low), int(high) + 1))
    return labels, False


def _push_marker(state: StateInline, end: int, kind: str, labels: list[str], **more: Any) -> None:
    token = state.push("cite_marker", "", 0)
    token.meta = {"start": state.pos, "end": end, "kind": kind, "labels": labels,
                  "raw": state.src[state.pos : end], **more}  # fmt: skip


def _push_malformed(state: StateInline, end: int, problem: str) -> None:
    token = state.push("cite_malformed", "", 0)
    token.meta = {"start": state.pos, "end": end, "raw": state.src[state.pos : end], "problem": problem}


def _footnote_labels(inner: str) -> list[str]:
    """``note`` → ``[^note]``; ``1,^2`` and ``1, ^2`` (``[^1,^2]``) → ``^1``, ``^2``."""
    if "," not in inner:
        return ["^" + inner]
    parts = [p.strip().removeprefix("^") for p in inner.split(",")]
    if all(parts) and all(" " not in p for p in parts):
        return ["^" + p for p in parts]
    return ["^" + inner]


def _wide_marker(state: StateInline, silent: bool) -> bool:
    """``【1】``, ``【1, 3】``, ``【1†source】``: the brackets some chat exports write."""
    src, pos, top = state.src, state.pos, state.posMax
    if src[pos] != "【":
        return False
    close = src.find("】", pos + 1, min(top, pos + _MAX_MARKER + 2))
    if close < 0:
        return False
    inner = src[pos + 1 : close].split("†", 1)[0]
    if not inner[:1].isdigit() or set(inner) - _NUMERIC:
        return False
    labels, bad = _numbers(inner)
    if bad:
        return False
    if not silent:
        _push_marker(state, close + 1, "numeric", labels)
    state.pos = close + 1
    return True


_SUPERSCRIPTS = {"⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7",
                 "⁸": "8", "⁹": "9"}  # fmt: skip
_SUPER_JOINERS = ",˒⁻-–"
_SUPER_AFTER = ".,;:!?"  # the punctuation a bare number follows (``handlebars.1``)


_UNITS = frozenset(["m", "cm", "km", "mm", "nm", "µm", "μm", "ft", "mi", "in", "yd", "s", "ms"])


def _cites_after(src: str, pos: int) -> bool:
    """Whether a Unicode superscript at ``pos`` can be a citation: after punctuation, or after a
    word of two letters or more that is no unit — never a power (``T²``, ``Z²``, ``10²``, ``km²``)."""
    last = pos - 1
    while last > 0 and src[last] in "*_\"”’'":
        last -= 1
    if src[last] in _SUPER_AFTER or src[last] == ")":
        return True
    if not src[last].isalpha():
        return False
    start = last
    while start > 0 and src[start - 1].isalpha():
        start -= 1
    word = src[start : last + 1]
    return len(word) >= 2 and not word.isupper() and word not in _UNITS


def _superscript(state: StateInline, silent: bool) -> bool:
    """Numbers written as superscripts: Unicode ones (``attention¹²``, ``growth³˒⁴``) and bare
    digits right after a word's punctuation (``handlebars.1 Next``, ``rose,12 while``), as
    Gemini and word processors export them. They are markers only where the report has a
    numbered reference list (``conditional``: the reader drops them otherwise)."""
    src, pos, top = state.src, state.pos, state.posMax
    c = src[pos]
    if pos == 0 or src[pos - 1].isspace():
        return False
    if c in _SUPERSCRIPTS:
        if not _cites_after(src, pos):
            return False
        end = pos
        while end < top and (src[end] in _SUPERSCRIPTS or (src[end] in _SUPER_JOINERS and end + 1 < top
                                                            and src[end + 1] in _SUPERSCRIPTS)):  # fmt: skip
            end += 1
        inner = "".join(_SUPERSCRIPTS.get(ch, "," if ch in ",˒" else "-") for ch in src[pos:end])
    elif c.isdigit() and c.isascii():
        if pos < 2 or src[pos - 1] not in _SUPER_AFTER:
            return False
        last = pos - 2  # the word's last letter, before its emphasis or quotation marks
        while last > 0 and src[last] in "*_)\"”’'":
            last -= 1
        percent = src[last] == "%" and last > 0 and src[last - 1].isdigit()  # grew 40%.2
        if not (src[last].isalpha() or percent):
            return False
        word_start = last
        while word_start > 0 and src[word_start - 1].isalpha():
            word_start -= 1
        word = "percent" if percent else src[word_start : last + 1]
        if (
            len(word) < 2
            or word.lower() in _NOT_BEFORE_SUPERSCRIPT
            or (src[pos - 1] == "." and word.lower() in ABBREVIATIONS and word.lower() != "al")
        ):
            return False  # Fig.3, p.5, A.1: a numbered thing, not a citation
        end = pos
        while end < top and (
            src[end].isdigit() or (src[end] in ",-–" and end + 1 < top and src[end + 1].isdigit())
        ):
            end += 1
        if end < top and not (src[end].isspace() or src[end] in ")]"):
            return False
        inner = src[pos:end]
        if any(len(n) > 3 for n in inner.replace("-", ",").replace("–", ",").split(",")):
            return False
    else:
        return False
    labels, bad = _numbers(inner)
    if bad or not labels:
        return False
    if not silent:
        _push_marker(state, end, "numeric", labels, conditional=True)
    state.pos = end
    return True


# ``[S12]``, ``[Ref 4]``, ``[S1, S3]``, ``[S1–S3]``: a short letter prefix and a number, and more
# of them after a comma or a semicolon, or a range of one prefix after a dash.
_LABEL = r"([A-Za-z]{1,6}) ?(\d{1,4})"
_LABELLED = re.compile(rf"\[{_LABEL}((?:\s?[,;]\s?{_LABEL})*|\s?[-–—]\s?{_LABEL})\]")
_LABEL_ONE = re.compile(_LABEL)


def label_prefix(label: str) -> str:
    """``S12`` → ``s``: the prefix a labelled entry and its markers share (case folded)."""
    return label.rstrip("0123456789").casefold()


def _labelled_marker(state: StateInline, silent: bool) -> bool:
    """``[S12]``-style markers. They are read as markers only where the report's references
    define entries of their prefix (``kind`` ``label``): ``[Section 2]`` or ``[Table 1]`` over
    entries labelled ``S1``… stays text."""
    src, pos = state.src, state.pos
    found = _LABELLED.match(src, pos, state.posMax)
    if found is None:
        return False
    end = found.end()
    if end < state.posMax and src[end] == "(":
        return False  # [S1](https://…): a link, read by the link rule
    references = state.env.get("references", {}) if isinstance(state.env, dict) else {}
    if " ".join(found.group(0)[1:-1].split()).upper() in references:
        return False  # [S1] over a definition [S1]: https://…: a link reference
    if end < state.posMax and src[end] == "[":
        close = src.find("]", end, min(state.posMax, end + _MAX_MARKER + 2))
        if close > end and " ".join(src[end + 1 : close].split()).upper() in references:
            return False  # [S1][ref] over a definition [ref]: https://…: a link
    labels = [a + b for a, b in _LABEL_ONE.findall(found.group(0))]
    if len(labels) == 2 and found.group(6):  # a range: one prefix, going up by at most MAX_RANGE
        (low_prefix, low), (high_prefix, high) = found.group(1, 2), found.group(6, 7)
        if low_prefix != high_prefix or not int(low) < int(high) <= int(low) + MAX_RANGE:
            return False
        labels = [f"{low_prefix}{n}" for n in range(int(low), int(high) + 1)]
    if not silent:
        _push_marker(state, end, "label", labels, conditional=True)
    state.pos = end
    return True


def _bracket_marker(state: StateInline, silent: bool) -> bool:
    """``[1]``, ``[1, 3]``, ``[2–4]``, ``[1†source]``, ``[^note]``, ``[^1,^2]`` (before the link
    rule: ``[1](url)`` is a link)."""
    src, pos, top = state.src, state.pos, state.posMax
    if src[pos] != "[" or pos + 1 >= top:
        return False
    if src[pos + 1] == "^":
        end = pos + 2
        while (
            end < top
            and end - pos <= _MAX_LABEL + 2
            and (src[end] not in "] \t\n[" or (src[end] == " " and src[end - 1] == ","))
        ):
            end += 1
        if end < top and src[end] == "]" and end > pos + 2:
            if end + 1 < top and src[end + 1] == "(":
                return False
            if not silent:
                _push_marker(state, end + 1, "footnote", _footnote_labels(src[pos + 2 : end]))
            state.pos = end + 1
            return True
        if end > pos + 2 and (end >= top or src[end] in " \t\n"):
            if not silent:
                _push_malformed(state, end, "a footnote reference opened with '[^' is never closed")
            state.pos = end
            return True
        return False
    if not src[pos + 1].isdigit():
        return _labelled_marker(state, silent)
    end = pos + 1
    while end < top and end - pos <= _MAX_MARKER and src[end] in _NUMERIC:
        end += 1
    if end < top and src[end] == "†":  # [1†source]: an entry number and the word "source"
        close = src.find("]", end, min(top, end + _MAX_MARKER))
        if close > 0 and "[" not in src[end:close]:
            labels, bad = _numbers(src[pos + 1 : end])
            if not bad:
                if not silent:
                    _push_marker(state, close + 1, "numeric", labels)
                state.pos = close + 1
                return True
    if end < top and src[end] == "]":
        if end + 1 < top and src[end + 1] == "(":
            return False  # [1](https://…): an inline link, read by the link rule
        labels, bad = _numbers(src[pos + 1 : end])
        if not silent:
            if bad:
                problem = f"cannot read {src[pos : end + 1]!r} as entry numbers"
                if any(c in _DASHES for c in src[pos + 1 : end]):
                    problem += f" (a range must go up and span at most {MAX_RANGE} entries)"
                _push_malformed(state, end + 1, problem)
            else:
                _push_marker(state, end + 1, "numeric", labels)
        state.pos = end + 1
        return True
    # An opening bracket and numbers that run into the end of the text or of a sentence.
    if end >= top or src[end] in ".!?:\n":
        if not silent:
            _push_malformed(state, end, f"the marker {src[pos:end].rstrip()!r} is never closed with ']'")
        state.pos = end
        return True
    return False


def _author_year(state: StateInline, silent: bool) -> bool:
    """``(Vaswani et al., 2017; Devlin et al., 2019)``, and ``(2017)`` after a name."""
    src, pos, top = state.src, state.pos, state.posMax
    if src[pos] != "(":
        return False
    close = src.find(")", pos + 1, min(top, pos + _MAX_PARENS + 2))
    if close < 0:
        return False
    inner = src[pos + 1 : close]
    if "(" in inner or "[" in inner or "`" in inner:
        return False
    cites = author_year_cites(inner)
    narrative = False
    if cites is None:
        words = inner.replace(",", " ").split()
        if not words or not is_year(words[0].rstrip(".")):
            return False
        name = _narrative_name(src[max(0, pos - 120) : pos])
        if name is None:
            return False
        cites = [AuthorYear(name, words[0].rstrip("."))]
        narrative = True
    if not silent:
        labels = [f"{c.name}|{c.year}" for c in cites]
        _push_marker(state, close + 1, "author-year", labels, narrative=narrative)
    state.pos = close + 1
    return True


_LINK_NESTING = 20  # link texts inside link texts, while a link's end is looked for (the parser's own limit)
_LAST_CLOSE = "_citeaudit_last_close"  # where the inline text's last ']' is, once looked for


def _bounded_link(rule: Callable[[StateInline, bool], bool]) -> Callable[[StateInline, bool], bool]:
    """The link and image rules, which look for the end of a link text from every ``[``: never
    where no ``]`` follows (``[[[[…`` was a scan to the end of the text from each bracket), and
    no deeper than :data:`_LINK_NESTING` while looking (the blocks' own nesting limit is higher)."""

    def bounded(state: StateInline, silent: bool) -> bool:
        if silent and state.level > _LINK_NESTING:
            return False
        last = getattr(state, _LAST_CLOSE, None)
        if last is None:
            last = state.src.rfind("]")
            setattr(state, _LAST_CLOSE, last)
        if last < state.pos:
            return False
        return rule(state, silent)

    return bounded


_LABELS = "_citeaudit_labels"  # the link labels' ends already found, by start


def _link_label(state: StateInline, start: int, disable_nested: bool = False) -> int:
    """Where the link text opened by the ``[`` at ``start`` closes (-1: nowhere), as
    markdown-it's ``parseLinkLabel`` finds it, in linear time over a text.

    The parser's own helper scans from each ``[`` to the end of the text when no ``]`` closes it,
    so ``[[[[…`` took a time quadratic in its length. Here one scan matches every bracket it
    passes (a stack), each bracket's end is kept (with the first nested link in it, for
    ``disable_nested``), and a scan that meets a bracket already matched jumps to its end."""
    labels: dict[tuple[int, int], tuple[int, int | None]] = state.__dict__.setdefault(_LABELS, {})
    key = (start, state.posMax)
    if key not in labels:
        _scan_labels(state, start, labels)
    end, nested = labels[key]
    if disable_nested and nested is not None:
        return -1
    return end


def _scan_labels(
    state: StateInline, start: int, labels: dict[tuple[int, int], tuple[int, int | None]]
) -> None:
    src, top, old = state.src, state.posMax, state.pos
    stack: list[tuple[int, int | None]] = [(start, None)]  # open brackets, the first nested link in each
    state.pos = start + 1
    while state.pos < top:
        at = state.pos
        if src[at] == "]":
            opened, nested = stack.pop()
            labels[(opened, top)] = (at, nested)
            if not stack:
                break
            if nested is not None and stack[-1][1] is None:
                stack[-1] = (stack[-1][0], nested)
        state.md.inline.skipToken(state)
        if src[at] != "[":
            continue
        if state.pos != at + 1:  # a link (or a marker) inside: a token, not a bracket
            if stack[-1][1] is None:
                stack[-1] = (stack[-1][0], at)
            continue
        known = labels.get((at, top))
        if known is None:
            stack.append((at, None))
        elif known[0] < 0:  # never closed: no bracket open before it closes either
            break
        else:
            state.pos = known[0] + 1  # matched already: on after its end
            if known[1] is not None and stack[-1][1] is None:
                stack[-1] = (stack[-1][0], known[1])
    for opened, nested in stack:
        labels[(opened, top)] = (-1, nested)
    state.pos = old


def _open_brackets(state: StateInline, silent: bool) -> bool:
    """A run of ``[`` that open no link (none of them is ever closed) read as text at once,
    not one bracket at a time through every rule. The last of the run is left to the rules
    (``[[^note`` or ``[[1`` may open a marker)."""
    src, pos, top = state.src, state.pos, state.posMax
    if silent or src[pos] != "[" or pos + 1 >= top or src[pos + 1] != "[":
        return False
    end = pos
    while end + 1 < top and src[end + 1] == "[" and _link_label(state, end) < 0:
        end += 1
    if end == pos:
        return False
    state.pending += src[pos:end]
    state.pos = end
    return True


def _recording(rule: Callable[[StateInline, bool], bool], kinds: tuple[str, ...]) -> Any:
    """The parser's own rule, with the source range of what it read kept in the token's meta."""

    def recorded(state: StateInline, silent: bool) -> bool:
        start, count = state.pos, len(state.tokens)
        if not rule(state, silent):
            return False
        if not silent:
            for token in state.tokens[count:]:
                if token.type in kinds:
                    token.meta = {**(token.meta or {}), "start": start, "end": state.pos}
                    break
        return True

    return recorded


# -- footnote definitions ------------------------------------------------------------------


def _opens_block(line: str) -> bool:
    """A line that starts a block of its own and so ends a footnote's lazy continuation."""
    s = line.lstrip(" ")
    if s.startswith(("#", ">", "|", "[^", "```", "~~~", "<")):
        return True
    if s[:2] in ("- ", "* ", "+ "):
        return True
    digits = len(s) - len(s.lstrip("0123456789"))
    return 0 < digits < 10 and s[digits : digits + 2] in (". ", ") ")


def _footnote_def(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    start = state.bMarks[start_line] + state.tShift[start_line]
    maximum = state.eMarks[start_line]
    if state.is_code_block(start_line) or start + 4 > maximum:
        return False
    src = state.src
    if src[start] != "[" or src[start + 1] != "^":
        return False
    pos = start + 2
    while pos < maximum and src[pos] not in "] \t[":
        pos += 1
    if pos == start + 2 or pos - start - 2 > _MAX_LABEL or pos + 1 >= maximum:
        return False
    if src[pos] != "]" or src[pos + 1] != ":":
        return False
    if silent:
        return True
    label = src[start + 2 : pos]
    next_line = start_line + 1
    while next_line < end_line:
        if state.isEmpty(next_line):
            look = next_line + 1
            while look < end_line and state.isEmpty(look):
                look += 1
            if look < end_line and state.sCount[look] - state.blkIndent >= 4:
                next_line = look  # an indented paragraph after a blank line: still the footnote
                continue
            break
        if state.sCount[next_line] < state.blkIndent:
            break
        indented = state.sCount[next_line] - state.blkIndent >= 4
        line = src[state.bMarks[next_line] + state.tShift[next_line] : state.eMarks[next_line]]
        if not indented and _opens_block(line):
            break
        next_line += 1
    first = src[pos + 2 : maximum].strip(" \t")
    rest = state.getLines(start_line + 1, next_line, state.blkIndent + 4, False)
    token = state.push("footnote_def", "", 0)
    token.meta = {"label": label}
    token.map = [start_line, next_line]
    token.content = first + ("\n" + rest.rstrip("\n") if next_line > start_line + 1 else "")
    state.line = next_line
    return True


def _guard_nesting(md: MarkdownIt) -> None:
    """The block parser noting, in ``env[STOPPED_AT]``, the first line it skips at the nesting
    limit (markdown-it skips the rest of the text there without a word)."""
    block = md.block
    tokenize = block.tokenize

    def guarded(state: StateBlock, start_line: int, end_line: int) -> None:
        if state.level >= MAX_NESTING:
            line = state.skipEmptyLines(start_line)
            if line < end_line and state.sCount[line] >= state.blkIndent:
                stopped = state.env.get(STOPPED_AT)
                state.env[STOPPED_AT] = line if stopped is None else min(int(stopped), line)
        tokenize(state, start_line, end_line)

    block.tokenize = guarded  # type: ignore[method-assign,assignment]


def _quick_hr(rule: Callable[[StateBlock, int, int, bool], bool]) -> Any:
    """The thematic-break rule, refusing at C speed a line that is no break: the parser's own
    rule reads the line a character at a time at every nesting level (``- - - …x`` of 200,000
    characters was 20 million steps)."""

    def hr(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
        pos = state.bMarks[start_line] + state.tShift[start_line]
        marker = state.src[pos : pos + 1]
        if marker not in ("*", "-", "_"):
            return False
        if state.src[pos : state.eMarks[start_line]].strip(marker + " \t"):
            return False
        return rule(state, start_line, end_line, silent)

    return hr


@cache
def parser() -> MarkdownIt:
    """The one configured parser (built once: a report is parsed with it many times)."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": True, "maxNesting": MAX_NESTING}).enable("table")
    _guard_nesting(md)
    # This parser's own helpers (the module's are shared by every parser).
    md.helpers = SimpleNamespace(  # type: ignore[assignment]
        parseLinkLabel=_link_label,
        parseLinkDestination=md.helpers.parseLinkDestination,
        parseLinkTitle=md.helpers.parseLinkTitle,
    )
    md.inline.add_terminator_char("(")  # where an author–year citation may open
    for ch in ("【", *_SUPERSCRIPTS):  # wide brackets and superscripts
        md.inline.add_terminator_char(ch)
    # A bare superscript number (``handlebars.1``) opens only after a word's punctuation: the text
    # rule stops at such a digit, not at every digit (which sent each one through every rule).
    md.inline.terminator_re = re.compile(
        f"{md.inline.terminator_re.pattern}|(?<=[{re.escape(_SUPER_AFTER)}])[0-9]"
    )
    md.inline.ruler.before("link", "cite_wide", _wide_marker)
    md.inline.ruler.before("link", "cite_superscript", _superscript)
    md.inline.ruler.before("link", "cite_open_brackets", _open_brackets)
    md.inline.ruler.before("link", "cite_marker", _bracket_marker)
    md.inline.ruler.before("link", "cite_author_year", _author_year)
    for name, kinds in (
        ("backticks", ("code_inline",)),
        ("link", ("link_open",)),
        ("image", ("image",)),
        ("autolink", ("link_open",)),
        ("html_inline", ("html_inline",)),
    ):
        rule = next(r for r in md.inline.ruler.__rules__ if r.name == name).fn
        if name in ("link", "image"):
            rule = _bounded_link(rule)
        md.inline.ruler.at(name, _recording(rule, kinds))
    hr = next(r for r in md.block.ruler.__rules__ if r.name == "hr")
    md.block.ruler.at("hr", _quick_hr(hr.fn), {"alt": list(hr.alt)})
    md.block.ruler.before("reference", "footnote_def", _footnote_def, {"alt": ["paragraph", "reference"]})
    return md
