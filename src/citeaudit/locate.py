"""Finding a quote in a source text: exact, normalised, or the closest passage.

Normalising a whole 100 KB text with its offset map costs milliseconds, so the
normalised search avoids it where it can prove it may:

* The text is casefolded once (C speed); when it is NFKC already (but for
  separators, below) and casefolds one-to-one, positions in the folded text
  are positions in the original.
* An *anchor* is a word of the normalised quote (letters and digits only).
  Every occurrence of the quote in the normalised text contains the anchor,
  and the anchor's preimage is the anchor itself, possibly with quotation
  marks or invisible characters inside. So if the anchor occurs as often in
  the folded text as in the folded text with those characters removed, every
  occurrence of the quote lies around a literal occurrence of the anchor.
* Around each anchor occurrence a window wide enough to hold the quote's
  preimage is normalised with its map and searched.

Separators that NFKC rewrites into neither letters, digits nor quotation
marks (the ellipsis and no-break spaces of web pages, primes) never sit inside
an anchor's preimage, so a text that is NFKC once they are blanked out still
qualifies: the windows are normalised properly, expansions included.

Whenever a condition does not hold (text not NFKC, anchor too common or
broken by a quotation mark, no anchor at all), the whole text is normalised
with its map instead. Both paths return the same spans.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from citeaudit.model import Span
from citeaudit.normalize import INVISIBLE_CHARS, QUOTE_CHARS, NormalizedText, normalize, normalize_with_map

__all__ = ["Closest", "SourceText"]

RARE_ENOUGH = 8
MAX_ANCHOR_HITS = 200  # a rarer anchor is needed above this many windows
MAX_CLOSEST_WINDOWS = 3  # the best-supported places where the quote's words cluster
MAX_CLOSEST_HITS = 50  # a word more common than this says nothing about where the quote is
# Comparing a quote with a whole text costs about their lengths' product: 10**8 is ~50 ms.
MAX_WHOLE_TEXT_PAIRS = 10**8
_WORD_RE = re.compile(r"[^\W_]+")
_DROP_CHARS = QUOTE_CHARS + INVISIBLE_CHARS
# NFKC rewrites these into spaces, dots or primes only (see the module docstring).
_SEPARATORS = (
    "\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"  # spaces
    "\u2024\u2025\u2026\u2033\u2034"  # leaders, the ellipsis, primes
    # Chinese and Japanese text's full-width punctuation (！，：；（）…), but not the
    # full-width quotation marks, which normalisation drops.
    + "".join(
        chr(c) for c in range(0xFF01, 0xFF5F) if not chr(c).isalnum() and chr(c) not in "\uff02\uff07\uff40"
    )
)


def _line_breaks(text: str) -> list[int]:
    """Offsets of every ``\\n``: ``str.find`` skips to each (a regex scan was 6 µs for a 20 KB
    text without one, 23 times as long)."""
    breaks: list[int] = []
    at = text.find("\n")
    while at != -1:
        breaks.append(at)
        at = text.find("\n", at + 1)
    return breaks


def _nfkc_but_for_separators(text: str) -> bool:
    if unicodedata.is_normalized("NFKC", text):
        return True
    for char in _SEPARATORS:
        if char in text:
            text = text.replace(char, " ")  # one for one: positions and neighbours stay
    return unicodedata.is_normalized("NFKC", text)


@dataclass(frozen=True, slots=True)
class Closest:
    """The passage most like a quote that was not found (a diagnostic)."""

    span: Span
    similarity: float


def _anchors(needle: str, count: int) -> list[tuple[int, str]]:
    """The longest words of the normalised quote, with their offsets."""
    words: dict[str, int] = {}
    for m in _WORD_RE.finditer(needle):
        words.setdefault(m.group(), m.start())  # each word at its first offset
    ranked = sorted(words.items(), key=lambda kv: (-len(kv[0]), kv[1]))
    return [(offset, word) for word, offset in ranked[:count] if len(word) >= 2]


@dataclass(slots=True)
class SourceText:
    """A source text with lazily built search forms; offsets are into ``text``."""

    text: str
    _folded: str | None = field(default=None, repr=False)
    _one_to_one: bool | None = field(default=None, repr=False)
    _no_drop: str | None = field(default=None, repr=False)
    _normalized: NormalizedText | None = field(default=None, repr=False)
    _positions: dict[str, list[int] | None] = field(default_factory=dict, repr=False)
    _newlines: list[int] | None = field(default=None, repr=False)

    # -- lazily built forms --------------------------------------------------

    @property
    def folded(self) -> str | None:
        """Casefolded text, if it maps one-to-one onto the original; else None."""
        if self._one_to_one is None:
            folded = self.text.casefold()
            self._one_to_one = len(folded) == len(self.text) and _nfkc_but_for_separators(self.text)
            self._folded = folded if self._one_to_one else None
        return self._folded

    @property
    def no_drop(self) -> str:
        """The folded text without quotation marks and invisible characters.

        Removed one character at a time, and only those present: a membership
        test per character is several times faster than a regex over a wide string.
        """
        if self._no_drop is None:
            text = self.folded or ""
            for char in _DROP_CHARS:
                if char in text:
                    text = text.replace(char, "")
            self._no_drop = text
        return self._no_drop

    @property
    def normalized(self) -> NormalizedText:
        if self._normalized is None:
            self._normalized = normalize_with_map(self.text)
        return self._normalized

    def lines(self, span: Span) -> tuple[int, int]:
        """First and last line (1-based) of a non-empty span, by bisection in an
        index of the text's line breaks built on first use (a corpus keeps it
        across audits, so later citations of the document pay nothing)."""
        if self._newlines is None:
            self._newlines = _line_breaks(self.text)
        first = bisect_left(self._newlines, span.start) + 1
        return first, bisect_left(self._newlines, max(span.start, span.end - 1)) + 1

    def positions(self, word: str, cap: int) -> list[int] | None:
        """Where ``word`` occurs in the folded text (the normalised text when the
        text does not fold one-to-one); None if more than ``cap`` times.

        One scan that stops early for common words; remembered per word.
        """
        if word in self._positions:
            found = self._positions[word]
            return found if found is None or len(found) <= cap else None
        haystack = self.folded
        if haystack is None:
            haystack = self.normalized.text
        hits: list[int] | None = []
        at = haystack.find(word)
        while at != -1:
            assert hits is not None
            if len(hits) == MAX_ANCHOR_HITS:
                hits = None
                break
            hits.append(at)
            at = haystack.find(word, at + len(word))
        self._positions[word] = hits
        return hits if hits is None or len(hits) <= cap else None

    # -- searches --------------------------------------------------------------

    def find_exact(self, quote: str, limit: int) -> tuple[list[Span], int]:
        """Spans of the literal quote (at most ``limit``) and their total count."""
        spans: list[Span] = []
        total = 0
        at = self.text.find(quote)
        while at != -1:
            if total < limit:
                spans.append(Span(at, at + len(quote)))
            total += 1
            at = self.text.find(quote, at + 1)
        return spans, total

    def find_normalized(self, needle: str, limit: int) -> tuple[list[Span], int]:
        """Spans in the original text whose normal form is ``needle``."""
        windowed = self._find_in_windows(needle)
        if windowed is not None:
            return windowed[:limit], len(windowed)
        norm = self.normalized
        spans: list[Span] = []
        total = 0
        at = norm.text.find(needle)
        while at != -1:
            if total < limit:
                spans.append(Span(*norm.original_span(at, at + len(needle))))
            total += 1
            at = norm.text.find(needle, at + 1)
        return spans, total

    def closest(self, needle: str) -> Closest | None:
        """The passage most like the quote, looked for where its words cluster.

        Only windows around those places are compared: the whole text against a
        long quote is quadratic (a 5,000-character quote took 14 s on 1.6 MB).
        Positions are in the folded text, which are the original's, or else in the
        normalised text, mapped back through its offset map. When every word of the
        quote is too common to place it, a text normalised already is compared
        whole if that is cheap enough (``MAX_WHOLE_TEXT_PAIRS``); otherwise there is
        no closest passage.
        """
        folded = self.folded
        haystack_length = len(self.text) if folded is not None else len(self.normalized.text)
        # Where would the quote start if this word of it were in place?
        starts: list[tuple[int, str]] = []
        too_common = False
        for offset, word in _anchors(needle, 4):
            if len(word) < 3:
                continue
            hits = self.positions(word, MAX_CLOSEST_HITS)
            too_common |= hits is None
            starts.extend((at - offset, word) for at in hits or ())
        if not starts:  # none of the quote's words occurs, or each is too common to place it
            affordable = haystack_length * len(needle) <= MAX_WHOLE_TEXT_PAIRS
            if too_common and folded is None and affordable:
                return self._closest_in(self.normalized, 0, needle)  # normalised already: affordable
            return None
        starts.sort()
        clusters: list[tuple[int, int]] = []  # (-distinct words, start)
        tolerance = len(needle) // 2 + 8
        i = 0
        while i < len(starts):
            j = i
            while j + 1 < len(starts) and starts[j + 1][0] - starts[i][0] <= tolerance:
                j += 1
            clusters.append((-len({w for _, w in starts[i : j + 1]}), starts[i][0]))
            i = j + 1
        best: Closest | None = None
        for _, start in sorted(clusters)[:MAX_CLOSEST_WINDOWS]:
            lo = max(0, start - len(needle) // 2)
            hi = min(haystack_length, start + len(needle) * 2)
            if folded is not None:
                found = self._closest_in(normalize_with_map(self.text[lo:hi]), lo, needle)
            else:
                found = self._closest_in(self.normalized, 0, needle, lo, hi)
            if found is not None and (best is None or found.similarity > best.similarity):
                best = found
        return best

    # -- helpers ---------------------------------------------------------------

    def _closest_in(
        self, norm: NormalizedText, base: int, needle: str, lo: int = 0, hi: int | None = None
    ) -> Closest | None:
        """The best alignment of ``needle`` in ``norm.text[lo:hi]``, as whole words of the original."""
        window = norm.text[lo:hi]
        if not window:
            return None
        hit = fuzz.partial_ratio_alignment(needle, window)
        if hit is None or hit.dest_end <= hit.dest_start:
            return None
        start, end = norm.original_span(lo + hit.dest_start, lo + hit.dest_end)
        start, end = self._whole_words(base + start, base + end)
        return Closest(Span(start, end), round(hit.score / 100, 3))

    def _whole_words(self, start: int, end: int) -> tuple[int, int]:
        text = self.text
        while start > 0 and text[start - 1].isalnum():
            start -= 1
        while end < len(text) and text[end].isalnum():
            end += 1
        return start, end

    def _reach(self, at: int, need: int, step: int) -> int:
        """Move from ``at`` (step -1 or +1) until the text in between
        normalises to more than ``need`` characters, or the text ends."""
        width = 2 * need + 64
        while True:
            if step < 0:
                edge = max(0, at - width)
                piece = self.text[edge:at]
            else:
                edge = min(len(self.text), at + width)
                piece = self.text[at:edge]
            # normalize() strips the ends; one character of slack covers that.
            if edge in (0, len(self.text)) or len(normalize(piece)) > need + 1:
                return edge
            width *= 2

    def _window(self, at: int, before: int, after: int) -> tuple[int, int]:
        return self._reach(at, before, -1), self._reach(at, after, +1)

    def _find_in_windows(self, needle: str) -> list[Span] | None:
        """All occurrences via anchor windows, or None when that is not provably complete."""
        folded = self.folded
        if folded is None:
            return None
        candidates = []
        for offset, word in _anchors(needle, 3):
            hits = self.positions(word, MAX_ANCHOR_HITS)
            if hits is not None:
                candidates.append((len(hits), offset, word, hits))
                if len(hits) <= RARE_ENOUGH:
                    break  # long words are rare: usually the first anchor will do
        if not candidates:
            return None
        count, offset, word, hits = min(candidates, key=lambda c: c[:3])
        # The rarest anchor must occur literally wherever it occurs at all.
        if self.no_drop.count(word) != count:
            return None
        spans: set[Span] = set()
        for at in hits:
            start, end = self._window(at, offset, len(needle) - offset)
            norm = normalize_with_map(self.text[start:end])
            pos = norm.text.find(needle)
            while pos != -1:
                lo, hi = norm.original_span(pos, pos + len(needle))
                spans.add(Span(start + lo, start + hi))
                pos = norm.text.find(needle, pos + 1)
        return sorted(spans, key=lambda s: (s.start, s.end))
