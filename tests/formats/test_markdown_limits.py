"""A report is read to its end or refused: deep nesting never drops the rest of a report, and
hostile runs of links, footnotes and brackets are read in time linear in their length."""

from __future__ import annotations

import time

import pytest
from markdown_it.parser_inline import ParserInline

from citeaudit.errors import InputError
from citeaudit.formats.markdown_report import parse_markdown
from citeaudit.formats.markdown_syntax import MAX_NESTING, parser

REFERENCES = "\n\n## References\n\n1. Smith, J. (2020). A title here. Journal of Things.\n"
CLAIM = "A fabricated claim of 42% growth [1]."


def _nested_list(depth: int) -> str:
    return "\n".join("  " * d + f"- level {d}" for d in range(depth))


def _claims_after(body: str) -> list[tuple[str, int, int]]:
    text = "# Report\n\n" + body + "\n\n" + CLAIM + REFERENCES
    submission = parse_markdown(text, "r.md")
    out = []
    for claim in submission.claims:
        assert claim.place is not None
        assert text[claim.place.start : claim.place.end] == CLAIM
        out.append((claim.text, claim.place.start, claim.place.line))
    return out


@pytest.mark.parametrize("depth", [10, 25, 99])
def test_a_claim_after_a_deeply_nested_list_is_audited(depth: int) -> None:
    # The claim's line: the title, a blank, the list's lines, a blank.
    start = len("# Report\n\n" + _nested_list(depth) + "\n\n")
    assert _claims_after(_nested_list(depth)) == [("A fabricated claim of 42% growth.", start, depth + 4)]


@pytest.mark.parametrize("depth", [10, 25, 150])
def test_a_claim_after_deeply_nested_quotes_is_audited(depth: int) -> None:
    body = "\n".join(">" * (d + 1) + f" level {d}" for d in range(depth))
    assert _claims_after(body)[0][0] == "A fabricated claim of 42% growth."


@pytest.mark.parametrize(
    ("body", "line"),
    [
        (_nested_list(100), 102),  # the hundredth level, on the file's line 102
        ("- " * 100_000 + "deep", 3),
        ("> " * 100_000 + "deep", 3),
        ("- > " * 100_000 + "deep", 3),
        ("Text.\n\n" + "\n".join("   " * d + f"1. level {d}" for d in range(300)), 104),
    ],
    ids=["list-100", "list-100000-one-line", "quote-100000", "mixed-100000", "ordered-300"],
)
def test_a_report_nested_past_the_limit_is_refused_with_the_line(body: str, line: int) -> None:
    started = time.perf_counter()
    with pytest.raises(InputError) as caught:
        parse_markdown("# Report\n\n" + body + "\n\n" + CLAIM + REFERENCES, "r.md")
    assert caught.value.diagnostics() == (
        f"r.md: line {line}: blocks nested more than {MAX_NESTING} levels deep (a list level counts "
        "two, a quote one): the report cannot be read past this line, and a report read short is "
        "not audited"
    )
    assert time.perf_counter() - started < 30


def _skips(text: str) -> int:
    """How many times the inline parser tried the rules at a position of ``text``."""
    calls = 0
    original = ParserInline.skipToken

    def counted(self: ParserInline, state: object) -> None:
        nonlocal calls
        calls += 1
        original(self, state)  # type: ignore[arg-type]

    ParserInline.skipToken = counted  # type: ignore[method-assign]
    try:
        parser().parse(text, {})
    finally:
        ParserInline.skipToken = original  # type: ignore[method-assign]
    return calls


@pytest.mark.parametrize(
    "make",
    [
        lambda n: "[" * n,
        lambda n: "[" * n + " claim [1].",
        lambda n: "[a" * n + "]" * n,
        lambda n: "![" * n + "]",
        lambda n: "[x](" * n,
    ],
    ids=["open", "open-then-marker", "nested-pairs", "images", "unclosed-links"],
)
def test_runs_of_brackets_are_read_in_linear_steps(make: object) -> None:
    assert callable(make)
    small, large = _skips(make(2_000)), _skips(make(8_000))
    # Four times the text, at most a little over four times the steps (it was sixteen times).
    assert large <= 4.5 * max(small, 1), (small, large)


@pytest.mark.timeout(300)  # 20-30 s on a loaded two-core machine
def test_a_million_open_brackets_are_read_in_seconds() -> None:
    started = time.perf_counter()
    with pytest.raises(InputError):  # nothing to audit in it
        parse_markdown("[" * 1_000_000, "r.md")
    assert time.perf_counter() - started < 90  # was 48 s at the parser's old limit, quadratic


@pytest.mark.parametrize(
    ("marker", "count"),
    [("[s](https://example.org/{n})", 10_000), ("[^{n}]", 20_000), ("(Smith, 2020)", 10_000)],
    ids=["links", "footnotes", "author-year"],
)
def test_thousands_of_markers_in_one_sentence_are_one_claim(marker: str, count: int) -> None:
    sentence = "Growth was 42% " + " ".join(marker.format(n=n) for n in range(count)) + "."
    notes = "".join(f"\n\n[^{n}]: Smith, J. (2020). A title here. Journal." for n in range(3))
    started = time.perf_counter()
    submission = parse_markdown("# R\n\n" + sentence + notes + REFERENCES, "r.md")
    elapsed = time.perf_counter() - started
    assert len(submission.claims) == 1
    # A link's text is read; other markers are taken out of the claim's text.
    kept = " s" * count if marker.startswith("[s]") else ""
    assert submission.claims[0].text == f"Growth was 42%{kept}."
    place = submission.claims[0].place
    assert place is not None
    assert len(place.markers) == count
    assert elapsed < 60  # the links were over 90 s for 20,000 (a list searched once a marker)
