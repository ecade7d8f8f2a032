"""The short-claims benchmark (``bench/short_claims.py``) on AttributionBench dev, so that it cannot
rot: it finds the claims of one to three words, judges each bare and with its question, and renders."""

from __future__ import annotations

from bench import short_claims

from tests.conftest import shared_data


def test_the_short_claims_of_attribution_bench_dev_are_judged_both_ways() -> None:
    path = shared_data("semantic", "attribution_bench", "dev_all_subset_balanced.jsonl")
    result = short_claims.run(path=path)
    assert (result["pairs"], result["short_claims"], result["with_a_question"]) == (1198, 3, 3)
    assert sorted(c["claim"] for c in result["cases"]) == [
        "References[20]:",
        "References[9]:",
        "• Identifying possible causes",
    ]
    for case in result["cases"]:
        assert {case["bare"]["label"], case["with_question"]["label"]} <= {
            "entailed",
            "insufficient",
            "unknown",
        }
    for name in ("bare", "with_question"):
        counts = result["summary"][name]
        assert counts["right"] + counts["wrong"] + counts["abstained"] == 3
        assert 0 <= counts["right_band_off"] <= 3
    text = short_claims.markdown(result)
    assert "**3**" in text
    assert "References[9]:" in text
