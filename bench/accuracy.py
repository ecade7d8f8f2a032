"""Benchmark: verdict accuracy on real records. Careful citations of every recorded registry
record (``../shared/data/registry/``: Crossref works, DataCite, doi.org CSL-JSON), written in
the ways people write them, must get no error (a false positive is the worst bug an audit can
have); and HALLMARK's fabricated references (``../shared/data/references/hallmark/``), checked
offline against the real entry they were made from, must still be caught."""

from __future__ import annotations

import json
import re
import tempfile
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from pylatexenc.latex2text import LatexNodes2Text
from pylatexenc.latexencode import UnicodeToLatexEncoder

from citeaudit.checks.bibliographic import VENUE_ALIASES, check_work
from citeaudit.checks.codes import FindingMaker
from citeaudit.checks.metadata import check_first_author, check_title, check_year, display_title
from citeaudit.formats import load_submission
from citeaudit.model import WorkSource
from citeaudit.normalize import clean_markup
from citeaudit.resolve.crossref import record_from_message
from citeaudit.resolve.csl import record_from_csl
from citeaudit.resolve.datacite import record_from_datacite
from citeaudit.resolve.interface import Author, Record

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
MAKE = FindingMaker()
_ENCODE = UnicodeToLatexEncoder(non_ascii_only=True, replacement_latex_protection="braces-all")


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def records() -> list[Record]:
    reg = DATA / "registry"
    return (
        [record_from_message(r["message"]) for r in _jsonl(reg / "crossref_works.jsonl") if not r["partial_select"]]
        + [record_from_datacite(r["response"]["data"]["attributes"]) for r in _jsonl(reg / "datacite_dois.jsonl")]
        + [record_from_csl(r["csl"], "doi.org") for r in _jsonl(reg / "csl_json_content_negotiation.jsonl")
           if isinstance(r.get("csl"), dict)]
    )  # fmt: skip


def findings(source: WorkSource, record: Record) -> list[Any]:
    out = []
    if source.title is not None:
        out += check_title(source.title, record, MAKE)
    if source.year is not None:
        out += check_year(source.year, record, MAKE)
    if source.first_author is not None:
        out += check_first_author(source.first_author, record, MAKE)
    return out + check_work(source, record, MAKE)


def _errors(source: WorkSource, record: Record) -> list[str]:
    return [f.code for f in findings(source, record) if f.severity == "error"]


# -- the ways careful people write a citation -------------------------------------------------


def _initials(given: str) -> str:
    return " ".join(f"{w[0]}." for w in given.replace("-", " ").split() if w[0].isalpha()) or given


def _forms(a: Author) -> list[str]:
    if not a.family:
        return [a.name] if a.name else []
    if not a.given:
        return [a.family]
    return [f"{a.given} {a.family}", f"{_initials(a.given)} {a.family}", f"{a.family}, {a.given}"]


def _by_authors(record: Record, form: int, authors: tuple[Author, ...] | None = None) -> WorkSource | None:
    written = [f[form % len(f)] for a in (authors or record.authors) if (f := _forms(a))]
    if not written:
        return None
    return WorkSource(identifier=record.doi, first_author=written[0], authors=tuple(written))


def _names(rs: list[Record]) -> Iterator[tuple[WorkSource, Record]]:
    for r in rs:
        for form in range(3):
            if (s := _by_authors(r, form)) is not None:
                yield s, r


_SUFFIXES = ("Jr.", "Sr.", "III", "IV")


def _suffixes(rs: list[Record]) -> Iterator[tuple[WorkSource, Record]]:
    """Each author with a suffix on the citation's side, then on the record's side."""
    for i, r in enumerate(rs):
        people = [a for a in r.authors if a.family and a.given]
        if not people:
            continue
        suffix = _SUFFIXES[i % len(_SUFFIXES)]
        cited = tuple(replace(a, family=f"{a.family} {suffix}") if a in people else a for a in r.authors)
        for form in range(3):
            if (s := _by_authors(r, form, cited)) is not None:
                yield s, r
                yield replace(s, authors=s.authors), replace(r, authors=cited)


_PARTICLES = ("van", "de", "Van", "Del", "von", "da", "van der", "de la")


def _particles(rs: list[Record]) -> Iterator[tuple[WorkSource, Record]]:
    """Each author with a particle: cited with it, against a record with it in the family name
    and one that left it with the given names."""
    for i, r in enumerate(rs):
        people = [a for a in r.authors if a.family and a.given]
        if not people:
            continue
        p = _PARTICLES[i % len(_PARTICLES)]
        cited = tuple(replace(a, family=f"{p} {a.family}") if a in people else a for a in r.authors)
        in_given = tuple(replace(a, given=f"{a.given} {p}") if a in people else a for a in r.authors)
        for form in range(3):
            if (s := _by_authors(r, form, cited)) is not None:
                yield s, replace(r, authors=cited)
                yield s, replace(r, authors=in_given)


def _single_names(rs: list[Record]) -> Iterator[tuple[WorkSource, Record]]:
    """Each author recorded as Crossref records a single-name author (family ``-``, the name in given)."""
    for i, r in enumerate(rs):
        people = [a for a in r.authors if a.family]
        if not people:
            continue
        mark = "-."[i % 2]
        single = tuple(replace(a, family=mark, given=a.family) if a in people else a for a in r.authors)
        written = tuple(str(a.family) for a in people)
        yield (
            WorkSource(identifier=r.doi, first_author=written[0], authors=written),
            replace(r, authors=single),
        )


def _latex(text: str) -> str:
    escaped = "".join("\\" + c if c in "&%$#_" else c for c in " ".join(text.split()))
    return str(_ENCODE.unicode_to_latex(escaped))


def _bib_name(a: Author) -> str | None:
    if a.family:
        return f"{a.family}, {a.given}" if a.given else a.family
    return "{" + a.name + "}" if a.name else None


def _bibtex(rs: list[Record]) -> Iterator[tuple[WorkSource, Record]]:
    """Each record as a LaTeX-exporting reference manager writes it, read back by ``check``'s parser."""
    chosen, parts = {}, []
    for i, r in enumerate(rs):
        names = [n for n in (_bib_name(a) for a in r.authors) if n]
        if not r.titles or " and " in " ".join(names):
            continue
        fields = {"doi": r.doi, "title": "{" + _latex(display_title(r)) + "}"}
        if names:
            fields["author"] = " and ".join(_latex(n) for n in names)
        if r.years:
            fields["year"] = str(r.years[0][1])
        if r.container:
            fields["journal"] = _latex(clean_markup(r.container[0]))
        chosen[f"r{i}"] = r
        parts.append(
            f"@article{{r{i},\n" + ",\n".join(f"  {k} = {{{v}}}" for k, v in fields.items()) + "\n}\n"
        )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "registry.bib"
        path.write_text("".join(parts), "utf-8")
        claims = load_submission(path).claims
    for claim in claims:
        source = claim.citations[0].source
        assert isinstance(source, WorkSource)
        yield replace(source, type=None), chosen[claim.id]


_STOP = {"of", "the", "on", "in", "and", "for", "a", "an", "&"}


def _abbreviated(name: str) -> str:
    """ISO 4-style truncation: stop words out, each longer word cut to its first four letters."""
    words = [w for w in " ".join(clean_markup(name).split()).split() if w.lower() not in _STOP]
    return " ".join(w[:4] + "." if len(w) > 5 and w.isalpha() else w for w in words)


def _venues(rs: list[Record]) -> Iterator[tuple[WorkSource, Record]]:
    """Each container by its record's short title, abbreviated word by word, and, where the
    alias table knows it, by its short name."""
    for r in rs:
        if not r.container or (r.type or "") in {"posted-content", "preprint"}:
            continue
        for short in r.short_container[:1]:
            yield WorkSource(identifier=r.doi, container=short), r
        yield WorkSource(identifier=r.doi, container=_abbreviated(r.container[0])), r
        words = " ".join(re.findall(r"[a-z0-9]+", clean_markup(r.container[0]).lower()))
        for alias, runs in VENUE_ALIASES.items():
            if any(f" {run} " in f" {words} " for run in runs):
                yield WorkSource(identifier=r.doi, container=alias.upper()), r


def _ascii(text: str) -> str:
    """Diacritics off Latin letters (as people type without them); other scripts' marks stay."""
    out: list[str] = []
    for c in unicodedata.normalize("NFD", text):
        if not (unicodedata.combining(c) and out and out[-1].isascii()):
            out.append(c)
    return unicodedata.normalize("NFC", "".join(out))


def _titles(rs: list[Record]) -> Iterator[tuple[WorkSource, Record]]:
    """Each title without its diacritics, with its hyphens dropped and its colons written as dashes."""
    for r in rs:
        if not r.titles:
            continue
        title = display_title(r)
        variants = {
            _ascii(title),
            re.sub(r"(?<=\w)[-\u2010\u2011](?=\w)", "", title),
            title.replace(": ", " -- "),
        }
        for v in sorted(variants - {title}):
            yield WorkSource(identifier=r.doi, title=v), r


WAYS: dict[str, tuple[str, Callable[[list[Record]], Iterator[tuple[WorkSource, Record]]]]] = {
    "names": ("every author as `Given Family`, `G. Family`, `Family, Given` (issue 18)", _names),
    "suffixes": ("a generational suffix on either side (`Smith Jr.` / `Smith`)", _suffixes),
    "particles": ("a surname particle (`Van Bavel`), or left with the given names", _particles),
    "single names": ("single-name authors (family `-` or `.`, the name in `given`)", _single_names),
    "bibtex latex": ("BibTeX with LaTeX accents (pylatexenc-encoded), read back", _bibtex),
    "venues": ("venues by short title, ISO 4-style abbreviation, short name", _venues),
    "titles": ("titles without diacritics, hyphens dropped, colon as `--`", _titles),
}


def careful(rs: list[Record]) -> dict[str, dict[str, Any]]:
    out = {}
    for name, (_, ways) in WAYS.items():
        tried, wrong, warned = 0, Counter[str](), 0
        for source, record in ways(rs):
            tried += 1
            found = findings(source, record)
            wrong.update({f.code for f in found if f.severity == "error"})
            warned += any(f.severity == "warning" for f in found)
            if any(f.severity == "error" for f in found):
                wrong["citations"] += 1
        out[name] = {"citations": tried, "with_error": wrong.pop("citations", 0), "codes": dict(wrong),
                     "with_warning": warned}  # fmt: skip
    return out


# -- HALLMARK: fabricated references against the real entry they were made from -------------------


_DECODE = LatexNodes2Text(math_mode="verbatim")


def _decode(value: str) -> str:
    """The entry's LaTeX as the Unicode a registry gives (pylatexenc, not the checker's parser)."""
    escaped = re.sub(r"(?<!\\)[%&]", lambda m: "\\" + m.group(), value)  # "&amp;" in HALLMARK's fields
    return " ".join(_DECODE.latex_to_text(escaped).split())


def _entry_record(row: dict[str, Any]) -> Record:
    """A record built from a real (VALID) HALLMARK entry, in Unicode as a registry gives it."""
    fields = row["fields"]
    authors = []
    for name in re.split(r"\s+and\s+", fields.get("author", "")):
        name = _decode(name)
        if not name or name.lower() == "others":
            continue
        if "," in name:
            family, given = (p.strip() for p in name.split(",", 1))
        else:  # DBLP's "Given Family": the last word
            given, _, family = name.rpartition(" ")
        authors.append(Author(family=family or None, given=given or None))
    venue = fields.get("journal") or fields.get("booktitle")
    year = str(fields.get("year", ""))
    return Record(
        doi=fields["doi"].lower(),
        agency="hallmark",
        titles=(_decode(fields["title"]),) if fields.get("title") else (),
        years=(("issued", int(year)),) if year.isdigit() else (),
        authors=tuple(authors),
        container=(_decode(venue),) if venue else (),
    )


def _bib(row: dict[str, Any]) -> str:
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in row["fields"].items())
    return f"@{row['bibtex_type']}{{{row['bibtex_key']},\n{body}\n}}\n"


def hallmark() -> dict[str, Any]:
    rows = _jsonl(DATA / "references" / "hallmark" / "dev_public.jsonl")
    rows = [r for r in rows if all(str(v).count("{") == str(v).count("}") for v in r["fields"].values())]
    valid = {r["fields"]["doi"].lower(): r for r in rows if r["label"] == "VALID" and r["fields"].get("doi")}
    hallucinated = [
        r for r in rows if r["label"] == "HALLUCINATED" and r["fields"].get("doi", "").lower() in valid
    ]
    out: dict[str, Any] = {}
    for label, chosen in (("VALID", list(valid.values())), ("HALLUCINATED", hallucinated)):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "hallmark.bib"
            seen, unique = set(), []
            for r in chosen:
                if r["bibtex_key"] not in seen:
                    seen.add(r["bibtex_key"])
                    unique.append(r)
            path.write_text("".join(_bib(r) for r in unique), "utf-8")
            claims = load_submission(path).claims
        passed, by_type, warned = 0, Counter[str](), Counter[str]()
        for claim, row in zip(claims, unique, strict=True):
            source = claim.citations[0].source
            assert isinstance(source, WorkSource)
            found = findings(source, _entry_record(valid[row["fields"]["doi"].lower()]))
            if not any(f.severity == "error" for f in found):
                passed += 1
                by_type[row.get("hallucination_type") or "valid"] += 1
                notes = {f.code for f in found if f.code in ("W_VENUE_MISMATCH", "W_AUTHORS_MISSING")}
                if any(f.code == "W_METADATA_UNVERIFIABLE" and f.detail == "venue" for f in found):
                    notes.add("the real entry names no venue")
                warned.update(notes or {"none of these"})
        out[label] = {
            "entries": len(unique),
            "no_error": passed,
            "no_error_by_type": dict(by_type),
            "no_error_warned": dict(warned),
        }
    return out  # fmt: skip


def run(quick: bool = False) -> dict[str, Any]:
    rs = records()
    if quick:
        rs = rs[: max(1, len(rs) // 10)]
    return {"records": len(rs), "careful": careful(rs), "hallmark": hallmark()}


def markdown(r: dict[str, Any]) -> str:
    lines = [
        f"Careful citations of the {r['records']} recorded registry records (Crossref works, DataCite, doi.org "
        "CSL-JSON in `../shared/data/registry/`), written in each of the ways below, checked against the "
        "record (title, year, first author, every author, venue as each gives them). A citation with an "
        "error is a false positive; the goal is zero. Warnings (an author order, a venue name the table "
        "does not know) are counted apart.",
        "",
        "| written as | citations | with an error | error codes | with a warning |",
        "|---|---:|---:|---|---:|",
    ]
    for name, (what, _) in WAYS.items():
        c = r["careful"][name]
        codes = ", ".join(f"{k} {v}" for k, v in sorted(c["codes"].items())) or "—"
        lines.append(f"| {what} | {c['citations']:,} | {c['with_error']} | {codes} | {c['with_warning']:,} |")
    h = r["hallmark"]
    v, f = h["VALID"], h["HALLUCINATED"]
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(f["no_error_by_type"].items())) or "—"
    warned = ", ".join(f"`{k}` {n}" for k, n in sorted(f["no_error_warned"].items())) or "—"
    lines += [
        "",
        "HALLMARK dev (`../shared/data/references/hallmark/`), offline: each real (VALID) entry with a DOI "
        "becomes the record, in Unicode; every entry citing that DOI is read by `check`'s BibTeX parser and "
        "checked against it. A real entry with an error is a false positive; a fabricated entry without "
        "one passed.",
        "",
        "| entries | count | with no error |",
        "|---|---:|---:|",
        f"| VALID | {v['entries']} | {v['no_error']} |",
        f"| HALLUCINATED (same DOI as a VALID entry) | {f['entries']} | {f['no_error']} |",
        "",
        f"Fabricated entries with no error, by HALLMARK's type: {kinds}; what they carry: {warned}. "
        "A venue that matches no name of the record's is a warning, not an error (venue names have more "
        "forms than any table), so an entry whose only fabrication is its venue passes with "
        "`W_VENUE_MISMATCH`; an author list cut short without `et al.` is `W_AUTHORS_MISSING`. The offline "
        "record has no type, so `E_PREPRINT_AS_PUBLISHED` (from a registry's `posted-content`) cannot fire here.",
    ]
    return "\n".join(lines)
