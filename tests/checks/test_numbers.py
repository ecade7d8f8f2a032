from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeaudit.checks.codes import FindingMaker
from citeaudit.checks.numbers import _grouped_tail, _space_grouped, check_numbers, extract_numbers

MAKE = FindingMaker()


def labels(claim: str, quote: str | None, years: tuple[int, ...] = ()) -> list[str]:
    return [f.label for f in check_numbers(claim, [quote] if quote else [], years, MAKE, 1)]


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


def test_no_quote_supports_nothing() -> None:
    (f,) = check_numbers("30 days", [], (), MAKE, 1)
    assert f.message == "the claim's number(s) 30 do not occur in any quote (the claim's citations give none)"


def test_several_quotes_support_together() -> None:
    assert check_numbers("from 18 to 7", ["from 18", "down to 7"], (), MAKE, 2) == []


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
