"""Build ``bench/data/check_covid/`` (``pairs.jsonl``, ``abstracts.jsonl``) from a checkout of the Check-COVID repository.

``python -m bench.check_covid_data UPSTREAM_DIR`` (the repository's root, at the commit named in
``bench/data/check_covid/SOURCE.md``). Kept: the *extracted* claims (sentences of news articles,
written by journalists) of the train, dev and test files, each with the abstract of the paper it
cites (``corpus.json``, one sentence per list item). Upstream pairs a claim with one sentence of the
abstract at a time; a ``NOTENOUGHINFO`` row is the claim against a sentence that does not bear on it,
so at the level of the whole abstract only ``SUPPORT`` and ``REFUTE`` are labels: one row per claim
and abstract, with the label and evidence sentences of its ``SUPPORT`` or ``REFUTE`` row.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data" / "check_covid"
SPLITS = ("train", "dev", "test")


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def build(upstream: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The pairs (claim, label, the cited abstract's id, its evidence sentences) and the abstracts
    they cite (id, title, sentences)."""
    root = upstream / "Check-COVID"
    corpus = {row["cord_id"]: row for row in _rows(root / "corpus.json")}
    pairs: dict[tuple[str, str], dict[str, Any]] = {}
    for split in SPLITS:
        for row in _rows(root / split / f"covidCheck_{split}_extracted.json"):
            if row["label"] == "NOTENOUGHINFO":
                continue
            claim = " ".join(row["claim"].split())
            key = (claim, row["cord_id"])
            doc = corpus[row["cord_id"]]
            sentences = [str(s) for s in doc["abstract"]]
            primary = sorted({e["sent_index"] for e in row["evidence_set"] if e["type"] == "PRIMARY"})
            every = sorted({e["sent_index"] for e in row["evidence_set"]})
            if key in pairs or not all(0 <= i < len(sentences) for i in every):
                continue
            pairs[key] = {
                "id": row["id"],
                "split": split,
                "claim": claim,
                "label": row["label"],
                "cord_id": row["cord_id"],
                "evidence": primary or every,
                "supplementary": [i for i in every if i not in primary],
            }
    cited = sorted({p["cord_id"] for p in pairs.values()})
    abstracts = [
        {"cord_id": c, "title": corpus[c]["title"], "abstract": [str(s) for s in corpus[c]["abstract"]]}
        for c in cited
    ]
    return sorted(pairs.values(), key=lambda p: p["id"]), abstracts


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m bench.check_covid_data UPSTREAM_DIR", file=sys.stderr)
        return 2
    pairs, abstracts = build(Path(argv[0]))
    DATA.mkdir(parents=True, exist_ok=True)
    for name, rows in (("pairs.jsonl", pairs), ("abstracts.jsonl", abstracts)):
        with (DATA / name).open("w", encoding="utf-8", newline="\n") as f:
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
    print(f"{len(pairs)} pairs citing {len(abstracts)} abstracts written to {DATA}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
