"""Benchmark: judge throughput in pairs per second on real claim/evidence
pairs (WiCE dev): the ``rules`` judge, the ``learned`` judge (the model the package ships; its
features include the rules' and read names, numbers and antonyms besides, so it takes longer: the
ratio of the two times is recorded, with no goal set for it; with the sentence encoder's
features too where the ``encoder`` extra is installed, a fresh judge each run so no text is
remembered from the run before), and the ``nli`` judge on a tiny model
built here, one pair per forward pass against batches. The tiny model's
absolute speed says nothing about a real one; the batched/unbatched ratio is
the figure that carries over, and it is measured in the same run."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tests.semantic.tiny_nli import build_tiny_nli

from citeaudit.semantic import encoder, make_judge
from citeaudit.semantic.datasets import load_pairs
from citeaudit.semantic.interface import Fragment, Judge
from citeaudit.semantic.learned import SHIPPED_MODELS, shipped_model_path

WICE = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "semantic" / "wice"
PAIRS = WICE / "entailment_retrieval_claim" / "dev.jsonl"
LABELS = {0: "entailment", 1: "neutral", 2: "contradiction"}


def _rate(
    judge: Judge | Callable[[], Judge], items: Sequence[tuple[str, Sequence[Fragment]]], repeats: int = 3
) -> float:
    """Median pairs per second over ``repeats`` runs (a judge made anew for each where it is given as
    a function)."""
    rates = []
    for _ in range(repeats):
        one = judge() if callable(judge) else judge
        started = time.perf_counter()
        one.judge_many(items)
        rates.append(len(items) / (time.perf_counter() - started))
    return sorted(rates)[len(rates) // 2]


def run(quick: bool = False) -> dict[str, Any]:
    pairs = load_pairs("wice", PAIRS)[: 32 if quick else 256]
    items = [(p.claim, p.fragments) for p in pairs]
    out: dict[str, Any] = {"pairs": len(items), "rules": round(_rate(make_judge("rules"), items), 1)}
    out["learned"] = round(_rate(make_judge("learned:lexical"), items), 1)
    out["learned_time_vs_rules"] = round(out["rules"] / out["learned"], 2)
    out["model_bytes"] = {name: shipped_model_path(name).stat().st_size for name in sorted(SHIPPED_MODELS)}
    if encoder.available():
        # PyTorch's first passes at each text length are slow: one untimed pass over the same pairs,
        # then each judge made anew (its texts encoded again) is timed as a long audit runs
        make_judge("learned:encoder").judge_many(items[:64])
        out["learned_encoder"] = round(_rate(lambda: make_judge("learned:encoder"), items[:64], 1), 2)
        out["learned_encoder_pairs"] = len(items[:64])
        # a per-domain model with the encoder's feature: the same two texts encoded a claim
        out["learned_wice_encoder"] = round(
            _rate(lambda: make_judge("learned:wice-encoder"), items[:64], 1), 2
        )
    try:
        from citeaudit.semantic.nli import NliJudge
    except ImportError:
        return out | {"nli": "not installed (pip install 'citeaudit[nli]')"}
    with tempfile.TemporaryDirectory() as tmp:
        model = str(build_tiny_nli(Path(tmp) / "tiny", LABELS, max_positions=128))
        nli = {
            f"batch_{n}": round(_rate(NliJudge(model, batch_size=n, device="cpu"), items), 1)
            for n in (1, 16, 64)
        }
        chunks = sum(len(NliJudge(model).chunks(i, c, f)) for i, (c, f) in enumerate(items))
    out["nli"] = nli | {"chunks": chunks, "ratio_16_vs_1": round(nli["batch_16"] / nli["batch_1"], 2)}
    return out


def markdown(r: dict[str, Any]) -> str:
    lines = [
        f"{r['pairs']} WiCE dev pairs (claim + the cited sentences), median of three runs, on the CPU.",
        "",
        "| judge | pairs/s |",
        "|---|---:|",
        f"| rules | {r['rules']:,.0f} |",
        f"| learned (shipped model; {r['learned_time_vs_rules']:.2f}× the rules judge's time) | {r['learned']:,.0f} |",
    ]
    if "learned_encoder" in r:
        lines.append(
            f"| learned with the sentence encoder ({r['learned_encoder_pairs']} pairs, one run, one thread) "
            f"| {r['learned_encoder']:,.2f} |"
        )
    if "learned_wice_encoder" in r:
        lines.append(
            f"| learned:wice-encoder, the per-domain model with the encoder (the same pairs, one run) "
            f"| {r['learned_wice_encoder']:,.2f} |"
        )
    sizes = ", ".join(f"{name}.json {size:,} bytes" for name, size in r.get("model_bytes", {}).items())
    after = ["", f"Learned-judge model files: {sizes}."] if sizes else []
    nli = r["nli"]
    if isinstance(nli, str):
        return "\n".join([*lines, "", f"nli: {nli}", *after])
    for key in ("batch_1", "batch_16", "batch_64"):
        lines.append(
            f"| nli, tiny model (2 layers, width 32, window 128), {key.replace('_', ' ')} | {nli[key]:,.0f} |"
        )
    lines += [
        "",
        f"The {r['pairs']} pairs make {nli['chunks']} premise chunks at a 128-token window. Batching 16 chunks "
        f"per forward pass is **{nli['ratio_16_vs_1']}×** the speed of one at a time. The tiny model's absolute "
        "speed says nothing about a real one (a large model spends more of its time in the matrix products "
        "that batching fills); the ratio is the figure measured here.",
        *after,
    ]
    return "\n".join(lines)
