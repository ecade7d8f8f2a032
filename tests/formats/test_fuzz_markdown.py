"""Fuzzing the Markdown report reader: any text, text made of Markdown's and the markers' own
pieces, the example reports with edits (deep nesting, long runs, odd markers), and bytes that
are not UTF-8."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeaudit.formats import InputFormat, submission_from_bytes
from citeaudit.formats.markdown_report import parse_markdown
from citeaudit.model import Submission
from tests.formats.fuzzing import (
    BYTE_TOKENS,
    MARKDOWN_SEEDS,
    MARKDOWN_TOKENS,
    fuzz_settings,
    mutated,
    parses_or_refuses,
)

NAME = "report.md"


def _parse(text: str) -> Submission:
    return parse_markdown(text, NAME)


@pytest.fixture(autouse=True, scope="module")
def _warm() -> None:
    """The parsers imported and their models built before the first timed example."""
    for seed in MARKDOWN_SEEDS:
        _parse(seed)


def test_the_seeds_parse() -> None:
    for seed in MARKDOWN_SEEDS:
        assert parses_or_refuses(_parse, seed, NAME) is not None


@fuzz_settings(150)
@given(st.text(max_size=300) | st.lists(st.sampled_from(MARKDOWN_TOKENS), max_size=40).map("".join))
def test_any_text(text: str) -> None:
    parses_or_refuses(_parse, text, NAME)


@fuzz_settings(250)
@given(mutated(MARKDOWN_SEEDS, MARKDOWN_TOKENS))
def test_edited_real_reports(text: str) -> None:
    parses_or_refuses(_parse, text, NAME)


@fuzz_settings(80)
@given(
    mutated(
        [s.encode("utf-8") for s in MARKDOWN_SEEDS], [*BYTE_TOKENS, *(t.encode() for t in MARKDOWN_TOKENS)]
    )
)
def test_edited_bytes(data: bytes) -> None:
    parses_or_refuses(
        lambda b: submission_from_bytes(b, NAME, input_format=InputFormat.MARKDOWN_REPORT), data, NAME
    )
