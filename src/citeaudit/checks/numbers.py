"""Numbers in a claim must occur in its quotes.

Rules (each cuts a false positive of the seed's plain digit match, and none
lets a different number pass):

1. Text is NFKC-normalised first: full-width digits and no-break spaces read
   as plain ones.
2. Thousands separators: ``1,000``, ``1.000``, ``1 000`` (space, no-break or
   thin space) and ``1000`` are one number. Groups after the first must have
   exactly three digits, otherwise the separator is not a thousands separator.
3. Decimal comma: ``3,5`` is 3.5. A single separator followed by exactly three
   digits (``1,000``, ``1.000``) is ambiguous and is read both ways; the claim
   number is supported when any reading is.
4. Values are compared as numbers: ``3.50`` equals ``3.5``.
5. Sign is not compared: ``-5``, ``−5`` (Unicode minus) and ``5`` share a
   magnitude, and "a decrease of 5" is how sources often say "−5".
6. Percent: ``5%`` (or ``5 %``) also reads as 0.05, and ``0.05`` as 5%.
7. The cited work's own year (as cited, or any year of its record) in the
   claim needs no quote: the metadata check covers it.
8. A space-grouped number that could also be two numbers (``18 200``) is
   supported by either reading.

Not handled (and reported as unsupported, so a person looks): numbers in words
("three"), scale words ("1.5 million" vs "1,500,000"), ratios rewritten as
percentages ("2 of 3" vs "67%").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from citeaudit.checks.codes import FindingMaker
from citeaudit.model import Finding

__all__ = ["NumberMention", "check_numbers", "extract_numbers"]

_SPACE = " \u00a0\u2009\u202f"
_TOKEN_RE = re.compile(rf"\d+(?:[.,{_SPACE}]\d+)*(?:[{_SPACE}]?%)?")


@dataclass(frozen=True, slots=True)
class NumberMention:
    text: str  # as written
    readings: tuple[frozenset[Decimal], ...]  # any one reading, wholly present, supports it

    @property
    def label(self) -> str:
        first = min(self.readings[0])
        plain = format(first.normalize(), "f")
        return plain + ("%" if self.text.endswith("%") else "")


def _grouped(groups: list[str]) -> bool:
    """Thousands grouping: a first group of 1-3 digits not starting with 0, then groups of 3."""
    head = groups[0]
    return 1 <= len(head) <= 3 and head[0] != "0" and all(len(g) == 3 for g in groups[1:])


def _readings_no_space(token: str) -> list[Decimal] | None:
    """Values of a token without spaces; None when it is a list, not a number."""
    seps = [c for c in token if c in ".,"]
    if not seps:
        return [Decimal(token)]
    if len(set(seps)) == 1:
        parts = token.split(seps[0])
        if len(parts) == 2:
            decimal = Decimal(f"{parts[0]}.{parts[1]}")
            if _grouped(parts):
                return [Decimal("".join(parts)), decimal]  # 1,000 or 1.000: read both ways
            return [decimal]
        return [Decimal("".join(parts))] if _grouped(parts) else None  # 1.2.3 is a list
    # Both kinds: the last separator is the decimal one, the other groups thousands.
    last = max(token.rfind("."), token.rfind(","))
    whole, frac = token[:last], token[last + 1 :]
    groups = re.split(r"[.,]", whole)
    if token[last] in whole or not _grouped(groups):
        return None
    return [Decimal("".join(groups) + "." + frac)]


def _space_grouped(groups: list[str]) -> bool:
    """``1 000`` or ``12 345 678,5``: groups of three after the first."""
    if not re.fullmatch(r"[1-9]\d{0,2}", groups[0]):
        return False
    if not all(re.fullmatch(r"\d{3}", g) for g in groups[1:-1]):
        return False
    return re.fullmatch(r"\d{3}(?:[.,]\d+)?", groups[-1]) is not None


def _grouped_tail(groups: list[str]) -> int:
    """The first ``i >= 1`` whose ``groups[i:]`` (two groups or more) is space-grouped, else
    ``len(groups)``. One backward pass: testing every tail was quadratic in a long list."""
    n = len(groups)
    if n < 3 or not re.fullmatch(r"\d{3}(?:[.,]\d+)?", groups[-1]):
        return n
    k = n - 1  # groups[k:n-1] are all three digits
    while k > 1 and re.fullmatch(r"\d{3}", groups[k - 1]):
        k -= 1
    return next((i for i in range(max(1, k - 1), n - 1) if re.fullmatch(r"[1-9]\d{0,2}", groups[i])), n)


def _mentions(token: str) -> list[NumberMention]:
    if token.isdecimal():  # digits alone, the usual token: one reading, no separator to weigh
        return [NumberMention(token, (frozenset({Decimal(token)}),))]
    percent = token.endswith("%")
    body = token.rstrip("%" + _SPACE)
    groups = re.split(f"[{_SPACE}]", body)
    readings: list[frozenset[Decimal]] = []
    if len(groups) > 1:
        if not _space_grouped(groups):
            # "in 2019 2 000 people": the longest grouped tail is one number.
            tail = _grouped_tail(groups)
            rest = " ".join(groups[tail:]) + ("%" if percent else "")
            head = [m for g in groups[:tail] for m in _mentions(g)]
            return head + (_mentions(rest) if rest.strip("%") else [])
        joined = _readings_no_space("".join(groups))
        readings.extend(frozenset({v}) for v in joined or ())
        apart = [_readings_no_space(g) for g in groups]
        if all(apart) and not any(g.startswith("0") for g in groups):
            readings.append(frozenset(values[0] for values in apart if values))
    else:
        values = _readings_no_space(body)
        if values is None:
            return [m for part in re.split(r"[.,]", body) for m in _mentions(part)]
        readings.extend(frozenset({v}) for v in values)
    if percent:
        readings += [frozenset(v / 100 for v in r) for r in readings]
    return [NumberMention(token.strip(), tuple(readings))]


_DIGIT_RE = re.compile(r"\d")  # any Unicode digit: full-width ones count


def extract_numbers(text: str) -> list[NumberMention]:
    """Every number mention of a text, in order of appearance."""
    return list(_extract(text)) if _DIGIT_RE.search(text) else []


@lru_cache(maxsize=8192)  # the same claim and quote texts are read by the check and by the signals
def _extract(text: str) -> tuple[NumberMention, ...]:
    text = unicodedata.normalize("NFKC", text)
    return tuple(mention for m in _TOKEN_RE.finditer(text) for mention in _mentions(m.group()))


def _values(mentions: Iterable[NumberMention]) -> set[Decimal]:
    return {v for m in mentions for r in m.readings for v in r}


def check_numbers(
    claim_text: str, quotes: list[str], own_years: Iterable[int], make: FindingMaker, cited: int
) -> list[Finding]:
    """``E_NUMBER_UNSUPPORTED:<n,…>`` for claim numbers in none of the quotes."""
    mentions = extract_numbers(claim_text)
    if not mentions:
        return []
    years = {Decimal(y) for y in own_years}
    supported = _values(m for q in quotes for m in extract_numbers(q))
    missing: dict[str, None] = {}  # in order of first mention, each once (a list scan was quadratic)
    for mention in mentions:
        if any(r <= supported for r in mention.readings):
            continue
        if any(r <= years for r in mention.readings) and re.fullmatch(r"\d{4}", mention.text):
            continue
        missing[mention.label] = None
    if not missing:
        return []
    where = "its quote" if cited == 1 else f"any quote of its {cited} citations"
    if not quotes:
        where = "any quote (the claim's citations give none)"
    return [
        make(
            "E_NUMBER_UNSUPPORTED",
            f"the claim's number(s) {', '.join(missing)} do not occur in {where}",
            detail=",".join(missing),
            suggestion={"numbers": list(missing)},
        )
    ]
