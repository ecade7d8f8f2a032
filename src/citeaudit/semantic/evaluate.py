"""Measure a judge against labelled pairs: confusion, balanced accuracy,
per-verdict precision and recall, coverage, throughput."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from citeaudit.semantic.datasets import Pair
from citeaudit.semantic.interface import VERDICTS, Judge

__all__ = ["binary_metrics", "calibration", "evaluate", "metrics"]

_GOLD = ("entailed", "contradicted", "insufficient")


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def metrics(gold: Sequence[str], predicted: Sequence[str]) -> dict[str, Any]:
    """The figures of one run; ``None`` where a ratio has no denominator.

    Balanced accuracy is the mean recall over the gold labels present, with
    ``unknown`` counted as a miss, so abstaining never raises it."""
    confusion: dict[str, dict[str, int]] = {g: dict.fromkeys(VERDICTS, 0) for g in _GOLD}
    for g, p in zip(gold, predicted, strict=True):
        confusion[g][p] += 1
    present = [g for g in _GOLD if sum(confusion[g].values())]
    judged = [v for v in VERDICTS if v != "unknown"]
    recall: dict[str, float | None] = {v: _ratio(confusion[v][v], sum(confusion[v].values())) for v in judged}
    precision: dict[str, float | None] = {
        v: _ratio(confusion[v][v], sum(confusion[g][v] for g in _GOLD)) for v in judged
    }
    recalls = [recall[g] or 0.0 for g in present]
    answered = sum(1 for p in predicted if p != "unknown")
    return {
        "confusion": confusion,
        "balanced_accuracy": round(sum(recalls) / len(recalls), 4) if recalls else None,
        "precision": precision,
        "recall": recall,
        "coverage": _ratio(answered, len(predicted)),
        "pairs": len(predicted),
    }


def binary_metrics(gold: Sequence[str], predicted: Sequence[str]) -> dict[str, Any]:
    """Supported (``entailed``) against everything else, as published checkers are scored:
    balanced accuracy over the two, with ``unknown`` a miss on either side."""
    pos = [p == "entailed" for g, p in zip(gold, predicted, strict=True) if g == "entailed"]
    neg = [
        p in ("insufficient", "contradicted") for g, p in zip(gold, predicted, strict=True) if g != "entailed"
    ]
    recalls = [sum(v) / len(v) for v in (pos, neg) if v]
    said_yes = [g == "entailed" for g, p in zip(gold, predicted, strict=True) if p == "entailed"]
    said_no = [
        g != "entailed" for g, p in zip(gold, predicted, strict=True) if p in ("insufficient", "contradicted")
    ]
    return {
        "balanced_accuracy": round(sum(recalls) / len(recalls), 4) if recalls else None,
        "precision": {
            "entailed": _ratio(sum(said_yes), len(said_yes)),
            "not_entailed": _ratio(sum(said_no), len(said_no)),
        },
        "supported_recall": _ratio(sum(pos), len(pos)),
        "unsupported_recall": _ratio(sum(neg), len(neg)),
    }


def calibration(
    gold: Sequence[str], probabilities: Sequence[float | None], bins: int = 10
) -> list[dict[str, Any]]:
    """Predicted probability of support in ``bins`` equal bins against the observed share of
    supported pairs in each; pairs without a probability are left out."""
    table: list[dict[str, Any]] = []
    cells: list[list[tuple[float, bool]]] = [[] for _ in range(bins)]
    for g, p in zip(gold, probabilities, strict=True):
        if p is not None:
            cells[min(bins - 1, int(p * bins))].append((p, g == "entailed"))
    for i, cell in enumerate(cells):
        table.append({
            "bin": f"{i / bins:.1f}-{(i + 1) / bins:.1f}",
            "pairs": len(cell),
            "mean_probability": round(sum(p for p, _ in cell) / len(cell), 4) if cell else None,
            "supported": _ratio(sum(1 for _, s in cell if s), len(cell)),
        })  # fmt: skip
    return table


def evaluate(judge: Judge, pairs: Sequence[Pair], batch: int = 64) -> dict[str, Any]:
    started = time.perf_counter()
    predicted: list[str] = []
    probabilities: list[float | None] = []
    for at in range(0, len(pairs), batch):
        chunk = pairs[at : at + batch]
        verdicts = judge.judge_many([(p.claim, p.fragments) for p in chunk])
        predicted += [v.label for v in verdicts]
        probabilities += [v.probability for v in verdicts]
    elapsed = time.perf_counter() - started
    gold = [p.gold for p in pairs]
    result = metrics(gold, predicted)
    result["supported_vs_not"] = binary_metrics(gold, predicted)
    if any(p is not None for p in probabilities):
        result["calibration"] = calibration(gold, probabilities)
    identity = judge.identity
    result["judge"] = {
        "backend": identity.backend,
        "model": identity.model,
        "prompt_version": identity.prompt_version,
    }
    result["pairs_per_second"] = round(len(pairs) / elapsed, 1) if elapsed > 0 else None
    return result
