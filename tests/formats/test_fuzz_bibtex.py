"""Fuzzing the BibTeX reader: any text, text made of BibTeX's own pieces, the real examples with
edits (empty fields, unbalanced braces, @string macros, crossrefs), and bytes that are not UTF-8."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeaudit.formats import InputFormat, submission_from_bytes
from citeaudit.formats.bibtex import parse_bibtex
from citeaudit.model import Submission
from tests.formats.fuzzing import (
    BIBTEX_SEEDS,
    BIBTEX_TOKENS,
    BYTE_TOKENS,
    bibtex_entries,
    fuzz_settings,
    mutated,
    parses_or_refuses,
)

NAME = "refs.bib"


def _parse(text: str) -> Submission:
    return parse_bibtex(text, NAME)


@pytest.fixture(autouse=True, scope="module")
def _warm() -> None:
    """The parsers imported and their models built before the first timed example."""
    for seed in BIBTEX_SEEDS:
        parses_or_refuses(_parse, seed, NAME)


def test_the_seeds_parse() -> None:
    """The fuzzers start from inputs that parse, but for the entry with neither type nor key."""
    parsed = [parses_or_refuses(_parse, seed, NAME) for seed in BIBTEX_SEEDS]
    assert [seed for seed, p in zip(BIBTEX_SEEDS, parsed, strict=True) if p is None] == ["@{,=}"]


@fuzz_settings(150)
@given(st.text(max_size=300) | st.lists(st.sampled_from(BIBTEX_TOKENS), max_size=40).map("".join))
def test_any_text(text: str) -> None:
    parses_or_refuses(_parse, text, NAME)


@fuzz_settings(300)
@given(mutated(BIBTEX_SEEDS, BIBTEX_TOKENS))
def test_edited_real_bibliographies(text: str) -> None:
    parses_or_refuses(_parse, text, NAME)


@fuzz_settings(100)
@given(
    mutated([s.encode("utf-8") for s in BIBTEX_SEEDS], [*BYTE_TOKENS, *(t.encode() for t in BIBTEX_TOKENS)])
)
def test_edited_bytes(data: bytes) -> None:
    parses_or_refuses(lambda b: submission_from_bytes(b, NAME, input_format=InputFormat.BIBTEX), data, NAME)


@fuzz_settings(200)
@given(bibtex_entries())
def test_bibliographies_built_from_bibtex_parts(text: str) -> None:
    parses_or_refuses(_parse, text, NAME)
