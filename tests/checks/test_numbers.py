from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeaudit.checks.codes import FindingMaker
from citeaudit.checks.numbers import (
    NumberText,
    _grouped_tail,
    _space_grouped,
    check_numbers,
    extract_numbers,
    stated_text,
)

MAKE = FindingMaker()


def labels(claim: str, quote: str | None, years: tuple[int, ...] = ()) -> list[str]:
    texts = [NumberText(quote, "quote")] if quote else [NumberText(None, "none")]
    return [f.label for f in check_numbers(claim, texts, years, MAKE)]


@pytest.mark.parametrize(
    ("claim", "quote"),
    [
        ("снизилось с 18 до 7", "с 18 до 7 на сотню"),
        ("1,000 users", "1000 users"),
        ("1 000 users", "1,000 users"),
        ("1\u00a0000 users", "1.000 users"),
        ("12 345 678 rows", "12,345,678 rows"),
        ("3,5 times", "3.5 times"),
        ("3.50 times", "3.5 times"),
        ("fell by −5 points", "fell by -5 points"),
        ("fell by 5 points", "a change of \u22125 points"),
        ("5% of cases", "5 % of cases"),
        ("5% of cases", "a share of 0.05"),
        ("a share of 0.05", "5% of cases"),
        ("\uff13 times", "3 times"),
        ("1.234,5 units", "1,234.5 units"),
    ],
)
def test_equivalent_numbers_are_supported(claim: str, quote: str) -> None:
    assert labels(claim, quote) == []


@pytest.mark.parametrize(
    ("claim", "quote", "expected"),
    [
        ("Метод снижает ошибки в 3 раза.", "устраняет все ошибки", ["E_NUMBER_UNSUPPORTED:3"]),
        ("1,001 users", "1000 users", ["E_NUMBER_UNSUPPORTED:1001"]),
        ("3.6 times", "3.5 times", ["E_NUMBER_UNSUPPORTED:3.6"]),
        ("5% and 7%", "5%", ["E_NUMBER_UNSUPPORTED:7%"]),
        ("2 of 3 cases", "67% of cases", ["E_NUMBER_UNSUPPORTED:2,3"]),
        ("in 2019 2 000 people", "2 000 people", ["E_NUMBER_UNSUPPORTED:2019"]),
    ],
)
def test_different_numbers_are_unsupported(claim: str, quote: str, expected: list[str]) -> None:
    assert labels(claim, quote) == expected


def test_the_cited_works_year_needs_no_quote() -> None:
    assert labels("In 2024 the error rate fell to 7", "the error rate fell to 7", (2024,)) == []
    assert labels("In 2023 the error rate fell to 7", "the error rate fell to 7", (2024,)) == [
        "E_NUMBER_UNSUPPORTED:2023"
    ]


def test_numbers_of_a_citation_never_read_are_not_checked() -> None:
    """What was not read was not checked: no quote and no pinned text is a note, never an error."""
    (f,) = check_numbers("30 days", [NumberText(None, "none")], (), MAKE)
    assert f.label == "I_NUMBERS_NOT_CHECKED:30"
    assert f.severity == "info"
    assert f.message == (
        "the claim's number(s) 30 were not checked: its citation gives no quote, and no text of the cited "
        "work is pinned"
    )
    (g,) = check_numbers("30 days", [NumberText("40 days", "quote"), NumberText(None, "none")], (), MAKE)
    assert g.message == (
        "the claim's number(s) 30 were not checked: 1 of its 2 citations give no quote, and no text of the "
        "cited work is pinned"
    )


def test_numbers_in_a_full_text_or_a_page_are_checked_there() -> None:
    page = NumberText("The survey of 2,000 adults found 45% agreed.", "page")
    assert check_numbers("45% of 2000 adults agreed", [page], (), MAKE) == []
    (f,) = check_numbers("47% of 2000 adults agreed", [page], (), MAKE)
    assert (f.label, f.message) == (
        "E_NUMBER_UNSUPPORTED:47%",
        "the claim's number(s) 47% do not occur in the page of the cited work",
    )
    full = NumberText("Accuracy rose to 91.2 on the test set.", "full_text")
    (g,) = check_numbers("Accuracy rose to 93.4", [full], (), MAKE)
    assert g.message == "the claim's number(s) 93.4 do not occur in the full text of the cited work"


def test_a_number_absent_from_an_abstract_is_a_warning_that_says_so() -> None:
    abstract = NumberText("We train a model that beats the baseline.", "abstract")
    (f,) = check_numbers("The model beats the baseline by 4.5 points", [abstract], (), MAKE)
    assert (f.label, f.severity) == ("W_NUMBER_NOT_IN_ABSTRACT:4.5", "warning")
    assert f.message == (
        "the claim's number(s) 4.5 are not in the abstract of the cited work; the full text was not read"
    )


def test_a_number_outside_a_reports_quotation_marks_is_a_warning_not_an_error() -> None:
    """A report's quotation marks held a page title in a real agent report (jmandel/chewber, E110):
    its claim's "6" was called wrong against the title."""
    title = NumberText("Agents Classified by the IARC Monographs", "report_quote")
    claim = "IARC lists it among 6 agents under review, per “Agents Classified by the IARC Monographs”"
    (f,) = check_numbers(claim, [title], (), MAKE)
    assert (f.label, f.severity, f.outcome.value) == ("W_NUMBER_NOT_IN_QUOTE:6", "warning", "note")
    assert f.message == (
        "the claim's number(s) 6 are not in the words it puts in quotation marks; a report's quotation marks "
        "may hold a title or a name rather than the evidence, so this is not called wrong: quote the passage "
        "that gives the number"
    )
    # The same words as a claims file's own quote: the seed's error.
    (g,) = check_numbers(claim, [NumberText(title.text, "quote")], (), MAKE)
    assert (g.label, g.severity) == ("E_NUMBER_UNSUPPORTED:6", "error")
    # A number the quoted words do give is supported either way.
    assert (
        check_numbers("cut from 18 to 7", [NumberText("from 18 to 7 per hundred", "report_quote")], (), MAKE)
        == []
    )


def test_several_quotes_support_together() -> None:
    texts = [NumberText("from 18", "quote"), NumberText("down to 7", "quote")]
    assert check_numbers("from 18 to 7", texts, (), MAKE) == []
    (f,) = check_numbers("from 18 to 6", texts, (), MAKE)
    assert f.message == "the claim's number(s) 6 do not occur in any quote of its 2 citations"


@pytest.mark.parametrize(
    ("claim", "stated"),
    [
        ("Revenue grew 12% [Deloitte, 2023].", "Revenue grew 12%  ."),
        ("Scores reached 88.1 (Vaswani et al., 2017; Lee, 2019a).", "Scores reached 88.1  ."),
        ("t-SNE (van der Maaten & Hinton, 2008, p. 3) maps 3 dims", "t-SNE   maps 3 dims"),
        ("See arXiv:2502.03671v1 and https://x.org/a/2 for 3 runs", "See   and   for 3 runs"),
        ("3.2 Results show 45 cases", "  Results show 45 cases"),
        ("(n = 120 patients, 2023) grew", "(n = 120 patients, 2023) grew"),
        ("built in 1998 [2], [3–5].", "built in 1998  ,  ."),
    ],
)
def test_what_cites_is_not_what_the_claim_states(claim: str, stated: str) -> None:
    assert stated_text(claim) == stated


def test_numbers_inside_the_claims_markers_are_not_checked() -> None:
    quote = [NumberText("the share fell to 7", "quote")]
    assert check_numbers("The share fell to 7 [12]", quote, (), MAKE, markers=["[12]"]) == []
    # Without the markers a reader found (a claims JSON whose answer keeps its "[1]" markers), a
    # number alone in brackets is a marker too; one the claim states is still checked.
    assert check_numbers("The share fell to 7 [12]", quote, (), MAKE) == []
    assert check_numbers("The share fell to 7 [1, 3][4–6].", quote, (), MAKE) == []
    assert [f.label for f in check_numbers("The share fell to 7 [12] in 9 states", quote, (), MAKE)] == [
        "E_NUMBER_UNSUPPORTED:9"
    ]
    assert [f.label for f in check_numbers("The share fell to [2.5]", quote, (), MAKE)] == [
        "E_NUMBER_UNSUPPORTED:2.5"
    ]
    assert [f.label for f in check_numbers("The share fell to 7 in 12 states", quote, (), MAKE)] == [
        "E_NUMBER_UNSUPPORTED:12"
    ]


_GROUPS = st.lists(
    st.sampled_from(["0", "1", "12", "123", "012", "1234", "000", "999", "123,5", "1.5"]), max_size=8
)


@settings(max_examples=1000)
@given(_GROUPS)
def test_the_grouped_tail_is_the_first_tail_that_is_grouped(groups: list[str]) -> None:
    """One backward pass gives what testing every tail gave (that was quadratic)."""
    first = next((i for i in range(1, len(groups) - 1) if _space_grouped(groups[i:])), len(groups))
    assert _grouped_tail(groups) == first


def test_a_claim_listing_thousands_of_numbers() -> None:
    listed = " ".join(str(n) for n in range(1, 20_001))  # one token: numbers apart by single spaces
    mentions = extract_numbers(listed)
    assert len(mentions) == 20_000
    assert mentions[-1].label == "20000"
