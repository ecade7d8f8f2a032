"""Benchmark: the ``rules`` judge on three public labelled sets (WiCE dev,
CLIMATE-FEVER, AttributionBench dev), through ``citeaudit eval``'s own code:
how often it is right when it answers, how often it answers, and how fast."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from citeaudit.semantic import make_judge
from citeaudit.semantic.datasets import load_pairs
from citeaudit.semantic.evaluate import evaluate

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "semantic"
SETS = {
    "wice": DATA / "wice" / "entailment_retrieval_claim" / "dev.jsonl",
    "climate-fever": DATA / "climate_fever" / "climate-fever.jsonl",
    "attribution-bench": DATA / "attribution_bench" / "dev_all_subset_balanced.jsonl",
}


def run(quick: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, path in SETS.items():
        pairs = load_pairs(name, path)
        if quick:
            pairs = pairs[: max(1, len(pairs) // 10)]
        out[name] = evaluate(make_judge("rules"), pairs)
    return out


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f} %"


def markdown(r: dict[str, Any]) -> str:
    lines = [
        "`citeaudit eval --judge rules` on the full sets. The rules judge never says `entailed`; "
        "`unknown` counts as a miss in balanced accuracy, so its balanced accuracy is low by design. "
        "The figure that matters is its precision when it does answer (goal: ≥ 80 %), beside its coverage.",
        "",
        "| set | pairs | says insufficient: right | says contradicted: right | coverage | balanced accuracy "
        "| pairs/s |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, res in r.items():
        p = res["precision"]
        lines.append(
            f"| {name} | {res['pairs']:,} | {_pct(p['insufficient'])} | {_pct(p['contradicted'])} "
            f"| {_pct(res['coverage'])} | {_pct(res['balanced_accuracy'])} | {res['pairs_per_second']:,.0f} |"
        )
    lines += [
        "",
        "Published anchors, for the reader (other data, other task framing; not comparable one to one): "
        "MiniCheck-Flan-T5-L reaches 75.0 % balanced accuracy on LLM-AggreFact; fine-tuned models reach "
        "about 80 % macro-F1 on AttributionBench.",
        "",
        "The coverage floor (0.3) was chosen on these same sets (0.2, 0.25, 0.3, 0.5 tried), so these are "
        "not held-out figures. CLIMATE-FEVER pairs a claim with one retrieved sentence, where supporting "
        "evidence often shares few words with the claim: the lexical rules miss the 80 % goal there.",
    ]
    return "\n".join(lines)
