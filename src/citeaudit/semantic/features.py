"""Features of a claim against its cited fragments, for the ``learned`` judge.

Every feature is a deterministic function of the two texts (no model, no
table learned from data): how well the claim's content words are covered
by its best sentence, its best window of sentences and the fragments as a
whole (plain and weighted by how rare a word is among the evidence
sentences), how many of its word pairs and word triples occur, which of its
numbers and names are missing, whether its best sentence has its words and
its names in another order (which name sits on which side of the verb), and
the risk signals of :mod:`citeaudit.semantic.signals`. Words are compared as the signals compare
them: casefolded, by a five-letter stem, Han text by character bigrams.

:data:`FEATURES` names and defines each one (the README's table is this
one); :data:`FEATURE_SET` is the version a model file must name.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
from collections import Counter
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from typing import NamedTuple

from rapidfuzz.distance import Levenshtein

from citeaudit.checks.numbers import NUMBERED_MARKER, NumberMention
from citeaudit.semantic.antonyms import antonyms_of, base_forms
from citeaudit.semantic.interface import Fragment
from citeaudit.semantic.number_places import replaced_numbers
from citeaudit.semantic.signals import (
    ABSOLUTE_CUES,
    HAN_RE,
    HEDGE_CUES,
    NEGATION_CUES,
    STEM,
    STOPWORDS,
    WORD_RE,
    Words,
    number_mentions,
    number_values,
    sentences,
)

__all__ = [
    "DATE_WORDS",
    "DIRECTIONS",
    "FEATURES",
    "FEATURE_SET",
    "NameRun",
    "PairFeatures",
    "featurize",
    "initials",
    "name_runs",
]

FEATURE_SET = "lexical-5"

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
    (
        "negation_one_sided",
        "1 when the claim is negated and its best sentence is not, or the other way round; the sentence's "
        "negation counts where a word the two share is among the six after it ('not only' is none)",
    ),
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
    (
        "order_flipped",
        "share of the pairs of the claim's content words in its best sentence that it has in the other order",
    ),
    (
        "names_flipped",
        "share of the pairs of a name and another content word of the claim, both in its best sentence, "
        "that it has in the other order (a name on the other side of the verb)",
    ),
    (
        "reported_speech",
        "1 when the best sentence reports what someone said or holds (said, claimed, according to…) "
        "and the claim does not",
    ),
    (
        "antonym",
        "1 when a word of the claim that its best sentence lacks has its WordNet antonym there "
        "(won/lost, largest/smallest, increase/decrease), or, the word in no fragment, in its best window",
    ),
    (
        "name_replaced",
        "1 when a name of the claim that the fragments have stands where the sentences the rest of the "
        "claim is drawn from have another name, beside the same word (S_NAME_REPLACED)",
    ),
    (
        "names_reversed",
        "1 when two names of the claim are on the other sides of a word of the claim in the evidence "
        "sentence holding both (S_NAMES_REVERSED)",
    ),
)
# How each feature reads by its meaning: +1 the more of it, the more the fragments show the claim
# (coverage, pairs found), -1 the less (words, numbers, names missing; a one-sided negation), 0 neither
# (a size or a kind: how long the claim is, whether it has a number). Training bounds each weight to
# its feature's direction (training.py), and a model file with a weight against it is refused
# (learned.py), so a reason never reads backwards.
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
            "order_flipped",
            "names_flipped",
            "reported_speech",
            "antonym",
            "name_replaced",
            "names_reversed",
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
        "leads",
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
# Reported speech: the sentence tells what someone said, claimed or believes, not that it is so.
_REPORTED = frozenset(
    """said says claimed claims claiming argued argues stated alleged alleges allegedly asserted asserts
    insisted insists believes believed contended contends denied denies""".split()  # noqa: SIM905
)
_REPORTED_RE = re.compile(r"\baccording to\b")
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
    antonyms: tuple[tuple[str, str], ...] = ()  # a claim word and its antonym in the best sentence
    names_replaced: tuple[tuple[str, str], ...] = ()  # a claim name and the best sentence's name in its place
    # a claim numeral the passage has but not in its place, and the number there ("elsewhere": none)
    numbers_replaced: tuple[tuple[str, str], ...] = ()
    best_sentence: str = ""  # the evidence sentence sharing the most content words with the claim
    best_window: str = ""  # its best window of consecutive sentences, joined by spaces
    # what name_sentences() reads: the claim, the evidence, the claim terms of each evidence sentence
    context: tuple[_Claim, _Evidence, dict[int, set[str]]] | None = field(
        default=None, compare=False, repr=False
    )

    @property
    def unsupported(self) -> tuple[tuple[int, int], ...]:
        """``[start, end)`` ranges of the claim its best window does not support (computed on demand:
        training never needs them)."""
        return _unsupported_ranges(self.claim, self.tokens, self.missing, self.numbers_absent)

    def name_sentences(self) -> tuple[str, ...]:
        """For each name of the claim (not starting it, more than one letter) that an evidence sentence
        has every word of, capitalised: of the sentences holding it, the one sharing the most content
        words with the claim (the first of equals) — where a reader would check the name's part.
        Computed on demand (only the encoder's features read it)."""
        return _name_sentences(*self.context) if self.context else ()


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


_GLUED_STOPS = frozenset((".", "!", "?"))
_SENTENCE_GAP_RE = re.compile(r"[.!?]\s|[\n。！？]")
# Words that join the items of a list: "A and B" told as "B and A" says the same.
_COORDINATORS = frozenset(("and", "or", "nor", "as", "well", "both", "either", "neither", "also"))
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
    return _bare(word)[:STEM]


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
    previous = ""
    for m in WORD_RE.finditer(text):
        gap = text[max(previous_end, 0) : m.start()]
        # a full stop with no space after a lower-case word ("patterns.This") ends a sentence too: text
        # taken from web pages loses the space
        starts_sentence = (
            previous_end < 0
            or bool(_SENTENCE_GAP_RE.search(gap))
            or (gap in _GLUED_STOPS and previous.isalpha() and previous.islower() and len(previous) > 1)
        )
        previous_end = m.end()
        previous = m.group()
        # A capitalised word glued to a digit is a formula or a code (CO2, G7), no name.
        capital = m.group()[0].isupper() and not text[m.end() : m.end() + 1].isdigit()
        # capitalised words joined by a hyphen are one name ("Sixty-Six Books", "Neo-Babylonian Empire")
        if words and (not capital or (gap.strip(" ") and gap != "-") or starts_sentence):
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
    sentence; found when one fragment has all its words), and the pairs of its names told the other
    way round (see :class:`_NameOrder`)."""
    if not claim.names:
        return (), ()
    wanted = {stem for run in claim.names for stem in run.stems}
    where: dict[str, set[int]] = {}  # name word -> the evidence sentences that have it
    for j, words in enumerate(ev.words):
        for token in words.tokens:  # casefolded: its name stem is its stem unless it ends in 's
            stem = token[:STEM]
            if stem not in wanted:
                if "'" not in token:  # casefolded: ’ is ' here
                    continue
                stem = _name_stem(token)
                if stem not in wanted:
                    continue
            where.setdefault(stem, set()).add(j)

    def fragments_with(run: NameRun) -> set[int]:
        owners = [{ev.owner[j] for j in where.get(stem, ())} for stem in run.stems]
        return set.intersection(*owners)

    found_in = {run: fragments_with(run) for run in claim.names}
    absent = tuple(
        dict.fromkeys(
            run.text
            for run, at in found_in.items()
            if not at
            and not run.first
            and not _dotted_letter(claim.text, run)
            and not _acronym_spelled_out(run.text, claim.text[: run.start], ev.texts)
            and not _spelled_out_acronym_found(claim.text, run, ev.texts)
            and not _misspelt_in(run, ev)
        )
    )
    # Every place of each name found ("Senate Bill 344 … Senate Bill 563"), a single letter ("C" of
    # 20 °C) being none.
    trimmed = [_without_sentence_capital(run, claim.text, ev) for run in claim.names]
    distinct = [
        run
        for run in trimmed
        if (found_in[run] if run in found_in else fragments_with(run))
        and len("".join(run.stems)) > 1
        and run.text.casefold() not in DATE_WORDS  # a date is no side of a reversal ("on 23 January")
    ]
    if len(distinct) < 2:
        return absent, ()
    order = _NameOrder(claim, ev, where)
    reversed_pairs = tuple(
        (a.text, b.text)
        for a, b in itertools.combinations(distinct, 2)  # in the claim's order
        if not set(a.stems) & set(b.stems) and not _told_both_ways(a, b, claim.names) and order.reversed(a, b)
    )
    return absent, reversed_pairs


_MISSPELT_LENGTH = 6  # a name's word this long is the evidence's word one letter away ("Euroupe's")


def _misspelt_in(run: NameRun, ev: _Evidence) -> set[int]:
    """The fragments holding every word of the name capitalised, a long word (six letters or more)
    also one letter away: "Europe's Most Wanted" against a source's "Euroupe's Most Wanted"."""
    owners: list[set[int]] = []
    for word in (_bare(w) for w in WORD_RE.findall(run.text)):
        if word in STOPWORDS:
            continue
        near = set(ev.capitalised.get(word, ()))
        if len(word) >= _MISSPELT_LENGTH:
            for other, at in ev.capitalised.items():
                if abs(len(other) - len(word)) <= 1 and _one_letter_away(word, other):
                    near |= at
        if not near:
            return set()
        owners.append(near)
    return set.intersection(*owners) if owners else set()


def _bare(word: str) -> str:
    """A word casefolded, without a possessive 's."""
    return word.casefold().removesuffix("'s").removesuffix("’s")


def _one_letter_away(word: str, other: str) -> bool:
    long_enough = min(len(word), len(other)) >= _MISSPELT_LENGTH
    return long_enough and Levenshtein.distance(word, other, score_cutoff=1) <= 1


def _without_sentence_capital(run: NameRun, text: str, ev: _Evidence) -> NameRun:
    """A name starting the claim's sentence whose first word a fragment has in lower case right before
    the rest of it, without that word: "Incumbent Robert Quinn defeated Helen Park" names Robert Quinn
    where the source says "… defeated incumbent Robert Quinn"."""
    if not run.first or len(run.stems) < 2:
        return run
    words = list(WORD_RE.finditer(text, run.start, run.end))
    rest = next((m for m in words[1:] if _name_stem(m.group()) == run.stems[1]), None)
    if rest is None:
        return run
    lowered = re.compile(
        r"\b" + re.escape(words[0].group().lower()) + r"\s+" + re.escape(rest.group()) + r"\b"
    )
    if not any(lowered.search(sentence) for sentence in ev.texts):
        return run
    return NameRun(rest.start(), run.end, text[rest.start() : run.end], run.stems[1:], False)


def _told_both_ways(a: NameRun, b: NameRun, runs: Sequence[NameRun]) -> bool:
    """Whether the claim also has ``b`` before ``a`` or ``a`` after ``b`` ("The House … while the
    Senate … a check on the House"): it tells the two in both orders, so no order is reversed."""
    return any(r.stems == b.stems and r.end <= a.start for r in runs) or any(
        r.stems == a.stems and r.start >= b.end for r in runs
    )


_ABBREVIATION_RE = re.compile(r"(?:[A-Z][.*&/]\s?)+(?:[A-Z](?![a-z]))?")


def _dotted_letter(text: str, run: NameRun) -> bool:
    """A one-letter name that is a letter of an abbreviation ("U" and "N" of "U.N.", "S" of "M*A*S*H"):
    no name alone. A letter standing alone ("moved N into", "in N.") is one."""
    if run.end - run.start != 1:
        return False
    for m in _ABBREVIATION_RE.finditer(text, max(run.start - 12, 0), min(run.end + 12, len(text))):
        if m.start() <= run.start < m.end() and sum(c.isupper() for c in m.group()) >= 2:
            return True
    return False


_ACRONYM_RE = re.compile(r"[A-Z]{2,8}s?")


def initials(words: Sequence[str]) -> str:
    """The first letters of the words, casefolded ("Forma Migratoria Múltiple": fmm)."""
    return "".join(w[0] for w in words).casefold()


def _spells(letters: str, before: str) -> bool:
    """Whether the words right before a parenthesis spell an acronym's letters, read backwards, the
    first letter starting a word (Schwartz and Hearst's test: "cardiothoracic ratio" for CTR,
    "interrupt-on-change" for IOC), within as many words as the acronym has letters and five more;
    and every word of them but a stop word gives a letter ("Mexico Tourist Card" does not spell MS)."""
    words = WORD_RE.findall(before)[-min(len(letters) + 5, 2 * len(letters)) :]
    text = " ".join(words).casefold()
    at, used = len(text) - 1, set[int]()
    for k in range(len(letters) - 1, -1, -1):
        while at >= 0 and (text[at] != letters[k] or (k == 0 and at > 0 and text[at - 1] != " ")):
            at -= 1
        if at < 0:
            return False
        used.add(text.count(" ", 0, at))  # the word the letter is in
        at -= 1
    first = min(used)
    return all(k in used or w.casefold() in STOPWORDS for k, w in enumerate(words) if k >= first)


def _acronym_spelled_out(name: str, before: str, evidence: Sequence[str]) -> bool:
    """Whether an acronym of the claim (``IPCC``) stands for words the reader has: the claim spells it
    out right before it ("cardiothoracic ratio (CTR)"), or an evidence sentence has capitalised words
    whose initials spell it ("Intergovernmental Panel on Climate Change" for IPCC, "United Nations"
    for UN). Such an acronym missing from the evidence is no name missing."""
    if not _ACRONYM_RE.fullmatch(name):
        return False
    letters = name.rstrip("s").casefold()
    if before.rstrip().endswith("(") and _spells(letters, before):
        return True
    dotted = re.compile(r"\b" + r"\.\s?".join(letters.upper()) + r"\.", re.ASCII)  # US as U.S.
    if any(dotted.search(sentence) for sentence in evidence):
        return True
    for sentence in evidence:
        capitals = [w for w in WORD_RE.findall(sentence) if w.casefold() not in STOPWORDS]
        for k in range(len(capitals) - len(letters) + 1):
            span = capitals[k : k + len(letters)]
            if all(w[0].isupper() for w in span) and initials(span) == letters:
                return True
    return False


_PARENTHESISED_ACRONYM_RE = re.compile(r"\(([A-Z]{2,8})s?\)")
_EXPANSION_REACH = 80  # characters from a name to the parenthesis of the acronym it is part of


def _spelled_out_acronym_found(claim: str, run: NameRun, evidence: Sequence[str]) -> bool:
    """Whether the name is a word of an expansion the claim gives its acronym after ("Justice" of
    "International Court of Justice (ICJ)") and an evidence sentence has that acronym: the evidence
    names the same thing by its letters."""
    for m in _PARENTHESISED_ACRONYM_RE.finditer(claim, run.end, run.end + _EXPANSION_REACH):
        before = claim[: m.start()]
        between = len(WORD_RE.findall(claim, run.end, m.start()))
        if between >= len(m.group(1)) or not _spells(m.group(1).casefold(), before):
            continue  # only the expansion's other words may stand between the name and its acronym
        acronym = re.compile(r"\b" + re.escape(m.group(1)) + r"\b")
        return any(acronym.search(sentence) for sentence in evidence)
    return False


class _NameOrder:
    """Whether two names of the claim, both in the evidence, are told the other way round — "B defeated
    A" cited for "A defeated B". The claim must have a word of no name between the two (not only
    joining words: a list told in another order says the same), and one of these readings holds:

    - *two sides of one word*: the claim has a content word between the names, at most four words
      apart, and of the evidence sentences holding both (capitalised) those sharing the most content
      words with the claim never have them in the claim's order and one has that word between them,
      at most four words apart (the word, a verb most often, that the names are the two sides of);
    - *always the other way round*: no evidence sentence holding both has them in the claim's order,
      and one has a content word of no name between them (so a name beside its expansion,
      "National Aeronautics and Space Administration (NASA)", is no reversal: nothing stands between);
    - *each in the other's place*: the claim has each name right beside a word (no joining word, no
      word of a name) that the evidence has on that side of the other name and never of this one.

    A passive turns the order round: "B was defeated by A" is "A defeated B", and where a sentence
    holding both has a passive between them and the claim has none (or the other way about), the
    third reading is not made."""

    def __init__(self, claim: _Claim, ev: _Evidence, where: dict[str, set[int]]) -> None:
        self.claim = claim
        self.ev = ev
        self.where = where
        self.raw = list(WORD_RE.finditer(claim.text))
        self.folded = [m.group().casefold() for m in self.raw]
        self.in_name = [any(r.start <= m.start() < r.end for r in claim.names) for m in self.raw]
        self.listed = _COORDINATORS | {w for w, named in zip(self.folded, self.in_name, strict=True) if named}
        self._beside: dict[tuple[str, ...], tuple[set[str], set[str]]] = {}
        self._read: dict[int, tuple[list[tuple[bool, str]], list[str]]] = {}
        self._holding: dict[tuple[str, ...], list[int]] = {}
        self._aside: dict[int, frozenset[int]] = {}

    def sentence(self, j: int) -> tuple[list[tuple[bool, str]], list[str]]:
        """Evidence sentence ``j`` as (capitalised, name stem) per word and its casefolded words (only
        the sentences that hold a name are read again, with their capitals)."""
        if j not in self._read:
            raw = WORD_RE.findall(self.ev.texts[j])
            names = [(True, _name_stem(w)) if w[0].isupper() else _LOWER for w in raw]  # names: capitals
            self._read[j] = (names, [w.casefold() for w in raw])
        return self._read[j]

    def aside(self, j: int) -> frozenset[int]:
        """The word indices of evidence sentence ``j`` inside a parenthesis or a relative clause set off
        by commas (", which … ,"): words that say something of a name, not of the sentence's verb."""
        if j not in self._aside:
            text = self.ev.texts[j]
            spans = [(m.start(), m.end()) for m in _ASIDE.finditer(text)]
            self._aside[j] = frozenset(
                k
                for k, m in enumerate(WORD_RE.finditer(text))
                if any(lo <= m.start() < hi for lo, hi in spans)
            )
        return self._aside[j]

    def holding(self, run: NameRun) -> list[int]:
        """The evidence sentences that have the name, every word capitalised."""
        if run.stems not in self._holding:
            every = set.intersection(*(self.where[stem] for stem in run.stems))
            self._holding[run.stems] = [j for j in sorted(every) if _name_at(self.sentence(j)[0], run)]
        return self._holding[run.stems]

    def neighbours(self, run: NameRun) -> tuple[set[str], set[str]]:
        """The words right before and right after the name where the evidence has it, capitalised
        (``^`` and ``$`` at a sentence's start and end)."""
        if run.stems not in self._beside:
            before: set[str] = set()
            after: set[str] = set()
            size = len(run.stems)
            first, rest = (True, run.stems[0]), [(True, stem) for stem in run.stems[1:]]
            for j in self.holding(run):
                tokens, folded = self.sentence(j)
                for i, token in enumerate(tokens):
                    if token == first and tokens[i + 1 : i + size] == rest:
                        before.add(folded[i - 1] if i else "^")
                        after.add(folded[i + size] if i + size < len(folded) else "$")
            self._beside[run.stems] = (before, after)
        return self._beside[run.stems]

    def in_place_of(self, a: NameRun, b: NameRun) -> bool:
        """The claim has ``a`` right beside a word that the evidence has on that side of ``b`` and never
        of ``a`` (see :meth:`place`): ``a`` sits where ``b`` does."""
        inside = [k for k, m in enumerate(self.raw) if a.start <= m.start() and m.end() <= a.end]
        if not inside:
            return False
        left = self.folded[inside[0] - 1] if inside[0] else "^"
        right = self.folded[inside[-1] + 1] if inside[-1] + 1 < len(self.folded) else "$"
        (a_before, a_after), (b_before, b_after) = self.neighbours(a), self.neighbours(b)
        return (self.place(left) and left in b_before and left not in a_before) or (
            self.place(right) and right in b_after and right not in a_after
        )

    def place(self, word: str) -> bool:
        """A word that can mark a name's place: one of no name of the claim, no joining word, not a
        sentence's edge (a name that starts or ends one is often its subject or a parenthesis)."""
        return word not in self.listed

    def reversed(self, a: NameRun, b: NameRun) -> bool:
        """``a`` before ``b`` in the claim; see the class."""
        span = [k for k, m in enumerate(self.raw) if a.end <= m.start() and m.end() <= b.start]
        claim_by = any(_passive_by(self.folded, k) for k in span)
        # The words the two names sit on either side of: the claim's content words between them that are
        # no part of a name, never the words that only join a list.
        words = [self.folded[k] for k in span if not self.in_name[k] and self.folded[k] not in _COORDINATORS]
        if not words:  # side by side, or items of one list ("A, B and C"): no place to swap
            return False
        between = {  # by their first four letters: "beat" and "beaten" are one verb
            w[:4] for w in words if w not in STOPWORDS and (len(w) >= 3 or w.isdigit())
        }
        both = sorted(set(self.holding(a)) & set(self.holding(b)))
        if between and both:
            shares = [len(self.ev.terms[j] & self.claim.terms) for j in both]
            top = max(shares)
            same_top = same_any = around = apart = False
            for shared, j in zip(shares, both, strict=True):
                tokens, folded = self.sentence(j)
                aside = self.aside(j)  # a clause's own passive ("(founded by X)") turns no order round
                for i in _name_at(tokens, a):
                    for k in _name_at(tokens, b):
                        lo, hi = (i, k - len(b.stems) + 1) if i < k else (k, i - len(a.stems) + 1)
                        passive = any(_passive_by(folded, t) for t in range(lo, hi) if t not in aside)
                        inner = [
                            w
                            for w, (upper, _) in zip(folded[lo + 1 : hi], tokens[lo + 1 : hi], strict=True)
                            if not upper and w not in STOPWORDS and len(w) >= 3
                        ]
                        if (i < k) == (passive == claim_by):
                            same_any = True
                            same_top = same_top or shared == top
                        elif inner:
                            apart = True  # the other way round, a word of no name between them
                            if shared == top and len(span) <= _ARGUMENT_GAP and hi - lo - 1 <= _ARGUMENT_GAP:
                                around = around or any(w[:4] in between for w in inner)
            if same_top:
                return False
            if around or (apart and not same_any):
                return True
        return self.swapped_places(a, b, claim_by)

    def swapped_places(self, a: NameRun, b: NameRun, claim_by: bool) -> bool:
        """Each name where the other one is (see the class), where a passive on one side only does not
        explain it: a passive puts each name in the other's place and says the same ("B was defeated
        by A" for "A defeated B"), so a sentence holding both with a passive between them where the
        claim has none (or none where the claim has one) is no reversal, and a passive claim is read
        only against a sentence holding both."""
        both = sorted(set(self.holding(a)) & set(self.holding(b)))
        if claim_by and not both:
            return False
        for j in both:
            tokens, folded = self.sentence(j)
            for i in _name_at(tokens, a):
                for k in _name_at(tokens, b):
                    if any(_passive_by(folded, t) for t in range(min(i, k), max(i, k))) != claim_by:
                        return False
        return self.in_place_of(a, b) and self.in_place_of(b, a)


_ARTICLES = frozenset(("the", "a", "an"))
# The names of months and days: a date, never a name told the other way round ("returned to Canada and
# signed … on January 23" against a source telling January before Canada)
DATE_WORDS = frozenset(
    """january february march april may june july august september october november december monday
    tuesday wednesday thursday friday saturday sunday""".split()  # noqa: SIM905
)
_COPULAS = frozenset(("is", "are", "was", "were"))
_ARGUMENT_GAP = 4  # at most this many words between two names that are the two sides of one verb
_LOWER = (False, "")  # a word that is no part of a name, as _NameOrder.sentence reads it


def _name_at(tokens: Sequence[tuple[bool, str]], run: NameRun) -> list[int]:
    """Where a sentence has a name (the word indices of its last word, capitalised), when it has all
    of the name's words capitalised; empty when it has not."""
    capitals = {stem for upper, stem in tokens if upper}
    if not set(run.stems) <= capitals:
        return []
    last = run.stems[-1]
    return [k for k, (upper, stem) in enumerate(tokens) if upper and stem == last]


def _order(claim: _Claim, sentence: Sequence[str]) -> tuple[float, float]:
    """How the claim's content words found in a sentence are ordered there: the share of their pairs
    in the other order, and the same over the pairs of a name's word and a word of no name (each word
    at its first occurrence; 0 where there is no such pair)."""
    at: dict[str, int] = {}
    for k, term in enumerate(sentence):
        at.setdefault(term, k)
    aligned: list[tuple[int, bool]] = []  # position in the sentence, part of a name: in the claim's order
    seen: set[str] = set()
    for token in claim.tokens:
        if token.term is None or token.term in seen or token.term not in at:
            continue
        seen.add(token.term)
        named = any(run.start <= token.start < run.end for run in claim.names)
        aligned.append((at[token.term], named))
    pairs = flipped = name_pairs = names_flipped = 0
    for (x, x_named), (y, y_named) in itertools.combinations(aligned, 2):
        pairs += 1
        flipped += x > y
        if x_named != y_named:
            name_pairs += 1
            names_flipped += x > y
    return _share(flipped, pairs) if pairs else 0.0, _share(names_flipped, name_pairs) if name_pairs else 0.0


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


_NEGATION_SCOPE = 6  # the words after a negation cue that it can deny
# "not only X but also Y" says X: no negation
_NOT_NEGATING = frozenset(("only", "just", "merely", "solely", "simply"))


def _negated_near(words: Words, shared: AbstractSet[str]) -> bool:
    """Whether a negation cue of the text denies something it shares with the other side: a cue with a
    shared content term among the next few words ("did not win the cup" for "won the cup"), so a
    negation elsewhere in a long sentence ("we do not endorse other products") is none. "Not only" is
    no negation. Han text has no words to count: any cue there is a negation."""
    if not words.folded.isascii() and any(cue in words.folded for cue in NEGATION_CUES.han):
        return True
    return bool(_denied(words) & shared)


def _denied(words: Words) -> set[str]:
    """The stems of the words a negation cue of the text can deny: the few words after each cue ("not
    only" denies nothing)."""
    tokens = words.tokens
    out: set[str] = set()
    for k, token in enumerate(tokens):
        if token not in NEGATION_CUES.words and not token.endswith("n't"):
            continue
        after = tokens[k + 1 : k + 1 + _NEGATION_SCOPE]
        if token == "not" and after and after[0] in _NOT_NEGATING:
            continue
        out.update(w[:STEM] for w in after)
    return out


def _denies_otherwise(claim: _Claim, window: Sequence[Words], window_terms: AbstractSet[str]) -> bool:
    """Both sides deny, but not the same: the claim denies two or more words the window has and does not
    deny, and the window denies two or more words the claim has and does not deny — "it is the fracking
    itself that causes them, not the injection" against "it is not the fracking itself; it is the
    injection". Han text has no words to count: never."""
    if not claim.words.folded.isascii():
        return False
    shared = claim.terms & window_terms
    claim_denied = _denied(claim.words) & shared
    window_denied = set().union(*(_denied(words) for words in window)) & shared
    return (
        len(claim_denied - window_denied) >= 2
        and len(window_denied - claim_denied) >= 2
        and not (claim_denied & window_denied)
    )


def _negations(words: Words) -> int:
    """How many negation cues a text has (each occurrence)."""
    count = sum(1 for token in words.tokens if token in NEGATION_CUES.words)
    if NEGATION_CUES.phrases is not None:
        count += sum(1 for _ in NEGATION_CUES.phrases.finditer(words.folded))
    if not words.folded.isascii():
        count += sum(words.folded.count(cue) for cue in NEGATION_CUES.han)
    return count


def _share(found: float, total: float) -> float:
    return found / total if total else 1.0


def _part(found: float, total: float) -> float:
    """A share that is 0 with nothing to count (a claim with no content word shares none)."""
    return found / total if total else 0.0


@lru_cache(maxsize=65536)
def _forms(word: str) -> frozenset[str]:
    """A word and its WordNet base forms."""
    return base_forms(word) | {word}


def _antonyms(
    claim: _Claim, sentence: Words, everywhere: AbstractSet[str] = frozenset()
) -> tuple[tuple[str, str], ...]:
    """The claim's words its best sentence lacks (in any base form) whose WordNet antonym the sentence
    has: "won" cited for "lost", "largest" for "smallest". Where the claim has that antonym too ("high
    … higher", "West … West"), only a word no fragment has (``everywhere``: the fragments' content
    terms) counts."""
    if not sentence.tokens:
        return ()
    words = [w for w in claim.words.tokens if w.isalpha()]
    claim_forms = set().union(*(_forms(w) for w in words)) if words else set()
    sentence_words = [w for w in dict.fromkeys(sentence.tokens) if w.isalpha()]
    sentence_forms = {w: _forms(w) for w in sentence_words}
    every = set().union(*sentence_forms.values()) if sentence_forms else set()
    found: list[tuple[str, str]] = []
    for word in dict.fromkeys(words):
        opposite = antonyms_of(word)
        if not opposite or _forms(word) & every:
            continue
        nowhere = word not in STOPWORDS and not any(f[:STEM] in everywhere for f in _forms(word))
        for other, forms in sentence_forms.items():
            if forms & opposite and (nowhere or not forms & claim_forms):
                found.append((word, other))
                break
    return tuple(found)


def _context(words: Sequence[str], named: Sequence[bool], lo: int, hi: int) -> tuple[set[str], set[str]]:
    """The words that mark where the name of words ``[lo, hi)`` stands, on each side: the word right
    beside it (an article, a name's word or a sentence's edge is none) and the nearest
    content word within three words (stems), a number being none."""

    def pick(order: Sequence[int]) -> set[str]:
        out: set[str] = set()
        for n, k in enumerate(order):
            if named[k]:
                break
            w = words[k]
            if w.isdigit():
                continue  # a number marks no place: "Team GB at the 2016 Olympics", "Rio 2016"
            if n == 0 and w not in _ARTICLES:
                out.add(w)
            if w not in STOPWORDS and len(w) >= 3:
                out.add(w[:STEM])
                break
        return out

    return pick(range(lo - 1, max(-1, lo - 4), -1)), pick(range(hi, min(len(words), hi + 3)))


def _placed_names(text: str, runs: Sequence[NameRun]) -> tuple[list[str], list[bool], list[tuple[int, int]]]:
    """A text's words (casefolded), which are part of a name, and each name's word range."""
    raw = list(WORD_RE.finditer(text))
    words = [m.group().casefold() for m in raw]
    spans: list[tuple[int, int]] = []
    named = [False] * len(raw)
    for run in runs:
        inside = [k for k, m in enumerate(raw) if run.start <= m.start() and m.end() <= run.end]
        for k in inside:
            named[k] = True
        spans.append((inside[0], inside[-1] + 1) if inside else (0, 0))
    return words, named, spans


def _replaced_names(claim: _Claim, ev: _Evidence) -> tuple[tuple[str, str], ...]:
    """A name of the claim that the fragments have, standing beside a word that another name (one the
    claim lacks) has beside it in the sentences the rest of the claim is drawn from — the sentences
    sharing the most of the claim's other content words — none of which has this name: "directed by
    Anna Lee" cited for "The film was directed by Tom Hart", Anna Lee being elsewhere in the passage."""
    if not claim.names:
        return ()
    claim_capitals = {stem for run in claim.names for stem in run.stems}
    c_words, c_named, c_spans = _placed_names(claim.text, claim.names)
    found: list[tuple[str, str]] = []
    for run, (lo, hi) in zip(claim.names, c_spans, strict=True):
        if (run.first and len(run.stems) < 2) or hi <= lo or len("".join(run.stems)) <= 1:
            continue  # (a sentence's first word may be capitalised only for being first)
        if not all(stem in ev.all_terms or len(stem) < 3 for stem in run.stems):
            continue  # a name the passage lacks is S_NAME_ABSENT's
        name_terms = {t.term for t in claim.tokens if lo <= _index(claim, t) < hi and t.term is not None}
        rest = claim.terms - name_terms
        shares = [len(terms & rest) for terms in ev.terms]
        top = max(shares, default=0)
        if top < 2:
            continue  # no sentence the rest of the claim is drawn from
        drawn = [j for j, shared in enumerate(shares) if shared == top]
        texts = [ev.texts[j] for j in drawn]
        before, after = _context(c_words, c_named, lo, hi)
        # "X was Y" says "Y was X": a name right after a copula stands where a name right before it does
        turned = {c_words[lo - 1]} & _COPULAS if lo else set()
        # the word after a name that opens the claim (its subject, after an article and a title at
        # most: "The poet Colm Darragh"), read against a clause the passage has the name in
        opens = _opens(c_words[:lo], c_named[:lo])
        following = c_words[hi] if opens and hi < len(c_words) and not c_named[hi] else None
        mine, other = _in_its_place(
            texts, run.stems, claim_capitals, before, after, turned, following, clause_only=run.first
        )
        if other is not None and not mine:
            found.append((run.text, other))
    return tuple(found)


def _opens(words: Sequence[str], named: Sequence[bool]) -> bool:
    """Whether a name after these words opens its sentence: nothing but an article, a title word
    ("The poet …") or the words of a name and its "of" ("The University of …") before it."""
    rest = [w for w, n in zip(words, named, strict=True) if not n and w != "of"]
    if rest and rest[0] in _ARTICLES:
        rest = rest[1:]
    return not rest or (len(rest) == 1 and rest[0] not in STOPWORDS)


def _index(claim: _Claim, token: _Token) -> int:
    """The word index of a claim token among the claim's words (as :func:`_placed_names` counts)."""
    return bisect.bisect_left(claim.word_starts, token.start)


def _in_its_place(
    texts: Sequence[str],
    stems: tuple[str, ...],
    claim_capitals: AbstractSet[str],
    before: set[str],
    after: set[str],
    turned: AbstractSet[str] = frozenset(),
    following: str | None = None,
    clause_only: bool = False,
) -> tuple[bool, str | None]:
    """Whether these sentences have the name ``stems`` beside a word of ``before`` (on its left) or of
    ``after`` (on its right), and the first other name that they have there: one the claim lacks, or,
    beside its words on both sides, one the claim has elsewhere ("paid by Africans themselves" for
    "paid by Act themselves"). ``turned``: a copula right before the claim's name, matched on the other
    name's right. ``following``: the claim's word right after the name where the name opens the claim;
    where the name is inside a clause and the sentence goes on with that word after it, the place is
    the name's the clause opens after ("The River Tane opened" against "The Harlow Bridge, which spans
    the River Tane, opened"). ``clause_only``: that is the only other name read (a name starting the
    claim, whose capital may be only the sentence's)."""
    mine, other = False, None
    for sentence in texts:
        runs = name_runs(sentence)
        s_words, s_named, s_spans = _placed_names(sentence, runs)
        own_runs = [run for run in runs if set(stems) <= set(run.stems)]
        own = [span for run, span in zip(runs, s_spans, strict=True) if set(stems) <= set(run.stems)]
        for run, span in zip(runs, s_spans, strict=True):
            if len("".join(run.stems)) <= 1:
                continue
            itself = set(stems) <= set(run.stems)  # the name, or within a longer one ("Zinta's Kings XI")
            # (a head the claim names too tells the same clause: "Freedom of Information (FOI) requests")
            heads = (
                [
                    h
                    for h in runs
                    if not set(h.stems) <= claim_capitals and _clause_after(sentence, h, run) == following
                ]
                if itself and following
                else []
            )
            if heads:  # the claim goes on as the sentence does after the clause: the place is its head's
                # (a head starting the sentence is a name too: "Riedel, who was coached by Anna Lindqvist")
                if other is None and not set(stems) <= set(heads[0].stems):
                    other = heads[0].text
                continue
            o_before, o_after = _context(s_words, s_named, *span)
            left, right = bool(before & o_before), bool(after & o_after or turned & o_after)
            if not (left or right):
                continue
            if itself:
                mine = True
            elif right and not left and any(_belongs_to(sentence, own_run, run) for own_run in own_runs):
                # "The Harlow Bridge, which spans the River Tane, opened": the word after the clause is
                # the name's it opens after, not the one inside it
                mine = True
            elif (
                not clause_only
                and other is None
                and _may_stand_for(run, stems, claim_capitals, both_sides=left and right)
                and not any(_one_list(s_words, s_named, span, at) for at in own)
            ):
                other = run.text
    return mine, other


_CLAUSE_OPENING = re.compile(r"\s*(?:,\s*(?:which|who|whose|whom|where|that)\b|\()", re.IGNORECASE)
_CLAUSE_INSIDE = re.compile(r"[,;()]")
_OF_THE = re.compile(r"\s+of(?:\s+the)?\s+$")


def _clause_after(sentence: str, name: NameRun, inside: NameRun) -> str | None:
    """Where ``inside`` is within a relative clause or a parenthesis that opens right after ``name``
    ("Harlow Bridge, which spans the River Tane, opened"; "Museum (founded by Clara Voss in 1962)
    moved"), one clause (no semicolon or other bracket in it), closed by a comma or its bracket: the
    word (casefolded) the sentence goes on with after it; None where it is not."""
    if name.end > inside.start:
        return None
    opening = _CLAUSE_OPENING.match(sentence, name.end)
    if opening is None:
        return None
    bracket = opening.group().strip().startswith("(")
    closing = _CLAUSE_INSIDE.search(sentence, opening.end())
    if closing is None or closing.start() < inside.end or closing.group() != (")" if bracket else ","):
        return None
    word = WORD_RE.search(sentence, closing.end())
    return word.group().casefold() if word else None


def _belongs_to(sentence: str, name: NameRun, other: NameRun) -> bool:
    """Whether ``other`` says something of ``name`` right after it — inside a clause opened after it,
    or joined by "of" ("Tomas Riedel of the Halden Rowing Club beat …") — so that the word after
    ``other`` is ``name``'s place."""
    if _clause_after(sentence, name, other) is not None:
        return True
    return name.end <= other.start and _OF_THE.match(sentence[name.end : other.start]) is not None


# A parenthesis, or a relative clause between commas: what it says is of a name, not of the sentence
_ASIDE = re.compile(r"\([^()]*\)|,\s*(?:which|who|whose|whom|where)\b[^,;()]*,", re.IGNORECASE)


def _one_list(words: Sequence[str], named: Sequence[bool], a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Whether two names of a sentence are items of one list: only names, joining words and articles
    between them ("the United States, Canada, Puerto Rico": a claim naming Canada first dropped an
    item, it put no name in another's place)."""
    lo, hi = (a[1], b[0]) if a[0] < b[0] else (b[1], a[0])
    return all(named[k] or words[k] in _COORDINATORS or words[k] in _ARTICLES for k in range(lo, hi))


def _may_stand_for(
    run: NameRun, stems: tuple[str, ...], claim_capitals: AbstractSet[str], *, both_sides: bool
) -> bool:
    """Whether another name of the passage may be the one a claim's name was put for: not starting its
    sentence, sharing no word with the claim's name, and one the claim lacks — or has elsewhere, where it
    sits beside the claim's words on both sides."""
    if run.first or set(run.stems) & set(stems):
        return False
    return both_sides or not set(run.stems) & claim_capitals


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
        self._capitalised: dict[str, set[int]] | None = None

    @property
    def capitalised(self) -> dict[str, set[int]]:
        """Each capitalised word (casefolded, without a possessive 's) and the fragments having it; read
        only for a claim with a name no fragment has."""
        if self._capitalised is None:
            self._capitalised = {}
            for text, owner in zip(self.texts, self.owner, strict=True):
                for word in WORD_RE.findall(text):
                    if word[0].isupper():
                        self._capitalised.setdefault(_bare(word), set()).add(owner)
        return self._capitalised


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
    word_starts: tuple[int, ...]  # where each of its words (WORD_RE) starts


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
        numbers=number_mentions(claim),
        capitals=frozenset(t.term for t in tokens[1:] if t.capital and t.term is not None),
        soft=frozenset(t.word[:4] for t in tokens if t.term is not None),
        words=words,
        negated=bool(NEGATION_CUES.find(words)),
        absolutes=frozenset(ABSOLUTE_CUES.find(words)),
        hedged=bool(HEDGE_CUES.find(words)),
        word_set=frozenset(words.tokens),
        text=claim,
        names=name_runs(claim),
        word_starts=tuple(m.start() for m in WORD_RE.finditer(claim)),
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
        supported_numbers = set().union(*(number_values(f.text) for f in fragments)) if fragments else set()
        supported_numbers.update(Decimal(y) for f in fragments for y in f.years)
        absent_numbers = [m for m in numbers if not any(r <= supported_numbers for r in m.readings)]
        if absent_numbers and "[" in claim:
            # a number only inside a numbered marker is none the claim states, as in the numbers check:
            # "opened in 1998 [2]" against a passage with no 2 misses no number
            stated = Counter(m.text for m in number_mentions(NUMBERED_MARKER.sub(" ", claim)))
            kept: list[NumberMention] = []
            for mention in absent_numbers:  # as many of each as the claim states
                if stated[mention.text] > 0:
                    stated[mention.text] -= 1
                    kept.append(mention)
            absent_numbers = kept

    capitals = side.capitals
    names_missing = capitals - ev.all_terms

    best_words = ev.words[best_i] if best_i >= 0 else Words("", [])
    # One side denies, the other does not ("did not win" cited for "won"); the best sentence's negation
    # counts where it denies a word the claim has, not elsewhere in a long sentence.
    shared = claim_terms & ev.terms[best_i] if best_i >= 0 else frozenset()
    claim_denies = _negated_near(side.words, claim_terms)
    negation = bool(best_words.folded) and claim_denies != _negated_near(best_words, shared)
    told_nearby = False
    if negation and claim_denies:
        # the claim's own denial told by another sentence of the window ("it is not the fracking
        # itself; it is the injection", the best sentence being the second half): that sentence denies
        # most of what the claim denies
        denied = _denied(side.words) & claim_terms
        enough = max(2, math.ceil(len(denied) * 2 / 3))
        told_nearby = any(len(_denied(ev.words[j]) & denied) >= enough for j in window if j != best_i)
        negation = not told_nearby
    elif claim_denies and not negation and best_words.folded:
        read = window or [best_i]
        negation = _denies_otherwise(
            side, [ev.words[j] for j in read], set().union(*(ev.terms[j] for j in read))
        )
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
    # The best sentence first; then the window around it, where the claim's word is absent from all of
    # it ("lost" cited where the sentence before says "won").
    antonyms = _antonyms(side, best_words, ev.all_terms) or (
        _antonyms(side, Words.joined([ev.words[j] for j in window]), ev.all_terms) if len(window) > 1 else ()
    )
    replaced = _replaced_names(side, ev) if best_i >= 0 else ()
    numbers_moved = (
        replaced_numbers(claim, claim_terms, ev.texts, ev.terms, window)
        if numbers and best_i >= 0 and not absent_numbers
        else ()
    )
    reported = bool(set(best_words.tokens) & _REPORTED or _REPORTED_RE.search(best_words.folded)) and not (
        side.word_set & _REPORTED or _REPORTED_RE.search(side.words.folded)
    )
    # Both negated, the claim more often ("had no idea" -> "had not no idea"): a negation added.
    added = (
        side.negated and not negation and not told_nearby and _negations(side.words) > _negations(best_words)
    )
    signals += tuple(
        code
        for code, raised in (
            ("S_NEGATION_ADDED", added),
            ("S_NAME_ABSENT", bool(names_absent)),
            ("S_NAMES_REVERSED", bool(names_reversed)),
            ("S_ANTONYM", bool(antonyms)),
            ("S_NAME_REPLACED", bool(replaced)),
            ("S_REPORTED_SPEECH", reported),
            ("S_NUMBER_REPLACED", bool(numbers_moved)),
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
        _share(len(pairs_greedy), len(claim_pairs)) if claim_pairs else _part(len(covered), n_terms),
        _share(len(anchored), n_terms),
        math.log1p(n_terms - len(anchored)),
        # A claim of one content word has no pair, one of one or two words no triple: the share of its
        # words found stands for them (never 1.0 with no word found).
        _share(len(pairs_found), len(claim_pairs))
        if claim_pairs
        else _part(n_terms - len(missing_all), n_terms),
        _share(len(pairs_window), len(claim_pairs)) if claim_pairs else _part(len(window_hit), n_terms),
        _share(len(triples_found), len(claim_triples)) if claim_triples else _part(len(window_hit), n_terms),
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
        *_order(side, ev.sequence[best_i] if best_i >= 0 else []),
        1.0 if reported else 0.0,
        1.0 if antonyms else 0.0,
        1.0 if replaced else 0.0,
        1.0 if names_reversed else 0.0,
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
        antonyms,
        replaced,
        numbers_moved,
        ev.texts[best_i] if best_i >= 0 else "",
        " ".join(ev.texts[j] for j in window),
        (side, ev, hit_of),
    )


def _name_sentences(claim: _Claim, ev: _Evidence, hits: dict[int, set[str]]) -> tuple[str, ...]:
    """For each name of the claim (not starting it, more than one letter) that an evidence sentence has
    every word of, capitalised: of the sentences holding it, the one sharing the most content words with
    the claim (the first of equals). The sentence a reader would check the name's part in."""
    out: dict[str, None] = {}
    for run in claim.names:
        if run.first or len("".join(run.stems)) < 2:
            continue
        wanted = set(run.stems)
        best, best_n = -1, -1
        for j, words in enumerate(ev.words):
            n = len(hits.get(j, ()))
            if n <= best_n or not wanted <= {_name_stem(t) for t in words.tokens}:
                continue
            capitals = {
                _name_stem(m.group()) for m in WORD_RE.finditer(ev.texts[j]) if m.group()[0].isupper()
            }
            if wanted <= capitals:
                best, best_n = j, n
        if best >= 0:
            out[ev.texts[best]] = None
    return tuple(out)


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
