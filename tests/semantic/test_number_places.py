"""A number the passage has, but said of something else: ``S_NUMBER_REPLACED``."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from citeaudit.semantic.factory import make_judge
from citeaudit.semantic.features import featurize
from citeaudit.semantic.interface import Fragment
from citeaudit.semantic.learned import VETOES, LearnedJudge
from citeaudit.semantic.number_places import numbers_at
from citeaudit.semantic.probes import edit_claim
from tests.conftest import run_cli

_TREATY = "The Treaty of Calloway, signed in 1859, remained in force until 1832, when the two states merged."
_SALES = "In 2019 sales rose 4% and costs fell 12%."
# the years in a list after the sentence the claim is drawn from, which shares one word more
_HONOURS = (
    "Borlaug was awarded many honours for his work, including the Peace Prize, the Freedom Medal and the "
    "Gold Medal. Peace Prize (1970) Freedom Medal (1977) Gold Medal (2006)"
)
# A page about a harbour: 1921 only in its first sentence, far from the lighthouse.
_HARBOUR = (
    "The harbour of Calloway was dredged in 1921 to take larger ships. The town council meets in the old "
    "customs house. Fishing boats still land their catch at the north quay. The lighthouse was painted "
    "red and white. A ferry crosses to the island twice a day. Markets are held on Saturdays."
)


@pytest.mark.parametrize(
    ("wrong", "right", "passage", "replaced"),
    [
        ("The Treaty of Calloway was signed in 1832.", "The Treaty of Calloway was signed in 1859.",
         _TREATY, ("1832", "1859")),
        ("Sales rose 12% in 2019.", "Sales rose 4% in 2019.", _SALES, ("12", "4")),
        ("He was awarded the Peace Prize in 2006 and the Freedom Medal in 1977.",
         "He was awarded the Peace Prize in 1970 and the Freedom Medal in 1977.", _HONOURS, ("2006", "1970")),
        ("The lighthouse was painted red and white in 1921.", "The harbour was dredged in 1921.",
         _HARBOUR, ("1921", "elsewhere")),
    ],
)  # fmt: skip
def test_a_number_the_passage_says_of_something_else_is_vetoed(
    wrong: str, right: str, passage: str, replaced: tuple[str, str]
) -> None:
    judge = make_judge("learned")
    assert isinstance(judge, LearnedJudge)
    fragments = [Fragment("q", passage)]
    found = featurize(wrong, fragments)
    assert found.numbers_replaced == (replaced,)
    assert "S_NUMBER_ABSENT" not in found.signals  # every number of the claim is in the passage
    verdict = judge.judge(wrong, fragments)
    assert verdict.label != "entailed"
    assert verdict.reason is not None
    assert f"veto S_NUMBER_REPLACED ({replaced[0]} / {replaced[1]})" in verdict.reason
    assert "S_NUMBER_REPLACED" in VETOES
    # the same claim with the number in its place raises nothing, and is entailed
    told_right = featurize(right, fragments)
    assert told_right.numbers_replaced == ()
    assert judge.judge(right, fragments).label == "entailed"


def test_without_the_veto_the_model_alone_would_say_entailed() -> None:
    judge = make_judge("learned")
    assert isinstance(judge, LearnedJudge)
    fragments = [Fragment("q", _TREATY)]
    claim = "The Treaty of Calloway was signed in 1832."
    assert judge.without_vetoes().judge(claim, fragments).label == "entailed"
    assert judge.judge(claim, fragments).label == "unknown"


def test_a_citation_marker_a_range_a_score_a_time_and_a_name_are_no_numbers() -> None:
    words, numbers = numbers_at(
        "Won 10–7 at 15:30 [3][1, 4], the HbA1c test of 1491-1510 in 2019 by 20km (9th), e^{-x^2} and x_1."
    )
    assert {words[k]: values for k, values in numbers.items()} == {
        "2019": frozenset({Decimal(2019)}),
        "20": frozenset({Decimal(20)}),
        "9": frozenset({Decimal(9)}),
    }


def test_two_numbers_of_the_claim_swapped_are_replaced_only_with_their_words_on_both_sides() -> None:
    swapped = featurize("Spence is 24 and Beckham is 21.", [Fragment("q", "Spence is 21 and Beckham is 24.")])
    assert swapped.numbers_replaced == (("24", "21"),)
    # a list told in another shape: each number has a word of the claim on one side only
    passage = [
        Fragment(
            "q",
            "Kinstler is the youngest of the three, as she is 20 years old. Spence is just barely older "
            "than her, as he is 21, and Beckham is the oldest of the three at 24 years old.",
        )
    ]
    listed = featurize("Kinstler is 20 years old, Spence is 21, and Beckham is 24.", passage)
    assert listed.numbers_replaced == ()


def test_a_marker_or_score_in_the_claim_is_never_read_as_its_number() -> None:
    passage = [Fragment("q", "The final ended 10–7 after extra time [3]. In 2020 the team lost 7 games.")]
    assert featurize("The final ended 10–7 after extra time [3].", passage).numbers_replaced == ()


def test_the_probe_puts_another_number_of_the_passage_with_as_many_digits() -> None:
    assert (
        edit_claim("number_from_passage", "The Treaty of Calloway was signed in 1859.", _TREATY)
        == "The Treaty of Calloway was signed in 1832."
    )
    # only 12 has two digits besides the claim's own; a one-digit 4 is never put for it
    assert edit_claim("number_from_passage", "Costs fell 12% in 2019.", _SALES) is None
    assert edit_claim("number_from_passage", "Sales rose 4% in 2019.", _SALES) is None
    # a citation marker is no number to take
    assert edit_claim("number_from_passage", "Costs fell 12%.", "Costs fell 12% [34].") is None


def _answer(tmp_path: Path, claim: str) -> tuple[int, dict[str, Any]]:
    """``check`` of an answer of one claim quoting the treaty's sentence verbatim."""
    response = {
        "answer": claim,
        "claims": [{"id": "c1", "text": claim, "citation_ids": ["q1"]}],
        "citations": [{"id": "q1", "document_id": "treaty", "document_version": "1", "start": 0,
                       "end": len(_TREATY), "quote": _TREATY}],
    }  # fmt: skip
    (tmp_path / "response.json").write_text(json.dumps(response), "utf-8")
    (tmp_path / "documents.json").write_text(
        json.dumps({"treaty": {"version": "1", "text": _TREATY}}), "utf-8"
    )
    out = tmp_path / "report.json"
    result = run_cli("check", tmp_path / "response.json", "--corpus", tmp_path / "documents.json", "--offline",
                     "--judge", "learned", "--fail-on", "decision", "--out", out)  # fmt: skip
    return result.code, json.loads(out.read_text("utf-8"))


def test_an_answer_of_one_claim_with_a_number_of_the_passage_misplaced_is_not_accepted(
    tmp_path: Path,
) -> None:
    code, report = _answer(tmp_path, "The Treaty of Calloway was signed in 1832.")
    (claim,) = report["claims"]
    assert claim["verdict"]["label"] == "unknown"
    assert claim["verdict"]["reason"].startswith("veto S_NUMBER_REPLACED (1832 / 1859): never entailed")
    assert report["decision"] == "manual_review"
    assert code != 0
    code, report = _answer(tmp_path, "The Treaty of Calloway was signed in 1859.")
    assert report["decision"] == "accept"
    assert code == 0


_TRIAL = (
    "Participants on the new drug lowered their HbA1c by 1.4 percentage points, compared with 0.6 points "
    "on placebo. About 12% of the drug group reported nausea, against 4% in the placebo group."
)


def test_the_pieces_of_a_name_take_no_place_among_the_words_that_mark_a_number() -> None:
    """ "HbA1c" is three words to the reader of words ("hba", "1", "c"): they do not use up the three
    words searched for the one that marks the number's place."""
    fragments = [Fragment("q", _TRIAL)]
    wrong = featurize("Participants on the new drug lowered their HbA1c by 12%.", fragments)
    assert wrong.numbers_replaced == (("12", "1.4"),)
    right = featurize("Participants on the new drug lowered their HbA1c by 1.4 percentage points.", fragments)
    assert right.numbers_replaced == ()


def test_of_two_numbers_in_the_place_the_one_with_as_many_digits_is_named() -> None:
    passage = "The east bridge opened in 3 stages. The west bridge opened in 1998. A report followed in 2005."
    assert featurize("The bridge opened in 2005.", [Fragment("q", passage)]).numbers_replaced == (
        ("2005", "1998"),
    )


def test_signs_that_read_as_digits_are_no_numbers_and_break_nothing() -> None:
    words, numbers = numbers_at("The lake covers 12 km² (⑤ on the map), ١٢ in Arabic-Indic digits.")
    assert {words[k]: values for k, values in numbers.items()} == {
        "12": frozenset({Decimal(12)}),
        "١٢": frozenset({Decimal(12)}),
    }
    assert edit_claim("number_from_passage", "The lake covers 12 km².", "It covers 12 km², x² ⑤ 45 m.") == (
        "The lake covers 45 km²."
    )
