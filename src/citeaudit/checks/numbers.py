"""Numbers in a claim must occur in what was read of its citations: their quotes, and for a
citation with no quote the pinned text of the work it cites (``NumberText``).

What was not read was not checked: a number absent from every quote and full text (or page)
of the claim's citations is ``E_NUMBER_UNSUPPORTED``; one absent where some citation was read
only in its abstract is ``W_NUMBER_NOT_IN_ABSTRACT`` (the full text may give it); where some
citation gave no text at all, the numbers are not checked (``I_NUMBERS_NOT_CHECKED``). A number
inside the claim's citation markers (``[2]``, ``[Deloitte, 2023]``, ``(Vaswani et al., 2017)``), in an
identifier or URL it names (``arXiv:2502.03671v1``), or a heading's section number is no number
the claim states.

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

__all__ = [
    "NUMBERED_MARKER",
    "NumberMention",
    "NumberText",
    "check_numbers",
    "extract_numbers",
    "stated_text",
]

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


@dataclass(frozen=True, slots=True)
class NumberText:
    """What was read of one citation: its quote (``quote``; ``report_quote`` when it is what a
    report's claim puts in quotation marks), the pinned text of the work it cites (``full_text``,
    ``page``, ``abstract``), or nothing (``none``, ``text`` None)."""

    text: str | None
    basis: str


# Parts of a claim's text that cite rather than state: a bracketed citation that names a year or
# an identifier ([Deloitte, 2023], [arXiv:2502.03671v1]), a numbered marker ([2], [1, 3]), a
# parenthesised author-year citation ((Vaswani et al., 2017; Lee, 2019a), (van der Maaten & Hinton,
# 2008, p. 3)), an identifier or URL, and the number a heading or list item starts with (3.2 Results).
_YEAR = r"(?:1[5-9]|20)\d{2}[a-z]?"
_PARTICLES = r"(?:(?:van|von|de|der|den|del|della|la|le|di|da|du|dos|al|el|ten|ter)\s+)*"
_NUMBERED = r"\[\d{1,3}(?:\s*[,;–-]\s*\d{1,3}){0,20}\]"
#: A numbered citation marker in a claim's text: ``[2]``, ``[1, 3]``, ``[4–6]`` (not ``[2.5]``).
NUMBERED_MARKER = re.compile(_NUMBERED)
_CITING = re.compile(
    # [Deloitte, 2023], [arXiv:2502.03671v1], [10.1000/x]
    r"\[[^\[\]\n]{0,200}?(?:\b"
    + _YEAR
    + r"|\d{4}\.\d{4,5}|10\.\d{4,9}/)[^\[\]\n]{0,200}\]"
    # a numbered marker in a claim's own text: [2], [1, 3], [4–6] (a Markdown report's are cut already)
    + r"|"
    + _NUMBERED
    # (Vaswani et al., 2017), (van der Maaten & Hinton, 2008, p. 3), (see Lee 2019a; Kim, 2020)
    + r"|\((?:(?i:see|cf\.|e\.g\.,?)\s+)?"
    + _PARTICLES
    + r"[A-Z][^()\n]{0,150}?,?\s+"
    + _YEAR
    + r"(?:[,;][^()\n]{0,150})?\)"
    # identifiers and URLs
    r"|(?i:\barXiv:|\bdoi:)\s*\S+|(?i:\bhttps?://)\S+|\b10\.\d{4,9}/\S+"
    # the section number a heading or a numbered item starts with: "3.2 Results", "4. Methods"
    r"|^\s*(?:#+\s*)?(?:\d+(?:\.\d+)+|\d+\.)(?=\s+[A-Z])"
)


def stated_text(claim_text: str, markers: Iterable[str] = ()) -> str:
    """The claim's text without what cites rather than states (see ``_CITING``), each cut
    replaced by a space so the numbers on either side stay apart."""
    for marker in markers:
        if marker:
            claim_text = claim_text.replace(marker, " ")
    return _CITING.sub(" ", claim_text)


def check_numbers(
    claim_text: str,
    texts: list[NumberText],
    own_years: Iterable[int],
    make: FindingMaker,
    markers: Iterable[str] = (),
) -> list[Finding]:
    """The claim's numbers in none of ``texts`` (one per citation): ``E_NUMBER_UNSUPPORTED`` when
    every citation was read in a quote or in full, ``W_NUMBER_NOT_IN_QUOTE`` when some quote is a
    report's own quotation marks (``report_quote``), ``W_NUMBER_NOT_IN_ABSTRACT`` when some was
    read only in an abstract, ``I_NUMBERS_NOT_CHECKED`` when some not at all."""
    mentions = extract_numbers(stated_text(claim_text, markers))
    if not mentions:
        return []
    years = {Decimal(y) for y in own_years}
    supported = _values(m for t in texts if t.text is not None for m in extract_numbers(t.text))
    missing: dict[str, None] = {}  # in order of first mention, each once (a list scan was quadratic)
    for mention in mentions:
        if any(r <= supported for r in mention.readings):
            continue
        if any(r <= years for r in mention.readings) and re.fullmatch(r"\d{4}", mention.text):
            continue
        missing[mention.label] = None
    if not missing:
        return []
    numbers = ", ".join(missing)
    bases = {t.basis for t in texts}
    if "none" in bases:
        unread = sum(1 for t in texts if t.text is None)
        message = (
            f"the claim's number(s) {numbers} were not checked: "
            + ("its citation gives" if len(texts) == 1 else f"{unread} of its {len(texts)} citations give")
            + " no quote, and no text of the cited work is pinned"
        )
        return [make("I_NUMBERS_NOT_CHECKED", message, detail=",".join(missing))]
    suggestion = {"numbers": list(missing)}
    if "report_quote" in bases:
        # A report's quotation marks may hold a title or a name, not the evidence: no verdict.
        message = (
            f"the claim's number(s) {numbers} are not in the words it puts in quotation marks"
            + ("" if len(texts) == 1 else " nor in what was read of its other citations")
            + "; a report's quotation marks may hold a title or a name rather than the evidence, "
            "so this is not called wrong: quote the passage that gives the number"
        )
        return [make("W_NUMBER_NOT_IN_QUOTE", message, detail=",".join(missing), suggestion=suggestion)]
    if "abstract" in bases:
        message = (
            f"the claim's number(s) {numbers} are not in the abstract of the cited work"
            + ("" if len(texts) == 1 else " nor in what was read of its other citations")
            + "; the full text was not read"
        )
        return [make("W_NUMBER_NOT_IN_ABSTRACT", message, detail=",".join(missing), suggestion=suggestion)]
    where = _where(texts)
    return [
        make(
            "E_NUMBER_UNSUPPORTED",
            f"the claim's number(s) {numbers} do not occur in {where}",
            detail=",".join(missing),
            suggestion=suggestion,
        )
    ]


def _where(texts: list[NumberText]) -> str:
    """What was read, as the message says it: the seed's words for quotes alone."""
    quotes = sum(1 for t in texts if t.basis == "quote")
    if quotes == len(texts):
        return "its quote" if quotes == 1 else f"any quote of its {quotes} citations"
    if len(texts) == 1:
        return "the page of the cited work" if texts[0].basis == "page" else "the full text of the cited work"
    return f"any quote or text of the cited works of its {len(texts)} citations"
