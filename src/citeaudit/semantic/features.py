"""Features of a claim against its cited fragments, for the ``learned`` judge.

Every feature is a deterministic function of the two texts (no model, no
table learned from data): how well the claim's content words are covered
by its best sentence, its best window of sentences and the fragments as a
whole (plain and weighted by how rare a word is among the evidence
sentences), how many of its word pairs and word triples occur, which of its
numbers and names are missing, and the risk signals of
:mod:`citeaudit.semantic.signals`. Words are compared as the signals compare
them: casefolded, by a five-letter stem, Han text by character bigrams.

:data:`FEATURES` names and defines each one (the README's table is this
one); :data:`FEATURE_SET` is the version a model file must name.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import NamedTuple

from citeaudit.checks.numbers import NumberMention, extract_numbers
from citeaudit.semantic.interface import Fragment
from citeaudit.semantic.signals import (
    ABSOLUTE_CUES,
    HAN_RE,
    HEDGE_CUES,
    NEGATION_CUES,
    STEM,
    STOPWORDS,
    WORD_RE,
    Words,
    sentences,
)

__all__ = ["DIRECTIONS", "FEATURES", "FEATURE_SET", "NameRun", "PairFeatures", "featurize", "name_runs"]

FEATURE_SET = "lexical-1"

# (name, one-line definition), in the order of the model's weights.
FEATURES: tuple[tuple[str, str], ...] = (
    ("claim_terms", "log(1 + number of the claim's content words)"),
    ("cover_all", "share of the claim's content words found anywhere in the fragments"),
    ("cover_all_rare", "the same, each word weighted by its rarity among the evidence sentences (IDF)"),
    ("cover_sentence", "share of the claim's content words in its best single sentence"),
    ("cover_sentence_rare", "the same, IDF-weighted"),
    ("cover_window", "share of the claim's content words in its best window of three consecutive sentences"),
    ("cover_window_rare", "the same, IDF-weighted"),
    ("cover_two", "share covered by the best sentence together with the best second sentence anywhere"),
    (
        "cover_greedy",
        "share of the claim's content words covered by up to three sentences anywhere, chosen greedily",
    ),
    ("cover_greedy_rare", "the same, IDF-weighted"),
    ("missing_greedy", "log(1 + content words those sentences leave uncovered)"),
    ("pairs_greedy", "share of the claim's content-word pairs found as a pair in those sentences"),
    (
        "cover_anchored",
        "share of the claim's content words in sentences holding a quarter of them or more (two at least)",
    ),
    ("missing_anchored", "log(1 + content words found in no such sentence)"),
    ("pairs_all", "share of the claim's consecutive content-word pairs found as a pair in some sentence"),
    ("pairs_window", "the same, within the best window"),
    ("triples_window", "share of the claim's word triples (stop words included) found in the best window"),
    ("missing_all", "log(1 + content words found nowhere in the fragments)"),
    ("missing_window", "log(1 + content words missing from the best window)"),
    (
        "missing_rare_max",
        "the largest IDF-like weight of a word missing from the best window, over 4: from 0 to "
        "(1 + log(1 + evidence sentences)) / 4, so above 1 past 20 sentences",
    ),
    (
        "numbers_missing",
        "number of the claim's numbers in no fragment (the numbers check's equivalences), at most 3",
    ),
    ("has_number", "1 when the claim has a number"),
    (
        "names_missing",
        "share of the claim's capitalised words (not the first) found nowhere in the fragments",
    ),
    ("negation_one_sided", "1 when the claim or its best sentence is negated and the other is not"),
    ("absolute_added", "1 when the claim says always/only/all/must… and no fragment does"),
    ("possibility_hardened", "1 when the best sentence hedges (may, can, up to…) and the claim does not"),
    ("evidence_sentences", "log(1 + number of sentences in the fragments)"),
    ("claim_to_sentence", "log of the claim's length over its best sentence's length, in words"),
    (
        "cover_window_soft",
        "share of the claim's content words whose first four letters start a word of the best window",
    ),
    ("cover_all_soft", "the same, anywhere in the fragments"),
    (
        "cause_both",
        "1 when the claim and its best sentence both state a cause (causes, due to, leads to, because…)",
    ),
    (
        "direction_agree",
        "1 when both say the same direction of change (increase/rise/more… or decrease/fall/less…)",
    ),
    ("direction_opposed", "1 when one says an increase and the other a decrease"),
    ("sentence_in_claim", "share of the best sentence's content words that the claim has"),
    ("shared_sentence", "log(1 + content words the claim shares with its best sentence)"),
    ("sentence_defines", "1 when the best sentence is a definition (X is a…, refers to, known as)"),
)
# How each feature reads by its meaning: +1 the more of it, the more the fragments show the claim
# (coverage, pairs found), -1 the less (words, numbers, names missing; a one-sided negation), 0 neither
# (a size or a kind: how long the claim is, whether it has a number). A reason names a feature only
# where its weight goes the way its meaning does (see learned.py).
DIRECTIONS: dict[str, int] = {
    **dict.fromkeys(
        ("claim_terms", "has_number", "evidence_sentences", "claim_to_sentence", "sentence_defines"), 0
    ),
    **dict.fromkeys(
        (
            "missing_greedy",
            "missing_anchored",
            "missing_all",
            "missing_window",
            "missing_rare_max",
            "numbers_missing",
            "names_missing",
            "negation_one_sided",
            "absolute_added",
            "possibility_hardened",
            "direction_opposed",
        ),
        -1,
    ),
}
DIRECTIONS.update({name: 1 for name, _ in FEATURES if name not in DIRECTIONS})
_WINDOW = 3
_CAUSE = frozenset(
    (
        "cause",
        "causes",
        "caused",
        "causing",
        "because",
        "due",
        "lead",
        "leads",
        "led",
        "leading",
        "result",
        "results",
        "resulting",
        "drive",
        "drives",
        "driven",
        "driving",
        "contribute",
        "contributes",
        "contributed",
        "responsible",
        "effect",
        "effects",
        "impact",
        "impacts",
        "consequence",
        "consequences",
        "attributed",
    )
)
_UP = frozenset(
    (
        "increase",
        "increases",
        "increased",
        "increasing",
        "rise",
        "rises",
        "rising",
        "rose",
        "risen",
        "grow",
        "grows",
        "growing",
        "grew",
        "growth",
        "more",
        "higher",
        "gain",
        "gains",
        "accelerate",
        "accelerating",
        "accelerated",
        "warmer",
        "expand",
        "expanding",
    )
)
_DOWN = frozenset(
    (
        "decrease",
        "decreases",
        "decreased",
        "decreasing",
        "decline",
        "declines",
        "declined",
        "declining",
        "fall",
        "falls",
        "falling",
        "fell",
        "drop",
        "drops",
        "dropped",
        "less",
        "lower",
        "reduce",
        "reduces",
        "reduced",
        "reducing",
        "reduction",
        "shrink",
        "shrinking",
        "loss",
        "lose",
        "losing",
        "cooler",
        "cooling",
        "slow",
        "slowing",
    )
)
_DEFINES_RE = re.compile(r"^[^,;:]{1,80}? (?:is|was|are|were) (?:a|an|the) |\brefers? to\b|\bknown as\b")
_MAX_NUMBERS = 3


@dataclass(frozen=True, slots=True)
class PairFeatures:
    """The feature vector of one claim–fragments pair and what explains it."""

    values: tuple[float, ...]
    relied_on: tuple[str, ...]  # citation ids of the fragments holding the best window
    signals: tuple[str, ...]  # signal codes raised
    claim: str
    tokens: tuple[_Token, ...]
    missing: frozenset[str]  # the claim's content terms its best window lacks
    numbers_absent: tuple[NumberMention, ...]
    names_absent: tuple[str, ...] = ()  # the claim's names (as written) found in no fragment
    names_reversed: tuple[tuple[str, str], ...] = ()  # two names an evidence sentence has the other way round

    @property
    def unsupported(self) -> tuple[tuple[int, int], ...]:
        """``[start, end)`` ranges of the claim its best window does not support (computed on demand:
        training never needs them)."""
        return _unsupported_ranges(self.claim, self.tokens, self.missing, self.numbers_absent)


class _Token(NamedTuple):
    start: int
    end: int
    word: str  # casefolded
    term: str | None  # its content term (stem), None for a stop word
    capital: bool


def _claim_tokens(claim: str) -> list[_Token]:
    tokens: list[_Token] = []
    for m in WORD_RE.finditer(claim):
        raw = m.group()
        word = raw.casefold().replace("’", "'")
        if raw[0] >= "\u3400" and HAN_RE.fullmatch(raw):
            for i in range(max(1, len(raw) - 1)):  # Han: character bigrams, each its own token
                tokens.append(
                    _Token(
                        m.start() + i, m.start() + min(i + 2, len(raw)), raw[i : i + 2], raw[i : i + 2], False
                    )
                )
            continue
        content = word not in STOPWORDS and (len(word) >= 3 or word.isdigit())
        tokens.append(_Token(m.start(), m.end(), word, word[:STEM] if content else None, raw[0].isupper()))
    return tokens


class NameRun(NamedTuple):
    """A run of capitalised words of a text (``Ada Lovelace``), with where it is."""

    start: int
    end: int
    text: str
    stems: tuple[str, ...]  # its words, casefolded, possessive dropped, cut to the stem
    first: bool  # it starts a sentence (its capital may be only the sentence's)


_SENTENCE_GAP_RE = re.compile(r"[.!?]\s|[\n。！？]")
_PASSIVE = "by"  # "B was defeated by A" says what "A defeated B" does, the names the other way round
_PARTICIPLES = frozenset(
    """won led held made hit beat bought caught taught found built sold told fought struck run paid said met
    shot set put cut kept lost left brought sent spent""".split()  # noqa: SIM905 (a word list reads better)
)


def _passive_by(words: Sequence[str], k: int) -> bool:
    """Word ``k`` is the "by" of a passive: after a participle ("defeated by", "won by"), not "come by"."""
    if words[k] != _PASSIVE or k == 0:
        return False
    before = words[k - 1]
    return before.endswith(("ed", "en", "wn")) or before in _PARTICIPLES


def _name_stem(word: str) -> str:
    word = word.casefold()
    if word.endswith(("'s", "’s")):
        word = word[:-2]
    return word[:STEM]


def name_runs(text: str) -> tuple[NameRun, ...]:
    """The runs of capitalised words of a text, each word separated from the next by spaces only.
    A run made only of stop words (``The``, ``I``) is none."""
    runs: list[NameRun] = []
    words: list[re.Match[str]] = []
    first = False

    def close() -> None:
        lead = 0  # leading stop words are no part of the name ("The Guardian", "In Paris")
        while lead < len(words) and words[lead].group().casefold() in STOPWORDS:
            lead += 1
        stems = tuple(_name_stem(m.group()) for m in words[lead:] if m.group().casefold() not in STOPWORDS)
        if stems:
            start, end = words[lead].start(), words[-1].end()
            runs.append(NameRun(start, end, text[start:end], stems, first and lead == 0))

    previous_end = -1
    for m in WORD_RE.finditer(text):
        gap = text[max(previous_end, 0) : m.start()]
        starts_sentence = previous_end < 0 or bool(_SENTENCE_GAP_RE.search(gap))
        previous_end = m.end()
        capital = m.group()[0].isupper()
        if words and (not capital or gap.strip(" ") or starts_sentence):
            close()
            words = []
        if capital:
            if not words:
                first = starts_sentence
            words.append(m)
    if words:
        close()
    return tuple(runs)


def _names(claim: _Claim, ev: _Evidence) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """The claim's names found in no fragment (a name: a run of capitalised words that does not start a
    sentence; found when one fragment has all its words), and the pairs of names that every evidence
    sentence holding both, capitalised, has the other way round ("by" after a participle between them
    on one side only turns the order round: "B was defeated by A" is "A defeated B")."""
    if not claim.names:
        return (), ()
    wanted = {stem for run in claim.names for stem in run.stems}
    where: dict[str, set[int]] = {}  # name word -> the evidence sentences that have it
    for j, words in enumerate(ev.words):
        for token in words.tokens:
            stem = _name_stem(token)
            if stem in wanted:
                where.setdefault(stem, set()).add(j)

    def fragments_with(run: NameRun) -> set[int]:
        owners = [{ev.owner[j] for j in where.get(stem, ())} for stem in run.stems]
        return set.intersection(*owners)

    found_in = {run: fragments_with(run) for run in claim.names}
    absent = tuple(dict.fromkeys(run.text for run, at in found_in.items() if not at and not run.first))
    distinct = list({run.stems: run for run, at in found_in.items() if at}.values())
    if len(distinct) < 2:
        return absent, ()
    read: dict[int, tuple[list[tuple[bool, str]], list[str]]] = {}

    def sentence(j: int) -> tuple[list[tuple[bool, str]], list[str]]:
        if j not in read:  # only the sentences that hold two names are read again, with their capitals
            raw = WORD_RE.findall(ev.texts[j])
            read[j] = ([(w[0].isupper(), _name_stem(w)) for w in raw], [w.casefold() for w in raw])
        return read[j]

    claim_raw = list(WORD_RE.finditer(claim.text))
    claim_folded = [m.group().casefold() for m in claim_raw]
    reversed_pairs: list[tuple[str, str]] = []
    for a, b in itertools.combinations(distinct, 2):  # in the claim's order
        if set(a.stems) & set(b.stems):
            continue
        claim_by = any(
            _passive_by(claim_folded, k)
            for k, m in enumerate(claim_raw)
            if a.end <= m.start() and m.end() <= b.start
        )
        both = set.intersection(*(where[stem] for stem in (*a.stems, *b.stems)))
        together = consistent = False
        for j in sorted(both):
            tokens, folded = sentence(j)
            at_a, at_b = _name_at(tokens, a), _name_at(tokens, b)
            if not at_a or not at_b:
                continue
            together = True
            consistent = any(
                (i < k) == (any(_passive_by(folded, t) for t in range(min(i, k), max(i, k))) == claim_by)
                for i in at_a
                for k in at_b
            )
            if consistent:
                break
        if together and not consistent:
            reversed_pairs.append((a.text, b.text))
    return absent, tuple(reversed_pairs)


def _name_at(tokens: Sequence[tuple[bool, str]], run: NameRun) -> list[int]:
    """Where a sentence has a name (the word indices of its last word, capitalised), when it has all
    of the name's words capitalised; empty when it has not."""
    capitals = {stem for upper, stem in tokens if upper}
    if not set(run.stems) <= capitals:
        return []
    last = run.stems[-1]
    return [k for k, (upper, stem) in enumerate(tokens) if upper and stem == last]


def _sentence_terms(words: Words) -> list[str]:
    """The content terms of a sentence in order (Han runs as bigrams)."""
    if words.folded.isascii():  # the common case, in one pass
        return [w[:STEM] for w in words.tokens if w not in STOPWORDS and (len(w) >= 3 or w.isdigit())]
    out: list[str] = []
    for word in words.tokens:
        if word[0] >= "\u3400" and HAN_RE.fullmatch(word):
            out.extend(word[i : i + 2] for i in range(max(1, len(word) - 1)))
        elif word not in STOPWORDS and (len(word) >= 3 or word.isdigit()):
            out.append(word[:STEM])
    return out


def _negations(words: Words) -> int:
    """How many negation cues a text has (each occurrence)."""
    count = sum(1 for token in words.tokens if token in NEGATION_CUES.words)
    if NEGATION_CUES.phrases is not None:
        count += sum(1 for _ in NEGATION_CUES.phrases.finditer(words.folded))
    if not words.folded.isascii():
        count += sum(words.folded.count(cue) for cue in NEGATION_CUES.han)
    return count


def _number_values(text: str) -> set[Decimal]:
    return {v for m in extract_numbers(text) for r in m.readings for v in r}


def _share(found: float, total: float) -> float:
    return found / total if total else 1.0


class _Evidence:
    """The fragments split into sentences, with each sentence's terms."""

    def __init__(self, fragments: Sequence[Fragment]) -> None:
        self.words: list[Words] = []
        self.texts: list[str] = []
        self.owner: list[int] = []  # fragment index of each sentence
        self.terms: list[set[str]] = []
        self.sequence: list[list[str]] = []
        for index, fragment in enumerate(fragments):
            for sentence in sentences(fragment.text):
                words = Words.of(sentence)
                sequence = _sentence_terms(words)
                self.words.append(words)
                self.texts.append(sentence)
                self.owner.append(index)
                self.sequence.append(sequence)
                self.terms.append(set(sequence))
        self.all_terms: set[str] = set().union(*self.terms) if self.terms else set()


@dataclass(frozen=True, slots=True)
class _Claim:
    """What the features need of a claim alone, computed once per claim text."""

    tokens: tuple[_Token, ...]
    terms: frozenset[str]
    pairs: frozenset[tuple[str, str]]
    triples: frozenset[tuple[str, str, str]]
    numbers: tuple[NumberMention, ...]
    capitals: frozenset[str]
    soft: frozenset[str]
    words: Words
    negated: bool
    absolutes: frozenset[str]
    hedged: bool
    word_set: frozenset[str]
    text: str
    names: tuple[NameRun, ...]


@lru_cache(maxsize=4096)
def _claim(claim: str) -> _Claim:
    tokens = tuple(_claim_tokens(claim))
    term_list = [t.term for t in tokens if t.term is not None]
    stems = [t.word[:STEM] for t in tokens]
    words = Words.of(claim)
    return _Claim(
        tokens=tokens,
        terms=frozenset(term_list),
        pairs=frozenset((a, b) for a, b in itertools.pairwise(term_list) if a != b),
        triples=frozenset(zip(stems, stems[1:], stems[2:], strict=False)),
        numbers=tuple(extract_numbers(claim)),
        capitals=frozenset(t.term for t in tokens[1:] if t.capital and t.term is not None),
        soft=frozenset(t.word[:4] for t in tokens if t.term is not None),
        words=words,
        negated=bool(NEGATION_CUES.find(words)),
        absolutes=frozenset(ABSOLUTE_CUES.find(words)),
        hedged=bool(HEDGE_CUES.find(words)),
        word_set=frozenset(words.tokens),
        text=claim,
        names=name_runs(claim),
    )


def featurize(claim: str, fragments: Sequence[Fragment]) -> PairFeatures:
    """The features of a claim against its fragments (see :data:`FEATURES`)."""
    side = _claim(claim)
    tokens = side.tokens
    claim_terms = side.terms
    n_terms = len(claim_terms)
    ev = _Evidence(fragments)
    # Only sentences sharing a claim term can be best; the rest are skipped.
    hits = [(i, s & claim_terms) for i, s in enumerate(ev.terms)]
    candidates = [(i, h) for i, h in hits if h]
    # Rarity among the evidence sentences of each claim term (a word in every sentence is the topic).
    frequency = dict.fromkeys(claim_terms, 0)
    for _, h in candidates:
        for t in h:
            frequency[t] += 1
    count = len(ev.terms)
    idf = {t: math.log((count + 1) / (1 + n)) + 1.0 for t, n in frequency.items()}
    total_w = math.fsum(idf.values())

    def weight(terms: AbstractSet[str]) -> float:
        # fsum is exactly rounded, so the sum does not depend on the set's order (PYTHONHASHSEED)
        return math.fsum(idf[t] for t in terms)

    weights = [weight(h) for _, h in candidates]
    best_i, best_hit, best_w = -1, set[str](), 0.0
    for (i, h), w in zip(candidates, weights, strict=True):
        if (len(h), w) > (len(best_hit), best_w):
            best_i, best_hit, best_w = i, h, w
    best_rare = max(weights, default=0.0)
    # The best window of consecutive sentences of one fragment.
    hit_of = dict(candidates)
    window: list[int] = []
    window_hit, window_rare, window_w = set[str](), 0.0, 0.0
    for lo in sorted({max(0, i - k) for i, _ in candidates for k in range(_WINDOW)}):
        span = [j for j in range(lo, min(lo + _WINDOW, len(ev.terms))) if ev.owner[j] == ev.owner[lo]]
        union = set().union(*(hit_of[j] for j in span if j in hit_of))
        union_w = weight(union)
        window_rare = max(window_rare, union_w)
        if (len(union), union_w) > (len(window_hit), window_w):
            window, window_hit, window_w = span, union, union_w
    rest = claim_terms - best_hit
    chosen: list[int] = [best_i] if best_i >= 0 else []
    covered = set(best_hit)
    for _ in range(2):
        gain_i, gain, gain_w = -1, set[str](), 0.0
        for i, h in candidates:
            more = h - covered
            if not more or len(more) < len(gain):
                continue
            more_w = weight(more)
            if (len(more), more_w) > (len(gain), gain_w):
                gain_i, gain, gain_w = i, more, more_w
        if gain_i < 0:
            break
        chosen.append(gain_i)
        covered |= gain
    second = max((len(h & rest) for i, h in candidates if i != best_i), default=0)

    # Word pairs: consecutive content terms of the claim, found as consecutive terms of a sentence.
    claim_pairs = side.pairs
    pair_sets: dict[int, set[tuple[str, str]]] = {}
    for i, _ in candidates:
        seq = ev.sequence[i]
        pair_sets[i] = set(itertools.pairwise(seq)) & claim_pairs
    pairs_found = set().union(*pair_sets.values()) if pair_sets else set()
    anchor = max(2, math.ceil(n_terms / 4))
    anchored = set().union(*(h for _, h in candidates if len(h) >= anchor)) if candidates else set()
    pairs_greedy = set().union(*(pair_sets.get(j, set()) for j in chosen)) if chosen else set()
    pairs_window = set().union(*(pair_sets.get(j, set()) for j in window)) if window else set()
    # Word triples, stop words included, within the best window.
    claim_triples = side.triples
    window_triples: set[tuple[str, str, str]] = set()
    for j in window:
        seq = [w[:STEM] for w in ev.words[j].tokens]
        window_triples.update(zip(seq, seq[1:], seq[2:], strict=False))
    triples_found = claim_triples & window_triples

    window_terms = set().union(*(ev.terms[j] for j in window)) if window else set()
    missing_window = claim_terms - window_terms
    missing_all = claim_terms - ev.all_terms

    numbers = side.numbers
    absent_numbers: list[NumberMention] = []
    if numbers:  # the fragments' numbers are read only for a claim that has some
        supported_numbers = set().union(*(_number_values(f.text) for f in fragments)) if fragments else set()
        supported_numbers.update(Decimal(y) for f in fragments for y in f.years)
        absent_numbers = [m for m in numbers if not any(r <= supported_numbers for r in m.readings)]

    capitals = side.capitals
    names_missing = capitals - ev.all_terms

    best_words = ev.words[best_i] if best_i >= 0 else Words("", [])
    negation = side.negated != bool(NEGATION_CUES.find(best_words))
    negation = negation and bool(best_words.folded)
    claim_absolutes = side.absolutes
    absolute = bool(claim_absolutes) and bool(claim_absolutes - ABSOLUTE_CUES.find(Words.joined(ev.words)))
    hardened = bool(HEDGE_CUES.find(best_words)) and not side.hedged
    signals = tuple(
        code
        for code, raised in (
            ("S_NUMBER_ABSENT", bool(absent_numbers)),
            ("S_NEGATION_ONE_SIDED", negation),
            ("S_ABSOLUTE_ADDED", absolute),
            ("S_POSSIBILITY_HARDENED", hardened),
            ("S_LOW_COVERAGE", bool(claim_terms) and _share(n_terms - len(missing_all), n_terms) < 0.5),
        )
        if raised
    )
    names_absent, names_reversed = _names(side, ev)
    # Both negated, the claim more often ("had no idea" -> "had not no idea"): a negation added.
    added = side.negated and not negation and _negations(side.words) > _negations(best_words)
    signals += tuple(
        code
        for code, raised in (
            ("S_NEGATION_ADDED", added),
            ("S_NAME_ABSENT", bool(names_absent)),
            ("S_NAMES_REVERSED", bool(names_reversed)),
        )
        if raised
    )

    best_len = len(best_words.tokens)
    soft_claim = side.soft
    soft_window = {w[:4] for j in window for w in ev.words[j].tokens}
    if len(window) == len(ev.words):  # one short fragment: the window is all of it
        soft_all = soft_window
    else:
        soft_all = {w[:4] for w in set().union(*(w.tokens for w in ev.words))} if ev.words else set()
    claim_set, best_set = side.word_set, set(best_words.tokens)
    cause_both = bool(claim_set & _CAUSE) and bool(best_set & _CAUSE)
    c_up, c_down = bool(claim_set & _UP), bool(claim_set & _DOWN)
    b_up, b_down = bool(best_set & _UP), bool(best_set & _DOWN)
    agree = (c_up and b_up) or (c_down and b_down)
    opposed = (c_up and b_down and not b_up) or (c_down and b_up and not b_down)
    values = (
        math.log1p(n_terms),
        _share(n_terms - len(missing_all), n_terms),
        _share(total_w - weight(missing_all), total_w),
        _share(len(best_hit), n_terms),
        _share(best_rare, total_w),
        _share(len(window_hit), n_terms),
        _share(window_rare, total_w),
        _share(len(best_hit) + second, n_terms),
        _share(len(covered), n_terms),
        _share(weight(covered), total_w),
        math.log1p(n_terms - len(covered)),
        _share(len(pairs_greedy), len(claim_pairs)),
        _share(len(anchored), n_terms),
        math.log1p(n_terms - len(anchored)),
        _share(len(pairs_found), len(claim_pairs)),
        _share(len(pairs_window), len(claim_pairs)),
        _share(len(triples_found), len(claim_triples)),
        math.log1p(len(missing_all)),
        math.log1p(len(missing_window)),
        max((idf[t] for t in missing_window), default=0.0) / 4.0,
        float(min(len(absent_numbers), _MAX_NUMBERS)),
        1.0 if numbers else 0.0,
        _share(len(names_missing), len(capitals)) if capitals else 0.0,
        1.0 if negation else 0.0,
        1.0 if absolute else 0.0,
        1.0 if hardened else 0.0,
        math.log1p(len(ev.terms)),
        math.log((len(tokens) + 1) / (best_len + 1)),
        _share(len(soft_claim & soft_window), len(soft_claim)),
        _share(len(soft_claim & soft_all), len(soft_claim)),
        1.0 if cause_both else 0.0,
        1.0 if agree else 0.0,
        1.0 if opposed else 0.0,
        _share(len(ev.terms[best_i] & claim_terms), len(ev.terms[best_i])) if best_i >= 0 else 0.0,
        math.log1p(len(best_hit)),
        1.0 if _DEFINES_RE.search(best_words.folded) else 0.0,
    )
    relied = tuple(dict.fromkeys(fragments[ev.owner[j]].citation_id for j in window))
    return PairFeatures(
        values,
        relied,
        signals,
        claim,
        tokens,
        frozenset(missing_window),
        tuple(absent_numbers),
        names_absent,
        names_reversed,
    )


def _unsupported_ranges(
    claim: str, tokens: Sequence[_Token], missing: AbstractSet[str], numbers: Sequence[NumberMention]
) -> tuple[tuple[int, int], ...]:
    """The claim's words the best window lacks, as merged ``[start, end)`` ranges;
    stop words between two missing words join their range."""
    if not missing and not numbers:
        return ()
    marked = [t.term is not None and t.term in missing for t in tokens]
    for number in numbers:
        text = number.text
        at = claim.find(text) if text else -1
        if at >= 0:
            for k, t in enumerate(tokens):
                if t.start < at + len(text) and t.end > at:
                    marked[k] = True
    ranges: list[tuple[int, int]] = []
    start = end = -1
    bridge = True  # only stop words since the last marked token
    for token, mark in zip(tokens, marked, strict=True):
        if mark:
            if start >= 0 and bridge:
                end = token.end  # extends the open range over the stop words between
            else:
                if start >= 0:
                    ranges.append((start, end))
                start, end = token.start, token.end
            bridge = True
        elif token.term is not None:
            bridge = False
    if start >= 0:
        ranges.append((start, end))
    return tuple(ranges)
