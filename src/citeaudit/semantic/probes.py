"""Probes: edits that make a supported claim wrong while keeping nearly all of its words, and how
often a judge's ``entailed`` survives them (``citeaudit eval --probes``).

Each edit is deterministic and made only where it applies:

- ``not``: "not" after the claim's first auxiliary (is, was, has, can, …);
- ``never``: "never" in the same place;
- ``name_replaced``: a name of the claim that the evidence contains (a run of capitalised words that
  does not start a sentence) replaced by a name from another claim of the set that no fragment has;
- ``names_swapped``: two names of the claim, both in the evidence capitalised and with a word between
  them (not "TCP/IP", not an abbreviation beside its expansion), swapped — never two items of one list
  ("Greece and Rome", "Brazil, Canada, China": only other names and joining words between them), whose
  swap leaves the claim true;
- ``number_changed``: a number of the claim that the evidence contains changed to one it does not
  (never one of a citation marker, "[2]": the claim states no such number);
- ``number_word_changed``: a number written in words ("eight") that the evidence has, as a numeral or in
  words, changed to another number word of the set's claims that it has in neither form ("three");
- ``antonym``: a word of the claim that the evidence has replaced by its WordNet antonym (its base
  form: "won" by "lose", "largest" by "small"), one the evidence does not have;
- ``name_from_passage``: a name of the claim that the evidence has replaced by another name of the
  same evidence that the claim does not have (the name a careless writer takes from the next line),
  never the name's acronym or its expansion ("FMM", "Forma Migratoria Múltiple"), which names the same;
  no name edit takes a month or a day for a name (a date: "On Richard Amardi 22, 2017, August was
  selected" is no swap a writer makes);
- ``number_from_passage``: a numeral of the claim that the evidence has replaced by another numeral of
  the same evidence with as many digits, one the claim does not have ("signed in 1859" where the
  passage has 1859 for the signing and 1832 for something else) — never a citation marker ("[2]") nor
  a number of a range or a score ("10–7").

Survival is the share of the pairs the judge calls ``entailed`` unedited that it still calls
``entailed`` after the edit. A judge a reader could trust keeps it near zero: each edited claim says
something its evidence does not.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from text_to_num import alpha2digit

from citeaudit.checks.numbers import NUMBERED_MARKER, extract_numbers
from citeaudit.semantic.antonyms import antonyms_of
from citeaudit.semantic.datasets import Pair
from citeaudit.semantic.features import DATE_WORDS, NameRun, initials, name_runs
from citeaudit.semantic.interface import Judge
from citeaudit.semantic.number_places import numbers_at
from citeaudit.semantic.signals import WORD_RE, number_values

__all__ = ["EDITS", "edit_claim", "number_word", "probe"]

EDITS = (
    "not",
    "never",
    "name_replaced",
    "names_swapped",
    "number_changed",
    "number_word_changed",
    "antonym",
    "name_from_passage",
    "number_from_passage",
)
_AUXILIARY = frozenset(
    "is are was were has have had can could will would shall should may might must does do did".split()  # noqa: SIM905
)
_BATCH = 64
# The words that join the items of a list ("Brazil, Canada and the Netherlands"), articles included
_JOINING = frozenset(
    ("and", "or", "nor", "as", "well", "both", "either", "neither", "also", "the", "a", "an")
)


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def _stems(text: str) -> set[str]:
    return {re.sub(r"['’]s$", "", w.casefold())[:5] for w in WORD_RE.findall(text)}


def _capital_stems(text: str) -> set[str]:
    return {re.sub(r"['’]s$", "", w.casefold())[:5] for w in WORD_RE.findall(text) if w[0].isupper()}


def _negate(claim: str, word: str) -> str | None:
    for m in WORD_RE.finditer(claim):
        if m.group().casefold() in _AUXILIARY:
            following = claim[m.end() :].lstrip()
            if following.casefold().startswith(("not ", "n't", "never ")):
                return None  # already negated here
            return f"{claim[: m.end()]} {word}{claim[m.end() :]}"
    return None


def _evidence_names(claim: str, evidence: str) -> list[NameRun]:
    """The claim's names that the evidence has, every word capitalised."""
    capitals = _capital_stems(evidence)
    # A single letter ("C" of 20°C) is no name, nor a month or a day ("On Richard Amardi 22, 2017,
    # August was selected" is no swap of two names).
    return [
        run
        for run in name_runs(claim)
        if set(run.stems) <= capitals and len("".join(run.stems)) > 1 and not _date(run.text)
    ]


def _date(name: str) -> bool:
    return name.casefold() in DATE_WORDS


def _replace_name(claim: str, evidence: str, pool: Sequence[str]) -> str | None:
    runs = [run for run in _evidence_names(claim, evidence) if not run.first]
    if not runs or not pool:
        return None
    run = runs[_digest(claim) % len(runs)]
    have = _stems(evidence) | _stems(claim)
    start = _digest(claim + "\x1f" + run.text) % len(pool)
    for k in range(len(pool)):
        other = pool[(start + k) % len(pool)]
        if not _stems(other) & have:
            return claim[: run.start] + other + claim[run.end :]
    return None


def _swap_names(claim: str, evidence: str) -> str | None:
    # a sentence's first word may be capitalised only for being first ("Meanwhile", "Blood"): no name
    # alone ("Alice Moreau" starting one is)
    runs = [run for run in _evidence_names(claim, evidence) if not run.first or len(run.stems) > 1]
    every = name_runs(claim)
    for i, a in enumerate(runs):
        for b in runs[i + 1 :]:
            if set(a.stems) & set(b.stems) or not WORD_RE.search(claim[a.end : b.start]):
                continue  # the same name, or two names of one thing ("UBI (Universal Basic Income)")
            between = [
                m.group().casefold()
                for m in WORD_RE.finditer(claim, a.end, b.start)
                if not any(r.start <= m.start() < r.end for r in every)
            ]
            if all(w in _JOINING for w in between):
                continue  # two items of one list ("Greece and Rome", "Brazil, Canada, China"): still true
            return claim[: a.start] + b.text + claim[a.end : b.start] + a.text + claim[b.end :]
    return None


def _change_number(claim: str, evidence: str) -> str | None:
    have = number_values(evidence)  # numerals and number words: "4" is no change where it says "four"
    # a marker ("[2]") is no number the claim states: blanked, so that it is neither read nor found
    stated = NUMBERED_MARKER.sub(lambda m: " " * len(m.group()), claim)
    for mention in extract_numbers(stated):
        if not any(r <= have for r in mention.readings):
            continue  # only a number the evidence has: changing it makes the claim wrong
        at = stated.find(mention.text)
        digits = [k for k, ch in enumerate(mention.text) if ch.isdigit()]
        if at < 0 or not digits:
            continue
        last = digits[-1]
        for step in range(1, 10):
            new_digit = str((int(mention.text[last]) + step) % 10)
            text = mention.text[:last] + new_digit + mention.text[last + 1 :]
            edited = claim[:at] + text + claim[at + len(mention.text) :]
            changed = [m for m in extract_numbers(edited) if m.text == text]
            if changed and not any(r <= have for m in changed for r in m.readings):
                return edited
    return None


def number_word(word: str) -> int | None:
    """The value of one number word as text2num reads it ("eight" is 8), None for any other word."""
    converted = alpha2digit(word, "en", threshold=2)
    return int(converted) if converted != word and converted.isdigit() else None


def _change_number_word(claim: str, evidence: str, words: Sequence[str]) -> str | None:
    have = number_values(evidence)
    for m in WORD_RE.finditer(claim):
        value = number_word(m.group().casefold())
        if value is None or value not in have:
            continue
        start = _digest(claim + "\x1f" + m.group()) % len(words) if words else 0
        for k in range(len(words)):
            other = words[(start + k) % len(words)]
            new = number_word(other)
            if new is not None and new != value and new not in have:
                text = other.capitalize() if m.group()[0].isupper() else other
                return claim[: m.start()] + text + claim[m.end() :]
    return None


def _antonym(claim: str, evidence: str) -> str | None:
    have = {w.casefold() for w in WORD_RE.findall(evidence)}
    words = [m for m in WORD_RE.finditer(claim) if m.group().isalpha() and m.group().casefold() in have]
    if not words:
        return None
    first = _digest(claim) % len(words)
    for k in range(len(words)):
        m = words[(first + k) % len(words)]
        for other in sorted(antonyms_of(m.group().casefold())):
            if other not in have:
                return claim[: m.start()] + other + claim[m.end() :]
    return None


def _one_spells(a: str, b: str) -> bool:
    """Whether one name is the other's acronym ("FMM", "Forma Migratoria Múltiple"): the same thing."""
    return (len(a) > 1 and a.isupper() and initials(WORD_RE.findall(b)) == a.casefold()) or (
        len(b) > 1 and b.isupper() and initials(WORD_RE.findall(a)) == b.casefold()
    )


def _name_from_passage(claim: str, evidence: str) -> str | None:
    runs = [run for run in _evidence_names(claim, evidence) if not run.first]
    if not runs:
        return None
    run = runs[_digest(claim) % len(runs)]
    mine = _stems(claim)
    others = sorted(
        {
            r.text
            for r in name_runs(evidence)
            if not r.first
            and len(r.text) > 2
            and not _date(r.text)
            and not set(r.stems) & mine
            and not _one_spells(run.text, r.text)
        }
    )
    if not others:
        return None
    return claim[: run.start] + others[_digest(claim + "\x1f" + run.text) % len(others)] + claim[run.end :]


def _number_from_passage(claim: str, evidence: str) -> str | None:
    words, numbers = numbers_at(evidence)
    mine = number_values(claim)
    have = {v for values in numbers.values() for v in values}
    spans = list(WORD_RE.finditer(claim))
    for k, values in sorted(numbers_at(claim)[1].items()):
        text = spans[k].group()
        if not values & have:
            continue  # a number the evidence lacks: number_changed's kind of error already
        others = sorted(
            {words[i] for i, there in numbers.items() if not there & mine and len(words[i]) == len(text)}
        )
        if others:
            other = others[_digest(claim + "\x1f" + text) % len(others)]
            return claim[: spans[k].start()] + other + claim[spans[k].end() :]
    return None


def edit_claim(
    edit: str, claim: str, evidence: str, pool: Sequence[str] = (), numbers: Sequence[str] = ()
) -> str | None:
    """The claim with one edit made, or None where it does not apply. ``pool``: names to replace with;
    ``numbers``: number words to change a number word to."""
    makers: dict[str, Callable[[], str | None]] = {
        "not": lambda: _negate(claim, "not"),
        "never": lambda: _negate(claim, "never"),
        "name_replaced": lambda: _replace_name(claim, evidence, pool),
        "names_swapped": lambda: _swap_names(claim, evidence),
        "number_changed": lambda: _change_number(claim, evidence),
        "number_word_changed": lambda: _change_number_word(claim, evidence, numbers),
        "antonym": lambda: _antonym(claim, evidence),
        "name_from_passage": lambda: _name_from_passage(claim, evidence),
        "number_from_passage": lambda: _number_from_passage(claim, evidence),
    }
    if edit not in makers:
        raise ValueError(f"unknown probe edit {edit!r}")
    edited = makers[edit]()
    return None if edited == claim else edited


def _labels(judge: Judge, pairs: Sequence[Pair]) -> list[str]:
    out: list[str] = []
    for at in range(0, len(pairs), _BATCH):
        chunk = pairs[at : at + _BATCH]
        out += [v.label for v in judge.judge_many([(p.claim, p.fragments) for p in chunk])]
    return out


def probe(judge: Judge, pairs: Sequence[Pair]) -> dict[str, Any]:
    """Per edit: the pairs it applies to, those of them the judge calls ``entailed`` unedited, how
    many of those stay ``entailed`` edited, and that share (None where the judge said none)."""
    pool = sorted(
        {run.text for p in pairs for run in name_runs(p.claim) if not run.first and not _date(run.text)}
    )
    numbers = sorted(
        {
            w.casefold()
            for p in pairs
            for w in WORD_RE.findall(p.claim)
            if number_word(w.casefold()) is not None
        }
    )
    before = _labels(judge, pairs)
    out: dict[str, Any] = {}
    for edit in EDITS:
        edited: list[Pair] = []
        was: list[str] = []
        for pair, label in zip(pairs, before, strict=True):
            evidence = "\n".join(f.text for f in pair.fragments)
            claim = edit_claim(edit, pair.claim, evidence, pool, numbers)
            if claim is not None:
                edited.append(replace(pair, claim=claim))
                was.append(label)
        after = _labels(judge, edited)
        entailed = sum(1 for w in was if w == "entailed")
        kept = sum(1 for w, a in zip(was, after, strict=True) if w == "entailed" and a == "entailed")
        out[edit] = {
            "applied": len(edited),
            "entailed_before": entailed,
            "entailed_after": kept,
            "survival": round(kept / entailed, 4) if entailed else None,
        }
    return out
