"""Measure a judge against labelled pairs: confusion, balanced accuracy,
per-verdict precision and recall, coverage, throughput."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from citeaudit.semantic.datasets import Pair
from citeaudit.semantic.interface import VERDICTS, Judge

__all__ = ["evaluate", "metrics"]

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


def evaluate(judge: Judge, pairs: Sequence[Pair], batch: int = 64) -> dict[str, Any]:
    started = time.perf_counter()
    predicted: list[str] = []
    for at in range(0, len(pairs), batch):
        chunk = pairs[at : at + batch]
        predicted += [v.label for v in judge.judge_many([(p.claim, p.fragments) for p in chunk])]
    elapsed = time.perf_counter() - started
    result = metrics([p.gold for p in pairs], predicted)
    identity = judge.identity
    result["judge"] = {
        "backend": identity.backend,
        "model": identity.model,
        "prompt_version": identity.prompt_version,
    }
    result["pairs_per_second"] = round(len(pairs) / elapsed, 1) if elapsed > 0 else None
    return result
