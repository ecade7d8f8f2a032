"""Title, year and first author as the agent wrote them, against the record.

No fuzzy pass: after normalisation the strings are equal or they are not.
The similarity score in a title suggestion is for the reader only.
"""

from __future__ import annotations

import re
from functools import lru_cache

from rapidfuzz import fuzz

from citeaudit.checks.codes import FindingMaker
from citeaudit.model import Finding
from citeaudit.normalize import clean_markup, fold_name, normalize_title
from citeaudit.resolve.interface import Author, Record

__all__ = [
    "author_keys",
    "check_first_author",
    "check_relations",
    "check_title",
    "check_year",
    "cited_name_keys",
    "display_title",
    "unverifiable",
]

_SEPARATORS = " :.;,-"


def display_title(record: Record) -> str:
    """The record's title as a person would write it: markup gone, spaces collapsed."""
    title = " ".join(clean_markup(record.titles[0]).split()) if record.titles else ""
    if record.subtitles:
        title += ": " + " ".join(clean_markup(record.subtitles[0]).split())
    return title


def unverifiable(make: FindingMaker, field: str, record: Record) -> list[Finding]:
    return [
        make(
            "W_METADATA_UNVERIFIABLE",
            f"the {record.agency} record gives no {field}, so the cited {field} was not compared",
            detail=field,
        )
    ]


def check_title(cited: str, record: Record, make: FindingMaker) -> list[Finding]:
    if not record.titles:
        return unverifiable(make, "title", record)
    agent = normalize_title(cited)
    titles = [normalize_title(t) for t in record.titles]
    subtitles = [normalize_title(s) for s in record.subtitles]
    for title in titles:
        if agent == title:
            return []
        # Title + subtitle, joined by whatever separator the agent chose.
        if subtitles and agent.startswith(title):
            rest = agent[len(title) :].lstrip(_SEPARATORS)
            if rest and rest in subtitles and rest != agent[len(title) :]:
                return []
    candidates = titles + [f"{t}: {s}" for t in titles for s in subtitles]
    similarity = max(fuzz.ratio(agent, c) for c in candidates) / 100
    return [
        make(
            "E_TITLE_MISMATCH",
            f"the title differs from the {record.agency} record's",
            suggestion={"similarity": round(similarity, 3), "title": display_title(record)},
        )
    ]


def check_year(cited: int, record: Record, make: FindingMaker) -> list[Finding]:
    if not record.years:
        return unverifiable(make, "year", record)
    if cited in record.year_values:
        return []
    listed = ", ".join(str(y) for y in record.year_values)
    return [
        make(
            "E_YEAR_MISMATCH",
            f"{cited} is not a year of the work (the record has {listed})",
            suggestion={"years": dict(record.years)},
        )
    ]


# "I.", "I.V.", "J.-P." or a lone letter: an initial, not a name.
_INITIAL_RE = re.compile(r"^(?:[^\W\d_]\.-?)+$|^[^\W\d_]$")


def cited_name_keys(cited: str) -> set[str]:
    """The family-name readings of "Family", "Family, I.", "I. Family"…"""
    if "," in cited:
        return {_key(cited.split(",", 1)[0])}
    tokens = [t for t in cited.split() if not _INITIAL_RE.match(t)]
    if not tokens:
        return {_key(cited)}
    keys = {_key(" ".join(tokens)), _key(tokens[-1]), _key(tokens[0])}
    if len(tokens) > 2:
        keys.add(_key(" ".join(tokens[1:])))  # "Juan de la Cruz" → "de la Cruz"
    return keys - {""}


def _key(name: str) -> str:
    return fold_name(name).replace("-", " ").replace("  ", " ").strip()


@lru_cache(maxsize=16384)  # every citation of a work reads the same record's authors
def author_keys(author: Author) -> frozenset[str]:
    keys = set()
    if author.family:
        keys.add(_key(author.family))
        # Some records put initials into the family field ("M. Vale").
        bare = [t for t in author.family.split() if not _INITIAL_RE.match(t)]
        if bare and len(bare) < len(author.family.split()):
            keys.add(_key(" ".join(bare)))
        if author.given:
            keys.add(_key(f"{author.given} {author.family}"))
    if author.name:
        keys.add(_key(author.name))  # an organisation, or a person as one string
        if not author.family:
            keys.add(_key(author.name.split()[-1]))
    return frozenset(keys - {""})


def _display(author: Author) -> str:
    if author.family:
        return f"{author.family}, {author.given}" if author.given else author.family
    return author.name or ""


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
    expected = _display(record.authors[first])
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
