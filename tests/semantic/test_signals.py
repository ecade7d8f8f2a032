from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeaudit.semantic import Fragment
from citeaudit.semantic.signals import analyse, content_terms, sentences


def codes(claim: str, *texts: str) -> dict[str, str]:
    report = analyse(claim, [Fragment(f"c{i}", t) for i, t in enumerate(texts, 1)])
    return {s.code: s.detail for s in report.signals}


@pytest.mark.parametrize(
    ("claim", "source", "expected"),
    [
        # English: number changed, absolute added, possibility turned into a guarantee
        ("The drug always reduces mortality by 30%.", "The drug may reduce mortality by 20%.",
         {"S_NUMBER_ABSENT": "30%", "S_ABSOLUTE_ADDED": "always", "S_POSSIBILITY_HARDENED": "may"}),
        # Russian, the same three
        ("Препарат всегда снижает смертность на 30%.", "Препарат может снижать смертность на 20%.",
         {"S_NUMBER_ABSENT": "30%", "S_ABSOLUTE_ADDED": "всегда", "S_POSSIBILITY_HARDENED": "может"}),
        # Chinese, the same three
        ("该药物总是降低死亡率30%。", "该药物可能降低死亡率20%。",
         {"S_NUMBER_ABSENT": "30%", "S_ABSOLUTE_ADDED": "总是", "S_POSSIBILITY_HARDENED": "可能"}),
        # negation on one side only, in either direction
        ("Vitamin D does not prevent fractures.", "Vitamin D prevents fractures in older adults.",
         {"S_NEGATION_ONE_SIDED": "claim: not"}),
        ("Витамин D предотвращает переломы.", "Витамин D не предотвращает переломы.",
         {"S_NEGATION_ONE_SIDED": "source: не"}),
        # numeric equivalence of the core check: 1,000 = 1000, 3,5 = 3.5
        ("Revenue reached 1000 units in 3.5 years.", "Revenue reached 1,000 units in 3,5 years.", {}),
        # a claim about something else entirely
        ("Jupiter has ninety-five moons.", "The committee approved the budget.",
         {"S_NUMBER_ABSENT": "95", "S_LOW_COVERAGE": "0.00"}),
        # numbers in words are numbers ("eight" is 8), and a digit glued to letters is none (CO2)
        ("She had eight children.", "She had 8 children.", {}),
        ("She had three children.", "She had eight children.", {"S_NUMBER_ABSENT": "3"}),
        ("CO2 levels rose by 4 %.", "Carbon dioxide levels rose by 4 %.", {}),
    ],
)  # fmt: skip
def test_signals_per_language(claim: str, source: str, expected: dict[str, str]) -> None:
    assert codes(claim, source) == expected


def test_unlinked_citations() -> None:
    found = codes("Coffee improves memory and lowers blood pressure.",
                  "Coffee improves memory in students.", "Exercise lowers blood pressure.")  # fmt: skip
    assert found == {"S_CITATIONS_UNLINKED": "2 fragments share no claim term"}
    linked = codes("Coffee improves memory and lowers blood pressure.",
                   "Coffee improves memory.", "Coffee lowers blood pressure.")  # fmt: skip
    assert linked == {}


def test_claim_broader_than_its_best_sentence() -> None:
    claim = "Paris hosted the games, built a new stadium, and raised taxes."
    source = "Paris hosted the games.\nA new stadium was built in Lyon.\nTaxes were raised in Rome."
    report = analyse(claim, [Fragment("c1", source)])
    assert report.coverage == 1.0
    assert report.best_sentence_coverage == 3 / 8  # "new stadium … built" of 8 terms
    assert report.codes == ("S_CLAIM_BROADER",)


def test_terms_are_stemmed_and_han_is_bigrams() -> None:
    assert content_terms("The reductions reduce") == {"reduc"}
    assert content_terms("снижает снижают") == {"снижа"}
    assert content_terms("死亡率") == {"死亡", "亡率"}


def test_the_cited_works_year_is_not_a_missing_number() -> None:
    quote = "Grounding reduced unsupported statements from 18 to 7 per hundred answers."
    claim = "In 2024, grounding reduced unsupported statements from 18 to 7 per hundred answers."
    assert "S_NUMBER_ABSENT" in analyse(claim, [Fragment("q1", quote)]).codes
    assert "S_NUMBER_ABSENT" not in analyse(claim, [Fragment("q1", quote, (2024,))]).codes
    assert "S_NUMBER_ABSENT" in analyse(claim, [Fragment("q1", quote, (2023,))]).codes


# The definition of a sentence split, as one look-behind regex (slow: it tests every position).
_SPLIT = re.compile(r"(?<=[.!?;])\s+|(?<=[。！？；])|\n+")


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet=list("ab .!?;。！？；\n\t\u00a0\r\u3000x"), max_size=40))
def test_sentences_split_as_the_definition_says(text: str) -> None:
    assert sentences(text) == [s.strip() for s in _SPLIT.split(text) if s and s.strip()]


def test_sentences_of_mixed_scripts() -> None:
    text = "Plan A works. Really?  Yes!\n\nЖурнал хранится 30 дней; копии нет.服务可用。数据保留"
    assert sentences(text) == ["Plan A works.", "Really?", "Yes!", "Журнал хранится 30 дней;", "копии нет.服务可用。",
                               "数据保留"]  # fmt: skip
