"""SourceText: line numbers from the bisected line-break index agree with
counting the breaks; the normalised search through anchor windows finds
exactly what normalising the whole text finds; the closest passage is found
on texts of either kind."""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from citeaudit.locate import _SEPARATORS, SourceText
from citeaudit.model import Span
from citeaudit.normalize import normalize, normalize_with_map


def _counted(text: str, span: Span) -> tuple[int, int]:
    first = text.count("\n", 0, span.start) + 1
    return first, first + text.count("\n", span.start, max(span.start, span.end - 1))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab\n\r é", max_size=200), st.data())
def test_lines_agree_with_counting(text: str, data: st.DataObject) -> None:
    if not text:
        return
    source = SourceText(text)
    for _ in range(3):  # the first call builds the index, the others reuse it
        start = data.draw(st.integers(0, len(text) - 1))
        end = data.draw(st.integers(start + 1, len(text)))
        assert source.lines(Span(start, end)) == _counted(text, Span(start, end))


def test_lines_of_a_span_over_three_lines() -> None:
    assert SourceText("one\ntwo\nthree\n").lines(Span(2, 11)) == (1, 3)
    assert SourceText("one\ntwo\nthree\n").lines(Span(4, 8)) == (2, 2)  # the break ending a line is on it


# Words and separators that exercise every normalisation. The text is searched
# through anchor windows only when it is NFKC (but for separators NFKC turns into
# spaces, dots or primes: the ellipsis, no-break spaces) and casefolds
# one-to-one, so half the texts leave out what breaks that (a ligature, ß, a
# combining accent, an apostrophe inside a word, ™, ½) and half put it in.
_WORDS = [
    "alpha",
    "Beta",
    "GAMMA",
    "delta",
    "eps",
    "alpha-beta",
    "\u201cquoted\u201d",
    "x",
    "\u2014",
    "1,000",
]
_BREAKERS = ["it's", "\ufb01ne", "Stra\u00dfe", "e\u0301te", "Brand\u2122", "\u00bd"]
_BETWEEN = [" ", "  ", "\n", "\t", " \u201c", "\u201d ", ", ", ". ", "\u00ad", "-", "\u00a0", "\u2026", "\u2026 ",
               "\u2033", "\u3000", "\uff0c", "\uff1a", "\uff08"]  # fmt: skip


@st.composite
def _texts(draw: st.DrawFn) -> str:
    words = _WORDS + _BREAKERS if draw(st.booleans()) else _WORDS
    return "".join(
        draw(st.sampled_from(words)) + draw(st.sampled_from(_BETWEEN))
        for _ in range(draw(st.integers(1, 40)))
    )


def test_separators_normalise_to_no_letter_digit_or_dropped_mark() -> None:
    # What lets a text with them keep the anchor windows (see citeaudit.locate).
    for char in _SEPARATORS:
        image = unicodedata.normalize("NFKC", char)
        assert image != char
        assert not any(c.isalnum() for c in image), hex(ord(char))  # never part of a word
        assert normalize(f"a{char}b") != "ab", hex(ord(char))  # never dropped, so never joins two words


def _by_whole_text(text: str, needle: str) -> list[Span]:
    norm = normalize_with_map(text)
    spans = []
    at = norm.text.find(needle)
    while at != -1:
        spans.append(Span(*norm.original_span(at, at + len(needle))))
        at = norm.text.find(needle, at + 1)
    return spans


@settings(max_examples=1000, deadline=None)
@given(_texts(), st.data())
def test_the_normalised_search_finds_what_normalising_the_whole_text_finds(
    text: str, data: st.DataObject
) -> None:
    norm = normalize_with_map(text).text
    i = data.draw(st.integers(0, len(norm) - 1))
    needle = norm[i : data.draw(st.integers(i + 1, min(len(norm), i + 60)))].strip()
    if not needle or normalize(needle) != needle:
        return
    expected = _by_whole_text(text, needle)
    assert SourceText(text).find_normalized(needle, len(expected) + 1) == (expected, len(expected))


def test_both_search_paths_are_taken_and_agree() -> None:
    plain = "Alpha beta \u201cgamma\u201d delta. " * 3
    broken = plain.replace("Alpha", "\ufb01ne Alpha")  # a ligature: not NFKC, so no anchor windows
    for text in (plain, broken):
        source = SourceText(text)
        spans, total = source.find_normalized("alpha beta gamma delta", 20)
        assert (spans, total) == (_by_whole_text(text, "alpha beta gamma delta"), 3)
    assert SourceText(plain).folded is not None
    assert SourceText(broken).folded is None
    assert SourceText(plain.replace(". ", "\u2026\u00a0")).folded is not None  # separators keep the windows


def test_the_closest_passage_on_a_text_that_is_not_nfkc() -> None:
    text = "The \ufb01rst trial enrolled 120 patients. The second trial enrolled 80 patients."
    closest = SourceText(text).closest(normalize("The second trial enrolled 90 patients."))
    assert closest is not None
    assert text[closest.span.start : closest.span.end] == "The second trial enrolled 80 patients."
    assert closest.similarity > 0.9


def test_the_closest_passage_of_a_long_quote_in_a_long_text_that_is_not_nfkc() -> None:
    """Looked for in windows around the quote's words, as on folded texts: against the whole
    normalised text a 5,000-character quote was quadratic (14 s per quote on 1.6 MB)."""
    words = [f"w{n:04d}" for n in range(2000)]
    text = "\ufb01ne " + " ".join(words * 40)  # a ligature: the text is not NFKC
    source = SourceText(text)
    assert source.folded is None
    start = text.index("w0500 ")
    end = text.index(" w1334", start)  # 5,003 characters: w0500 … w1333
    closest = source.closest(normalize(text[start:end].replace("w0900", "w9999", 1)))
    assert closest is not None
    assert closest.span == Span(start, end)
    assert closest.similarity == 0.999


def test_no_closest_passage_when_no_word_of_the_quote_occurs_on_either_kind_of_text() -> None:
    for text in ("Alpha beta gamma delta.", "\ufb01ne alpha beta gamma delta."):
        assert SourceText(text).closest(normalize("Zzzz qqqq wwww, nothing like it.")) is None


def test_a_quote_of_common_words_is_compared_whole_on_a_normalised_text_if_cheap() -> None:
    """Every word of the quote occurs too often to place it: a text that was normalised whole
    anyway is compared whole when that is cheap; a longer one gets no passage."""
    sentence = "The results of the trial were reported. "
    quote = normalize("The results of the trial were reportet.")
    short = "\ufb01ne " + sentence * 60  # 2,400 characters, "results" 60 times
    closest = SourceText(short).closest(quote)
    assert closest is not None
    assert closest.similarity > 0.95
    long = "\ufb01ne " + sentence * 70_000  # 2.8 MB: 2.8 MB × 39 characters is over the budget
    assert SourceText(long).closest(quote) is None
