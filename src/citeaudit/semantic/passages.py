"""Passages of a cited work's text for a claim that quotes none: the text's sentence windows
ranked against the claim, the best ``k`` kept with their exact ``[start, end)``.

A window is one to three consecutive sentences of one paragraph (a line of the pinned text),
its range exact in that text. Two rankings are fused by their reciprocal ranks: BM25 from
SQLite's FTS5 (``bm25()``, Porter stems, diacritics folded), which weighs a rare shared word
above a common one, and the share of the claim's content words the window holds (weighted by
their rarity among the text's sentences, Han text by character pairs, as the judge's own
coverage features count them), which BM25 does not normalise for a claim's length. Ties go
to the earlier citation, then the earlier window, then the shorter one: the same inputs give
the same passages, in the same order, on any machine.

Windows of one text that overlap a passage already chosen are skipped, so the ``k`` passages
are ``k`` different places of the texts.
"""

from __future__ import annotations

import math
import os
import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from citeaudit.formats.sentences import sentence_spans
from citeaudit.model import Passage
from citeaudit.semantic.signals import STOPWORDS, content_terms
from citeaudit.sources.cited import CitedText

__all__ = ["DEFAULT_PASSAGES", "MAX_WINDOW_SENTENCES", "rank_passages", "windows_of"]

DEFAULT_PASSAGES = 3  # passages a claim is judged on
MAX_WINDOW_SENTENCES = 3
# A "sentence" longer than this (a page's run of text with no full stop) is cut at the last
# space before it: a passage is something a person reads and an agent can quote.
MAX_SENTENCE_CHARS = 600
_FUSION_K = 60  # the reciprocal-rank constant of the fusion (Cormack et al.'s value)
_QUERY_TERMS = 64  # the claim's words in the BM25 query, at most
_QUERY_WORD = re.compile(r"[^\W_]+", re.UNICODE)


@dataclass(frozen=True, slots=True)
class _Index:
    """One text's windows, their content words, and a BM25 index of them."""

    windows: tuple[tuple[int, int], ...]
    terms: tuple[frozenset[str], ...]
    idf: dict[str, float]
    db: sqlite3.Connection


def _cut(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """A long sentence as pieces of at most MAX_SENTENCE_CHARS, cut at spaces."""
    pieces: list[tuple[int, int]] = []
    while end - start > MAX_SENTENCE_CHARS:
        cut = text.rfind(" ", start + 1, start + MAX_SENTENCE_CHARS)
        if cut <= start:
            cut = start + MAX_SENTENCE_CHARS
        pieces.append((start, cut))
        start = cut
        while start < end and text[start].isspace():
            start += 1
    if end > start:
        pieces.append((start, end))
    return pieces


def _sentences(text: str) -> list[list[tuple[int, int]]]:
    """The sentences of each non-blank line (a paragraph of a pinned text), as ranges of ``text``."""
    paragraphs: list[list[tuple[int, int]]] = []
    offset = 0
    for line in text.split("\n"):
        if line.strip():
            spans = [
                piece for a, b in sentence_spans(line, (), ()) for piece in _cut(text, offset + a, offset + b)
            ]
            if spans:
                paragraphs.append(spans)
        offset += len(line) + 1
    return paragraphs


def _windows(text: str) -> list[tuple[int, int, list[tuple[int, int]]]]:
    """Every window of one to three consecutive sentences of one paragraph, in text order,
    with the sentences it is made of."""
    out: list[tuple[int, int, list[tuple[int, int]]]] = []
    for spans in _sentences(text):
        for i in range(len(spans)):
            for j in range(i, min(i + MAX_WINDOW_SENTENCES, len(spans))):
                out.append((spans[i][0], spans[j][1], spans[i : j + 1]))
    return out


def windows_of(text: str) -> list[tuple[int, int]]:
    """The ``[start, end)`` of every window of ``text``, in text order."""
    return [(a, b) for a, b, _ in _windows(text)]


@lru_cache(maxsize=16)
def _index(text: str, pid: int) -> _Index:
    """Built once per text and process (``pid``: a connection is never used across a fork)."""
    windows = _windows(text)
    sentence_terms: dict[tuple[int, int], frozenset[str]] = {}
    for _, _, spans in windows:
        for span in spans:
            if span not in sentence_terms:
                sentence_terms[span] = frozenset(content_terms(text[span[0] : span[1]]))
    df: dict[str, int] = {}
    for terms in sentence_terms.values():
        for term in terms:
            df[term] = df.get(term, 0) + 1
    n = max(1, len(sentence_terms))
    idf = {term: math.log(1 + n / count) for term, count in df.items()}
    window_terms = tuple(
        frozenset().union(*(sentence_terms[span] for span in spans)) for _, _, spans in windows
    )
    db = sqlite3.connect(":memory:", check_same_thread=False)
    db.execute("CREATE VIRTUAL TABLE w USING fts5(body, tokenize = 'porter unicode61 remove_diacritics 2')")
    db.executemany(
        "INSERT INTO w(rowid, body) VALUES (?, ?)", ((i, text[a:b]) for i, (a, b, _) in enumerate(windows))
    )
    return _Index(tuple((a, b) for a, b, _ in windows), window_terms, idf, db)


def _query(claim: str) -> str | None:
    """The claim's words as an FTS5 query of quoted terms joined by OR (no syntax of its own)."""
    words = sorted(
        {w.casefold() for w in _QUERY_WORD.findall(claim) if len(w) > 1 or not w.isascii()} - STOPWORDS
    )
    if not words:
        return None
    return " OR ".join(f'"{w}"' for w in words[:_QUERY_TERMS])


def _bm25_scores(index: _Index, query: str | None) -> dict[int, float]:
    """Each matching window's ``bm25()`` (lower is better); none when nothing matches."""
    if query is None or not index.windows:
        return {}
    try:
        found = index.db.execute("SELECT rowid, bm25(w) FROM w WHERE w MATCH ?", (query,)).fetchall()
    except sqlite3.OperationalError:  # a word FTS5 cannot take as a term: coverage alone ranks
        return {}
    return dict(found)


def _coverage_ranks(index: _Index, claim_terms: frozenset[str]) -> list[float]:
    # math.fsum: the exact sum, whatever order a set gives its terms in (a plain sum's last bits
    # follow the hash seed, and two equal coverages then tie the other way).
    total = math.fsum(index.idf.get(t, 1.0) for t in claim_terms)
    if not total:
        return [0.0] * len(index.windows)
    return [math.fsum(index.idf.get(t, 1.0) for t in claim_terms & terms) / total for terms in index.terms]


def rank_passages(
    claim: str, texts: Sequence[tuple[str, CitedText]], k: int = DEFAULT_PASSAGES
) -> tuple[Passage, ...]:
    """The ``k`` best passages for ``claim`` among the texts of its citations (``(citation id,
    text)``, in the claim's order of citations). The windows of every text are ranked together,
    so a short text unrelated to the claim does not place its best window beside the right one."""
    if k < 1:
        return ()
    query = _query(claim)
    claim_terms = frozenset(content_terms(claim))
    # (text, window, start, end, bm25 or None, coverage), in text order
    windows: list[tuple[int, int, int, int, float | None, float]] = []
    for t, (_, cited) in enumerate(texts):
        index = _index(cited.text, os.getpid())
        bm25 = _bm25_scores(index, query)
        cover = _coverage_ranks(index, claim_terms)
        windows += [(t, i, a, b, bm25.get(i), cover[i]) for i, (a, b) in enumerate(index.windows)]
    matched = sorted((w for w in windows if w[4] is not None), key=lambda w: (w[4], w[0], w[1]))
    bm25_rank = {(w[0], w[1]): rank for rank, w in enumerate(matched, 1)}
    # Equal cover: the shorter window first (what it adds, it does not need).
    by_cover = sorted(windows, key=lambda w: (-w[5], w[3] - w[2], w[0], w[1]))
    cover_rank = {(w[0], w[1]): rank for rank, w in enumerate(by_cover, 1)}
    worst = len(windows) + 1
    scored = sorted(
        (
            -(1 / (_FUSION_K + bm25_rank.get((t, i), worst)) + 1 / (_FUSION_K + cover_rank[(t, i)])),
            t,
            a,
            b - a,
        )
        for t, i, a, b, _, _ in windows
    )
    chosen: list[tuple[int, int, int]] = []
    for _, t, a, length in scored:
        b = a + length
        if any(t == ct and a < cb and ca < b for ct, ca, cb in chosen):
            continue
        chosen.append((t, a, b))
        if len(chosen) == k:
            break
    return tuple(
        Passage(texts[t][0], texts[t][1].basis.value, texts[t][1].sha256, a, b, texts[t][1].text[a:b], rank)
        for rank, (t, a, b) in enumerate(chosen, 1)
    )
