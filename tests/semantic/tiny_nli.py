"""A tiny NLI model built and saved by the tests themselves: random BERT
weights, a WordPiece tokenizer from a vocabulary written here, nothing
downloaded. It is loaded back through the same path a real model takes."""

from __future__ import annotations

from pathlib import Path

WORDS = [
    "the",
    "a",
    "of",
    "and",
    "in",
    "to",
    "is",
    "was",
    "were",
    "by",
    "from",
    "with",
    "for",
    "on",
    "at",
    "not",
    "no",
    "may",
    "can",
    "will",
    "does",
    "all",
    "only",
    "trial",
    "patients",
    "drug",
    "reduced",
    "risk",
    "percent",
    "year",
    "study",
    "found",
    "increase",
    "decrease",
    "temperature",
    "sea",
    "level",
    "rose",
    "fell",
    "city",
    "population",
    "million",
    "people",
    "water",
    "rain",
    "model",
    "results",
    "show",
    "data",
    "report",
    "evidence",
    "claim",
    "policy",
    "energy",
    "growth",
    "10",
    "20",
    "30",
    "40",
    "50",
    "2020",
    "2021",
    ".",
    ",",
    ";",
    "%",
]


def build_tiny_nli(
    directory: Path,
    labels: dict[int, str],
    *,
    max_positions: int = 64,
    force: int | None = None,
    seed: int = 0,
) -> Path:
    """Save a 2-layer BERT classifier with ``labels`` as its head's names.

    ``force`` makes the head always answer that output (zero weights, one
    large bias), so the label mapping can be checked end to end."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()

    directory.mkdir(parents=True, exist_ok=True)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS, *"abcdefghijklmnopqrstuvwxyz0123456789"]
    vocab += [f"##{c}" for c in "abcdefghijklmnopqrstuvwxyz0123456789"]
    vocab_file = directory / "vocab.txt"
    vocab_file.write_text("\n".join(dict.fromkeys(vocab)) + "\n", encoding="utf-8")
    tokenizer = BertTokenizerFast(
        vocab_file=str(vocab_file), do_lower_case=True, model_max_length=max_positions
    )
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=48,
        max_position_embeddings=max_positions,
        num_labels=len(labels),
        id2label=labels,
        label2id={v: k for k, v in labels.items()},
    )
    model = BertForSequenceClassification(config)
    if force is not None:
        with torch.no_grad():
            model.classifier.weight.zero_()
            model.classifier.bias.zero_()
            model.classifier.bias[force] = 10.0
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory
