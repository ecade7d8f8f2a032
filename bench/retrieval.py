"""Benchmark: the passages a quote-less claim is judged on (``semantic/passages.py``).

Two sets of real claims with the whole text they cite and gold evidence sentences:

- **WiCE dev** (``../shared/data/semantic/wice``; the test split is held out): a Wikipedia
  sentence and the web page it cites, as a list of sentences. The page is pinned as its sentences
  joined by ``"\\n"``: each sentence a line, as citeaudit pins a page whose sentences are its
  paragraphs (the served form of ``tests/test_web_wice_real.py``); a second run joins them by
  ``" "`` (one paragraph, cut into sentences by citeaudit's own splitter), the form in which windows of
  two and three sentences exist. Gold: the union of ``supporting_sentences``.
- **Check-COVID** (``bench/data/check_covid``, see its SOURCE.md): a journalist's sentence about a
  paper and that paper's abstract, pinned as its sentences joined by ``" "`` (one paragraph, as an
  abstract in a registry record reads). Gold: the evidence sentences the annotators marked.

Per set: retrieval recall@1 and @3 (a returned passage holds a gold sentence: the two overlap by at
least half of the shorter of them) of the shipped ranking (``rank_passages``: FTS5 BM25 fused with
coverage by reciprocal rank) against BM25 alone, coverage alone and the first windows of the text, all
in the same run on the same windows; variants of the window size, the fusion weights and BM25 on
sentences; and the judges' balanced accuracy (supported against not, no abstention: the ``learned``
judge with its band off, its label on the likelier side; the ``rules`` judge, which never says
``entailed``, as supported where it rejects nothing) on the top 1, 3 and 5 passages against the gold
sentences and the whole text, and the share of claims the shipped judge gives a verdict. Then the
speed of ranking against 100 KB texts, the first call per text (the index built) and warm, against
a coverage-only ranking of the same windows.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import sqlite3
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citeaudit.model import Citation, ReferenceSource
from citeaudit.semantic import make_judge
from citeaudit.semantic.interface import Fragment, Judge
from citeaudit.semantic.learned import LearnedJudge
from citeaudit.semantic.passages import (
    _FUSION_K,  # the shipped constants: the variants below change one thing at a time
    MAX_WINDOW_SENTENCES,
    _query,
    _sentences,
    rank_passages,
)
from citeaudit.semantic.signals import content_terms
from citeaudit.semantic.stage import Cited, evidence_of
from citeaudit.sources.cited import Basis, CitedText

HERE = Path(__file__).resolve().parent
WICE = (
    HERE.parent.parent / "shared" / "data" / "semantic" / "wice" / "entailment_retrieval_claim" / "dev.jsonl"
)
CHECK_COVID = HERE / "data" / "check_covid"
K = 3  # passages a claim is judged on (DEFAULT_PASSAGES)
SPEED_BYTES = 100_000
SPEED_CLAIMS = 100
SPEED_TEXTS = 5  # distinct 100 KB texts, each ranked against once cold


@dataclass(frozen=True)
class Case:
    """One claim and the text it cites, with the gold evidence as ranges of that text."""

    case_id: str
    claim: str
    text: str
    basis: Basis
    gold: tuple[tuple[int, int], ...]  # the gold evidence sentences
    supported: bool  # the gold label, supported against not
    label: str  # the set's own label


def _joined(sentences: Sequence[str], sep: str) -> tuple[str, list[tuple[int, int]]]:
    spans: list[tuple[int, int]] = []
    at = 0
    for s in sentences:
        spans.append((at, at + len(s)))
        at += len(s) + len(sep)
    return sep.join(sentences), spans


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def wice_cases(sep: str = "\n", limit: int | None = None) -> list[Case]:
    """WiCE dev: the cited page as its sentences joined by ``sep``; gold: every supporting sentence."""
    cases = []
    for row in _jsonl(WICE)[:limit]:
        text, spans = _joined([str(s) for s in row["evidence"]], sep)
        gold = sorted({i for group in row["supporting_sentences"] for i in group})
        cases.append(
            Case(row["meta"]["id"], row["claim"], text, Basis.PAGE, tuple(spans[i] for i in gold),
                 row["label"] == "supported", row["label"])
        )  # fmt: skip
    return cases


def check_covid_cases(limit: int | None = None) -> list[Case]:
    """Check-COVID's claims with the abstract they cite, its sentences joined by a space."""
    abstracts = {a["cord_id"]: a["abstract"] for a in _jsonl(CHECK_COVID / "abstracts.jsonl")}
    cases = []
    for row in _jsonl(CHECK_COVID / "pairs.jsonl")[:limit]:
        text, spans = _joined(abstracts[row["cord_id"]], " ")
        cases.append(
            Case(row["id"], row["claim"], text, Basis.ABSTRACT, tuple(spans[i] for i in row["evidence"]),
                 row["label"] == "SUPPORT", row["label"])
        )  # fmt: skip
    return cases


# --- the rankings compared -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Windows:
    """One text's windows of up to ``size`` sentences of a paragraph, as the shipped index has them."""

    spans: list[tuple[int, int]]
    sentences: list[list[tuple[int, int]]]  # the sentences of each window
    terms: list[frozenset[str]]
    idf: dict[str, float]
    db: sqlite3.Connection  # FTS5 over the windows
    sentence_db: sqlite3.Connection  # FTS5 over the sentences
    sentence_ids: dict[tuple[int, int], int]


def _fts(bodies: Sequence[str]) -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE w USING fts5(body, tokenize = 'porter unicode61 remove_diacritics 2')")
    db.executemany("INSERT INTO w(rowid, body) VALUES (?, ?)", enumerate(bodies))
    return db


def build_windows(text: str, size: int = MAX_WINDOW_SENTENCES) -> _Windows:
    spans, members = [], []
    for paragraph in _sentences(text):
        for i in range(len(paragraph)):
            for j in range(i, min(i + size, len(paragraph))):
                spans.append((paragraph[i][0], paragraph[j][1]))
                members.append(paragraph[i : j + 1])
    sentence_terms: dict[tuple[int, int], frozenset[str]] = {}
    for window in members:
        for s in window:
            if s not in sentence_terms:
                sentence_terms[s] = frozenset(content_terms(text[s[0] : s[1]]))
    df: dict[str, int] = {}
    for found in sentence_terms.values():
        for term in found:
            df[term] = df.get(term, 0) + 1
    n = max(1, len(sentence_terms))
    idf = {term: math.log(1 + n / count) for term, count in df.items()}
    terms = [frozenset().union(*(sentence_terms[s] for s in window)) for window in members]
    sentence_ids = {s: i for i, s in enumerate(sentence_terms)}
    return _Windows(
        spans, members, terms, idf, _fts([text[a:b] for a, b in spans]),
        _fts([text[a:b] for a, b in sentence_terms]), sentence_ids,
    )  # fmt: skip


def _bm25(db: sqlite3.Connection, query: str | None) -> dict[int, float]:
    if query is None:
        return {}
    try:
        return dict(db.execute("SELECT rowid, bm25(w) FROM w WHERE w MATCH ?", (query,)).fetchall())
    except sqlite3.OperationalError:
        return {}


@dataclass(frozen=True)
class Ranking:
    """How windows are scored: reciprocal-rank fusion ``wb/(k+bm25 rank) + wc/(k+coverage rank)``."""

    bm25_weight: float = 1.0
    cover_weight: float = 1.0
    fusion_k: int = _FUSION_K
    size: int = MAX_WINDOW_SENTENCES
    bm25_on_sentences: bool = False  # a window's BM25 is that of its best sentence
    lead: bool = False  # no ranking: the text's first windows
    # Coverage summed with math.fsum (exactly rounded, so independent of the order a set of terms is
    # walked in, which changes with the hash seed), as shipped; False: sum() in set order.
    exact_sum: bool = True
    encoder_weight: float = 0.0  # a third ranking fused: the sentence encoder's cosine (``similarity``)


def rank(
    claim: str, w: _Windows, how: Ranking, k: int = K, similarity: Sequence[float] = ()
) -> list[tuple[int, int]]:
    """The top ``k`` non-overlapping windows by ``how``, ties broken as the shipped ranking breaks them
    (``similarity``: the encoder's cosine of the claim and each window, where ``how`` fuses it)."""
    n = len(w.spans)
    if how.lead:
        order = sorted(range(n), key=lambda i: (w.spans[i][0], w.spans[i][1]))
    else:
        query = _query(claim)
        if how.bm25_on_sentences:
            by_sentence = _bm25(w.sentence_db, query)
            bm25: dict[int, float] = {}
            for i, window in enumerate(w.sentences):
                found = [by_sentence[w.sentence_ids[s]] for s in window if w.sentence_ids[s] in by_sentence]
                if found:
                    bm25[i] = min(found)  # bm25() is lower for a better match
        else:
            bm25 = _bm25(w.db, query)
        bm25_rank = {i: r for r, (i, _) in enumerate(sorted(bm25.items(), key=lambda x: (x[1], x[0])), 1)}
        claim_terms = frozenset(content_terms(claim))
        add: Callable[[Iterable[float]], float] = math.fsum if how.exact_sum else sum
        total = add(w.idf.get(t, 1.0) for t in claim_terms)
        cover = [
            add(w.idf.get(t, 1.0) for t in claim_terms & terms) / total if total else 0.0 for terms in w.terms
        ]
        by_cover = sorted(range(n), key=lambda i: (-cover[i], w.spans[i][1] - w.spans[i][0], i))
        cover_rank = {i: r for r, i in enumerate(by_cover, 1)}
        worst = n + 1
        by_meaning = sorted(range(len(similarity)), key=lambda i: (-similarity[i], i))
        meaning_rank = {i: r for r, i in enumerate(by_meaning, 1)}

        def fused(i: int) -> float:
            score = how.bm25_weight / (how.fusion_k + bm25_rank.get(i, worst)) + how.cover_weight / (
                how.fusion_k + cover_rank[i]
            )
            if how.encoder_weight:
                score += how.encoder_weight / (how.fusion_k + meaning_rank[i])
            return score

        scores = {i: fused(i) for i in range(n)}
        order = sorted(range(n), key=lambda i: (-scores[i], w.spans[i][0], w.spans[i][1] - w.spans[i][0], i))
    chosen: list[tuple[int, int]] = []
    for i in order:
        a, b = w.spans[i]
        if any(a < cb and ca < b for ca, cb in chosen):
            continue
        chosen.append((a, b))
        if len(chosen) == k:
            break
    return chosen


def shipped(case: Case, k: int = K) -> list[tuple[int, int]]:
    cited = CitedText(case.basis, case.case_id, case.text)
    return [(p.start, p.end) for p in rank_passages(case.claim, [("c", cited)], k)]


BASELINES = {
    "fused (shipped)": Ranking(),
    "BM25 alone": Ranking(cover_weight=0.0),
    "coverage alone": Ranking(bm25_weight=0.0),
    "first windows of the text": Ranking(lead=True),
}
VARIANTS = {
    "windows of 1 sentence": Ranking(size=1),
    "windows of up to 2": Ranking(size=2),
    "BM25 weight 2, coverage 1": Ranking(bm25_weight=2.0),
    "BM25 weight 1, coverage 2": Ranking(cover_weight=2.0),
    "fusion constant 10": Ranking(fusion_k=10),
    "BM25 of the best sentence": Ranking(bm25_on_sentences=True),
    "coverage summed by a plain sum()": Ranking(exact_sum=False),
}


def _hit(passage: tuple[int, int], gold: tuple[int, int]) -> bool:
    overlap = min(passage[1], gold[1]) - max(passage[0], gold[0])
    return overlap > 0 and 2 * overlap >= min(passage[1] - passage[0], gold[1] - gold[0])


def _recall(cases: Sequence[Case], found: Sequence[Sequence[tuple[int, int]]]) -> dict[str, Any]:
    at = {1: 0, 3: 0}
    covered: list[float] = []
    for case, passages in zip(cases, found, strict=True):
        for k in at:
            at[k] += any(_hit(p, g) for p in passages[:k] for g in case.gold)
        covered.append(sum(b - a for a, b in passages[:K]) / max(1, len(case.text)))
    n = len(cases)
    return {
        "recall_at_1": round(at[1] / n, 4) if n else None,
        "recall_at_3": round(at[3] / n, 4) if n else None,
        "text_share_at_3": round(statistics.mean(covered), 4) if covered else None,
    }


def retrieval(cases: Sequence[Case]) -> dict[str, Any]:
    """Recall of every ranking on the cases with gold evidence (and, for the shipped one, a check
    that this module's reimplementation of it returns the same passages)."""
    with_gold = [c for c in cases if c.gold]
    out: dict[str, Any] = {"claims": len(with_gold)}
    shipped_found = [shipped(c) for c in with_gold]
    out["shipped"] = _recall(with_gold, shipped_found)
    windows: dict[int, list[_Windows]] = {}
    for name, how in {**BASELINES, **VARIANTS}.items():
        if how.size not in windows:
            windows[how.size] = [build_windows(c.text, how.size) for c in with_gold]
        found = [rank(c.claim, w, how) for c, w in zip(with_gold, windows[how.size], strict=True)]
        out[name] = _recall(with_gold, found)
        if how == Ranking():
            out["reimplementation_agrees"] = sum(a == b for a, b in zip(found, shipped_found, strict=True))
    return out


# --- the judges on retrieved and gold passages ------------------------------------------------------


def _forced(spec: str) -> tuple[Judge, frozenset[str], str]:
    """The judge with no abstention, the labels counted as "supported", and how, in words."""
    judge = make_judge(spec)
    if isinstance(judge, LearnedJudge):
        return (
            judge.without_abstention(),
            frozenset({"entailed"}),
            "band off: `entailed` on the likelier side",
        )
    # The rules judge never says entailed (word overlap cannot show support): what it does not
    # reject — unknown — is its "supported".
    return judge, frozenset({"entailed", "unknown"}), "not rejected: `unknown` counts as supported"


def _balanced(gold: Sequence[bool], said: Sequence[bool]) -> float | None:
    pos = [s for g, s in zip(gold, said, strict=True) if g]
    neg = [not s for g, s in zip(gold, said, strict=True) if not g]
    recalls = [sum(v) / len(v) for v in (pos, neg) if v]
    return round(sum(recalls) / len(recalls), 4) if recalls else None


def _retrieved(c: Case, k: int) -> list[Fragment]:
    """The fragments the audit gives the judge for ``c`` with ``k`` passages (``evidence_of``)."""
    cited = Cited("c", Citation("c", ReferenceSource()), CitedText(c.basis, c.case_id, c.text))
    evidence = evidence_of(c.claim, [cited], k)
    assert evidence is not None
    return list(evidence.fragments)


def _band(cases: Sequence[Case], fragments: Sequence[Sequence[Fragment]]) -> dict[str, Any]:
    verdicts = make_judge("learned").judge_many([(c.claim, f) for c, f in zip(cases, fragments, strict=True)])
    given = [v.label != "unknown" for v in verdicts]
    entailed = [c.supported for c, v in zip(cases, verdicts, strict=True) if v.label == "entailed"]
    return {
        "verdict_share": round(sum(given) / len(given), 4) if given else None,
        "entailed": len(entailed),
        "precision_entailed": round(sum(entailed) / len(entailed), 4) if entailed else None,
    }


def judged(cases: Sequence[Case], specs: Sequence[str] = ("learned", "rules")) -> dict[str, Any]:
    """Balanced accuracy of each judge on five readings of every case: the top 1, 3 (the default) and 5
    passages as the audit builds them (``evidence_of``), the gold sentences (a case with none — WiCE's
    not_supported — keeps its top 3 passages), and the whole text as one fragment; each marked, as
    the audit marks a passage, as read from the cited text rather than quoted (``retrieved``)."""
    top = {k: [_retrieved(c, k) for c in cases] for k in (1, K, 5)}
    gold = [
        [Fragment("c", c.text[a:b], retrieved=True) for a, b in c.gold] if c.gold else r
        for c, r in zip(cases, top[K], strict=True)
    ]
    whole = [[Fragment("c", c.text, retrieved=True)] for c in cases]
    readings = {"top_1": top[1], "retrieved": top[K], "top_5": top[5], "gold": gold, "whole_text": whole}
    labels = [c.supported for c in cases]
    out: dict[str, Any] = {"claims": len(cases), "supported": sum(labels)}
    for spec in specs:
        judge, supported, how = _forced(spec)
        row: dict[str, Any] = {"decision": how}
        for name, fragments in readings.items():
            verdicts = judge.judge_many([(c.claim, f) for c, f in zip(cases, fragments, strict=True)])
            row[name] = _balanced(labels, [v.label in supported for v in verdicts])
        out[spec] = row
    # The shipped judge as the audit runs it (its band on): the share of claims given a verdict, and
    # the precision of "entailed", on the top 3 passages, and beside them on the gold and whole text.
    out["learned_with_band"] = _band(cases, top[K])
    out["learned_with_band_gold"] = _band(cases, gold)
    out["learned_with_band_whole_text"] = _band(cases, whole)
    return out


# --- speed ------------------------------------------------------------------------------------------


def speed_texts(pages: Sequence[str], size: int, count: int) -> list[str]:
    """``count`` distinct texts of about ``size`` characters: the pages concatenated (a blank line
    between two), each text starting at a different page."""
    texts = []
    for start in range(count):
        parts: list[str] = []
        length = 0
        for page in [*pages[start:], *pages[:start]]:
            parts.append(page)
            length += len(page) + 2
            if length >= size:
                break
        texts.append("\n\n".join(parts)[:size])
    return texts


def _cpu(fn: Callable[[], object]) -> float:
    started = time.process_time()
    fn()
    return time.process_time() - started


def speed(texts: Sequence[str], claims: Sequence[str]) -> dict[str, Any]:
    """CPU seconds of ranking ``claims`` against 100 KB texts: the first call per text (its index
    built), then warm (best of three rounds of every claim), against a coverage-only ranking of the
    same windows built and used the same way (no FTS5 index)."""
    cover_only = Ranking(bm25_weight=0.0)

    def cover_cold(text: str) -> None:
        w = build_windows(text)
        rank(claims[0], w, cover_only)

    def fused_cold(text: str) -> None:
        rank_passages(claims[0], [("c", CitedText(Basis.PAGE, "speed", text))], K)

    cold = {
        "fused (shipped)": statistics.median(_cpu(lambda t=t: fused_cold(t)) for t in texts),  # type: ignore[misc]
        "coverage alone": statistics.median(_cpu(lambda t=t: cover_cold(t)) for t in texts),  # type: ignore[misc]
    }
    cited = CitedText(Basis.PAGE, "speed", texts[0])
    windows = build_windows(texts[0])
    rounds = {
        "fused (shipped)": lambda: [rank_passages(c, [("c", cited)], K) for c in claims],
        "coverage alone": lambda: [rank(c, windows, cover_only) for c in claims],
    }
    warm = dict.fromkeys(rounds, math.inf)
    for _ in range(3):
        for name, fn in rounds.items():
            warm[name] = min(warm[name], _cpu(fn))
    return {
        "text_chars": len(texts[0]),
        "windows": len(windows.spans),
        "claims": len(claims),
        "texts_cold": len(texts),
        "cold_seconds": {n: round(s, 4) for n, s in cold.items()},
        "warm_claims_per_second": {n: round(len(claims) / max(s, 1e-9), 1) for n, s in warm.items()},
        "warm_passages_per_second": {n: round(K * len(claims) / max(s, 1e-9), 1) for n, s in warm.items()},
        "warm_time_vs_coverage": round(warm["fused (shipped)"] / max(warm["coverage alone"], 1e-9), 2),
        "cold_time_vs_coverage": round(cold["fused (shipped)"] / max(cold["coverage alone"], 1e-9), 2),
    }


def _encoder() -> Any | None:
    """The sentence encoder module where this build has one and it can run here, else None."""
    try:
        module = importlib.import_module("citeaudit.semantic.encoder")
    except ImportError:
        return None
    return module if module.available() else None


ENCODER_RANKINGS = {
    "encoder alone": Ranking(bm25_weight=0.0, cover_weight=0.0, encoder_weight=1.0),
    "fused with the encoder (three rankings)": Ranking(encoder_weight=1.0),
}


def encoder_retrieval(cases: Sequence[Case]) -> dict[str, Any] | str:
    """Recall of rankings that use the sentence encoder (``semantic/encoder.py``) on the same windows;
    a note where there is none."""
    encoder = _encoder()
    if encoder is None:
        return (
            "no sentence encoder here (semantic/encoder.py absent, or its extra not installed): not compared"
        )
    with_gold = [c for c in cases if c.gold]
    windows = [build_windows(c.text) for c in with_gold]
    texts = sorted(
        {c.claim for c in with_gold}
        | {c.text[a:b] for c, w in zip(with_gold, windows, strict=True) for a, b in w.spans}
    )
    started = time.process_time()
    vectors = dict(zip(texts, encoder.encode(texts), strict=True))
    seconds = time.process_time() - started
    out: dict[str, Any] = {
        "claims": len(with_gold),
        "texts_encoded": len(texts),
        "encode_cpu_seconds": round(seconds, 1),
    }
    out["fused (shipped)"] = _recall(with_gold, [shipped(c) for c in with_gold])
    for name, how in ENCODER_RANKINGS.items():
        found = []
        for c, w in zip(with_gold, windows, strict=True):
            similarity = [encoder.cosine(vectors[c.claim], vectors[c.text[a:b]]) for a, b in w.spans]
            found.append(rank(c.claim, w, how, similarity=similarity))
        out[name] = _recall(with_gold, found)
    return out


def measure(
    quick: bool = False,
    limit: int | None = None,
    speed_bytes: int = SPEED_BYTES,
    speed_claims: int = SPEED_CLAIMS,
    use_encoder: bool = True,
) -> dict[str, Any]:
    """Every measurement in this process; ``quick`` (or ``limit``) on the first claims of each set."""
    if quick:
        limit = limit or 35
        speed_bytes, speed_claims = speed_bytes // 10, speed_claims // 10
    learned = make_judge("learned")
    assert isinstance(learned, LearnedJudge)
    out: dict[str, Any] = {"model_sha256": learned.model.digest}
    covid = check_covid_cases(limit)
    out["encoder"] = encoder_retrieval(covid) if use_encoder else "not measured in this run"
    out["check_covid"] = {
        "retrieval_all": retrieval(covid),
        "retrieval_supported": retrieval([c for c in covid if c.supported]),
        "judges": judged(covid),
    }
    if not WICE.exists():
        out["wice"] = f"skipped: {WICE.relative_to(HERE.parent.parent)} is absent"
        return out
    wice = wice_cases("\n", limit)
    out["wice"] = {
        "retrieval": retrieval([c for c in wice if c.label != "not_supported"]),
        "retrieval_supported": retrieval([c for c in wice if c.supported]),
        "retrieval_one_paragraph": retrieval(
            [c for c in wice_cases(" ", limit) if c.label != "not_supported"]
        ),
        "judges": judged(wice),
    }
    claims = [c.claim for c in wice][:speed_claims]
    out["speed"] = speed(speed_texts([c.text for c in wice], speed_bytes, SPEED_TEXTS), claims)
    return out


def _all_cases(limit: int | None) -> list[Case]:
    cases = check_covid_cases(limit)
    if WICE.exists():
        cases += wice_cases("\n", limit) + wice_cases(" ", limit)
    return cases


def passages_of_every_case(limit: int | None) -> dict[str, list[Any]]:
    """The shipped passages of every case, and those of the exactly summed coverage."""
    cases = _all_cases(limit)
    exact = Ranking(exact_sum=True)
    return {
        "ids": [c.case_id for c in cases],
        "shipped": [shipped(c) for c in cases],
        "exact_sum": [rank(c.claim, build_windows(c.text), exact) for c in cases],
    }


def _child(task: str, seed: int, **kwargs: Any) -> Any:
    """``task`` run in a fresh interpreter with PYTHONHASHSEED=``seed``: its JSON answer."""
    env = {**os.environ, "PYTHONHASHSEED": str(seed)}
    done = subprocess.run(
        [sys.executable, "-m", "bench.retrieval", "--child", json.dumps({"task": task, **kwargs})],
        cwd=HERE.parent, env=env, capture_output=True, text=True, check=False, timeout=1800,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"bench.retrieval {task} (hash seed {seed}) failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout)


def hash_seeds(limit: int | None, seeds: Sequence[int] = (0, 1, 2)) -> dict[str, Any]:
    """How many cases get other passages under another hash seed than under the first."""
    runs = [_child("passages", seed, limit=limit) for seed in seeds]
    out: dict[str, Any] = {"cases": len(runs[0]["shipped"]), "seeds": list(seeds)}
    for name in ("shipped", "exact_sum"):
        first = runs[0][name]
        out[name] = [sum(a != b for a, b in zip(first, r[name], strict=True)) for r in runs[1:]]
    out["examples"] = sorted(
        {
            i
            for r in runs[1:]
            for i, a, b in zip(runs[0]["ids"], runs[0]["shipped"], r["shipped"], strict=True)
            if a != b
        }
    )
    return out


def run(
    quick: bool = False,
    limit: int | None = None,
    speed_bytes: int = SPEED_BYTES,
    speed_claims: int = SPEED_CLAIMS,
    use_encoder: bool = True,
) -> dict[str, Any]:
    """The measurements in a fresh interpreter with hash seed 0 (the shipped ranking's ties depend on
    it: see ``hash_seed``), and the passages of every case under three hash seeds."""
    kwargs = {
        "quick": quick, "limit": limit, "speed_bytes": speed_bytes, "speed_claims": speed_claims,
        "use_encoder": use_encoder,
    }  # fmt: skip
    out: dict[str, Any] = _child("measure", 0, **kwargs)
    out["hash_seed"] = hash_seeds(35 if quick and limit is None else limit)
    return out


# --- the report -------------------------------------------------------------------------------------


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f} %"


def _recall_table(r: dict[str, Any]) -> list[str]:
    lines = ["| ranking | recall@1 | recall@3 | text in the top 3 |", "|---|---:|---:|---:|"]
    for name in [*BASELINES, *VARIANTS]:
        row = r[name]
        bold = "**" if name == "fused (shipped)" else ""
        lines.append(
            f"| {bold}{name}{bold} | {_pct(row['recall_at_1'])} | {_pct(row['recall_at_3'])} "
            f"| {_pct(row['text_share_at_3'])} |"
        )
    return lines


def _judge_table(r: dict[str, Any]) -> list[str]:
    lines = [
        "| judge (decision) | top 1 passage | **top 3** (shipped) | top 5 | gold sentences | whole text |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for spec in ("learned", "rules"):
        row = r[spec]
        lines.append(
            f"| {spec} ({row['decision']}) | {_pct(row['top_1'])} | {_pct(row['retrieved'])} "
            f"| {_pct(row['top_5'])} | {_pct(row['gold'])} | {_pct(row['whole_text'])} |"
        )
    lines += [
        "",
        f"The shipped `learned` judge with its band on (as `check` runs it), on the {r['claims']} claims:",
        "",
        "| reading | claims with a verdict | `entailed` given | precision of `entailed` |",
        "|---|---:|---:|---:|",
    ]
    for key, name in (
        ("", "top 3 passages (shipped)"),
        ("_gold", "gold sentences"),
        ("_whole_text", "whole text"),
    ):
        band = r[f"learned_with_band{key}"]
        lines.append(
            f"| {name} | {_pct(band['verdict_share'])} | {band['entailed']} | {_pct(band['precision_entailed'])} |"
        )
    return lines


def markdown(r: dict[str, Any]) -> str:
    covid = r["check_covid"]
    lines = [
        "Balanced accuracy is supported against not, with no abstention: the `learned` judge with its "
        "band off (`--no-abstain`: its label on the likelier side), and the `rules` judge, which never "
        "says `entailed`, as supported where it rejects nothing (`unknown`) and not where it says "
        "`insufficient` or `contradicted`. Every reading is given to the judge as the audit gives a "
        "passage (marked retrieved, not a quote). A passage holds a gold sentence when the two overlap by at least half of the "
        'shorter. "Text in the top 3" is the mean share of the cited text the three passages cover '
        "(what recall@3 costs). Every ranking runs on the same windows (1–3 sentences of a line) with the "
        "shipped tie-breaks; the bench's reimplementation of the fused ranking returns the shipped "
        f"passages for {covid['retrieval_all']['reimplementation_agrees']} of "
        f"{covid['retrieval_all']['claims']} Check-COVID claims"
        + (
            f" and {r['wice']['retrieval']['reimplementation_agrees']} of {r['wice']['retrieval']['claims']} "
            "WiCE claims."
            if isinstance(r["wice"], dict)
            else "."
        ),
        "",
        f"The `learned` judge's model: sha256 `{r['model_sha256'][:12]}…`.",
        "",
    ]
    if isinstance(r["wice"], dict):
        w = r["wice"]
        lines += [
            "### WiCE dev: Wikipedia sentences and the whole web page they cite",
            "",
            f"The page is its sentences joined by a newline (each a paragraph of the pinned text, as "
            f"citeaudit pins WiCE's pages served one sentence a paragraph): windows are single sentences. "
            f"Gold: the union of `supporting_sentences`. Recall over the {w['retrieval']['claims']} "
            "supported and partially supported claims:",
            "",
            *_recall_table(w["retrieval"]),
            "",
            f"Supported claims only ({w['retrieval_supported']['claims']}): recall@1 "
            f"{_pct(w['retrieval_supported']['shipped']['recall_at_1'])}, recall@3 "
            f"{_pct(w['retrieval_supported']['shipped']['recall_at_3'])} (shipped ranking).",
            "",
            "The same pages as one paragraph (sentences joined by a space, cut again by citeaudit's own "
            f"sentence splitter, so windows of two and three sentences exist; {w['retrieval_one_paragraph']['claims']} claims):",
            "",
            *_recall_table(w["retrieval_one_paragraph"]),
            "",
            f"Judges on all {w['judges']['claims']} claims ({w['judges']['supported']} supported; partially "
            'and not supported are "not"); the gold reading of a not_supported claim, which has no gold '
            "sentence, is its retrieved passages:",
            "",
            *_judge_table(w["judges"]),
            "",
            "The shipped `learned` model was trained on these WiCE dev pairs with the whole page as the "
            "fragment (the `semantic` benchmark), so its whole-text figure here is in-sample; the "
            "passages and the gold sentences are readings it was not trained on.",
            "",
        ]
    else:
        lines += [f"WiCE: {r['wice']}.", ""]
    lines += [
        "### Check-COVID: news claims and the abstract of the paper they cite",
        "",
        "The abstract is its sentences joined by a space (one paragraph, as a registry record's abstract "
        f"reads). Gold: the annotators' evidence sentences. Recall over all {covid['retrieval_all']['claims']} "
        "claims (supported and refuted both have evidence):",
        "",
        *_recall_table(covid["retrieval_all"]),
        "",
        f"Supported claims only ({covid['retrieval_supported']['claims']}): recall@1 "
        f"{_pct(covid['retrieval_supported']['shipped']['recall_at_1'])}, recall@3 "
        f"{_pct(covid['retrieval_supported']['shipped']['recall_at_3'])} (shipped ranking).",
        "",
        f"Judges on all {covid['judges']['claims']} claims ({covid['judges']['supported']} supported, "
        "the rest refuted; a set no shipped model was trained on):",
        "",
        *_judge_table(covid["judges"]),
        "",
    ]
    e = r["encoder"]
    if isinstance(e, dict):
        lines += [
            "The sentence encoder (`semantic/encoder.py`, all-MiniLM-L6-v2) on the same windows of the "
            f"same {e['claims']} claims: the cosine of the claim and each window ranked alone, and fused "
            "as a third ranking with equal weight; encoding the "
            f"{e['texts_encoded']:,} distinct claims and windows took {e['encode_cpu_seconds']} CPU s "
            "(one thread), which is why WiCE's pages are not encoded here:",
            "",
            "| ranking | recall@1 | recall@3 | text in the top 3 |",
            "|---|---:|---:|---:|",
        ]
        for name in ("fused (shipped)", *ENCODER_RANKINGS):
            row = e[name]
            lines.append(
                f"| {name} | {_pct(row['recall_at_1'])} | {_pct(row['recall_at_3'])} | {_pct(row['text_share_at_3'])} |"
            )
        lines.append("")
    else:
        lines += [f"Sentence encoder: {e}.", ""]
    if "speed" in r:
        s = r["speed"]
        lines += [
            f"### Speed on {s['text_chars'] // 1000} KB texts",
            "",
            f"Texts of {s['text_chars']:,} characters ({s['windows']:,} windows) built from the WiCE pages "
            f"concatenated; {s['claims']} WiCE claims ranked against one of them; CPU time (the shared "
            "machine's other load does not count). First call: median over "
            f"{s['texts_cold']} distinct texts of one claim's ranking, the text's index built. Warm: best of "
            "three rounds of every claim. Baseline: coverage alone over the same windows (no FTS5 index).",
            "",
            "| ranking | first call per text, s | warm claims/s | warm passages/s |",
            "|---|---:|---:|---:|",
        ]
        for name in ("fused (shipped)", "coverage alone"):
            lines.append(
                f"| {name} | {s['cold_seconds'][name]:.3f} | {s['warm_claims_per_second'][name]:,.0f} "
                f"| {s['warm_passages_per_second'][name]:,.0f} |"
            )
        lines += [
            "",
            f"The shipped ranking takes {s['cold_time_vs_coverage']}× the coverage ranking's time on the "
            f"first call and {s['warm_time_vs_coverage']}× warm.",
        ]
    if "hash_seed" in r:
        h = r["hash_seed"]
        lines += [
            "",
            "### The same passages under every hash seed?",
            "",
            f"The passages of all {h['cases']} cases above (both sets, both joins of WiCE) computed in fresh "
            f"interpreters under PYTHONHASHSEED {', '.join(map(str, h['seeds']))}; the figures above are "
            f"those of seed {h['seeds'][0]}. Cases whose passages differ from seed {h['seeds'][0]}'s: "
            f"shipped ranking {', '.join(map(str, h['shipped']))}; coverage summed with `math.fsum` "
            f"{', '.join(map(str, h['exact_sum']))}. A plain `sum()` of floats over a set of terms is "
            "walked in an order that changes with the hash seed, so two windows of equal coverage can tie "
            "one way or the other; the shipped ranking sums them exactly (`math.fsum`)"
            + (
                f" (cases that differed: {', '.join(f'`{i}`' for i in h['examples'])})."
                if h["examples"]
                else "."
            ),
        ]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        args = json.loads(argv[1])
        task = args.pop("task")
        answer = measure(**args) if task == "measure" else passages_of_every_case(args["limit"])
        print(json.dumps(answer))
        return 0
    result = run(quick="--quick" in argv)
    print(json.dumps(result, indent=2))
    print(markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
