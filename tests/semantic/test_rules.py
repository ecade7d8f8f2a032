from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from citeaudit.semantic import Fragment, make_judge
from citeaudit.semantic.rules import RulesJudge


def test_missing_number_is_insufficient_with_the_number_named() -> None:
    verdict = RulesJudge().judge("Mortality fell by 30%.", [Fragment("c1", "Mortality fell by 20%.")])
    assert (verdict.label, verdict.unsupported, verdict.relied_on) == ("insufficient", ("30%",), ("c1",))
    assert verdict.judge.backend == "rules"


def test_low_coverage_names_the_uncovered_terms() -> None:
    verdict = RulesJudge().judge("Jupiter has many moons.", [Fragment("c1", "The committee met.")])
    assert verdict.label == "insufficient"
    assert verdict.unsupported == ("jupiter", "many", "moons")


def test_no_fragment_is_insufficient() -> None:
    verdict = RulesJudge().judge("Anything at all.", [])
    assert (verdict.label, verdict.signals) == ("insufficient", ("S_NO_FRAGMENT",))


def test_word_overlap_is_never_entailment() -> None:
    # Full overlap, opposite meaning: the rules judge must abstain.
    verdict = RulesJudge().judge("X does not cause Y.", [Fragment("c1", "X causes Y.")])
    assert verdict.label == "unknown"
    assert "S_NEGATION_ONE_SIDED" in verdict.signals


@given(st.text(max_size=200), st.lists(st.text(max_size=200), max_size=3))
def test_rules_never_says_entailed(claim: str, texts: list[str]) -> None:
    fragments = [Fragment(f"c{i}", t) for i, t in enumerate(texts)]
    assert make_judge("rules").judge(claim, fragments).label in {"insufficient", "unknown"}
