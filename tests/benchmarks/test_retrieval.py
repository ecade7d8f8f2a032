"""The passage-retrieval benchmark (``bench/retrieval.py``) on a tiny slice of its sets, so that it
cannot rot: its data files as their SOURCE.md describes them, its reimplementation of the shipped
ranking agreeing with ``rank_passages``, and a whole run through its fresh interpreters."""

from __future__ import annotations

import hashlib
import json
import re

import pytest
from bench import retrieval
from bench.retrieval import Case, Ranking, build_windows, rank

from citeaudit.sources.cited import Basis


def test_the_check_covid_files_are_those_its_source_names() -> None:
    source = (retrieval.CHECK_COVID / "SOURCE.md").read_text("utf-8")
    for name in ("pairs.jsonl", "abstracts.jsonl"):
        digest = hashlib.sha256((retrieval.CHECK_COVID / name).read_bytes()).hexdigest()
        assert re.search(rf"`{name}`.*`{digest}`", source), name
    pairs = [
        json.loads(line) for line in (retrieval.CHECK_COVID / "pairs.jsonl").read_text("utf-8").splitlines()
    ]
    abstracts = {
        json.loads(line)["cord_id"]: json.loads(line)["abstract"]
        for line in (retrieval.CHECK_COVID / "abstracts.jsonl").read_text("utf-8").splitlines()
    }
    assert len(pairs) == 219
    assert {p["label"] for p in pairs} == {"SUPPORT", "REFUTE"}
    assert len({(p["claim"], p["cord_id"]) for p in pairs}) == len(pairs)
    for p in pairs:
        assert p["evidence"]
        assert all(0 <= i < len(abstracts[p["cord_id"]]) for i in p["evidence"] + p["supplementary"])


def test_gold_ranges_are_the_gold_sentences_of_the_pinned_text() -> None:
    abstracts = {
        a["cord_id"]: a["abstract"]
        for a in map(json.loads, (retrieval.CHECK_COVID / "abstracts.jsonl").read_text("utf-8").splitlines())
    }
    pairs = list(map(json.loads, (retrieval.CHECK_COVID / "pairs.jsonl").read_text("utf-8").splitlines()))
    for case, pair in zip(retrieval.check_covid_cases(20), pairs, strict=False):
        assert case.text == " ".join(abstracts[pair["cord_id"]])
        assert [case.text[a:b] for a, b in case.gold] == [
            abstracts[pair["cord_id"]][i] for i in pair["evidence"]
        ]


def test_a_passage_holds_a_gold_sentence_when_they_overlap_by_half_the_shorter() -> None:
    assert retrieval._hit((0, 100), (10, 60))  # the sentence inside the passage
    assert retrieval._hit((10, 60), (0, 100))  # a piece of a long sentence cut at 600 characters
    assert retrieval._hit((0, 100), (70, 120))  # 30 of the sentence's 50
    assert not retrieval._hit((0, 100), (80, 140))  # 20 of 60
    assert not retrieval._hit((0, 100), (100, 150))  # adjacent


def test_the_benchmark_ranks_as_the_shipped_ranking_does_and_its_baselines_differ() -> None:
    cases = retrieval.check_covid_cases(30)
    found = retrieval.retrieval(cases)
    assert found["claims"] == 30
    assert found["reimplementation_agrees"] == 30
    assert found["fused (shipped)"] == found["shipped"]
    for name in [*retrieval.BASELINES, *retrieval.VARIANTS]:
        row = found[name]
        assert 0.0 <= row["recall_at_1"] <= row["recall_at_3"] <= 1.0, name
    lead = [rank(c.claim, build_windows(c.text), Ranking(lead=True)) for c in cases]
    assert lead != [retrieval.shipped(c) for c in cases]
    assert all(p[0][0] == 0 for p in lead)  # the first window of the text comes first


def test_windows_of_one_sentence_and_bm25_of_the_best_sentence() -> None:
    text = "Masks cut flu among nurses. The trial ran in Canada. Nothing else was measured."
    case = Case(
        "t", "Nurses who wore masks got flu less often", text, Basis.ABSTRACT, ((0, 27),), True, "SUPPORT"
    )
    one = build_windows(text, 1)
    assert [text[a:b] for a, b in one.spans] == [
        "Masks cut flu among nurses.",
        "The trial ran in Canada.",
        "Nothing else was measured.",
    ]
    assert rank(case.claim, one, Ranking(size=1), k=1) == [(0, 27)]
    three = build_windows(text)
    assert len(three.spans) == 6
    assert rank(case.claim, three, Ranking(bm25_on_sentences=True), k=3)[0][0] == 0
    assert retrieval.shipped(case, 1)[0][0] == 0


@pytest.mark.timeout(300)
def test_a_whole_run_on_a_tiny_slice() -> None:
    """Measured in a fresh interpreter under hash seed 0, passages under three seeds, the section
    written from it."""
    result = retrieval.run(limit=6, speed_bytes=4_000, speed_claims=4, use_encoder=False)
    covid = result["check_covid"]
    assert covid["retrieval_all"]["claims"] == 6
    assert covid["retrieval_all"]["reimplementation_agrees"] == 6
    assert set(covid["judges"]) >= {"learned", "rules", "learned_with_band", "learned_with_band_whole_text"}
    for spec in ("learned", "rules"):
        for reading in ("top_1", "retrieved", "top_5", "gold", "whole_text"):
            assert 0.0 <= covid["judges"][spec][reading] <= 1.0
    seeds = result["hash_seed"]
    assert seeds["seeds"] == [0, 1, 2]
    assert seeds["exact_sum"] == [0, 0]  # math.fsum: the same passages under every seed
    text = retrieval.markdown(result)
    assert "### Check-COVID" in text
    assert "| **fused (shipped)** |" in text
    if isinstance(result["wice"], dict):
        assert result["wice"]["retrieval"]["reimplementation_agrees"] == result["wice"]["retrieval"]["claims"]
        assert result["speed"]["claims"] == 4
        assert result["speed"]["text_chars"] == 4_000
        assert "### Speed on 4 KB texts" in text
    else:
        assert result["wice"].startswith("skipped: ")


@pytest.mark.timeout(300)
def test_the_sentence_encoder_ranks_the_same_windows_where_it_is_installed() -> None:
    if retrieval._encoder() is None:
        note = retrieval.encoder_retrieval([])
        assert isinstance(note, str)
        assert note.startswith("no sentence encoder here")
        pytest.skip("the sentence encoder is not installed here")
    found = retrieval.encoder_retrieval(retrieval.check_covid_cases(3))
    assert isinstance(found, dict)
    assert found["claims"] == 3
    for name in ("fused (shipped)", *retrieval.ENCODER_RANKINGS):
        assert 0.0 <= found[name]["recall_at_1"] <= found[name]["recall_at_3"] <= 1.0
