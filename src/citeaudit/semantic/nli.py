"""The ``nli`` judge: any sequence-classification NLI or fact-checking model
(transformers, CPU or GPU), from a local directory or a hub id.

The claim is the hypothesis and the cited fragments the premise. Evidence
longer than the model's window is packed, sentence by sentence and in the
order cited, into chunks that fit beside the claim; each chunk is classified
and the results combined: ``entailed`` if any chunk entails the claim (the
support need only be somewhere in what was cited), else ``contradicted`` if
any chunk contradicts it, else ``insufficient``. All chunks of all claims
go through the model in batches.

The model's own label names decide what each output means (``entailment``,
``neutral``, ``contradiction``, ``SUPPORTS``, ``not_entailment``…). A head
whose names say nothing (``LABEL_0``) needs the mapping spelled out in the
spec: ``nli:MODEL#insufficient,entailed`` maps output 0 and 1 in that order.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citeaudit.errors import ConfigError
from citeaudit.model import VERDICTS, JudgeIdentity, Verdict, VerdictLabel
from citeaudit.semantic.base import BaseJudge
from citeaudit.semantic.interface import Fragment
from citeaudit.semantic.signals import sentences

__all__ = ["NliJudge", "combine", "label_mapping"]

PROMPT_VERSION = "nli-1"

_NAMES: dict[str, VerdictLabel] = {
    "entailment": "entailed",
    "entailed": "entailed",
    "entails": "entailed",
    "entail": "entailed",
    "supports": "entailed",
    "supported": "entailed",
    "support": "entailed",
    "attributable": "entailed",
    "contradiction": "contradicted",
    "contradicted": "contradicted",
    "contradicts": "contradicted",
    "contradict": "contradicted",
    "refutes": "contradicted",
    "refuted": "contradicted",
    "neutral": "insufficient",
    "not_entailment": "insufficient",
    "not_entailed": "insufficient",
    "non_entailment": "insufficient",
    "not_enough_info": "insufficient",
    "nei": "insufficient",
    "insufficient": "insufficient",
    "not_attributable": "insufficient",
    "unsupported": "insufficient",
}


def _name_key(name: str) -> str:
    return re.sub(r"[\s-]+", "_", name.strip().lower())


def label_mapping(id2label: dict[int, str], override: Sequence[str] = ()) -> dict[int, VerdictLabel]:
    """What each output of the head means, by the model's label names or an explicit override."""
    if override:
        if len(override) != len(id2label):
            raise ConfigError(
                f"the label mapping names {len(override)} verdicts; the model has {len(id2label)} outputs"
            )
        bad = [v for v in override if v not in VERDICTS or v == "unknown"]
        if bad:
            raise ConfigError(f"label mapping: {bad[0]!r} is not entailed, contradicted or insufficient")
        return {i: override[i] for i in sorted(id2label)}  # type: ignore[misc]
    mapping: dict[int, VerdictLabel] = {}
    for index, name in sorted(id2label.items()):
        verdict = _NAMES.get(_name_key(name))
        if verdict is None:
            names = ", ".join(id2label[i] for i in sorted(id2label))
            raise ConfigError(
                f"the model's label {name!r} says nothing about entailment (labels: {names}); "
                f"give the mapping in the spec, e.g. nli:MODEL#insufficient,entailed"
            )
        mapping[index] = verdict
    if "entailed" not in mapping.values():
        raise ConfigError("the model has no entailment label, so it cannot say a claim is supported")
    return mapping


@dataclass(frozen=True, slots=True)
class Chunk:
    """One premise window for one claim, and the citations its text came from."""

    claim_index: int
    premise: str
    citation_ids: tuple[str, ...]


def combine(
    chunk_results: Sequence[tuple[VerdictLabel, float, tuple[str, ...]]],
) -> tuple[VerdictLabel, float, tuple[str, ...]]:
    """One verdict from the per-chunk ones: entailed anywhere wins, then contradicted,
    then insufficient; confidence and citations are the deciding chunk's."""
    decisive: tuple[VerdictLabel, ...] = ("entailed", "contradicted")
    for wanted in decisive:
        hits = [r for r in chunk_results if r[0] == wanted]
        if hits:
            best = max(hits, key=lambda r: r[1])
            return wanted, best[1], best[2]
    if not chunk_results:
        return "insufficient", 0.0, ()
    best = max(chunk_results, key=lambda r: r[1])
    return "insufficient", best[1], ()


def _model_digest(path: Path) -> str:
    """A short digest of a local model's files, so that new weights never reuse old cached verdicts."""
    digest = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        digest.update(file.relative_to(path).as_posix().encode("utf-8") + b"\0")
        with file.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()[:12]


DEFAULT_BATCH_SIZE = 16


class NliJudge(BaseJudge):
    """A transformers sequence-classification model as a judge."""

    def __init__(
        self,
        model: str,
        *,
        labels: Sequence[str] = (),
        batch_size: int | None = None,
        max_length: int | None = None,
        device: str | None = None,
        local_only: bool = False,
    ) -> None:
        try:
            import torch
            from transformers import AutoModelForSequenceClassification, AutoTokenizer
            from transformers.utils import logging as hf_logging
        except ImportError as exc:  # the extra is not installed
            raise ConfigError("the nli judge needs the extra: pip install 'citeaudit[nli]'") from exc
        hf_logging.disable_progress_bar()  # stderr belongs to citeaudit's own progress and errors
        hf_logging.set_verbosity_error()  # sentences are measured before packing; long ones warn
        try:
            # local_only: a hub id must already be in the local cache; nothing is downloaded.
            self._tokenizer = AutoTokenizer.from_pretrained(model, local_files_only=local_only)
            self._model = AutoModelForSequenceClassification.from_pretrained(
                model, local_files_only=local_only
            )
        except (OSError, ValueError) as exc:  # the library's first line says what is missing; one line
            reason = next((line for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
            if local_only and not Path(model).exists():  # the library's words speak of connecting
                reason = (
                    "no such directory, and not in the local model cache (offline: nothing is downloaded)"
                )
            raise ConfigError(f"cannot load NLI model {model!r}: {reason.strip()}") from exc
        self._torch = torch
        self._device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        try:
            self._model.to(self._device).eval()
        except (RuntimeError, AssertionError) as exc:  # an unknown or absent device
            raise ConfigError(f"cannot run NLI model {model!r} on device {self._device!r}: {exc}") from exc
        config = self._model.config
        self._labels = label_mapping({int(k): str(v) for k, v in config.id2label.items()}, labels)
        self._batch_size = max(1, batch_size or DEFAULT_BATCH_SIZE)
        self._max_length = max_length or self._window(config)
        local = Path(model)
        revision = _model_digest(local) if local.is_dir() else str(getattr(config, "_commit_hash", "") or "")
        name = local.name if local.is_dir() else model
        super().__init__(JudgeIdentity("nli", f"{name}@{revision}" if revision else name, PROMPT_VERSION))

    def _window(self, config: Any) -> int:
        limit = int(self._tokenizer.model_max_length)
        positions = int(getattr(config, "max_position_embeddings", 512))
        return min(limit, positions) if limit < 1_000_000 else positions

    def chunks(self, claim_index: int, claim: str, fragments: Sequence[Fragment]) -> list[Chunk]:
        """The premise windows for one claim: whole sentences, in citation order,
        packed up to what fits beside the claim (a lone over-long sentence is
        truncated by the tokenizer)."""
        pieces = [(f.citation_id, text) for f in fragments for text in sentences(f.text) or [f.text]]
        encoded = self._tokenizer([claim] + [text for _, text in pieces], add_special_tokens=False)
        claim_size, *sizes = (len(ids) for ids in encoded["input_ids"])
        specials = self._tokenizer.num_special_tokens_to_add(pair=True)
        room = max(16, self._max_length - specials - claim_size)
        out: list[Chunk] = []
        parts: list[str] = []
        ids: list[str] = []
        used = 0
        for (citation_id, text), size in zip(pieces, sizes, strict=True):
            if parts and used + size > room:
                out.append(Chunk(claim_index, " ".join(parts), tuple(dict.fromkeys(ids))))
                parts, ids, used = [], [], 0
            parts.append(text)
            ids.append(citation_id)
            used += size
        if parts:
            out.append(Chunk(claim_index, " ".join(parts), tuple(dict.fromkeys(ids))))
        return out

    def _batches(self, chunks: Sequence[Chunk], claims: Sequence[str]) -> Iterator[list[tuple[int, float]]]:
        torch = self._torch
        for at in range(0, len(chunks), self._batch_size):
            batch = chunks[at : at + self._batch_size]
            encoded = self._tokenizer(
                [c.premise for c in batch],
                [claims[c.claim_index] for c in batch],
                padding=True,
                truncation="only_first",
                max_length=self._max_length,
                return_tensors="pt",
            ).to(self._device)
            with torch.inference_mode():
                probabilities = torch.softmax(self._model(**encoded).logits.float(), dim=-1)
            best = probabilities.max(dim=-1)
            yield list(zip(best.indices.tolist(), best.values.tolist(), strict=True))

    def judge_many(self, items: Sequence[tuple[str, Sequence[Fragment]]]) -> list[Verdict]:
        claims = [claim for claim, _ in items]
        chunks = [chunk for i, (claim, frags) in enumerate(items) for chunk in self.chunks(i, claim, frags)]
        # Batches of similar lengths pad less; results go back to citation order before combining.
        order = sorted(range(len(chunks)), key=lambda i: len(chunks[i].premise))
        outputs = [output for batch in self._batches([chunks[i] for i in order], claims) for output in batch]
        by_chunk: list[tuple[int, float]] = [(0, 0.0)] * len(chunks)
        for position, output in zip(order, outputs, strict=True):
            by_chunk[position] = output
        per_claim: list[list[tuple[VerdictLabel, float, tuple[str, ...]]]] = [[] for _ in items]
        for chunk, (index, probability) in zip(chunks, by_chunk, strict=True):
            per_claim[chunk.claim_index].append((self._labels[index], probability, chunk.citation_ids))
        verdicts = []
        for results in per_claim:
            label, confidence, relied_on = combine(results)
            verdicts.append(Verdict(label, self._identity, relied_on, (), round(confidence, 4)))
        return verdicts
