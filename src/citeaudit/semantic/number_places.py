"""Where a claim's numbers stand in its source: a number the passage has, but beside other words
(``S_NUMBER_REPLACED``).

A number found somewhere in the passage is no proof that the passage says it of what the claim says it
of: "the treaty was signed in 1832" against "the treaty, signed in 1859, remained in force until 1832"
has every number and every word of its source. Each numeral of the claim is read with the words that
mark its place — the nearest content word within three words on each side, a number in between ending
the search — and compared with the places the passage gives it:

- **in another number's place**: in the sentences the rest of the claim is drawn from (those sharing
  the most of its other content words, or one fewer, and at least two), another number, one the claim
  lacks, has more of those words beside it, on the same sides, than the claim's own number has
  anywhere there;
- **taken from elsewhere**: the best window of sentences lacks it, and no sentence of the passage
  holding it has any of those words (a page's date put in a claim about another event).

Read are numerals only (number words are the number checks'); a citation marker ("[2]"), a number of a
range, a score or a time ("10–7", "1491–1510", "15:30") and one inside a name or a formula ("HbA1c",
"x^2") are no such number, and the pieces of such a name ("hba", "1", "c") take none of the three
words searched. A number the claim has itself stands in the place of the claim's other number only
with both marking words ("Spence is 24 and Beckham is 21" against "Spence is 21 and Beckham is 24"):
with one it raised 6 more vetoes where no other veto was on the shared dev sets, all on supported
claims listing several numbers; with both, none of the 117 dev pairs whose claim has two numbers of
its passage. Of two numbers in the place, the one with as many digits as the claim's is named.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from decimal import Decimal

from citeaudit.checks.numbers import NUMBERED_MARKER
from citeaudit.semantic.signals import STEM, STOPWORDS, WORD_RE, number_mentions, number_values

__all__ = ["numbers_at", "replaced_numbers"]

_REACH = 3  # words on each side searched for the word that marks a number's place
_DIGIT = re.compile(r"\d")
# a number joined to another by a dash, a colon or a slash: a range, a score, a time ("10–7", "15:30"),
# seen from the two characters before it and from those after it
_JOINED_BEFORE = re.compile(r"[-–—:/]\d|\d[-–—:/]$")
_JOINED_AFTER = re.compile(r"[-–—:/]\d")


def numbers_at(text: str) -> tuple[list[str], dict[int, frozenset[Decimal]]]:
    """A text's words (casefolded) and, by word index, the values of each numeral there — not one of a
    citation marker ("[2]", "[1, 3]") nor one joined to another number ("10–7", "15:30")."""
    matches = list(WORD_RE.finditer(text))
    words = [m.group().casefold() for m in matches]
    if not _DIGIT.search(text):
        return words, {}
    # "1,000", "3,5", "2.4 million": read as the number checks read them, each reading kept
    separated: dict[str, set[Decimal]] | None = None
    # citation markers ("[2]", "[1, 3]"), as the numbers check finds them
    markers = [(m.start(), m.end()) for m in NUMBERED_MARKER.finditer(text)] if "[" in text else []
    out: dict[int, frozenset[Decimal]] = {}
    for k, m in enumerate(matches):
        token = m.group()
        if not token[0].isdecimal():
            continue  # a word, or a sign that reads as a digit but is none ("⑤", "²")
        if any(lo <= m.start() < hi for lo, hi in markers):
            continue
        before, after = text[max(0, m.start() - 2) : m.start()], text[m.end() : m.end() + 2]
        if _JOINED_BEFORE.search(before) or _JOINED_AFTER.match(after):
            continue
        if before[-1:].isalpha() or before.endswith(("^", "_")):
            # part of a name or a formula ("HbA1c", "A4", "x^2"); a unit or an ending after it ("20km",
            # "9th") is not
            continue
        if token.isdecimal():  # "2019": one reading, without the cost of the number checks' reader
            out[k] = frozenset((Decimal(token),))
            continue
        if separated is None:
            separated = {}
            for mention in number_mentions(text):
                key = mention.text.rstrip("%")
                separated.setdefault(key, set()).update(v for r in mention.readings for v in r)
        if found := separated.get(token):
            out[k] = frozenset(found)
    return words, out


def _sides(words: Sequence[str], numbers: AbstractSet[int], k: int) -> tuple[set[str], set[str]]:
    """The stem of the nearest content word before and after word ``k``, within three words, a number
    in between ending the search (each side empty where there is none)."""

    def pick(order: range) -> set[str]:
        counted = 0
        for i in order:
            if i in numbers:
                return set()
            w = words[i]
            if w not in STOPWORDS and len(w) >= 3 and not w[0].isdigit():
                return {w[:STEM]}
            if len(w) >= 3 or w in STOPWORDS:  # a fragment of "HbA1c" or "9th" takes no place
                counted += 1
                if counted == _REACH:
                    break
        return set()

    return pick(range(k - 1, -1, -1)), pick(range(k + 1, len(words)))


def replaced_numbers(
    claim: str,
    claim_terms: AbstractSet[str],
    texts: Sequence[str],
    terms: Sequence[AbstractSet[str]],
    window: Sequence[int],
) -> tuple[tuple[str, str], ...]:
    """Each numeral of the claim that the passage has but not in its place, with the number that stands
    there (``"elsewhere"`` where none does). ``claim_terms``: the claim's content terms;
    ``texts`` and ``terms``: the passage's sentences and each one's terms; ``window``: the indices of
    the best window's sentences."""
    c_words, c_numbers = numbers_at(claim)
    if not c_numbers or not texts:
        return ()
    rest = claim_terms - {c_words[k][:STEM] for k in c_numbers}  # what the claim says the numbers of
    # a sentence with no digit holds no numeral: its words are never read (most of a long page)
    read = [numbers_at(t) if _DIGIT.search(t) else ([], {}) for t in texts]
    everywhere = {v for _, numbers in read for values in numbers.values() for v in values}
    # any mention counts here, a range's too: the window has the number in some form
    in_window = number_values(" ".join(texts[j] for j in window))
    shares = [len(t & rest) for t in terms]
    top = max(shares)
    # the sentences sharing the most of those words or one fewer (a list of dates after its sentence)
    drawn = [j for j, shared in enumerate(shares) if shared >= max(2, top - 1)] if top >= 2 else []
    mine = {v for values in c_numbers.values() for v in values}
    found: list[tuple[str, str]] = []
    for k, values in c_numbers.items():
        if not values & everywhere:
            continue  # in no sentence: S_NUMBER_ABSENT's
        before, after = _sides(c_words, c_numbers.keys(), k)
        if not before | after:
            continue
        own, other, other_text = 0, (0, False), ""
        for j in drawn:
            words, numbers = read[j]
            for i, there in numbers.items():
                b, a = _sides(words, numbers.keys(), i)
                score = len(before & b) + len(after & a)
                # of two numbers in the place, the one written with as many digits is named ("2005",
                # not the day of "3 August 2005")
                rank = (score, len(words[i]) == len(c_words[k]))
                if there & values:
                    own = max(own, score)
                # a number the claim has too only with the marking words on both sides: two numbers
                # of the claim swapped ("Spence is 24 and Beckham is 21"), not a list told another way
                elif rank > other and (not there & mine or (before & b and after & a)):
                    other, other_text = rank, words[i]
        if other[0] > own:
            found.append((c_words[k], other_text))
        elif not values & in_window and not any(
            (before | after) & terms[j]
            for j, (_, numbers) in enumerate(read)
            if any(values & there for there in numbers.values())
        ):
            found.append((c_words[k], "elsewhere"))
    return tuple(found)
