"""SourceText's line numbers: the bisected line-break index agrees with
counting the breaks, for any text and any non-empty span, on first use and
after the index is built."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from citeaudit.locate import SourceText
from citeaudit.model import Span


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
