"""Text normalisation with a map back to the original offsets.

One normal form serves quotes, snapshots and titles: NFKC, casefold, every dash
as ``-``, quotation marks and invisible characters removed, runs of whitespace
collapsed to one space. The quote check searches the normalised snapshot but
must report the span in the *original* text, so normalisation keeps a map.

The map is built cheaply: most text is already NFKC and casefolds one-to-one,
so stage 1 (NFKC + casefold) usually changes nothing but letter case, and
stage 2 only deletes or collapses a few characters (quote marks, runs of
whitespace). Each stage records only the segments whose length changed; any
position in between maps linearly.
"""

from __future__ import annotations

import html
import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "NormalizedText",
    "clean_markup",
    "fold_name",
    "fold_tex_math",
    "normalize",
    "normalize_title",
    "normalize_with_map",
    "show_controls",
    "title_key",
    "used_controls",
]

# Quotation marks of the scripts agents write in (Latin, Cyrillic, CJK).
# Removed rather than unified, as the seed does: agents swap «», “” and "" freely.
QUOTE_CHARS = (
    "\"'`\u00ab\u00bb\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f\u2039\u203a"
    "\u300c\u300d\u300e\u300f\uff02\uff07"
)
# Invisible characters that split words in copied text without meaning anything.
INVISIBLE_CHARS = "\u00ad\u200b\u200c\u200d\u2060\ufeff"
DASH_CHARS = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"

_DROP_SET = frozenset(QUOTE_CHARS + INVISIBLE_CHARS)
_DASH_SET = frozenset(DASH_CHARS)
# Whitespace other than the plain space (what str.isspace() accepts).
_OTHER_SPACE = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
# Characters stage 2 changes. One plain character class: it scans fastest.
_SPECIAL_RE = re.compile(f"[{re.escape(QUOTE_CHARS + INVISIBLE_CHARS + DASH_CHARS)}{_OTHER_SPACE}]")


@dataclass(frozen=True, slots=True)
class _Segment:
    out_start: int
    out_len: int
    in_start: int
    in_len: int


class _SegmentMap:
    """Positions of an output string mapped to the input it was made from."""

    __slots__ = ("_out_starts", "_segments")

    def __init__(self, segments: list[_Segment]) -> None:
        self._segments = segments
        self._out_starts = [s.out_start for s in segments]

    def source_of(self, pos: int) -> tuple[int, int]:
        """The input range ``[lo, hi)`` that produced output character ``pos``."""
        # Deleted runs (out_len 0) share out_start with the next character;
        # bisect_right picks the last segment starting at or before pos.
        k = bisect_right(self._out_starts, pos) - 1
        while k >= 0:
            seg = self._segments[k]
            if pos < seg.out_start + seg.out_len:
                return seg.in_start, seg.in_start + seg.in_len
            x = seg.in_start + seg.in_len + (pos - seg.out_start - seg.out_len)
            return x, x + 1
        return pos, pos + 1


@dataclass(frozen=True, slots=True)
class NormalizedText:
    """A normalised string and the maps back to the original it came from."""

    text: str
    _stage1: _SegmentMap
    _stage2: _SegmentMap

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """Map a non-empty ``[start, end)`` of :attr:`text` to the original text."""
        a, _ = self._stage2.source_of(start)
        _, b = self._stage2.source_of(end - 1)
        lo, _ = self._stage1.source_of(a)
        _, hi = self._stage1.source_of(b - 1)
        return lo, hi


def _fold_line(line: str) -> tuple[str, bool]:
    """NFKC + casefold of one line; True when every character maps one-to-one."""
    if unicodedata.is_normalized("NFKC", line):
        folded = line.casefold()
        # casefold never shortens a character, so equal length means 1:1.
        if len(folded) == len(line):
            return folded, True
    return "", False


def _fold_clusters(line: str, base: int, out_base: int, segments: list[_Segment]) -> str:
    """Slow path: fold a line cluster by cluster (base + combining marks)."""
    out: list[str] = []
    out_pos = out_base
    i = 0
    n = len(line)
    while i < n:
        j = i + 1
        while j < n and unicodedata.combining(line[j]):
            j += 1
        cluster = line[i:j]
        folded = unicodedata.normalize("NFKC", cluster).casefold()
        if len(folded) != len(cluster) or len(cluster) > 1:
            segments.append(_Segment(out_pos, len(folded), base + i, len(cluster)))
        out.append(folded)
        out_pos += len(folded)
        i = j
    return "".join(out)


def _safe_cut(line: str, at: int) -> int:
    """The first place at or after ``at`` just past a space that a non-combining character
    follows (NFKC never composes a space with what comes next); the end if there is none."""
    space = line.find(" ", at)
    while space != -1 and space + 1 < len(line) and unicodedata.combining(line[space + 1]):
        space = line.find(" ", space + 1)
    return len(line) if space == -1 else space + 1


def _pieces(line: str, size: int) -> Iterator[tuple[int, str]]:
    """``line`` in pieces of about ``size`` characters or more, cut only where it is safe."""
    start = 0
    while start < len(line):
        end = _safe_cut(line, start + size - 1)
        yield start, line[start:end]
        start = end


def _fold_words(line: str, base: int, out_base: int, segments: list[_Segment]) -> str:
    """A line that does not fold one-to-one, a kilobyte at a time, then word by word in the
    pieces that need it, and cluster by cluster only in the words that need it (a long
    paragraph with one ligature was folded cluster by cluster throughout: 3 µs a character)."""
    out: list[str] = []
    out_pos = out_base
    for offset, piece in _pieces(line, 1024):
        folded, one_to_one = _fold_line(piece)
        if not one_to_one:
            words: list[str] = []
            for word_offset, word in _pieces(piece, 1):
                done, fine = _fold_line(word)
                if not fine:
                    done = _fold_clusters(word, base + offset + word_offset, out_pos, segments)
                words.append(done)
                out_pos += len(done)
            folded = "".join(words)
        else:
            out_pos += len(folded)
        out.append(folded)
    return "".join(out)


def _stage1(text: str) -> tuple[str, _SegmentMap]:
    folded, one_to_one = _fold_line(text)
    if one_to_one:
        return folded, _SegmentMap([])
    segments: list[_Segment] = []
    parts: list[str] = []
    in_pos = out_pos = 0
    # NFKC never composes across a newline, so lines can be folded apart and
    # only the lines that need it take the slow path.
    for line in text.split("\n"):
        folded, one_to_one = _fold_line(line)
        if not one_to_one:
            folded = _fold_words(line, in_pos, out_pos, segments)
        parts.append(folded)
        in_pos += len(line) + 1
        out_pos += len(folded) + 1
    return "\n".join(parts), _SegmentMap(segments)


def _is_gap(c: str) -> bool:
    return c.isspace() or c in _DROP_SET


def _changed_runs(text: str) -> list[tuple[int, int, str]]:
    """Runs that stage 2 changes, with their replacement, in order.

    A run of whitespace and dropped characters becomes one space if it holds
    any whitespace, else nothing; a dash becomes ``-``. Found from a scan for
    special characters and for double spaces, then widened to whole runs.
    """
    seeds = [m.start() for m in _SPECIAL_RE.finditer(text)]
    at = text.find("  ")
    while at != -1:
        seeds.append(at)
        at = text.find("  ", at + 2)
    seeds.sort()
    runs: list[tuple[int, int, str]] = []
    end = -1
    n = len(text)
    for pos in seeds:
        if pos < end:
            continue  # inside the run just emitted
        c = text[pos]
        if c in _DASH_SET:
            runs.append((pos, pos + 1, "-"))
            end = pos + 1
            continue
        start = pos
        while start > 0 and _is_gap(text[start - 1]) and start - 1 >= end:
            start -= 1
        end = pos + 1
        while end < n and _is_gap(text[end]):
            end += 1
        run = text[start:end]
        repl = " " if any(ch.isspace() for ch in run) else ""
        if run != repl:
            runs.append((start, end, repl))
    return runs


def _stage2(text: str) -> tuple[str, _SegmentMap]:
    segments: list[_Segment] = []
    parts: list[str] = []
    last = out_pos = 0
    for start, end, repl in _changed_runs(text):
        parts.append(text[last:start])
        out_pos += start - last
        if len(repl) != end - start:
            segments.append(_Segment(out_pos, len(repl), start, end - start))
        parts.append(repl)
        out_pos += len(repl)
        last = end
    parts.append(text[last:])
    return "".join(parts), _SegmentMap(segments)


def normalize_with_map(text: str) -> NormalizedText:
    """Normalise ``text`` and keep the map back to its original offsets."""
    s1, map1 = _stage1(text)
    s2, map2 = _stage2(s1)
    return NormalizedText(s2, map1, map2)


_DROP_RE = re.compile(f"[{re.escape(QUOTE_CHARS + INVISIBLE_CHARS)}]")
_DASH_RE = re.compile(f"[{re.escape(DASH_CHARS)}]")
_ASCII_DROP = str.maketrans("", "", "".join(c for c in QUOTE_CHARS + INVISIBLE_CHARS if c.isascii()))


def normalize(text: str) -> str:
    """The normal form alone, stripped (for quotes, titles and names).

    Equal to ``normalize_with_map(text).text.strip()``; where the text folds
    one-to-one it is computed with whole-string operations instead.
    """
    if text.isascii():  # NFKC already, casefolds one-to-one, and holds no dash to unify
        return " ".join(text.lower().translate(_ASCII_DROP).split())
    folded = text.casefold()
    if len(folded) != len(text) or not unicodedata.is_normalized("NFKC", text):
        return normalize_with_map(text).text.strip()
    return " ".join(_DASH_RE.sub("-", _DROP_RE.sub("", folded)).split())


_TAG_RE = re.compile(r"</?[A-Za-z][\w:.-]*(?:\s[^<>]*)?/?>")


def clean_markup(text: str) -> str:
    """Strip HTML/JATS/MathML tags and unescape entities, double-escaped ones too.

    Tags are stripped before unescaping so a literal ``&lt;`` stays text; a
    double-escaped tag (``&amp;lt;sup&amp;gt;``) becomes a tag after the first
    unescape and is stripped on the next round.
    """
    for _ in range(3):
        cleaned = html.unescape(_TAG_RE.sub("", text))
        if cleaned == text:
            break
        text = cleaned
    return text


def _without_trailing_punctuation(text: str) -> str:
    """``text`` without its trailing run of spaces and ``.;,:``. A scan from the end: the
    pattern ``[\\s.;,:]+$`` retries from every position of a long run (50,000 dots: 12 s)."""
    end = len(text)
    while end and (text[end - 1] in ".;,:" or text[end - 1].isspace()):
        end -= 1
    return text[:end]


@lru_cache(maxsize=65536)
def normalize_title(title: str) -> str:
    """Title normal form: markup removed, normalised, trailing full stop dropped."""
    return _without_trailing_punctuation(normalize(clean_markup(title)))


_NAME_PUNCT_RE = re.compile(r"[.,;:()\[\]]")


@lru_cache(maxsize=65536)
def fold_name(name: str) -> str:
    """Name normal form: normalised, diacritics folded, hyphens unified.

    ``Müller-Lüdenscheidt`` and ``Muller‐Ludenscheidt`` fold to the same key.
    """
    decomposed = unicodedata.normalize("NFKD", clean_markup(name))
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    # Letters that NFKD does not decompose but people write without the mark.
    stripped = stripped.translate(_NAME_LETTERS)
    return " ".join(_NAME_PUNCT_RE.sub(" ", normalize(stripped)).split())


# Bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), and variation
# selectors (U+FE00–U+FE0F, U+E0100–U+E01EF, Mongolian U+180B–U+180D, U+180F): they change how
# text displays (an override shows a reversed string as another) without being what it says.
_CONTROLS_RE = re.compile("[\u202a-\u202e\u2066-\u2069\ufe00-\ufe0f\U000e0100-\U000e01ef\u180b-\u180d\u180f]")


def used_controls(text: str) -> list[str]:
    """The display controls in ``text``, as ``U+202E``, each once, in order of first use."""
    if text.isascii() or _CONTROLS_RE.search(text) is None:  # nearly always: nothing built
        return []
    return list(dict.fromkeys(f"U+{ord(m.group()):04X}" for m in _CONTROLS_RE.finditer(text)))


def show_controls(text: str) -> str:
    """``text`` with each display control written out visibly (``<U+202E>``), for a report."""
    return _CONTROLS_RE.sub(lambda m: f"<U+{ord(m.group()):04X}>", text)


# Kept when titles are folded: punctuation that is part of what a title says ("C#", "100%", "R&D").
_TITLE_KEPT = frozenset("#%&@*§†‡")
# Latin letters without a decomposition that people write without their mark (after casefold).
_TITLE_LETTERS = str.maketrans(
    {"ø": "o", "ł": "l", "đ": "d", "æ": "ae", "œ": "oe", "ı": "i", "ð": "d", "þ": "th"}
)


def _is_latin_or_greek(c: str) -> bool:
    """Letters whose diacritics people drop without making another word."""
    return c < "\u0250" or "\u1e00" <= c < "\u1f00" or "\u0370" <= c < "\u0400" or "\u1f00" <= c < "\u2000"


# Inline math of a title as written in LaTeX: ``$\ell_1$``, ``Co$^2$L`` (``\$`` is a dollar sign).
_TEX_MATH_RE = re.compile(r"(?<!\\)\$([^$]{1,200}?)(?<!\\)\$")
# What registries render a few math letters as (DBLP and Crossref write ε for \epsilon).
_MATH_LETTERS = str.maketrans({"ϵ": "ε", "ϑ": "θ", "ϕ": "φ", "ϱ": "ρ", "ϖ": "π"})


def _math_text(math: str) -> str:
    from pylatexenc.latex2text import LatexNodes2Text  # only for a title with math

    text = LatexNodes2Text(math_mode="text").latex_to_text(math)
    # Sub- and superscripts as the registries render them, inline (DBLP's ``ℓ<sub>1</sub>`` is "ℓ1"),
    # and mathematical alphanumerics (𝒪, 𝐱) as their letters.
    text = text.replace("_", "").replace("^", "").replace("{", "").replace("}", "")
    text = "".join(unicodedata.normalize("NFKC", c) if 0x1D400 <= ord(c) <= 0x1D7FF else c for c in text)
    return text.translate(_MATH_LETTERS)


@lru_cache(maxsize=4096)
def fold_tex_math(title: str) -> str:
    r"""A title's LaTeX inline math (``$…$``) as the registries render it in Unicode:
    ``$\ell_1$`` is ``ℓ1``, ``Co$^2$L`` ``Co2L``, ``$\varepsilon$`` and ``$\epsilon$`` ``ε``,
    ``$\mathcal{O}(\sqrt{T})$`` ``O(√(T))``. A title without math is returned as it is."""
    if "$" not in title:
        return title
    try:
        return _TEX_MATH_RE.sub(lambda m: _math_text(m.group(1)), title)
    except Exception:  # a formula pylatexenc cannot read stays as written
        return title


@lru_cache(maxsize=65536)
def title_key(title: str) -> str:
    """A title folded for comparison, still exact: the title normal form without diacritics on
    Latin and Greek letters (``Café`` = ``Cafe``; the marks of other scripts, Cyrillic й or
    Japanese dakuten, make other letters and stay), without display controls, a hyphen or a full
    stop, bracket or slash inside a word dropped (``GPT-4`` = ``GPT4``, ``U.S.`` = ``US``,
    ``(Re)thinking`` = ``Rethinking``; a decimal point stays:
    ``3.5`` is not ``35``), every other run of punctuation, dashes and spaces one space
    (``--`` = ``–``, ``Title: Subtitle`` = ``Title, Subtitle``), LaTeX math as the registries
    render it (:func:`fold_tex_math`). Words stay apart."""
    decomposed = unicodedata.normalize("NFD", _CONTROLS_RE.sub("", normalize_title(fold_tex_math(title))))
    kept, base = [], ""
    for c in decomposed:
        if not ("\u0300" <= c <= "\u036f" and _is_latin_or_greek(base)):
            kept.append(c)
        if not unicodedata.combining(c):
            base = c
    text = "".join(kept).translate(_TITLE_LETTERS)
    out = []
    last = len(text) - 1
    for i, c in enumerate(text):
        if c.isalnum() or c in _TITLE_KEPT or unicodedata.category(c)[0] in "SM":
            out.append(c)
            continue
        inside = 0 < i < last and text[i - 1].isalnum() and text[i + 1].isalnum()
        if c == "." and inside and text[i - 1].isdigit() and text[i + 1].isdigit():
            out.append(c)
        elif not (inside and c in "-.()[]/"):
            out.append(" ")
    return unicodedata.normalize("NFC", " ".join("".join(out).split()))


_NAME_LETTERS = str.maketrans(
    {"ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "ß": "ss", "æ": "ae", "Æ": "AE"}
)
