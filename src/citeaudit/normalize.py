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
from dataclasses import dataclass

__all__ = [
    "NormalizedText",
    "clean_markup",
    "fold_name",
    "normalize",
    "normalize_title",
    "normalize_with_map",
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

_DASH_RE = re.compile(f"[{DASH_CHARS}]")
_DROP = re.escape(QUOTE_CHARS + INVISIBLE_CHARS)
# Runs that normalisation changes: two or more of whitespace/dropped characters,
# a single dropped character, or a single whitespace other than a plain space.
_RUN_RE = re.compile(rf"[\s{_DROP}]{{2,}}|[{_DROP}]|[^\S ]")


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
            folded = _fold_clusters(line, in_pos, out_pos, segments)
        parts.append(folded)
        in_pos += len(line) + 1
        out_pos += len(folded) + 1
    return "\n".join(parts), _SegmentMap(segments)


def _stage2(text: str) -> tuple[str, _SegmentMap]:
    text = _DASH_RE.sub("-", text)
    segments: list[_Segment] = []
    parts: list[str] = []
    last = out_pos = 0
    for m in _RUN_RE.finditer(text):
        run = m.group()
        repl = " " if any(c.isspace() for c in run) else ""
        if run == repl:
            continue
        parts.append(text[last : m.start()])
        out_pos += m.start() - last
        segments.append(_Segment(out_pos, len(repl), m.start(), len(run)))
        parts.append(repl)
        out_pos += len(repl)
        last = m.end()
    parts.append(text[last:])
    return "".join(parts), _SegmentMap(segments)


def normalize_with_map(text: str) -> NormalizedText:
    """Normalise ``text`` and keep the map back to its original offsets."""
    s1, map1 = _stage1(text)
    s2, map2 = _stage2(s1)
    return NormalizedText(s2, map1, map2)


def normalize(text: str) -> str:
    """The normal form alone, stripped (for quotes, titles and names)."""
    return normalize_with_map(text).text.strip()


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


_TRAILING_RE = re.compile(r"[\s.;,:]+$")


def normalize_title(title: str) -> str:
    """Title normal form: markup removed, normalised, trailing full stop dropped."""
    return _TRAILING_RE.sub("", normalize(clean_markup(title)))


_NAME_PUNCT_RE = re.compile(r"[.,;:()\[\]]")


def fold_name(name: str) -> str:
    """Name normal form: normalised, diacritics folded, hyphens unified.

    ``Müller-Lüdenscheidt`` and ``Muller‐Ludenscheidt`` fold to the same key.
    """
    decomposed = unicodedata.normalize("NFKD", clean_markup(name))
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    # Letters that NFKD does not decompose but people write without the mark.
    stripped = stripped.translate(_NAME_LETTERS)
    return " ".join(_NAME_PUNCT_RE.sub(" ", normalize(stripped)).split())


_NAME_LETTERS = str.maketrans(
    {"ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "ß": "ss", "æ": "ae", "Æ": "AE"}
)
