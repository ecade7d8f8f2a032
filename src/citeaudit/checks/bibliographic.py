"""Deeper metadata checks: every author, the venue, volume, issue and pages,
and the kind of work. Each runs only when the citation gives the field; a
field the record lacks is "unverifiable", never a mismatch.

Defaults are chosen so that a careful human citation of a real record gives
no error: an incomplete or truncated author list is a warning, a stranger
among the authors is an error.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from citeaudit.checks.codes import CATALOGUE, FindingMaker
from citeaudit.checks.metadata import (
    _without_et_al as _without_et_al,  # the hostile-input bench and its test measure it here
)
from citeaudit.checks.metadata import (
    author_keys,
    cited_name_keys,
    display_author,
    unverifiable,
)
from citeaudit.model import DoiSource, Finding
from citeaudit.normalize import clean_markup, fold_name
from citeaudit.resolve.interface import Record

__all__ = [
    "VENUE_ALIASES",
    "check_authors",
    "check_numbers_of_issue",
    "check_type",
    "check_venue",
    "check_work",
    "cites_preprint",
    "distinct_known_venues",
    "is_arxiv_preprint",
    "known_venue",
    "venue_agrees",
    "venue_matches",
]

_TRUNCATION = {"others", "et al", "et al.", "and others", "etal"}


def _split_truncation(cited: Sequence[str]) -> tuple[list[str], bool]:
    names, truncated = [], False
    for name in cited:
        stripped = _without_et_al(name)
        if name.strip().lower() in _TRUNCATION or not stripped.strip():
            truncated = True
            continue
        if stripped != name:
            truncated = True
        names.append(stripped)
    return names, truncated


def check_authors(cited: Sequence[str], record: Record, make: FindingMaker) -> list[Finding]:
    """The cited author list against the record's: strangers, order, missing names."""
    if not any(author_keys(a) for a in record.authors):
        return unverifiable(make, "author list", record)
    names, truncated = _split_truncation(cited)
    keys = [k for k in (author_keys(a) for a in record.authors) if k]  # nameless entries say nothing
    used: set[int] = set()
    order: list[int] = []
    strangers: list[str] = []
    for name in names:
        wanted = cited_name_keys(name)
        match = next((i for i, k in enumerate(keys) if i not in used and wanted & k), None)
        if match is None:
            strangers.append(name)
        else:
            used.add(match)
            order.append(match)
    findings = []
    if strangers:
        listed = ", ".join(repr(s) for s in strangers)
        findings.append(
            make(
                "E_AUTHOR_NOT_ON_WORK",
                f"{listed} {'is' if len(strangers) == 1 else 'are'} not among the work's {len(keys)} authors",
                suggestion={"authors": [display_author(a) for a in record.authors]},
                detail=str(len(strangers)),
            )
        )
    if order != sorted(order):
        findings.append(
            make(
                "W_AUTHOR_ORDER",
                "the authors are cited in another order than the work lists them",
                suggestion={"authors": [display_author(a) for a in record.authors]},
            )
        )
    missing = len(keys) - len(used)
    if missing and truncated:
        findings.append(
            make(
                "W_AUTHORS_TRUNCATED",
                f"the list is truncated (et al.): {missing} of {len(keys)} authors not named",
            )
        )
    elif missing and not strangers:
        findings.append(
            make(
                "W_AUTHORS_MISSING",
                f"{missing} of the work's {len(keys)} authors are not cited, and the list is not "
                "marked et al.",
                suggestion={"authors": [display_author(a) for a in record.authors]},
            )
        )
    return findings


# -- venue -----------------------------------------------------------------------

PREPRINT_SERVERS = (
    "arxiv", "biorxiv", "medrxiv", "chemrxiv", "ssrn", "research square", "preprints.org", "psyarxiv",
    "socarxiv", "eartharxiv", "techrxiv", "osf preprints", "authorea", "engrxiv", "edarxiv", "preprints",
)  # fmt: skip
_PREPRINT_TYPES = {"posted-content", "preprint"}
_PUBLISHED_TYPES = {
    "journal-article",
    "proceedings-article",
    "book-chapter",
    "journalarticle",
    "conferencepaper",
}


def _venue_key(text: str) -> str:
    """Letters and digits only, 'and' for '&', no leading 'the': abbreviations compare by content."""
    folded = fold_name(clean_markup(text)).replace("&", " and ")
    folded = re.sub(r"^the\s+", "", folded)
    return re.sub(r"[^0-9a-z\u00c0-\uffff]+", "", folded.replace(" and ", " "))


def _is_preprint_server(venue: str) -> bool:
    key = fold_name(venue)
    if re.fullmatch(r"\s*corr\s*(abs/\S*)?\s*", key):  # DBLP's name of arXiv ("CoRR", "CoRR abs/1706.03762")
        return True
    return any(re.search(rf"(?<![a-z]){re.escape(s)}(?![a-z])", key) for s in PREPRINT_SERVERS)


def cites_preprint(container: str | None, kind: str | None) -> bool:
    """Whether a citation names a preprint: its venue is a preprint server (``arXiv``,
    ``arXiv preprint arXiv:1706.03762``, DBLP's ``CoRR``), or its kind of work is a preprint."""
    if container and _is_preprint_server(container):
        return True
    return (kind or "").strip().lower() in _PREPRINT_TYPES


def is_arxiv_preprint(record: Record) -> bool:
    """Whether a record is a preprint copy of a work: its type is a preprint (Crossref's
    ``posted-content``; DBLP's CoRR, ``publtype="informal"``), its DOI is arXiv's, or its venue
    is arXiv or CoRR."""
    if (record.type or "").lower() in _PREPRINT_TYPES or record.doi.startswith("10.48550/arxiv."):
        return True
    return any(_ARXIV_VENUE.search(c) for c in record.container)


# Venues cited by their common short names, and the words of their full names as registries
# write them (a record's container must hold one of these word runs). Documented in the README.
VENUE_ALIASES: dict[str, tuple[str, ...]] = {
    "neurips": ("neural information processing systems",),
    "nips": ("neural information processing systems",),
    "icml": ("international conference on machine learning",),
    "iclr": ("international conference on learning representations",),
    "cvpr": ("conference on computer vision and pattern recognition",),
    "iccv": ("international conference on computer vision",),
    "eccv": ("european conference on computer vision",),
    "acl": ("annual meeting of the association for computational linguistics",),
    "emnlp": ("empirical methods in natural language processing",),
    "naacl": ("north american chapter of the association for computational linguistics",),
    "aaai": ("aaai conference on artificial intelligence",),
    "ijcai": ("international joint conference on artificial intelligence",),
    "aistats": ("international conference on artificial intelligence and statistics",),
    "uai": ("conference on uncertainty in artificial intelligence",),
    "colt": ("conference on learning theory",),
    "kdd": ("knowledge discovery and data mining",),
    "sigir": ("research and development in information retrieval",),
    "www": ("world wide web conference", "the web conference"),
    "chi": ("conference on human factors in computing systems",),
    "icra": ("international conference on robotics and automation",),
    "iros": ("international conference on intelligent robots and systems",),
    "interspeech": ("interspeech",),
    "jmlr": ("journal of machine learning research",),
    "tmlr": ("transactions on machine learning research",),
    "tpami": ("transactions on pattern analysis and machine intelligence",),
    "pami": ("transactions on pattern analysis and machine intelligence",),
    "pnas": ("proceedings of the national academy of sciences",),
}
# Words around a short name that do not change the venue: "Proc. of NeurIPS 2020", "In ICML".
_VENUE_FILLER = {"proc", "proceedings", "of", "the", "in", "conf", "conference", "on", "annual", "intl",
                 "international", "advances"}  # fmt: skip
# Words an abbreviated title may leave out ("J. Mach. Learn. Res." = "Journal of Machine Learning Research").
_VENUE_STOP = {"of", "the", "on", "in", "and", "for", "a", "an", "de", "la", "fur", "und"}
_YEAR_OR_ORDINAL_RE = re.compile(r"^(?:\d+|\d+(?:st|nd|rd|th))$")
_ALIAS_YEAR_RE = re.compile(r"^([a-z]+?)(?:\d{2}|\d{4})$")  # "neurips2020", "icml23"


def _venue_words(text: str) -> list[str]:
    folded = fold_name(clean_markup(text)).replace("&", " and ")
    return re.findall(r"[0-9a-z\u00c0-\uffff]+", folded)


def _alias(words: list[str]) -> str | None:
    """The short name a venue is cited by, once years, ordinals and filler words are out."""
    rest = [w for w in words if w not in _VENUE_FILLER and not _YEAR_OR_ORDINAL_RE.match(w)]
    if len(rest) != 1:
        return None
    word = rest[0]
    if word not in VENUE_ALIASES and (m := _ALIAS_YEAR_RE.match(word)):
        word = m.group(1)
    return word if word in VENUE_ALIASES else None


def _holds(words: list[str], run: str) -> bool:
    wanted = run.split()
    return any(words[i : i + len(wanted)] == wanted for i in range(len(words) - len(wanted) + 1))


def _holds_abbreviated(words: list[str], run: str) -> bool:
    """The words hold the run abbreviated word for word, stop words, years and ordinals aside
    (``Proc. of the 39th Int. Conf. on Machine Learning`` holds ``international conference on
    machine learning``; ``Trans. Mach. Learn. Res.`` is ``transactions on machine learning
    research``). Runs of two words or more: one word's start says too little."""
    wanted = [w for w in run.split() if w not in _VENUE_STOP]
    ours = [w for w in words if w not in _VENUE_STOP and not _YEAR_OR_ORDINAL_RE.match(w)]
    if len(wanted) < 2:
        return False
    return any(
        all(_word_abbreviates(a, b) for a, b in zip(ours[i : i + len(wanted)], wanted, strict=True))
        for i in range(len(ours) - len(wanted) + 1)
    )


def _word_abbreviates(short: str, word: str) -> bool:
    """One title word abbreviated: the start of the word (``Int.`` for ``International``), or its
    ISO 4 abbreviation in the LTWA where the start is not it (``Natl.`` for ``National``). The
    LTWA is read on the first venue that needs it, never at start-up."""
    if word.startswith(short):
        return True
    from citeaudit.checks import iso4

    return iso4.abbreviation(word) == short


def _abbreviates(cited: list[str], full: list[str]) -> bool:
    """``Proc. of the 40th Int. Conf. on Machine Learning`` = ``Proceedings of the 40th
    International Conference on Machine Learning``, ``Proc. Natl. Acad. Sci.`` = ``Proceedings of
    the National Academy of Sciences``: word for word, stop words aside, each cited word the start
    of the full one or its ISO 4 abbreviation (numbers equal)."""
    ours = [w for w in cited if w not in _VENUE_STOP]
    theirs = [w for w in full if w not in _VENUE_STOP]
    if not ours or len(ours) != len(theirs):
        return False
    return all(
        a == b if (a.isdigit() or b.isdigit() or _YEAR_OR_ORDINAL_RE.match(a)) else _word_abbreviates(a, b)
        for a, b in zip(ours, theirs, strict=True)
    )


def _one_word_iso4(cited: list[str], full: list[str]) -> bool:
    """A one-word title and its ISO 4 abbreviation in the LTWA (``Nat.`` and ``Nature``, as DBLP
    names the journal): only the LTWA's own abbreviation, never the start of any word, so that
    ``Nat.`` is not read as ``National`` nor ``Science`` as ``Sci. Rep.``."""
    if len(cited) != 1 or len(full) != 1 or cited[0] == full[0]:
        return False
    from citeaudit.checks import iso4

    short, word = sorted((cited[0], full[0]), key=len)
    return iso4.abbreviation(word) == short != word


def venue_matches(cited: str, names: Sequence[str]) -> bool:
    """The cited venue is one of ``names`` (the record's container and short container titles):
    by letters and digits, as an abbreviation of one word for word, or by a short name of the
    alias table whose full name one of them holds (or the other way round)."""
    key = _venue_key(cited)
    if any(key == _venue_key(n) for n in names if _venue_key(n)):
        return True
    words = _venue_words(cited)
    theirs = [_venue_words(n) for n in names]
    if any(_abbreviates(words, t) for t in theirs):
        return True
    # The record may hold the abbreviation (DBLP's "Neural Comput." for "Neural Computation"); of
    # two words or more, so that one short word ("Nat.") is not read into any venue.
    if len(words) > 1 and any(_abbreviates(t, words) for t in theirs):
        return True
    if any(_one_word_iso4(words, t) for t in theirs):
        return True
    alias = _alias(words)
    if alias is not None and any(_holds(t, run) for t in theirs for run in VENUE_ALIASES[alias]):
        return True
    # Two short names of one venue ("NeurIPS" for DBLP's "NIPS"): their full names agree.
    if alias is not None and any(
        (a := _alias(t)) is not None and set(VENUE_ALIASES[a]) & set(VENUE_ALIASES[alias]) for t in theirs
    ):
        return True
    # A short name and the abbreviation of its full name ("JMLR" for "J. Mach. Learn. Res.").
    if alias is not None and any(
        _abbreviates(t, run.split()) for t in theirs for run in VENUE_ALIASES[alias] if len(t) > 1
    ):
        return True
    if any(
        (a := _alias(t)) is not None
        and len(words) > 1
        and any(_abbreviates(words, run.split()) for run in VENUE_ALIASES[a])
        for t in theirs
    ):
        return True
    return any(
        (a := _alias(t)) is not None
        and any(_holds(words, run) or _holds_abbreviated(words, run) for run in VENUE_ALIASES[a])
        for t in theirs
    )


# DBLP names the part of a proceedings in parentheses ("NAACL-HLT (1)", "ACL (Findings)"): the
# venue cited without it is the venue.
_VENUE_PART_RE = re.compile(r"\s*\([^()]{1,40}\)\s*$")


def known_venue(venue: str) -> str | None:
    """The full name of a venue the alias table knows, cited by its short name ("ICML 2020",
    "Proc. of NeurIPS") or its full name; None for any other venue."""
    words = _venue_words(_VENUE_PART_RE.sub("", venue))
    alias = _alias(words)
    if alias is not None:
        return VENUE_ALIASES[alias][0]
    found = {runs[0] for runs in VENUE_ALIASES.values() for run in runs if _holds_abbreviated(words, run)}
    found |= {runs[0] for runs in VENUE_ALIASES.values() for run in runs if _holds(words, run)}
    return found.pop() if len(found) == 1 else None


def distinct_known_venues(cited: str, record: Record) -> bool:
    """Whether the cited venue and every venue name of the record are known venues, and not the
    same one ("ICML" cited for a NeurIPS paper): a wrong venue, not another form of its name."""
    names = record.container + record.short_container
    if not names or venue_agrees(cited, record):
        return False
    ours = known_venue(cited)
    # A DBLP record of a mirror holds its own venue in its container, and the other names of its
    # DBLP stream (its venue's other names and sub-tracks) in its short container: its own decides.
    own = record.container if record.agency == "dblp" and record.container else names
    theirs = {known_venue(n) for n in own}
    return ours is not None and None not in theirs and ours not in theirs


def venue_agrees(cited: str, record: Record) -> bool:
    """The cited venue is the record's (:func:`venue_matches` over its container and short
    container, DBLP's part in parentheses aside), or both are arXiv (``arXiv`` for ``CoRR``)."""
    names = record.container + record.short_container
    parts = tuple(bare for n in names if (bare := _VENUE_PART_RE.sub("", n)) and bare != n)
    if venue_matches(cited, names + parts):
        return True
    return _is_arxiv_name(cited) and (
        any(_is_arxiv_name(n) for n in names) or record.doi.startswith("10.48550/arxiv.")
    )


def _is_arxiv_name(venue: str) -> bool:
    key = fold_name(venue)
    return bool(re.fullmatch(r"\s*corr\s*(abs/\S*)?\s*", key)) or bool(
        re.search(r"(?<![a-z])arxiv(?![a-z])", key)
    )


def check_venue(cited: str, record: Record, make: FindingMaker) -> list[Finding]:
    kind = (record.type or "").lower()
    names = record.container + record.short_container
    if venue_agrees(cited, record):
        return []
    if kind in _PREPRINT_TYPES and not _is_preprint_server(cited):
        return [
            make(
                "E_PREPRINT_AS_PUBLISHED",
                f"{cited!r} is cited as the venue, but the work is a preprint ({kind})",
                suggestion={"container": list(names), "type": record.type},
            )
        ]
    if _is_preprint_server(cited) and kind in _PUBLISHED_TYPES:
        return [
            make(
                "W_VENUE_PREPRINT_SERVER",
                f"{cited!r} is a preprint server; the work was published in "
                f"{names[0] if names else 'a venue'}",
                suggestion={"container": list(names)},
            )
        ]
    if not names:
        return unverifiable(make, "venue", record)
    # Two known venues, not the same ("ICML" for a NeurIPS paper): a wrong venue, where the
    # catalogue has the error for it.
    if "E_VENUE_MISMATCH" in CATALOGUE and distinct_known_venues(cited, record):
        return [
            make(
                "E_VENUE_MISMATCH",
                f"{cited!r} is cited as the venue; the work appeared in {names[0]}, another venue",
                suggestion={"container": list(names)},
            )
        ]
    # A warning: venue names have too many forms for a mismatch of names to prove a wrong citation.
    return [
        make(
            "W_VENUE_MISMATCH",
            f"{cited!r} is not a name of the work's venue that citeaudit knows",
            suggestion={"container": list(names)},
        )
    ]


# -- volume, issue, pages -------------------------------------------------------------

_NUMBER_PREFIX_RE = re.compile(r"^\s*(?:vol(?:ume)?|no|nr|num(?:ber)?|issue|pp?|pages?)\.?\s*", re.IGNORECASE)


def _plain_number(value: str) -> str:
    text = _NUMBER_PREFIX_RE.sub("", value).strip().casefold()
    return text.lstrip("0") or text if text.isdigit() else text


def _page_parts(text: str) -> list[str]:
    """The pieces of a page range between dashes. No ``\\s*`` around the dash, as the
    pieces are stripped: it made the split quadratic in a long run of spaces."""
    return [p.strip() for p in re.split(r"-+|–|—|‐|‑|\u2212", text) if p.strip()]


def _page_range(value: str) -> tuple[str, str | None]:
    """``123–130``, ``123-30`` (end abbreviated), ``e123``, ``S12--S15`` → (first, last)."""
    parts = _page_parts(_NUMBER_PREFIX_RE.sub("", value).strip())
    if not parts:
        return "", None
    first = _plain_number(parts[0])
    last = _plain_number(parts[-1]) if len(parts) > 1 else None
    if last is not None and first.isdigit() and last.isdigit() and len(last) < len(first):
        last = first[: len(first) - len(last)] + last  # 123-30 → 130
    return first, last


def _pages_agree(cited: str, record: Record) -> bool:
    first, last = _page_range(cited)
    if record.article_number and first == _plain_number(record.article_number):
        return True
    if not record.pages:
        return False
    r_first, r_last = _page_range(record.pages)
    if first != r_first:
        return False
    return last is None or r_last is None or last == r_last


def check_numbers_of_issue(source: DoiSource, record: Record, make: FindingMaker) -> list[Finding]:
    findings: list[Finding] = []
    for field, code, theirs in (
        ("volume", "E_VOLUME_MISMATCH", record.volume),
        ("issue", "E_ISSUE_MISMATCH", record.issue),
    ):
        ours = getattr(source, field)
        if ours is None:
            continue
        if theirs is None:
            findings += unverifiable(make, field, record)
        elif _plain_number(ours) != _plain_number(theirs):
            findings.append(
                make(
                    code, f"{field} {ours!r} is cited; the record has {theirs!r}", suggestion={field: theirs}
                )
            )
    if source.pages is not None:
        if not record.pages and not record.article_number:
            findings += unverifiable(make, "pages", record)
        elif not _pages_agree(source.pages, record):
            theirs = record.pages or record.article_number
            findings.append(
                make(
                    "E_PAGES_MISMATCH",
                    f"pages {source.pages!r} are cited; the record has {theirs!r}",
                    suggestion={"pages": record.pages, "article_number": record.article_number},
                )
            )
    return findings


# -- kind of work --------------------------------------------------------------------------

# Kinds of work, each with the registry types that are that kind (Crossref's and DataCite's names).
_KINDS: dict[str, set[str]] = {
    "article": {"journal-article", "journalarticle", "article", "article-journal"},
    "proceedings": {"proceedings-article", "conferencepaper", "paper-conference", "inproceedings"},
    "book": {"book", "monograph", "edited-book", "reference-book", "book-set", "book-series"},
    "chapter": {
        "book-chapter",
        "book-section",
        "book-part",
        "reference-entry",
        "bookchapter",
        "chapter",
        "entry",
    },
    "dataset": {"dataset", "component", "database"},
    "report": {"report", "report-series", "report-component"},
    "thesis": {"dissertation", "thesis"},
    "preprint": {"posted-content", "preprint"},
    "software": {"software"},
    "issue": {"journal-issue", "journal-volume", "journal"},
    "review": {"peer-review"},
}
_ARXIV_VENUE = re.compile(r"^\s*corr\b|\barxiv\b", re.IGNORECASE)
# Generic registry types that say nothing about the kind: not compared.
_GENERIC = {"text", "other", "collection", "standard", "grant", ""}


def _kind(type_name: str) -> str | None:
    t = type_name.strip().lower()
    return next((kind for kind, names in _KINDS.items() if t in names or t == kind), None)


def check_type(cited: str, record: Record, make: FindingMaker) -> list[Finding]:
    ours = _kind(cited)
    record_type = (record.type or "").lower()
    if ours is None or record_type in _GENERIC:
        return [] if ours is None else unverifiable(make, "kind of work", record)
    theirs = _kind(record_type)
    if theirs is None or theirs == ours:
        return []
    # A proceedings paper is often published as a book chapter: both are the same kind of citation.
    if {ours, theirs} == {"proceedings", "chapter"}:
        return []
    # An arXiv preprint is cited as an article of the "journal" CoRR or arXiv, as DBLP's own BibTeX
    # and the common styles write it: the kind a preprint is cited as.
    if {ours, theirs} == {"article", "preprint"} and any(_ARXIV_VENUE.search(c) for c in record.container):
        return []
    return [
        make(
            "E_WORK_TYPE_MISMATCH",
            f"a {cited} is cited, but the {record.agency} record is a {record.type}",
            suggestion={"type": record.type},
        )
    ]


def check_work(source: DoiSource, record: Record, make: FindingMaker) -> list[Finding]:
    """Every deeper check whose field the citation gives."""
    findings: list[Finding] = []
    if source.authors:
        findings += check_authors(source.authors, record, make)
    if source.container:
        findings += check_venue(source.container, record, make)
    findings += check_numbers_of_issue(source, record, make)
    # A work cited as its arXiv preprint (Semantic Scholar's ``@Article{…, journal = {ArXiv}}``,
    # DBLP's ``journal = {CoRR}``): the kind cited is the preprint's, whatever the work became.
    as_preprint = bool(source.container) and _is_arxiv_name(source.container or "")
    if (
        source.type
        and not (as_preprint and _kind(source.type) in {"article", "preprint"})
        and not _article_in_its_proceedings(source, record)
    ):
        findings += check_type(source.type, record, make)
    return findings


def _article_in_its_proceedings(source: DoiSource, record: Record) -> bool:
    """A proceedings paper cited as an article of its proceedings' series, as Google Scholar
    exports every NeurIPS paper (``@article{…, journal = {Advances in neural information processing
    systems}}``): the venue is right, so the entry type is the exporter's, not a wrong kind of work."""
    kinds = {_kind(source.type or ""), _kind(record.type or "")}
    return (
        kinds == {"article", "proceedings"}
        and bool(source.container)
        and venue_agrees(source.container or "", record)
    )
