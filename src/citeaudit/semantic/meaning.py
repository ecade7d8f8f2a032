"""Features that read meaning, for the ``learned`` judge with the ``encoder`` extra.

Each is a cosine of two texts as the sentence encoder of :mod:`citeaudit.semantic.encoder` reads them
(all-MiniLM-L6-v2): the claim against the evidence the lexical features chose (its best sentence,
its best window, the sentence holding each of its names), and the claim against the same claim with an
edit that makes it wrong. They are added after the lexical features of
:mod:`citeaudit.semantic.features`; a model trained with them names the feature set
``lexical-5+minilm-1`` and needs the extra to run.

Deterministic: each text is encoded alone (no padding, so a text's vector never depends on the texts
beside it), its numbers rounded to six decimals by the encoder, and each cosine to four; the vectors
of one run are kept by the text's SHA-256 so a text read twice is encoded once.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection, Sequence

from citeaudit.semantic import encoder
from citeaudit.semantic.features import PairFeatures
from citeaudit.semantic.signals import WORD_RE

__all__ = ["DIRECTIONS", "FEATURES", "FEATURE_SET", "Encodings", "negated", "values"]

FEATURE_SET = "minilm-1"

FEATURES: tuple[tuple[str, str], ...] = (
    ("meaning_sentence", "cosine of the claim and its best sentence, as the sentence encoder reads them"),
    ("meaning_window", "cosine of the claim and its best window of three sentences"),
    (
        "meaning_names",
        "the least, over the claim's names the fragments have, of the cosine of the claim and the sentence "
        "holding that name that shares the most words with it (meaning_sentence when it has none)",
    ),
    (
        "meaning_negation",
        "cosine of the claim and its best sentence less that of the claim with 'not' after its first "
        "auxiliary and the same sentence (0 when it has none): above 0 when the sentence reads nearer "
        "the claim than its negation",
    ),
)

#: +1: reads for support (its weight is never negative).
DIRECTIONS: dict[str, int] = {name: 1 for name, _ in FEATURES}

_DIGITS = 4
_MAX_KEPT = 20_000  # vectors kept in one run before the memory is cleared
_AUXILIARY = frozenset(
    "is are was were has have had can could will would shall should may might must does do did".split()  # noqa: SIM905
)
_NEGATED_AFTER = re.compile(r"\s*(?:not\b|n't\b|never\b)", re.IGNORECASE)


def negated(claim: str) -> str | None:
    """The claim with ``not`` after its first auxiliary (``is``, ``was``, ``has``, ``can``…), or None
    where it has none or is negated there already."""
    for m in WORD_RE.finditer(claim):
        if m.group().casefold() in _AUXILIARY:
            if _NEGATED_AFTER.match(claim, m.end()):
                return None
            return f"{claim[: m.end()]} not{claim[m.end() :]}"
    return None


def _key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


class Encodings:
    """The vectors of one run's texts, by the SHA-256 of each text (encoded once, alone)."""

    def __init__(self) -> None:
        self._vectors: dict[bytes, list[float]] = {}
        self.encoded = 0  # texts encoded (not found kept)

    def vectors(self, texts: Sequence[str]) -> list[list[float]]:
        """Each text's unit vector; the texts not seen before are encoded one at a time, in order."""
        keys = [_key(t) for t in texts]
        wanted = [(k, t) for k, t in dict(zip(keys, texts, strict=True)).items() if k not in self._vectors]
        if len(self._vectors) + len(wanted) > _MAX_KEPT:
            self._vectors.clear()
            wanted = list(dict(zip(keys, texts, strict=True)).items())
        for k, t in wanted:
            self._vectors[k] = encoder.encode([t])[0]
            self.encoded += 1
        return [self._vectors[k] for k in keys]


def _cos(a: Sequence[float], b: Sequence[float]) -> float:
    return round(encoder.cosine(a, b), _DIGITS) + 0.0  # no -0.0


def values(
    found: PairFeatures, encodings: Encodings, wanted: Collection[str] | None = None
) -> tuple[float, ...]:
    """The meaning features (:data:`FEATURES`, in order) of a pair the lexical features were computed
    for. A pair with no evidence sentence sharing a word with the claim gets 0 for each. ``wanted``:
    the features to compute (a model's features of weight 0 need no text encoded); the rest are 0."""
    want = {name for name, _ in FEATURES} if wanted is None else set(wanted)
    if not found.best_sentence or not want:
        return (0.0,) * len(FEATURES)
    sentence_wanted = bool(want & {"meaning_sentence", "meaning_names", "meaning_negation"})
    names = found.name_sentences() if "meaning_names" in want else ()
    edit = negated(found.claim) if "meaning_negation" in want else None
    texts = [
        found.claim,
        *([found.best_sentence] if sentence_wanted else []),
        *([found.best_window] if "meaning_window" in want else []),
        *names,
        *([edit] if edit else []),
    ]
    vectors = dict(zip(texts, encodings.vectors(texts), strict=True))
    claim = vectors[found.claim]
    to_sentence = _cos(claim, vectors[found.best_sentence]) if sentence_wanted else 0.0
    out = {
        "meaning_sentence": to_sentence,
        "meaning_window": _cos(claim, vectors[found.best_window]) if "meaning_window" in want else 0.0,
        "meaning_names": min((_cos(claim, vectors[t]) for t in names), default=to_sentence),
        "meaning_negation": round(to_sentence - _cos(vectors[edit], vectors[found.best_sentence]), _DIGITS)
        + 0.0
        if edit
        else 0.0,
    }
    return tuple(out[name] if name in want else 0.0 for name, _ in FEATURES)
