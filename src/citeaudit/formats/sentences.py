"""Sentences of a block of a Markdown report, as ``[start, end)`` ranges of its inline text.

A sentence ends at ``.``, ``!`` or ``?`` (with the closing quotes, brackets and emphasis marks
after it, and the citation markers that follow it: ``… attention.[1]``), followed by white
space and a word that does not start in lower case; or at ``。！？``. It does not end inside
a code span, a link, an autolink, an inline HTML tag or a marker (the ``protected`` ranges),
after an abbreviation (``et al.``, ``e.g.``, ``Fig.``, ``vs.``…), an initial (``A. Smith``) or a
word with a full stop inside it (``U.S.``).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

__all__ = ["ABBREVIATIONS", "sentence_spans"]

ABBREVIATIONS = frozenset(
    [
        "al",
        "e.g",
        "eg",
        "i.e",
        "ie",
        "cf",
        "vs",
        "etc",
        "fig",
        "figs",
        "eq",
        "eqs",
        "no",
        "nos",
        "tab",
        "sec",
        "secs",
        "ch",
        "chap",
        "ref",
        "refs",
        "approx",
        "ca",
        "dr",
        "mr",
        "mrs",
        "ms",
        "prof",
        "st",
        "jr",
        "sr",
        "inc",
        "ltd",
        "co",
        "corp",
        "vol",
        "vols",
        "pp",
        "p",
        "ed",
        "eds",
        "est",
        "dept",
        "univ",
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
        "resp",
        "proc",
        "conf",
        "symp",
        "trans",
        "int",
    ]
)
_ENDS = ".!?"
_WIDE_ENDS = "。！？"
_CLOSERS = "\"'”’)]»*_~"
_ANY_END = re.compile("[" + re.escape(_ENDS + _WIDE_ENDS) + "]")


def _covering(ranges: Sequence[tuple[int, int]], starts: list[int], at: int) -> tuple[int, int] | None:
    i = bisect.bisect_right(starts, at) - 1
    if i >= 0 and ranges[i][0] <= at < ranges[i][1]:
        return ranges[i]
    return None


def _abbreviated(text: str, dot: int) -> bool:
    start = dot
    while start > 0 and not text[start - 1].isspace() and text[start - 1] not in "([":
        start -= 1
    word = text[start:dot].lstrip("\"'“‘*_")
    if not word or word[-1] in ">)]`*_\"'”’":
        return False  # the end of a link, a code span, a quotation: no abbreviation
    if len(word) == 1 and word.isalpha():
        return True  # an initial
    return "." in word or word.lower() in ABBREVIATIONS


def sentence_spans(
    text: str, protected: Sequence[tuple[int, int]], markers: Sequence[tuple[int, int]]
) -> list[tuple[int, int]]:
    """The sentences of ``text``, white space around them left out. ``protected`` and
    ``markers`` are sorted, non-overlapping ranges; a marker is protected too."""
    every = sorted([*protected, *markers])
    starts = [r[0] for r in every]
    marker_at = dict(markers)
    n = len(text)
    spans: list[tuple[int, int]] = []
    start = 0
    while start < n and text[start].isspace():
        start += 1
    i = start
    next_end = -1  # the next sentence-ending character at or after i + 1, once searched
    while i < n:
        inside = _covering(every, starts, i)
        if inside is not None:
            i = inside[1]
            continue
        c = text[i]
        if c in _WIDE_ENDS or (c in _ENDS and not (c == "." and _abbreviated(text, i))):
            j = i + 1
            while j < n and (text[j] in _CLOSERS or text[j] in _ENDS):
                j += 1
            k = j
            while True:  # markers after the full stop belong to the sentence before it
                m = k
                while m < n and text[m] in " \t":
                    m += 1
                if m in marker_at:
                    k = j = marker_at[m]
                    continue
                break
            if c in _WIDE_ENDS or j >= n or text[j].isspace():
                nxt = j
                while nxt < n and text[nxt].isspace():
                    nxt += 1
                if c in _WIDE_ENDS or nxt >= n or not text[nxt].islower():
                    spans.append((start, j))
                    start = i = nxt
                    continue
            i = j
            continue
        # Nothing before the next full stop or the next protected range can end a sentence: go
        # there at once rather than a character at a time (the same walk, without its steps).
        if next_end <= i:
            found = _ANY_END.search(text, i + 1)
            next_end = found.start() if found else n
        r = bisect.bisect_right(starts, i)
        i = min(next_end, starts[r]) if r < len(starts) else next_end
    end = n
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        spans.append((start, end))
    return spans
