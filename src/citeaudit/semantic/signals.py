"""Risk signals: cheap, deterministic markers of a claim that may say more
than its cited fragments. They never give a verdict; they route a claim (to a
judge, to a person) and explain why.

Numbers are read as the numbers check reads them, and also where they are written in words
("eight", "twenty-one", "a million": text2num reads English number words, from two up), while a digit
glued to the letters before it is part of a name or formula, not a number ("CO2", "H2O", "G7").

Words are compared casefolded and by a five-letter prefix, a crude stem that
holds for English plurals and most Russian inflection ("снижает" and
"снижают" meet). Chinese has no spaces, so Han text is compared by character
bigrams. Cue lists cover English, Russian and Chinese.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from citeaudit.checks.numbers import NumberMention, extract_numbers
from citeaudit.semantic.interface import Fragment

__all__ = [
    "ABSOLUTE_CUES",
    "HAN_RE",
    "HEDGE_CUES",
    "NEGATION_CUES",
    "STEM",
    "STOPWORDS",
    "WORD_RE",
    "Signal",
    "SignalReport",
    "Words",
    "analyse",
    "content_terms",
    "number_mentions",
    "number_values",
    "sentences",
]

_WORD_RE = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?|\d+(?:[.,]\d+)*", re.UNICODE)
_HAN_RE = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
# Where a sentence ends: after .!?; and the whitespace that follows, after a CJK stop, at line breaks.
# (Matched forwards and cut by hand: a look-behind split tests every position and is 5–15× slower.)
_BOUNDARY_RE = re.compile(r"[.!?;]\s+|[。！？；]|\n+")
_STEM = 5

_STOPWORDS = frozenset(
    """a an the and or but of to in on at by for with from as is are was were be been being it its this that
    these those there their they he she his her him we our you your i me my not no than then so such which who
    whom whose what when where how also into over under about after before between during more most other some
    any each can could may might will would shall should has have had do does did one two very just only
    и в во не на с со что как по к у из за от для о об а но или то же ли бы это этот эта эти тот та те
    был была были было быть есть он она оно они его ее её их мы вы я при до после над под между без чем так
    уже ещё еще также который которая которые которых""".split()  # noqa: SIM905 (a word list reads better)
)

# Cues. Multi-word cues are matched on the casefolded text with word boundaries.
_NEGATION = {
    "en": ("not", "no", "never", "none", "nor", "neither", "without", "cannot", "n't", "nobody", "nothing"),
    "ru": ("не", "нет", "ни", "никогда", "без", "ничего", "никто"),
}
_NEGATION_HAN = ("不", "没", "無", "无", "未", "非", "否")
_ABSOLUTE = {
    "en": ("always", "only", "must", "all", "never", "every", "entirely", "completely", "guaranteed",
           "guarantees", "invariably", "solely", "exclusively"),
    "ru": ("всегда", "только", "должен", "должна", "должны", "все", "всё", "всех", "никогда", "каждый",
           "полностью", "гарантированно", "гарантирует", "исключительно"),
}  # fmt: skip
_ABSOLUTE_HAN = ("总是", "只有", "仅", "必须", "所有", "从不", "一定", "全部", "完全", "保证")
_HEDGE = {
    "en": ("may", "might", "can", "could", "up to", "possibly", "potentially", "likely", "suggests",
           "suggest", "appears", "perhaps", "some"),
    "ru": ("может", "могут", "мог", "могла", "могли", "до", "возможно", "вероятно", "предположительно",
           "вплоть до"),
}  # fmt: skip
_HEDGE_HAN = ("可能", "可以", "最多", "或许", "也许", "高达")


@dataclass(frozen=True, slots=True)
class _Cues:
    """One cue list, split by how it is found: single words by token, the
    few multi-word and clitic cues by pattern, Han cues by substring."""

    words: frozenset[str]
    phrases: re.Pattern[str] | None
    han: tuple[str, ...]

    @classmethod
    def of(cls, cues: dict[str, tuple[str, ...]], han: tuple[str, ...]) -> _Cues:
        every = {c for group in cues.values() for c in group}
        single = {c for c in every if _WORD_RE.fullmatch(c) and "'" not in c}
        rest = sorted(every - single, key=len, reverse=True)
        alternatives = "|".join(re.escape(w) if w.startswith("n'") else rf"\b{re.escape(w)}\b" for w in rest)
        return cls(frozenset(single), re.compile(alternatives) if rest else None, han)

    def find(self, words: _Words) -> set[str]:
        found = set(self.words.intersection(words.tokens))
        if self.phrases is not None:
            found.update(m.group() for m in self.phrases.finditer(words.folded))
        if not words.folded.isascii():
            found.update(cue for cue in self.han if cue in words.folded)
        return found


@dataclass(frozen=True, slots=True)
class _Words:
    """A text casefolded (typographic apostrophes made plain) and its word
    tokens, computed once and shared by the content terms and every cue list."""

    folded: str
    tokens: list[str]

    @classmethod
    def of(cls, text: str) -> _Words:
        folded = text.casefold()
        if "’" in folded:
            folded = folded.replace("’", "'")
        return cls(folded, _WORD_RE.findall(folded))

    @classmethod
    def joined(cls, parts: Sequence[_Words]) -> _Words:
        """Several texts as one (no word spans two of them)."""
        return cls("\n".join(p.folded for p in parts), [t for p in parts for t in p.tokens])

    def terms(self) -> set[str]:
        terms = {
            word[:_STEM]
            for word in self.tokens
            if word not in _STOPWORDS
            and (len(word) >= 3 or word.isdigit())
            and (word[0] < "\u3400" or not _HAN_RE.fullmatch(word))  # Han words are counted as bigrams below
        }
        if not self.folded.isascii():  # a constant-time test; most sentences have no Han to look for
            for run in _HAN_RE.findall(self.folded):
                terms.update(run[i : i + 2] for i in range(max(1, len(run) - 1)))
        return terms


_NEGATION_CUES = _Cues.of(_NEGATION, _NEGATION_HAN)
_ABSOLUTE_CUES = _Cues.of(_ABSOLUTE, _ABSOLUTE_HAN)
_HEDGE_CUES = _Cues.of(_HEDGE, _HEDGE_HAN)

# How the signals read words, for the learned judge's features (features.py): they read them the same way.
WORD_RE = _WORD_RE
HAN_RE = _HAN_RE
STEM = _STEM
STOPWORDS = _STOPWORDS
Words = _Words
NEGATION_CUES = _NEGATION_CUES
ABSOLUTE_CUES = _ABSOLUTE_CUES
HEDGE_CUES = _HEDGE_CUES


def content_terms(text: str) -> set[str]:
    """The words that carry content, stemmed; Han text as character bigrams."""
    return _Words.of(text).terms()


def _as_written(words: _Words, terms: set[str]) -> set[str]:
    """The words behind some stemmed terms, so a reader sees words, not stems."""
    by_stem = {word[:_STEM]: word for word in reversed(words.tokens)}  # the first occurrence wins
    return {by_stem.get(term, term) for term in terms}


def sentences(text: str) -> list[str]:
    out: list[str] = []
    start = 0
    for m in _BOUNDARY_RE.finditer(text):
        first = text[m.start()]
        end = m.start() + 1 if first in ".!?;" else m.start() if first == "\n" else m.end()
        piece = text[start:end].strip()
        if piece:
            out.append(piece)
        start = m.end()
    rest = text[start:].strip()
    if rest:
        out.append(rest)
    return out


@dataclass(frozen=True, slots=True)
class Signal:
    code: str
    detail: str


@dataclass(frozen=True, slots=True)
class SignalReport:
    signals: tuple[Signal, ...]
    coverage: float  # share of the claim's content terms found in the fragments
    best_sentence_coverage: float  # the same, for the single best-matching sentence
    uncovered: tuple[str, ...]  # claim words (as written, casefolded) no fragment contains, sorted
    relied_on: tuple[str, ...]  # citation ids whose text covers at least one claim term

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(s.code for s in self.signals)


_SCALES = frozenset(Decimal(10) ** k for k in (2, 3, 6, 9, 12))
_NUMBER_WORD_FROM = 2  # "one" is too often no number ("one of the first", "no one") to be read as 1
_MAX_WORDS_TEXT = 200_000  # past this a fragment's number words are not read (its digits still are)


def _glued(text: str, start: int) -> bool:
    """A digit right after a letter of an alphabet: part of a name or formula (CO2, H2O, G7, MP3). A digit
    after a Han character is a number ("死亡率30%")."""
    return start > 0 and text[start - 1].isalpha() and text[start - 1] < "\u3000"


def _placed(text: str, mentions: Sequence[NumberMention]) -> list[tuple[NumberMention, int]]:
    """Each mention with where it starts (mentions come in the order of the text)."""
    out: list[tuple[NumberMention, int]] = []
    at = 0
    for mention in mentions:
        start = text.find(mention.text, at)
        if start >= 0:
            at = start + len(mention.text)
        out.append((mention, start))
    return out


def _unglued(text: str, mentions: Sequence[NumberMention]) -> list[NumberMention]:
    return [m for m, start in _placed(text, mentions) if not _glued(text, start)]


@lru_cache(maxsize=2048)
def number_mentions(text: str) -> tuple[NumberMention, ...]:
    """The numbers of a text: its numerals (as the numbers check reads them), then its English number
    words as text2num reads them ("eight" is 8, "twenty-one" 21, "a million" 1,000,000), each written
    as text2num writes it. A digit glued to a letter is no number (CO2); a scale word after a numeral
    ("1.5 million") adds no number of its own."""
    out = _unglued(text, extract_numbers(text))
    if len(text) > _MAX_WORDS_TEXT or not any(c.isalpha() for c in text):
        return tuple(out)
    from text_to_num import alpha2digit  # imported on the first text with words: not at start-up

    converted = alpha2digit(text, "en", threshold=_NUMBER_WORD_FROM)
    if converted == text:
        return tuple(out)
    have = {m.text for m in out}
    for mention, start in _placed(converted, extract_numbers(converted)):
        if mention.text in have or _glued(converted, start):
            continue
        before = converted[:start].rstrip()
        if before[-1:].isdigit() and any(r <= _SCALES for r in mention.readings):
            continue  # "1.5 million": the scale of the numeral before it, read with it as before
        out.append(mention)
    return tuple(out)


def number_values(text: str) -> set[Decimal]:
    """Every value any reading of a number of the text can have (see :func:`number_mentions`)."""
    return {v for m in number_mentions(text) for r in m.readings for v in r}


def _missing_numbers(claim: str, fragments: Sequence[Fragment]) -> list[str]:
    supported = set().union(*(number_values(f.text) for f in fragments))  # a number never spans two
    supported.update(Decimal(year) for f in fragments for year in f.years)  # "Smith (2019) found…"
    return [m.text for m in number_mentions(claim) if not any(r <= supported for r in m.readings)]


def analyse(claim: str, fragments: Sequence[Fragment]) -> SignalReport:
    """Every signal of one claim against its cited fragments."""
    claim_words = _Words.of(claim)
    claim_terms = claim_words.terms()
    # Terms never span a sentence boundary, so a fragment's terms are its sentences' terms together.
    split = [[_Words.of(sentence) for sentence in sentences(f.text)] for f in fragments]
    per_sentence = [[words.terms() for words in parts] for parts in split]
    per_fragment = [set().union(*terms) for terms in per_sentence]
    evidence_terms = set().union(*per_fragment) if per_fragment else set()
    covered = claim_terms & evidence_terms
    coverage = len(covered) / len(claim_terms) if claim_terms else 1.0
    best, best_cov = _Words("", []), 0.0
    for parts, terms_of in zip(split, per_sentence, strict=True):
        for words, terms in zip(parts, terms_of, strict=True):
            cov = len(claim_terms & terms) / len(claim_terms) if claim_terms else 0.0
            if cov > best_cov:
                best, best_cov = words, cov
    evidence = _Words.joined([words for parts in split for words in parts])
    found: list[Signal] = []

    missing = _missing_numbers(claim, fragments)
    if missing:
        found.append(Signal("S_NUMBER_ABSENT", ", ".join(missing)))
    claim_neg = _NEGATION_CUES.find(claim_words)
    best_neg = _NEGATION_CUES.find(best)
    if bool(claim_neg) != bool(best_neg) and best.folded:
        side = "claim" if claim_neg else "source"
        found.append(Signal("S_NEGATION_ONE_SIDED", f"{side}: {', '.join(sorted(claim_neg or best_neg))}"))
    absolutes = _ABSOLUTE_CUES.find(claim_words) - _ABSOLUTE_CUES.find(evidence)
    if absolutes:
        found.append(Signal("S_ABSOLUTE_ADDED", ", ".join(sorted(absolutes))))
    hedges = _HEDGE_CUES.find(best)
    if hedges and not _HEDGE_CUES.find(claim_words):
        found.append(Signal("S_POSSIBILITY_HARDENED", ", ".join(sorted(hedges))))
    if len(fragments) >= 2 and not any(
        sum(term in terms for terms in per_fragment) >= 2 for term in claim_terms
    ):
        found.append(Signal("S_CITATIONS_UNLINKED", f"{len(fragments)} fragments share no claim term"))
    if claim_terms and coverage < 0.5:
        found.append(Signal("S_LOW_COVERAGE", f"{coverage:.2f}"))
    elif claim_terms and best_cov < 0.5:
        found.append(Signal("S_CLAIM_BROADER", f"best sentence covers {best_cov:.2f}"))
    relied = tuple(
        f.citation_id for f, terms in zip(fragments, per_fragment, strict=True) if terms & claim_terms
    )
    return SignalReport(
        signals=tuple(found),
        coverage=coverage,
        best_sentence_coverage=best_cov,
        uncovered=tuple(sorted(_as_written(claim_words, claim_terms - evidence_terms))),
        relied_on=relied,
    )
