"""What the input fuzzers found, each as the exact input and what it gives now.

Before: a ``ValueError`` (a traceback, exit 4), a message of two lines or with a raw control
character in it, memory without bound, a parse that grew with the square of the input, or a
lone surrogate that passed the parse and broke the report's digest.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import pytest

from citeaudit.errors import InputError
from citeaudit.formats import InputFormat, submission_from_bytes
from citeaudit.formats.bibtex import parse_bibtex
from citeaudit.formats.markdown_report import _Reader, _sentences, parse_markdown
from citeaudit.model import ReferenceSource, WorkSource
from tests.formats.fuzzing import parses_or_refuses

X = TypeVar("X")
BIB = "refs.bib"
JSON = "claims.json"

# 26 macros, each two copies of the one before: 640 bytes that would expand to 2^26 characters
# (and 40 of them to a trillion, which no machine holds).
MACRO_LADDER = (
    "@string{m0 = {ab}}\n"
    + "".join(f"@string{{m{k} = m{k - 1} # m{k - 1}}}\n" for k in range(1, 26))
    + "@article{k, title = m25}\n"
)


def _refused(parse: Callable[[X], object], data: X) -> str:
    with pytest.raises(InputError) as caught:
        parse(data)
    return caught.value.diagnostics()


# -- BibTeX ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("year", "read"),
    [
        ("{²}", None),  # "²".isdigit() is true, and int("²") a ValueError
        ("{٢٠٢٠}", 2020),  # Arabic-Indic digits are decimal digits: the year 2020
        ("{2⁰²⁰}", None),  # superscripts are digits to isdigit, not to int
        ("{" + "9" * 5000 + "}", None),  # int() of over 4,300 digits: a ValueError
        ("9" * 5000, None),
        ("{" + "9" * 18 + "}", 999_999_999_999_999_999),
        ("{" + "9" * 19 + "}", None),
        ("{2017}", 2017),
    ],
)
def test_a_year_that_is_no_number_is_no_year(year: str, read: int | None) -> None:
    (claim,) = parse_bibtex(f"@article{{k, title={{T}}, doi={{10.1/x}}, year={year}}}", BIB).claims
    source = claim.citations[0].source
    assert isinstance(source, WorkSource)
    assert source.year == read


def test_a_macro_ladder_is_refused_at_the_line_that_passes_the_bound() -> None:
    assert _refused(lambda t: parse_bibtex(t, BIB), MACRO_LADDER) == (
        f"{BIB}: line 19: @string macros expand past the limit of 1000640 characters "
        "(the input's length and 1000000 more)"
    )


def test_macros_within_the_bound_still_expand() -> None:
    text = "@string{a = {x}}\n@string{b = a # a # {y}}\n@article{k, title = b # { and } # a}"
    (claim,) = parse_bibtex(text, BIB).claims
    source = claim.citations[0].source
    assert isinstance(source, WorkSource)
    assert source.title == "xxy and x"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        # bibtexparser's reasons quote the input: a control character is written as its escape
        (
            "@{,\x1b\u2028}",
            "line 1: Expected a `=` after entry key `\\x1b`, but found the end of the entry (`}`) "
            "(the block starting '@{,\\x1b\\u2028}')",
        ),
        # and its own words named its own attributes ("available as `failed_block.ignore_error_block`")
        (
            "@article{k, title={A}, title={B}}",
            "line 1: the entry gives a field twice: 'title' (the block starting "
            "'@article{k, title={A}, title={B}}')",
        ),
        # no key, or no type: the claim had the id "" (and "@{,=}" was an IndexError before)
        ("@{,=}", "line 1: the entry has no type: an entry is @type{key, field = {value}, …}"),
        ("@article{, title={T}}", "line 1: the entry has no key: an entry is @type{key, field = {value}, …}"),
        ("\n@{k, title={T}}", "line 2: the entry has no type: an entry is @type{key, field = {value}, …}"),
    ],
)
def test_bibtex_errors_are_one_printable_line(text: str, problem: str) -> None:
    assert _refused(lambda t: parse_bibtex(t, BIB), text) == f"{BIB}: {problem}"


def test_a_key_twice_is_a_printable_note_and_the_first_entry_is_checked() -> None:
    """A duplicate key was a refusal of the whole file; its note writes a control out."""
    submission = parse_bibtex("@article{k\x1b, title={T}}\n@article{k\x1b, title={U}}", BIB)
    assert [c.id for c in submission.claims] == ["k\x1b"]
    (note,) = submission.notes
    assert (note.code, note.origin) == ("W_REFERENCE_DUPLICATE", "line 2")
    assert (
        note.message
        == "the entry key 'k\\x1b' is used again; the first entry (line 1) is checked, not this one"
    )


def test_a_field_with_no_value_is_a_field_left_empty() -> None:
    """``@article{k, title=}``: an IndexError (``_delimited`` on an empty value) before."""
    (claim,) = parse_bibtex("@article{k, title=}", BIB).claims
    assert claim.citations[0].source == ReferenceSource(None, None, None)


# -- JSON -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        # a key with a line break made the message two lines
        (
            b'{"claims": [{"id": "c1", "text": "x", "a\\nb": 1}]}',
            '$.claims[0]["a\\nb"]: unknown field (not part of the contract)',
        ),
        (b'{"claims": [], "\\u2028": 1}', '$["\\u2028"]: unknown field (not part of the contract)'),
        (
            b'{"claims": [{"id": "c1", "text": "x", "\\u001f": 1}]}',
            '$.claims[0]["\\u001f"]: unknown field (not part of the contract)',
        ),
        # a lone surrogate in a field no model reads strictly passed, and the digest raised
        (
            b'{"claims": [{"id": "c1", "text": "x", "citations": [{"document_id": "d", '
            b'"document_version": "v", "start": "\\ud800", "quote": "q"}]}]}',
            "$.claims[0].citations[0].start: not valid Unicode text (a lone surrogate): '\\ud800'",
        ),
        # in any other string: pydantic's "unable to parse raw data as a unicode string" before
        (
            b'{"claims": [{"id": "c1", "text": "half a pair: \\udfff"}]}',
            "$.claims[0].text: not valid Unicode text (a lone surrogate): 'half a pair: \\udfff'",
        ),
        (
            b'{"claims": [{"id": "c1", "text": "x"}], "\\ud83d": 1}',
            "$: a key is not valid Unicode text (a lone surrogate): '\\ud83d'",
        ),
    ],
)
def test_json_errors_are_one_printable_line(data: bytes, problem: str) -> None:
    assert _refused(lambda b: submission_from_bytes(b, JSON, bibtex=False), data) == f"{JSON}: {problem}"


def test_a_surrogate_pair_is_one_character_not_an_error() -> None:
    data = b'{"claims": [{"id": "c1", "text": "\\ud83d\\ude00 [x]"}]}'
    submission = parses_or_refuses(lambda b: submission_from_bytes(b, JSON, bibtex=False), data, JSON)
    assert submission is not None
    assert submission.claims[0].text == "\U0001f600 [x]"


# -- Markdown -------------------------------------------------------------------------------


@pytest.mark.timeout(20)
def test_a_long_table_is_read_in_linear_time() -> None:
    """Each row looked for its table's headers from where it was back to the table's start:
    20,000 rows took a minute (two seconds now)."""
    rows = "".join(f"| Claim {i} holds. | [1] |\n" for i in range(20_000))
    reader = _Reader(f"| Claim | Source |\n|---|---|\n{rows}", "r.md")
    reader.read()
    read = [block for block in reader.blocks if block.kind == "row"]
    assert len(read) == 20_001  # the header row is a row too
    assert [(cell[0], cell[2]) for cell in read[-1].cells] == [
        ("Claim 19999 holds.", "Claim"),
        ("[1]", "Source"),
    ]


@pytest.mark.timeout(20)
def test_a_long_paragraph_is_read_in_linear_time() -> None:
    """Each sentence looked at every marker of its paragraph: 30,000 sentences took half a minute
    (a second now)."""
    reader = _Reader("".join(f"Claim {i} holds [1]. " for i in range(30_000)), "r.md")
    reader.read()
    sentences = [s for block in reader.blocks for s in _sentences(block)]
    assert len(sentences) == 30_000
    assert all(len(s.markers) == 1 for s in sentences)


def test_the_claims_of_one_paragraph_share_its_text() -> None:
    """Each claim held a copy of its paragraph: n sentences of one paragraph held n² characters."""
    text = "".join(f"Claim {i} holds [1]. " for i in range(500)) + "\n\n## References\n1. A work.\n"
    claims = parse_markdown(text, "r.md").claims
    assert len(claims) == 500
    assert len({id(c.place.paragraph_text) for c in claims if c.place is not None}) == 1


def test_markdown_bytes_that_are_not_utf8() -> None:
    data = b"A claim [1].\n\n## References\n1. \xff\n"
    problem = _refused(
        lambda b: submission_from_bytes(b, "r.md", input_format=InputFormat.MARKDOWN_REPORT), data
    )
    assert problem == "r.md: not valid UTF-8: byte 0xff at offset 31"
