"""Issue 27: word order (which name sits on which side of the verb), weights whose signs follow their
features' meaning, thresholds chosen by a Wilson bound that hold on pairs not trained on, and the
shipped per-domain models."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from citeaudit.semantic import meaning
from citeaudit.semantic.datasets import Pair, load_pairs
from citeaudit.semantic.factory import make_judge
from citeaudit.semantic.features import DIRECTIONS, FEATURES, featurize
from citeaudit.semantic.interface import Fragment
from citeaudit.semantic.learned import SHIPPED_MODELS, LearnedJudge, shipped_model_path
from citeaudit.semantic.probes import edit_claim, probe
from tests.conftest import shared_data

NAMES = [name for name, _ in FEATURES]
ATTRIBUTION = ("semantic", "attribution_bench", "dev_all_subset_balanced.jsonl")


def _value(claim: str, *fragments: str, feature: str) -> float:
    found = featurize(claim, [Fragment(f"q{i}", text) for i, text in enumerate(fragments)])
    return found.values[NAMES.index(feature)]


def _reversed(claim: str, *fragments: str) -> tuple[tuple[str, str], ...]:
    return featurize(claim, [Fragment(f"q{i}", text) for i, text in enumerate(fragments)]).names_reversed


_SOURCE = "In the final of the design competition, Alice Moreau defeated Jonas Berg by two points."


def test_the_order_features_see_a_name_on_the_other_side_of_the_verb() -> None:
    right = "In the final, Alice Moreau defeated Jonas Berg."
    swapped = "In the final, Jonas Berg defeated Alice Moreau."
    assert _value(right, _SOURCE, feature="order_flipped") == 0.0
    assert _value(right, _SOURCE, feature="names_flipped") == 0.0
    # The same words: only their order differs, and only the order features see it.
    flipped = _value(swapped, _SOURCE, feature="order_flipped")
    names = _value(swapped, _SOURCE, feature="names_flipped")
    assert 0.0 < flipped < 1.0
    assert names > 0.0  # a name and the verb between them, the other way round
    same = [n for n in NAMES if n not in ("order_flipped", "names_flipped")]
    a, b = featurize(right, [Fragment("q", _SOURCE)]), featurize(swapped, [Fragment("q", _SOURCE)])
    assert [a.values[NAMES.index(n)] for n in same if n.startswith("cover")] == [
        b.values[NAMES.index(n)] for n in same if n.startswith("cover")
    ]
    assert DIRECTIONS["order_flipped"] == DIRECTIONS["names_flipped"] == -1


@pytest.mark.parametrize(
    ("claim", "fragments", "expected"),
    [
        # Around a word: the verb both have between the names.
        ("In the final, Jonas Berg defeated Alice Moreau.", (_SOURCE,), (("Jonas Berg", "Alice Moreau"),)),
        ("In the final, Alice Moreau defeated Jonas Berg.", (_SOURCE,), ()),
        # Each name where the other one is: beside the word ("at", "of") the other name has there.
        ("He taught at the Vienna of University.", ("He taught at the University of Vienna.",),
         (("Vienna", "University"),)),
        # A name beside its expansion in parentheses: no word between them, no reversal.
        ("NASA stands for National Aeronautics and Space Administration.",
         ("The National Aeronautics and Space Administration (NASA) is an agency.",), ()),
        # Both told in the passive, the other way round: reversed.
        ("In the town, Smith was beaten by Jones.", ("In the town, Jones was beaten by Smith.",),
         (("Smith", "Jones"),)),
        # The passive turns the order round: the same fact.
        ("In the final, Jonas Berg was defeated by Alice Moreau.", (_SOURCE,), ()),
        # A list told in another order says the same.
        ("The United Kingdom includes Northern Ireland, Scotland, Wales, and England.",
         ("The United Kingdom includes England, Scotland, Wales and Northern Ireland.",), ()),
        ("The idea spread to Rome, Greece, and India.", ("The idea spread to Greece, Rome and India.",), ()),
        # Each name where the other one is, the two in different fragments (no sentence holds both).
        ("Later, Blackville died in Smith.", ("Later, Smith died in hospital.", "The family lived in Blackville."),
         (("Blackville", "Smith"),)),
        ("Later, Smith died in Blackville.", ("Later, Smith died in hospital.", "The family lived in Blackville."),
         ()),
    ],
)  # fmt: skip
def test_names_told_the_other_way_round(claim: str, fragments: tuple[str, ...], expected: Any) -> None:
    assert _reversed(claim, *fragments) == expected


def test_a_reversal_is_read_where_the_claim_was_drawn_from() -> None:
    """A passage naming both names often has them both ways round; the sentence that shares most of
    the claim's words decides, not any sentence."""
    elsewhere = "Jonas Berg later praised Alice Moreau in an interview."
    assert _reversed("In the final, Jonas Berg defeated Alice Moreau.", _SOURCE + " " + elsewhere) == (
        ("Jonas Berg", "Alice Moreau"),
    )
    assert (
        "S_NAMES_REVERSED"
        in make_judge("learned")
        .judge("In the final, Jonas Berg defeated Alice Moreau.", [Fragment("q", _SOURCE + " " + elsewhere)])
        .signals
    )


def test_wilson_lower_bound_by_hand() -> None:
    from citeaudit.semantic.training import WILSON_Z, wilson_lower

    assert WILSON_Z == 1.645
    # 17 of 20: p = 0.85, z = 1.645; (p + z²/2n - z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)
    z2 = 1.645**2
    expected = (0.85 + z2 / 40 - 1.645 * math.sqrt(0.85 * 0.15 / 20 + z2 / 1600)) / (1 + z2 / 20)
    assert wilson_lower(17, 20) == pytest.approx(expected, abs=1e-12)
    assert wilson_lower(17, 20) == pytest.approx(0.6782, abs=1e-4)
    assert wilson_lower(0, 0) == 0.0
    assert wilson_lower(20, 20) < 1.0
    assert wilson_lower(170, 200) > wilson_lower(17, 20)  # more seen, a tighter bound


def test_a_threshold_needs_its_bound_and_its_count() -> None:
    from citeaudit.semantic.training import MIN_VERDICTS, _threshold

    # 19 right answers at the top: too few to trust, however right.
    probs = [1 - i / 100 for i in range(60)]
    right = [i < 19 for i in range(60)]
    assert _threshold(probs, right, ["a"] * 60, 0.85, descending=True) is None
    # 40 right, then wrong ones: the cut stays where the bound holds (40 of 40 and a few more).
    right = [i < 40 for i in range(60)]
    cut = _threshold(probs, right, ["a"] * 60, 0.8, descending=True)
    assert cut is not None
    taken = [p for p in probs if p >= cut]
    from citeaudit.semantic.training import wilson_lower

    assert wilson_lower(sum(r for p, r in zip(probs, right, strict=True) if p >= cut), len(taken)) >= 0.8
    assert MIN_VERDICTS <= len(taken) < 60
    # A data set with enough verdicts at the cut must hold on its own: "b"'s 20 pairs, half wrong,
    # keep the cut above them even where the pooled share would pass.
    names = ["a"] * 40 + ["b"] * 20
    mixed = [True] * 40 + [i % 2 == 0 for i in range(20)]
    probs_b = [1 - i / 100 for i in range(40)] + [0.55 - i / 1000 for i in range(20)]
    cut_b = _threshold(probs_b, mixed, names, 0.7, descending=True)
    assert cut_b is not None
    assert wilson_lower(50, 60) >= 0.7  # pooled, all 60 would pass
    assert sum(1 for p, n in zip(probs_b, names, strict=True) if p >= cut_b and n == "b") < MIN_VERDICTS


@pytest.mark.parametrize("name", sorted(SHIPPED_MODELS))
def test_every_shipped_model_held_its_thresholds_and_signs(name: str) -> None:
    """What `judge train` printed for the shipped models is what held-out data gave: wherever a model
    said entailed 20 times or more on pairs it was not trained on, it was right at least 85 % of the
    time; and every weight has its feature's sign."""
    doc: dict[str, Any] = json.loads(shipped_model_path(name).read_text("utf-8"))
    assert doc["judge"] == "learned-8"
    assert doc["training"]["entailed_precision"] == 0.85
    # The retrieved-passages model says insufficient at a lower bound (at 0.8 none held): docs/guides/judges.md.
    assert doc["training"]["target_precision"] == (0.7 if name == "retrieved" else 0.8)
    held = 0
    for figures in doc["cross_validation"].values():
        band = figures["band"]
        if band["verdicts"]["entailed"] >= 20:
            held += 1
            assert band["precision"]["entailed"] >= 0.85, name
    assert held or name in ("wice", "climate", "wice-encoder", "climate-encoder")
    for feature, weight in zip(doc["features"], doc["weights"], strict=True):
        assert {**DIRECTIONS, **meaning.DIRECTIONS}[feature] * weight >= 0, feature


def test_balanced_accuracy_is_no_lower_than_before() -> None:
    """With the band off: each per-domain model held out (nested cross-validation) no lower than the
    per-domain models before issue 27, and the shipped pooled model on each set at least 62 %."""
    from citeaudit.semantic.evaluate import evaluate

    floors = {"wice": ("wice", 0.696), "attribution": ("attribution-bench", 0.678),
              "climate": ("climate-fever", 0.608)}  # fmt: skip
    for name, (dataset, floor) in floors.items():
        doc = json.loads(shipped_model_path(name).read_text("utf-8"))
        assert doc["cross_validation"][dataset]["no_abstain"]["balanced_accuracy"] >= floor, name
    # The lexical model: `learned` is the encoder's where that extra is installed, which reads
    # about 15 pairs a CPU second and would take minutes over these sets (its figures: bench/).
    shipped = make_judge("learned:lexical")
    assert isinstance(shipped, LearnedJudge)
    forced = shipped.without_abstention()
    for dataset, parts in (("wice", ("semantic", "wice", "entailment_retrieval_claim", "dev.jsonl")),
                           ("climate-fever", ("semantic", "climate_fever", "climate-fever.jsonl")),
                           ("attribution-bench", ATTRIBUTION)):  # fmt: skip
        result = evaluate(forced, load_pairs(dataset, shared_data(*parts)))
        assert result["supported_vs_not"]["balanced_accuracy"] >= 0.62, dataset


def _halves(pairs: list[Pair]) -> tuple[list[Pair], list[Pair]]:
    import hashlib

    def side(p: Pair) -> int:
        return hashlib.sha256(p.claim.casefold().encode()).digest()[0] % 2

    return [p for p in pairs if side(p) == 0], [p for p in pairs if side(p) == 1]


@pytest.mark.timeout(300)
def test_a_model_trained_by_judge_train_rejects_wrong_claims_it_never_saw() -> None:
    """A model made by `judge train` on half of AttributionBench, probed on the other half: the edits
    that make a supported claim wrong rarely keep its entailed verdict, and its weights keep their
    features' signs."""
    pytest.importorskip("scipy", reason="judge train needs the train extra")
    from citeaudit.semantic.learned import model_bytes, parse_model
    from citeaudit.semantic.training import TrainingSet, train_model

    pairs = load_pairs("attribution-bench", shared_data(*ATTRIBUTION))
    train, held = _halves(pairs)
    doc = train_model([TrainingSet("attribution-bench", tuple(train), {"dataset": "attribution-bench"})])
    assert all(DIRECTIONS[f] * w >= 0 for f, w in zip(doc["features"], doc["weights"], strict=True))
    assert any(w == 0.0 for f, w in zip(doc["features"], doc["weights"], strict=True) if DIRECTIONS[f])
    judge = LearnedJudge(parse_model(model_bytes(doc), "half.json"))
    result = probe(judge, held)
    for edit in ("not", "never", "name_replaced", "number_changed"):
        assert result[edit]["entailed_before"] >= 10, edit
        assert result[edit]["survival"] <= 0.05, (edit, result[edit])
    assert result["names_swapped"]["entailed_before"] >= 10
    assert result["names_swapped"]["survival"] <= 0.2, result["names_swapped"]
    # The model alone, without its vetoes, lets the swaps through more often: the vetoes do the work.
    bare = probe(judge.without_vetoes(), held)["names_swapped"]
    assert bare["survival"] > result["names_swapped"]["survival"]


def test_a_swapped_claim_the_shipped_model_calls_entailed_unswapped_is_not_entailed() -> None:
    judge = make_judge("learned")
    source = (
        "The Dallas Cowboys defeated the Pittsburgh Steelers 27-17 in Super Bowl XXX, played at Sun "
        "Devil Stadium in Tempe, Arizona, in January 1996."
    )
    claim = "The Dallas Cowboys defeated the Pittsburgh Steelers 27-17 in Super Bowl XXX."
    assert judge.judge(claim, [Fragment("q", source)]).label == "entailed"
    swapped = edit_claim("names_swapped", claim, source)
    assert swapped == "The Pittsburgh Steelers defeated the Dallas Cowboys 27-17 in Super Bowl XXX."
    verdict = judge.judge(swapped, [Fragment("q", source)])
    assert verdict.label != "entailed"
    assert verdict.reason is not None
    assert verdict.reason.startswith("veto S_NAMES_REVERSED (Pittsburgh Steelers / Dallas Cowboys)")


def test_two_teams_told_the_other_way_round() -> None:
    source = [Fragment("q", "Later, the Dolphins beat the Vikings.")]
    assert featurize("Later, Vikings beat Dolphins.", source).names_reversed == (("Vikings", "Dolphins"),)
    assert featurize("Later, Dolphins beat Vikings.", source).names_reversed == ()
