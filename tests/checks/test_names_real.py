"""Every author of every recorded registry record (Crossref works, DataCite, doi.org CSL-JSON),
written as people write names: ``Given Family``, ``G. Family`` and ``Family, Given``; with a
generational suffix on either side; with a particle before the family name; and as a
single-name author (Crossref's family ``-`` or ``.`` with the name in ``given``). No name is
ever read as a truncated list, and each matches itself."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from citeaudit.checks.bibliographic import _split_truncation, check_authors
from citeaudit.checks.codes import FindingMaker
from citeaudit.checks.metadata import check_first_author
from citeaudit.resolve.crossref import record_from_message
from citeaudit.resolve.csl import record_from_csl
from citeaudit.resolve.datacite import record_from_datacite
from citeaudit.resolve.interface import Author, Record
from tests.conftest import read_jsonl, shared_data

MAKE = FindingMaker()


def registry_records() -> list[Record]:
    works = read_jsonl(shared_data("registry", "crossref_works.jsonl"))
    datacite = read_jsonl(shared_data("registry", "datacite_dois.jsonl"))
    csl = read_jsonl(shared_data("registry", "csl_json_content_negotiation.jsonl"))
    return (
        [record_from_message(r["message"]) for r in works if not r["partial_select"]]
        + [record_from_datacite(r["response"]["data"]["attributes"]) for r in datacite]
        + [record_from_csl(r["csl"], "doi.org") for r in csl if isinstance(r.get("csl"), dict)]
    )


def _initials(given: str) -> str:
    return " ".join(f"{w[0]}." for w in given.replace("-", " ").split() if w[0].isalpha()) or given


def forms(author: Author) -> list[str]:
    """The ways a careful citer writes this author."""
    family, given = author.family, author.given
    if not family:
        return [author.name] if author.name else []
    if not given:
        return [family]
    return [f"{given} {family}", f"{_initials(given)} {family}", f"{family}, {given}"]


def mismatches(work: Record, cited: str) -> list[str]:
    """The errors a citation naming ``cited`` among the authors of ``work`` gets."""
    found = check_authors([cited], work, MAKE) + check_first_author(cited, work, MAKE)
    return [f"{f.code}: {f.message}" for f in found if f.severity == "error"]


@pytest.fixture(scope="module")
def records() -> list[Record]:
    return registry_records()


@pytest.fixture(scope="module")
def people(records: list[Record]) -> list[tuple[Record, Author]]:
    out = [(r, a) for r in records for a in r.authors if a.family]
    assert len(out) > 2000
    assert len({a.family for _, a in out}) > 1500
    return out


def test_no_real_name_is_read_as_truncated_and_each_matches_itself(
    people: list[tuple[Record, Author]],
) -> None:
    truncated: list[str] = []
    wrong: dict[str, list[str]] = {}
    tried = 0
    for work, author in people:
        for cited in forms(author):
            tried += 1
            if _split_truncation([cited]) != ([cited], False):
                truncated.append(cited)
            found = mismatches(work, cited)
            if found:
                wrong[f"{work.doi}: {cited}"] = found
    assert (truncated, wrong) == ([], {})
    assert tried > 6000


_SUFFIXES = ("Jr.", "Jr", "Sr.", "III", "IV")


def test_a_suffix_on_either_side(people: list[tuple[Record, Author]]) -> None:
    """``John Smith Jr.`` / ``Smith Jr., John`` / ``J. Smith, Jr.`` against the record's plain
    name, and the plain name against a family ``Smith Jr.``."""
    wrong: dict[str, list[str]] = {}
    for i, (work, author) in enumerate(people):
        suffix = _SUFFIXES[i % len(_SUFFIXES)]
        family, given = author.family, author.given or ""
        cited_forms = [f"{family} {suffix}", f"{family} {suffix}, {given}".rstrip(", ")]
        if given:
            cited_forms += [f"{given} {family} {suffix}", f"{_initials(given)} {family}, {suffix}"]
        for cited in cited_forms:
            if found := mismatches(work, cited):
                wrong[f"{work.doi}: {cited}"] = found
        suffixed = replace(author, family=f"{family} {suffix}")
        other = replace(work, authors=tuple(suffixed if a is author else a for a in work.authors))
        for cited in forms(author):
            if found := mismatches(other, cited):
                wrong[f"{work.doi} (family {suffixed.family!r}): {cited}"] = found
    assert wrong == {}


_PARTICLES = ("van", "de", "Van", "Del", "von", "da", "van der", "de la")


def test_a_particle_in_the_family_name_or_left_with_the_given_names(
    people: list[tuple[Record, Author]],
) -> None:
    """Each real name with a particle put before it (``Van Bavel``): cited with the particle,
    in every form, against a record that has it in the family name and one that left it with
    the given names (given ``Jay J. Van``, family ``Bavel``)."""
    wrong: dict[str, list[str]] = {}
    for i, (work, author) in enumerate(people):
        if not author.given:
            continue
        particle = _PARTICLES[i % len(_PARTICLES)]
        with_particle = replace(author, family=f"{particle} {author.family}")
        in_given = replace(author, given=f"{author.given} {particle}")
        for variant in (with_particle, in_given):
            other = replace(work, authors=tuple(variant if a is author else a for a in work.authors))
            for cited in forms(with_particle):
                if found := mismatches(other, cited):
                    wrong[f"{work.doi} ({variant.given!r} / {variant.family!r}): {cited}"] = found
    assert wrong == {}


@pytest.mark.parametrize("placeholder", ["-", "."])
def test_every_real_name_as_a_single_name_author(
    people: list[tuple[Record, Author]], placeholder: str
) -> None:
    """Crossref's single-name authors: family ``-`` or ``.``, the name in ``given``. Each real
    family name, so recorded, is matched when cited alone."""
    wrong: dict[str, list[str]] = {}
    for work, author in people:
        single = replace(author, family=placeholder, given=author.family)
        other = replace(work, authors=tuple(single if a is author else a for a in work.authors))
        name = str(author.family)
        if found := mismatches(other, name):
            wrong[f"{work.doi}: {name}"] = found
    assert wrong == {}


def _first_word(records: list[Record]) -> dict[str, Any]:
    return {r.doi: r.authors[0] for r in records if r.authors}


def test_a_stranger_is_still_a_stranger(records: list[Record]) -> None:
    """The readings added for suffixes, particles and single names match no one else."""
    tried = 0
    passed: list[str] = []
    for work in records:
        if not any(a.family or a.name or a.given for a in work.authors):
            continue
        for cited in ("Zzyzxwvutsky Jr.", "J. van Zzyzxwvutsky", "Zzyzxwvutsky, J., III", "de Zzyzx"):
            tried += 1
            if not mismatches(work, cited):
                passed.append(f"{work.doi}: {cited}")
    assert passed == []
    assert tried > 1500
