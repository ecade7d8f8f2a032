"""The pooled learned judge reads passages found in a cited text with the model trained for them,
and names it; a quote is read with the pooled model; training on passages is reproducible."""

from __future__ import annotations

import json
from pathlib import Path

from citeaudit.cli import main
from citeaudit.semantic import Fragment, make_judge
from citeaudit.semantic.factory import default_model
from citeaudit.semantic.learned import load_model, shipped_model_path
from citeaudit.semantic.stage import as_retrieved

CLAIM = "The taxadb package builds a local database of taxonomic names."
TEXT = (
    "We present taxadb, an R package which creates a local database of taxonomic names. "
    "It makes operations on millions of names fast. The weather was fine."
)


def test_passages_are_read_with_the_retrieved_model_and_quotes_with_the_pooled_one() -> None:
    judge = make_judge("learned")
    pooled = load_model(shipped_model_path(default_model())).digest[:16]  # encoder.json with the extra
    retrieved = load_model(shipped_model_path("retrieved")).digest[:16]
    assert pooled != retrieved
    on_quote = judge.judge(CLAIM, [Fragment("c1", TEXT)])
    on_passages = judge.judge(CLAIM, as_retrieved(CLAIM, [Fragment("c1", TEXT)], 3))
    assert str(on_quote.judge) == f"learned/sha256:{pooled}/learned-8"
    assert str(on_passages.judge) == f"learned/sha256:{retrieved}/learned-8"
    assert str(
        make_judge("learned:wice").judge(CLAIM, as_retrieved(CLAIM, [Fragment("c1", TEXT)], 3)).judge
    ) != (f"learned/sha256:{retrieved}/learned-8")  # a model named by the spec is used whatever the evidence


def test_as_retrieved_gives_the_k_best_passages_marked_retrieved() -> None:
    fragments = as_retrieved(CLAIM, [Fragment("c1", TEXT, (2020,))], 2)
    assert [f.text for f in fragments] == [
        "We present taxadb, an R package which creates a local database of taxonomic names.",
        "It makes operations on millions of names fast.",
    ]
    assert all(f.retrieved and f.citation_id == "c1" and f.years == (2020,) for f in fragments)


def test_training_on_passages_is_recorded_and_gives_the_same_bytes(tmp_path: Path) -> None:
    pairs = tmp_path / "pairs.jsonl"
    rows = []
    for i in range(40):
        supported = i % 2 == 0
        claim = (
            f"Station {i} recorded {10 + i} species of fish in the bay."
            if supported
            else f"Station {i} closed."
        )
        text = f"Station {i} recorded {10 + i} species of fish in the bay. Other sites were empty. " * 2
        rows.append({"id": f"p{i}", "claim": claim, "fragments": [text],
                     "label": "supported" if supported else "insufficient"})  # fmt: skip
    pairs.write_text("\n".join(json.dumps(r) for r in rows) + "\n", "utf-8")
    outs = []
    for name in ("a.json", "b.json"):
        code = main(["judge", "train", str(pairs), "--dataset", "labelled", "--passages", "2",
                     "--out", str(tmp_path / name)])  # fmt: skip
        assert code == 0
        outs.append((tmp_path / name).read_bytes())
    assert outs[0] == outs[1]
    assert json.loads(outs[0])["training"]["data"][0]["passages"] == 2
    assert main(["judge", "train", str(pairs), "--dataset", "labelled", "--passages", "0",
                 "--out", str(tmp_path / "c.json")]) == 2  # fmt: skip
