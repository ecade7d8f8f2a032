"""The sentence encoder's features of the learned judge (``citeaudit.semantic.meaning``): what each
reads, the same numbers on every run, and a model that reads them refused where the extra is absent."""

from __future__ import annotations

import json

import pytest

from citeaudit.errors import ConfigError
from citeaudit.semantic import encoder, meaning
from citeaudit.semantic.features import featurize
from citeaudit.semantic.interface import Fragment
from citeaudit.semantic.learned import (
    ENCODER_FEATURE_SET,
    FEATURE_SETS,
    LearnedJudge,
    parse_model,
    shipped_model_path,
)

needs_encoder = pytest.mark.skipif(not encoder.available(), reason="the encoder extra is not installed")

_CLAIM = "The film was directed by Tom Hart in 1998."
_PASSAGE = (
    "Tom Hart wrote the screenplay in 1996. "
    "The film was directed by Anna Lee in 1998 and produced by Tom Hart. "
    "It won two awards."
)


@pytest.mark.parametrize(
    ("claim", "edited"),
    [
        ("The team has won the final.", "The team has not won the final."),
        ("Wells were contaminated in 2019.", "Wells were not contaminated in 2019."),
        ("It is not raining.", None),  # negated there already
        ("It isn't raining.", None),
        ("Paris hosts the games.", None),  # no auxiliary
    ],
)
def test_the_negated_claim(claim: str, edited: str | None) -> None:
    assert meaning.negated(claim) == edited


def test_the_sentence_holding_each_name_is_the_one_sharing_most_words() -> None:
    found = featurize(_CLAIM, [Fragment("q1", _PASSAGE)])
    assert found.best_sentence == "The film was directed by Anna Lee in 1998 and produced by Tom Hart."
    assert found.best_window == _PASSAGE
    # Tom Hart is in two sentences: the one sharing more of the claim's words is read.
    assert found.name_sentences() == ("The film was directed by Anna Lee in 1998 and produced by Tom Hart.",)
    # A name at the claim's start (its capital may be the sentence's) and a name no sentence has are not.
    assert featurize("Anna Lee directed it with Bob Ray.", [Fragment("q1", _PASSAGE)]).name_sentences() == ()


def test_the_feature_sets_a_model_may_name() -> None:
    lexical, both = FEATURE_SETS.values()
    assert both == (*lexical, "meaning_sentence", "meaning_window", "meaning_names", "meaning_negation")
    assert ENCODER_FEATURE_SET == "lexical-5+minilm-1"
    assert set(meaning.DIRECTIONS.values()) == {1}


def test_a_model_of_the_encoders_features_is_read_as_one() -> None:
    doc = json.loads(shipped_model_path("encoder").read_text("utf-8"))
    assert (doc["feature_set"], doc["training"]["encoder"]) == (ENCODER_FEATURE_SET, "all-MiniLM-L6-v2")
    model = parse_model(shipped_model_path("encoder").read_bytes(), "encoder.json")
    assert model.meaning
    assert not parse_model(shipped_model_path().read_bytes(), "default.json").meaning


@pytest.mark.skipif(encoder.available(), reason="the encoder extra is installed")
def test_without_the_extra_a_model_reading_the_encoder_is_refused() -> None:
    model = parse_model(shipped_model_path("encoder").read_bytes(), "encoder.json")
    with pytest.raises(ConfigError) as raised:
        LearnedJudge(model)
    assert str(raised.value) == (
        "this learned-judge model reads the sentence encoder (all-MiniLM-L6-v2): it needs the encoder "
        "extra: pip install 'citeaudit[encoder]'"
    )


@needs_encoder
@pytest.mark.timeout(300)
def test_the_features_read_meaning_and_are_the_same_on_every_run() -> None:
    fragments = [Fragment("q1", _PASSAGE)]
    found = featurize(_CLAIM, fragments)
    first = meaning.values(found, meaning.Encodings())
    assert len(first) == len(meaning.FEATURES)
    # A fresh memory, the texts in another order: the same numbers (each text is encoded alone).
    fresh = meaning.Encodings()
    fresh.vectors([_PASSAGE, "Tom Hart wrote the screenplay in 1996.", _CLAIM])
    assert meaning.values(found, fresh) == first
    assert all(round(v, 4) == v for v in first)
    sentence, _, names, negation = first
    assert 0.5 < sentence <= 1.0
    assert names == sentence  # Tom Hart's sentence is the best sentence
    assert negation > 0  # the sentence reads nearer the claim than "The film was not directed…"
    # A paraphrase with no content word in common reads nearer than an unrelated sentence does.
    near = meaning.values(
        featurize("The side won the final in 2010.", [Fragment("q", "The team won the last match in 2010.")]),
        fresh,
    )
    far = meaning.values(
        featurize("The side won the final in 2010.", [Fragment("q", "A final dog sleeps on the sofa.")]),
        fresh,
    )
    assert near[0] > far[0] + 0.2


def test_a_claim_sharing_no_word_with_its_evidence_reads_zero() -> None:
    found = featurize("Paris", [Fragment("q", "The capital of Germany is Berlin.")])
    assert found.best_sentence == ""
    assert meaning.values(found, meaning.Encodings()) == (0.0, 0.0, 0.0, 0.0)


@needs_encoder
def test_each_text_is_encoded_once_a_run() -> None:
    kept = meaning.Encodings()
    found = featurize(_CLAIM, [Fragment("q1", _PASSAGE)])
    meaning.values(found, kept)
    once = kept.encoded
    assert once == 4  # the claim, its best sentence, its window, the negated claim (Tom Hart's: the best)
    meaning.values(found, kept)
    assert kept.encoded == once
