"""The sentence encoder of the ``encoder`` extra: shipped by a package, read offline, deterministic,
and the same vectors as the model's reference implementation (sentence-transformers)."""

from __future__ import annotations

import math

import pytest

from citeaudit.semantic.encoder import DIMENSIONS, available, cosine, encode

pytestmark = pytest.mark.skipif(not available(), reason="the encoder extra is not installed")

_TEXTS = [
    "The team won the final in 2010.",
    "The side was victorious in the last match of 2010.",
    "A dog sleeps on the sofa.",
    "",
]


@pytest.mark.timeout(300)
def test_unit_vectors_that_read_meaning_the_same_on_every_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # nothing may be fetched
    vectors = encode(_TEXTS)
    assert len(vectors) == len(_TEXTS)
    assert all(len(v) == DIMENSIONS for v in vectors)
    assert all(abs(math.sqrt(sum(x * x for x in v)) - 1.0) < 1e-4 for v in vectors)
    # A paraphrase with no content word in common is nearer than an unrelated sentence.
    assert cosine(vectors[0], vectors[1]) > cosine(vectors[0], vectors[2]) + 0.3
    assert encode(_TEXTS) == vectors  # the same texts, the same numbers
    assert encode(list(reversed(_TEXTS))) == list(reversed(vectors))  # whatever batch a text is in
    assert encode([]) == []


@pytest.mark.timeout(300)
def test_the_same_vectors_as_the_reference_implementation() -> None:
    sentence_transformers = pytest.importorskip("sentence_transformers")
    from citeaudit.semantic.encoder import _folder

    folder = _folder()
    assert folder is not None
    reference = sentence_transformers.SentenceTransformer(str(folder), device="cpu", local_files_only=True)
    expected = reference.encode(_TEXTS[:3], normalize_embeddings=True)
    for mine, theirs in zip(encode(_TEXTS[:3]), expected, strict=True):
        assert max(abs(a - float(b)) for a, b in zip(mine, theirs, strict=True)) < 1e-4
