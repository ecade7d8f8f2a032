"""Fuzzing the JSON formats (native, seed 000, 002 and 003) and the detection of a nameless input:
any bytes, the seeds with bytes edited, and the seeds with values replaced by any JSON value."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeaudit.formats import InputFormat, parse_document, submission_from_bytes
from tests.formats.fuzzing import (
    BYTE_TOKENS,
    JSON_SEEDS,
    JSON_TOKENS,
    fuzz_settings,
    json_values,
    mutated,
    parses_or_refuses,
    replaced_nodes,
)

NAME = "claims.json"
JSON_FORMATS = [None, InputFormat.NATIVE, InputFormat.SEED_000, InputFormat.SEED_002, InputFormat.SEED_003]


@pytest.fixture(autouse=True, scope="module")
def _warm() -> None:
    """The parsers imported and their models built before the first timed example."""
    for seed in JSON_SEEDS:
        submission_from_bytes(seed, NAME, bibtex=False)


def test_the_seeds_parse() -> None:
    """The fuzzers start from inputs that parse (and the parsers are warm for the deadline)."""
    for seed in JSON_SEEDS:
        assert (
            parses_or_refuses(lambda b: submission_from_bytes(b, NAME, bibtex=False), seed, NAME) is not None
        )


@fuzz_settings(200)
@given(
    st.binary(max_size=400)
    | st.lists(st.sampled_from([*JSON_TOKENS, *BYTE_TOKENS]), max_size=40).map(b"".join)
)
def test_any_bytes_as_json_or_sniffed(data: bytes) -> None:
    parses_or_refuses(lambda b: submission_from_bytes(b, NAME, bibtex=False), data, NAME)
    parses_or_refuses(lambda b: submission_from_bytes(b, "-"), data, "-")  # standard input: sniffed


@fuzz_settings(250)
@given(mutated(JSON_SEEDS, JSON_TOKENS), st.sampled_from(JSON_FORMATS))
def test_edited_bytes_of_real_inputs(data: bytes, fmt: InputFormat | None) -> None:
    parses_or_refuses(lambda b: submission_from_bytes(b, NAME, bibtex=False, input_format=fmt), data, NAME)


@fuzz_settings(250)
@given(replaced_nodes(JSON_SEEDS), st.sampled_from(JSON_FORMATS))
def test_real_inputs_with_a_wrong_value_anywhere(data: bytes, fmt: InputFormat | None) -> None:
    parses_or_refuses(lambda b: submission_from_bytes(b, NAME, bibtex=False, input_format=fmt), data, NAME)


@fuzz_settings(100)
@given(json_values())
def test_any_document_given_as_a_value(document: object) -> None:
    """``parse_document`` as the Python API calls it: any value, not only what JSON text gives."""
    parses_or_refuses(lambda d: parse_document(d, NAME), document, NAME)
