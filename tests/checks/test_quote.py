from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from citeaudit.checks.codes import FindingMaker
from citeaudit.checks.quote import _STEPS, _without_each_step, check_quote
from citeaudit.locate import SourceText as Snapshot
from citeaudit.model import Span

MAKE = FindingMaker()
TEXT = (
    "Правила хранения данных.\nЖурнал   операций хранится в течение 30 «календарных» дней.\n"
    "Резервные копии удаляются отдельно. Резервные копии удаляются отдельно."
)


def test_raw_match_gives_the_exact_span() -> None:
    quote = "Журнал   операций хранится в течение 30 «календарных» дней."
    findings, span = check_quote(quote, Snapshot(TEXT), 30, MAKE)
    assert findings == []
    assert span == Span(25, 25 + len(quote))
    assert TEXT[span.start : span.end] == quote


def test_normalised_match_maps_back_and_names_the_differences() -> None:
    quote = "журнал операций хранится в течение 30 календарных дней"
    findings, span = check_quote(quote, Snapshot(TEXT), 30, MAKE)
    assert span is not None
    assert TEXT[span.start : span.end] == "Журнал   операций хранится в течение 30 «календарных» дней"
    (f,) = findings
    assert f.code == "I_QUOTE_NORMALIZED"
    assert f.suggestion is not None
    assert f.suggestion["differences"] == ["letter case", "quotation marks", "whitespace"]


def test_repeated_quote_is_noted_with_all_occurrences() -> None:
    findings, span = check_quote("Резервные копии удаляются отдельно.", Snapshot(TEXT), 30, MAKE)
    (f,) = findings
    assert f.code == "I_QUOTE_REPEATED"
    assert f.suggestion is not None
    assert f.suggestion["count"] == 2
    assert span == Span(85, 120)


def test_not_found_gives_the_closest_passage_as_a_diagnostic_only() -> None:
    findings, span = check_quote(
        "Журнал операций хранится в течение 60 календарных дней.", Snapshot(TEXT), 30, MAKE
    )
    assert span is None
    (f,) = findings
    assert f.code == "E_QUOTE_NOT_FOUND"
    assert f.suggestion is not None
    assert f.suggestion["closest"].startswith("Журнал   операций хранится в течение 30")


def test_too_short_absent_and_no_snapshot() -> None:
    assert [f.code for f in check_quote("хранится", Snapshot(TEXT), 30, MAKE)[0]] == ["E_QUOTE_TOO_SHORT"]
    assert [f.code for f in check_quote(None, Snapshot(TEXT), 30, MAKE)[0]] == ["I_QUOTE_ABSENT"]
    assert [f.code for f in check_quote("x" * 40, None, 30, MAKE)[0]] == ["E_NO_SNAPSHOT"]


def test_no_snapshot_says_how_to_add_one() -> None:
    missing = "no text snapshot of the cited work to search the quote in"
    messages = [check_quote("x" * 40, None, 30, MAKE, doi=doi)[0][0].message for doi in ("10.1/x", None, "")]
    assert messages == [
        f"{missing}: add the work's text (a PDF, HTML or text file) with `citeaudit snapshot FILE --doi 10.1/x`",
        f"{missing}: add the work's text (a PDF, HTML or text file) with `citeaudit snapshot FILE --doi DOI`",
        f"{missing}: its record has no DOI, and snapshots are kept by DOI",
    ]


def test_minimum_length_is_configurable() -> None:
    assert check_quote("хранится", Snapshot(TEXT), 5, MAKE)[0] == []


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('aB \t\n"«»\u2014-\ufb01\u00ad\u00e9e\u0301')), max_size=40))
def test_each_step_left_out_in_turn_is_the_whole_chain_without_it(text: str) -> None:
    def without(skip: str) -> str:
        out = text
        for name, step in _STEPS:
            if name != skip:
                out = step(out)
        return out

    assert _without_each_step(text) == [without(name) for name, _ in _STEPS]
