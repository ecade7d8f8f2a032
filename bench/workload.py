"""Deterministic workloads for the benchmarks: snapshots, a cache in the
seed's format (which both citeaudit and the seed script read), and claims."""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Workload", "make_check_workload"]

_EN_SYLLABLES = [c + v for c in "bcdfglmnprstv" for v in "aeio"]
_RU_SYLLABLES = [c + v for c in "бвдзклмнрст" for v in "аеио"]
_COMMON_EN = ["the", "of", "and", "to", "in", "that", "is", "was", "for", "with", "as", "on", "by", "we"]
_COMMON_RU = ["и", "в", "не", "на", "что", "с", "по", "как", "это", "из", "за", "от"]


def _vocabulary(rng: random.Random, syllables: list[str], common: list[str]) -> list[str]:
    """A Zipf-like vocabulary: frequent short words, a long tail of rare long ones."""
    rare = ["".join(rng.choice(syllables) for _ in range(rng.randint(2, 5))) for _ in range(20_000)]
    return common * 400 + rare[:2_000] * 5 + rare


_PUNCT = [",", ",", ".", ";", ":", " —", ""]


@dataclass(frozen=True)
class Workload:
    root: Path
    claims: Path
    cache: Path
    sources: Path
    citations: int
    snapshots: int
    snapshot_bytes: int


def _sentence(rng: random.Random, words: list[str]) -> str:
    n = rng.randint(8, 22)
    parts = []
    for i in range(n):
        word = rng.choice(words)
        if rng.random() < 0.05:
            word = str(rng.randint(2, 9999))
        if rng.random() < 0.03:
            word = f"\u201c{word}\u201d"
        parts.append(word + (rng.choice(_PUNCT) if i < n - 1 and rng.random() < 0.1 else ""))
    text = " ".join(parts)
    return text[0].upper() + text[1:] + "."


def _snapshot(rng: random.Random, size: int, en: list[str], ru: list[str]) -> str:
    words = en if rng.random() < 0.7 else ru
    out: list[str] = []
    length = 0
    while length < size:
        paragraph = " ".join(_sentence(rng, words) for _ in range(rng.randint(3, 8)))
        out.append(paragraph)
        length += len(paragraph.encode("utf-8")) + 2
    return "\n\n".join(out)[: size // 2 * 2]


def _quote_at(rng: random.Random, text: str) -> str:
    start = rng.randrange(0, max(1, len(text) - 400))
    start = text.find(" ", start) + 1
    end = text.find(" ", start + rng.randint(60, 200))
    return text[start : end if end != -1 else start + 120].strip()


def _variant(rng: random.Random, quote: str) -> str:
    """What agents do to quotes that normalisation forgives."""
    choice = rng.randrange(3)
    if choice == 0:
        return quote.upper()
    if choice == 1:
        return re.sub(" ", "  ", quote, count=3).replace("\n", " ")
    return "\u00ab" + quote.replace("\u201c", '"').replace("\u201d", '"') + "\u00bb"


def make_check_workload(
    root: Path, citations: int, snapshots: int, snapshot_bytes: int, seed: int = 7
) -> Workload:
    """``citations`` DOI citations spread over ``snapshots`` texts of about ``snapshot_bytes``.

    Mix per citation: 70 % exact quotes, 15 % quotes that match only after
    normalisation, 10 % fabricated quotes, 5 % a wrong year.
    """
    rng = random.Random(seed)
    en = _vocabulary(rng, _EN_SYLLABLES, _COMMON_EN)
    ru = _vocabulary(rng, _RU_SYLLABLES, _COMMON_RU)
    cache, sources = root / "cache", root / "sources"
    cache.mkdir(parents=True, exist_ok=True)
    sources.mkdir(parents=True, exist_ok=True)
    texts: list[str] = []
    for i in range(snapshots):
        doi = f"10.5555/bench.{i}"
        slug = doi.replace("/", "_")
        text = _snapshot(rng, snapshot_bytes, en, ru)
        texts.append(text)
        (sources / f"{slug}.txt").write_text(text, "utf-8")
        entry = {"status": "found", "title": f"Benchmark Work {i}", "year": 2000 + i % 25,
                 "authors": [f"Author{i}", "Second"]}  # fmt: skip
        (cache / f"{slug}.json").write_text(json.dumps(entry), "utf-8")
    claims = []
    for j in range(citations):
        i = j % snapshots
        quote = _quote_at(rng, texts[i])
        roll = rng.random()
        year = 2000 + i % 25
        if roll < 0.15:
            quote = _variant(rng, quote)
        elif roll < 0.25:
            quote = "the authors never wrote this sentence about " + quote[:60]
        elif roll < 0.30:
            year += 1
        numbers = re.findall(r"\d+", quote)[:2]
        text = "The source states it" + (" with " + " and ".join(numbers) if numbers else "") + "."
        citation = {"doi": f"https://doi.org/10.5555/BENCH.{i}", "title": f"Benchmark Work {i}", "year": year,
                    "first_author": f"Author{i}", "quote": quote}  # fmt: skip
        claims.append({"id": f"c{j:06d}", "text": text, "citations": [citation]})
    path = root / "claims.json"
    path.write_text(json.dumps({"claims": claims}, ensure_ascii=False), "utf-8")
    return Workload(root, path, cache, sources, citations, snapshots, snapshot_bytes)
