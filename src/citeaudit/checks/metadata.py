"""Title, year and first author as the agent wrote them, against the record.

No fuzzy pass: after normalisation the strings are equal or they are not.
The similarity score in a title suggestion is for the reader only.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from rapidfuzz import fuzz

from citeaudit.checks.codes import FindingMaker
from citeaudit.model import Finding
from citeaudit.normalize import clean_markup, fold_name, normalize_title, title_key, used_controls
from citeaudit.resolve.fields import is_particle, is_suffix, split_name
from citeaudit.resolve.interface import Author, Record

__all__ = [
    "author_keys",
    "check_controls",
    "check_first_author",
    "check_identifier_controls",
    "check_relations",
    "check_title",
    "check_year",
    "cited_name_keys",
    "display_author",
    "display_title",
    "main_title_keys",
    "unverifiable",
]

_SEPARATORS = " :.;,-"


def display_title(record: Record) -> str:
    """The record's title as a person would write it: markup gone, spaces collapsed."""
    title = " ".join(clean_markup(record.titles[0]).split()) if record.titles else ""
    if record.subtitles:
        title += ": " + " ".join(clean_markup(record.subtitles[0]).split())
    return title


# Where a title's main title ends and its subtitle begins, when a registry keeps them as one.
_SUBTITLE_SEP = re.compile(r"\s*[:?!]\s+|\s+[-–—]\s+")


def main_title_keys(record: Record) -> frozenset[str]:
    """The folded main titles of a record: each title without its subtitle ("Hyperband" of
    "Hyperband: A Novel Bandit-Based Approach…"; a title kept apart from its subtitle is one)."""
    keys = set()
    for title in record.titles:
        clean = clean_markup(title)
        head = _SUBTITLE_SEP.split(clean, maxsplit=1)[0]
        if head != clean or record.subtitles:
            keys.add(title_key(head if head != clean else clean))
    return frozenset(keys - {""})


def unverifiable(make: FindingMaker, field: str, record: Record) -> list[Finding]:
    return [
        make(
            "W_METADATA_UNVERIFIABLE",
            f"the {record.agency} record gives no {field}, so the cited {field} was not compared",
            detail=field,
        )
    ]


def check_controls(field: str, text: str, make: FindingMaker) -> list[Finding]:
    """Bidirectional controls and variation selectors in a cited title or quote: a finding of
    their own, as they make text display as something it is not (an override shows a reversed
    title as the registry's)."""
    found = used_controls(text)
    if not found:
        return []
    return [
        make(
            "W_DISPLAY_CONTROLS",
            f"the cited {field} holds {', '.join(found)}, which change how it displays",
            detail=field,
            suggestion={"characters": found},
        )
    ]


def check_identifier_controls(kind: str, identifier: str, make: FindingMaker) -> list[Finding]:
    """Display controls in a cited identifier (``10.1000/\u202eabc`` shows as another DOI): the same
    W_DISPLAY_CONTROLS as a title's, naming the characters as ``U+202E``, never echoing them."""
    return check_controls(kind, identifier, make)


def check_title(cited: str, record: Record, make: FindingMaker) -> list[Finding]:
    findings = check_controls("title", cited, make)
    if not record.titles:
        return findings + unverifiable(make, "title", record)
    agent = normalize_title(cited)
    titles = [normalize_title(t) for t in record.titles]
    subtitles = [normalize_title(s) for s in record.subtitles]
    for title in titles:
        if agent == title:
            return findings
        # Title + subtitle, joined by whatever separator the agent chose.
        if subtitles and agent.startswith(title):
            rest = agent[len(title) :].lstrip(_SEPARATORS)
            if rest and rest in subtitles and rest != agent[len(title) :]:
                return findings
    # Still exact, once diacritics, spaces, dashes and punctuation are folded out: "Cafe" is
    # "Café", "GPT4" is "GPT-4", and a title and subtitle may be joined by anything.
    key = title_key(cited)
    keys = {title_key(t) for t in record.titles}
    if key and (key in keys or key in {f"{t} {title_key(s)}" for t in keys for s in record.subtitles}):
        return findings
    # The short title people cite a work by: its main title without the subtitle ("Hyperband").
    if key and key in main_title_keys(record):
        return findings
    candidates = titles + [f"{t}: {s}" for t in titles for s in subtitles]
    similarity = max(fuzz.ratio(agent, c) for c in candidates) / 100
    mismatch = make(
        "E_TITLE_MISMATCH",
        f"the title differs from the {record.agency} record's",
        suggestion={"similarity": round(similarity, 3), "title": display_title(record)},
    )
    return [*findings, mismatch]


def check_year(
    cited: int, record: Record, make: FindingMaker, related: Sequence[Record] = ()
) -> list[Finding]:
    """The cited year against the record's; ``related``: other records of the same work (its
    preprint copy), named when the cited year is theirs ("the year of the preprint")."""
    if not record.years:
        return unverifiable(make, "year", record)
    if cited in record.year_values:
        return []
    listed = ", ".join(str(y) for y in record.year_values)
    message = f"{cited} is not a year of the work (the record has {listed})"
    other = next((r for r in related if cited in r.year_values), None)
    if other is not None:
        venue = other.container[0] if other.container else other.agency
        message = (
            f"{cited} is the year of another version of the work ({venue}"
            f"{', ' + other.doi if other.doi else ''}), not of the one cited (the record has {listed})"
        )
    return [make("E_YEAR_MISMATCH", message, suggestion={"years": dict(record.years)})]


# "I.", "I.V.", "J.-P." or a lone letter: an initial, not a name.
_INITIAL_RE = re.compile(r"^(?:[^\W\d_]\.-?)+$|^[^\W\d_]$")


def _family_readings(words: list[str]) -> set[str]:
    """Keys of a family name given as words: itself, without a generational suffix
    (``Smith Jr.`` → ``Smith``) and without its leading particles (``Van Bavel`` → ``Bavel``)."""
    variants = [words]
    if len(words) > 1 and is_suffix(words[-1]):
        variants.append(words[:-1])
    for variant in list(variants):
        start = 0
        while start < len(variant) - 1 and is_particle(variant[start]):
            start += 1
        if start:
            variants.append(variant[start:])
    return {_key(" ".join(v)) for v in variants}


def _trailing_particles(words: list[str]) -> list[str]:
    """The particles at the end of given names (``Jay J. Van``): they open the family name."""
    start = len(words)
    while start > 0 and is_particle(words[start - 1]):
        start -= 1
    return words[start:]


def _readings(tokens: list[str]) -> set[str]:
    """The family-name readings of the words of a name without a comma, initials left out:
    all of it, the last word (with the particles before it, and without them), the first
    (family names first), and all but the first (``Juan de la Cruz`` → ``de la Cruz``)."""
    start = len(tokens) - 1
    while start > 0 and is_particle(tokens[start - 1]):
        start -= 1
    keys = {_key(" ".join(tokens)), _key(tokens[-1])} | _family_readings(tokens[start:])
    if len(tokens) > 1 and not (is_particle(tokens[0]) or is_suffix(tokens[0])):
        keys.add(_key(tokens[0]))
    if len(tokens) > 2:
        keys.add(_key(" ".join(tokens[1:])))
    return keys


# "et al." and "and others" are words of their own, after a space or a comma or as the whole
# entry, never the end of a word: "Zapletal", "Chetal", "Vetal" are names.
_ET_AL_RE = re.compile(r"(?<![^\s,])(?:et\.?\s*al\.?|and\s+others)$", re.IGNORECASE)


def _without_et_al(name: str) -> str:
    """``name`` without a trailing "et al." / "and others" and the comma and spaces before it.
    Spaces are stripped by hand: a pattern opening with ``\\s*`` retries from every position
    of a long run of spaces (20,000 of them: 15 s)."""
    tail = name.rstrip()
    found = _ET_AL_RE.search(tail)
    if found is None:
        return name
    head = tail[: found.start()].rstrip()
    return head[:-1].rstrip() if head.endswith(",") else head


@lru_cache(maxsize=16384)  # a name is cited by every citation of its work, often many times
def cited_name_keys(cited: str) -> frozenset[str]:
    """The family-name readings of "Family", "Family, I.", "I. Family", "Given Family",
    with particles ("Van Bavel, J.", "Bavel, Jay Van") and suffixes ("Smith Jr., John",
    "J. Smith, Jr.", "Robert Downey IV")."""
    head, comma, tail = (_without_et_al(cited).strip() or cited).partition(",")  # "Van Bavel et al."
    tail_words = tail.replace(",", " ").split()
    if comma and tail_words and all(is_suffix(w) for w in tail_words):
        head, comma, tail_words = f"{head} {' '.join(tail_words)}", "", []  # "J. Smith, Jr."
    if comma:
        family = head.split()
        keys = {_key(head)} | (_family_readings(family) if family else set())
        particles = _trailing_particles(tail_words)
        if particles and family:
            keys |= _family_readings(particles + family)
        return frozenset(keys - {""})
    tokens = [t for t in head.split() if not _INITIAL_RE.match(t)]
    if not tokens:
        return frozenset({_key(head)} - {""})
    core = list(tokens)
    while len(core) > 1 and is_suffix(core[-1]):
        core.pop()  # "John Smith Jr.", "Robert Downey IV"
    keys = _readings(tokens) | _readings(core) | {_key(head)}
    words = head.split()
    if len(words) > 1 and _INITIAL_RE.match(words[-1]):
        keys.add(_key(words[-1]))  # a family name of initials: "Mallikarjun B. R."
    return frozenset(keys - {""})


def _key(name: str) -> str:
    return fold_name(name).replace("-", " ").replace("  ", " ").strip()


def _has_word(text: str | None) -> bool:
    """Not empty and not a placeholder: Crossref gives single-name authors the family ``-`` or ``.``."""
    return text is not None and any(c.isalnum() for c in text)


def _person(author: Author) -> tuple[str | None, str | None, tuple[str, ...]]:
    """``(family, given, names written in one string)``: a placeholder family (``-``, ``.``) or
    none at all with a given name means the whole name is in ``given`` (a single-name author)."""
    family = author.family if _has_word(author.family) else None
    given = author.given if _has_word(author.given) else None
    names = tuple(n for n in (author.name,) if n)
    if family is None and given is not None:
        return None, None, (*names, given)
    return family, given, names


@lru_cache(maxsize=16384)  # every citation of a work reads the same record's authors
def author_keys(author: Author) -> frozenset[str]:
    family, given, names = _person(author)
    keys = set()
    if family:
        words = family.split()
        keys |= _family_readings(words)
        # Some records put initials into the family field ("M. Vale").
        bare = [t for t in words if not _INITIAL_RE.match(t)]
        if bare and len(bare) < len(words):
            keys |= _family_readings(bare)
        if given:
            keys.add(_key(f"{given} {family}"))
            if len(words) > 1 and is_suffix(words[-1]):
                keys.add(_key(f"{given} {' '.join(words[:-1])}"))
            # Some records leave the particle with the given names: given "Jay J. Van", family "Bavel".
            particles = _trailing_particles(given.split())
            if particles:
                keys |= _family_readings(particles + words)
    for name in names:
        keys.add(_key(name))  # an organisation, or a person as one string
        if not family:
            _, last = split_name(name)
            keys |= _family_readings(last.split()) if last else set()
    # German umlauts as they are written without them: "Schoelkopf" is "Schölkopf".
    if family and _UMLAUTS.search(family):
        keys |= _family_readings(_transliterate(family).split())
    return frozenset(keys - {""})


_UMLAUTS = re.compile("[äöüÄÖÜ]|[aouAOU]\u0308")
_UMLAUT_LETTERS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue"})


def _transliterate(name: str) -> str:
    return unicodedata.normalize("NFC", name).translate(_UMLAUT_LETTERS)


def display_author(author: Author) -> str:
    """``Family, Given`` as a suggestion shows it; a single-name author by that name."""
    family, given, names = _person(author)
    if family:
        return f"{family}, {given}" if given else family
    return names[0] if names else ""


def _first_index(record: Record) -> int:
    for i, author in enumerate(record.authors):
        if author.sequence == "first":
            return i
    return 0


def check_first_author(cited: str, record: Record, make: FindingMaker) -> list[Finding]:
    if not record.authors:
        return unverifiable(make, "author", record)
    keys = cited_name_keys(cited)
    matches = [i for i, a in enumerate(record.authors) if keys & author_keys(a)]
    first = _first_index(record)
    if 0 in matches or first in matches:
        return []
    expected = display_author(record.authors[first])
    if matches:
        return [
            make(
                "W_AUTHOR_NOT_FIRST",
                f"{cited!r} is author {matches[0] + 1} of {len(record.authors)}, not the first",
                suggestion={"first_author": expected},
            )
        ]
    return [
        make(
            "E_AUTHOR_MISMATCH",
            f"{cited!r} is not an author of the work",
            suggestion={"first_author": expected},
        )
    ]


# Crossref update types that take the work back; everything else is a correction of some kind.
_WITHDRAWING = {"retraction", "withdrawal", "removal"}


def check_relations(record: Record, make: FindingMaker) -> list[Finding]:
    """Retracted, corrected or superseded works, and preprints since published."""
    findings: list[Finding] = []
    for rel in record.relations:
        if rel.doi == record.doi:
            continue  # registries sometimes list a work as its own update
        if rel.relation == "updated-by":
            kind = (rel.type or "update").lower()
            by = f" by {rel.doi}" if rel.doi else ""
            if kind in _WITHDRAWING:
                findings.append(
                    make(
                        "E_RETRACTED",
                        f"the cited work is subject to a {kind}{by}",
                        suggestion={"notice": rel.doi},
                    )
                )
            else:
                findings.append(
                    make(
                        "W_UPDATED",
                        f"the cited work has a {kind.replace('_', ' ')}{by}",
                        suggestion={"type": kind, "doi": rel.doi},
                    )
                )
        elif rel.relation == "is-preprint-of" and rel.doi:
            findings.append(
                make(
                    "W_PREPRINT_PUBLISHED",
                    f"the cited work is a preprint, published as {rel.doi}",
                    suggestion={"doi": rel.doi},
                )
            )
    return findings
