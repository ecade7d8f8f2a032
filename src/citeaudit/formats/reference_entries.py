"""What an entry of a report's reference list says, read from its text: the identifiers it names
(a DOI, an arXiv id, a PMID or PMCID, a URL) and, for the reference as written, its first author,
year and title.

The text is read word by word (the entry's words as the Markdown parser gives them), never by
patterns over the file. How the title is found, in order:

1. a quoted segment of at least two words (``“Attention is all you need,”``: IEEE, Chicago);
2. else the segment after the one that ends with the year (``(2017). Attention is all you need.``
   in APA, ``2017. Attention is all you need.`` in ACM and Chicago author–date), segments being
   the entry's sentences (an initial, ``et al.`` or an abbreviation does not end one);
3. else the first segment after the authors' (the first) that is not the year alone.

The first two are *confident*: only such a title is given to a DOI or arXiv citation, whose
metadata is then checked against the registry; a title found the third way is used only to search
for a reference without an identifier. The year is the first parenthesised year (APA), else the
first year ending a segment (ACM, Chicago), else the last year of the entry (IEEE); the first
author is the first name before the year or the title: ``Vaswani, A.`` (a surname alone before
the first comma takes the initials after it), ``A. Vaswani``, ``Ashish Vaswani``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citeaudit.formats.markdown_syntax import is_year
from citeaudit.formats.sentences import sentence_spans
from citeaudit.identifiers.arxiv import ARXIV
from citeaudit.identifiers.doi import DOI
from citeaudit.identifiers.pubmed import PMCID, PMID

__all__ = ["EntryFields", "Identifiers", "entry_fields", "entry_identifiers"]

_TRIM = ".,;:)]>}\"'”’"
_OPEN = "(<[{\"'“‘"
_QUOTES = {"“": "”", '"': '"', "«": "»"}


@dataclass(frozen=True, slots=True)
class Identifiers:
    """The identifiers an entry names, each as written (the first of each kind)."""

    doi: str | None = None
    arxiv: str | None = None
    url: str | None = None
    words: frozenset[int] = frozenset()  # indexes of the words that are identifiers (or name one)
    pmid: str | None = None
    pmcid: str | None = None

    @classmethod
    def named(cls, kind: str, value: str) -> Identifiers:
        """The identifiers of a link that names one work by one identifier of ``kind``."""
        return cls(**{kind: value}) if kind in ("doi", "arxiv", "url", "pmid", "pmcid") else cls()  # type: ignore[arg-type]

    def kinds(self) -> list[tuple[str, str]]:
        """Each identifier named, with its kind, in the order citations are made of them: the
        registries' identifiers first, the web page last."""
        named = (("doi", self.doi), ("arxiv", self.arxiv), ("pmid", self.pmid), ("pmcid", self.pmcid),
                 ("url", self.url))  # fmt: skip
        return [(kind, value) for kind, value in named if value]


def _arxiv_of_url(url: str) -> str | None:
    lower = url.lower()
    for head in (
        "https://arxiv.org/",
        "http://arxiv.org/",
        "https://www.arxiv.org/",
        "http://www.arxiv.org/",
        "https://export.arxiv.org/",
        "http://export.arxiv.org/",
    ):
        if lower.startswith(head):
            rest = url[len(head) :]
            for kind in ("abs/", "pdf/", "html/"):  # the abstract page, the PDF, the HTML paper
                if rest.lower().startswith(kind):
                    found = rest[len(kind) :].split("?")[0].split("#")[0].rstrip("/").removesuffix(".pdf")
                    return found if ARXIV.recognise("arXiv:" + found) else None
    return None


def classify_url(url: str) -> tuple[str, str]:
    """The kind a URL names a work by, and the identifier: a ``doi.org`` URL or a publisher's
    page with the DOI in its path is a DOI, an ``arxiv.org/abs`` or ``/pdf`` URL an arXiv id, a
    PubMed page (``pubmed.ncbi.nlm.nih.gov/31452104/``, ``ncbi.nlm.nih.gov/pubmed/…``, Europe
    PMC's ``article/MED/…``) a PMID, a PMC article page (``pmc.ncbi.nlm.nih.gov/articles/PMC…``,
    ``ncbi.nlm.nih.gov/pmc/articles/PMC…``) a PMCID, any other URL a web page."""
    doi = DOI.recognise(url)
    if doi is not None:
        return "doi", url
    arxiv = _arxiv_of_url(url)
    if arxiv is not None:
        return "arxiv", "arXiv:" + arxiv
    for handler in (PMID, PMCID):
        if handler.recognise(url) is not None:
            return handler.kind, url
    return "url", url


def _clean(word: str) -> str:
    """A word without the punctuation around it; a closing bracket that closes one opened in
    the word stays (``https://en.wikipedia.org/wiki/Transformer_(model)``)."""
    word = word.lstrip(_OPEN)
    while word and word[-1] in _TRIM:
        last = word[-1]
        pairs = {")": "(", "]": "["}
        if last in pairs and word.count(pairs[last]) >= word.count(last):
            break
        word = word[:-1]
    return word


def entry_identifiers(words: list[str], hrefs: list[str]) -> Identifiers:
    """The identifiers of an entry from its words and the targets of its links."""
    found: dict[str, str] = {}
    used: set[int] = set()
    for href in hrefs:
        if href.lower().startswith(("http://", "https://")):
            kind, value = classify_url(href)
            found.setdefault(kind, value)
    for i, raw in enumerate(words):
        word = _clean(raw)
        lower = word.lower()
        if lower.startswith(("http://", "https://")):
            kind, value = classify_url(word)
            found.setdefault(kind, value)
            used.add(i)
        elif lower in ("doi:", "doi") and i + 1 < len(words) and DOI.recognise(_clean(words[i + 1])):
            found.setdefault("doi", _clean(words[i + 1]))
            used.update((i, i + 1))
        elif lower.startswith("doi:") and DOI.recognise(word[4:].strip()):
            found.setdefault("doi", word[4:].strip())
            used.add(i)
        elif lower.startswith("10.") and "/" in word and DOI.recognise(word):
            found.setdefault("doi", word)
            used.add(i)
        elif lower.startswith("arxiv:") and ARXIV.recognise(word):
            found.setdefault("arxiv", word)
            used.add(i)
        elif (
            lower in ("arxiv:", "arxiv")
            and i + 1 < len(words)
            and ARXIV.recognise("arXiv:" + _clean(words[i + 1]))
        ):
            found.setdefault("arxiv", "arXiv:" + _clean(words[i + 1]))
            used.update((i, i + 1))
        else:
            _pubmed_word(words, i, word, found, used)
    return Identifiers(found.get("doi"), found.get("arxiv"), found.get("url"), frozenset(used),
                       found.get("pmid"), found.get("pmcid"))  # fmt: skip


# The labels a PubMed or PMC identifier is written after, as a word of its own or glued to it.
_PUBMED_LABELS = {"pmid": PMID, "pubmed": PMID, "pmcid": PMCID}


def _pubmed_word(words: list[str], i: int, word: str, found: dict[str, str], used: set[int]) -> None:
    """``PMID: 31452104``, ``PMID:31452104``, ``PMCID: PMC6718211`` and a bare ``PMC6718211``."""
    lower = word.lower()
    label = lower.rstrip(":")
    if label in _PUBMED_LABELS and i + 1 < len(words):
        handler = _PUBMED_LABELS[label]
        value = _clean(words[i + 1])
        # "PubMed (2024), *Title*": a year in parentheses after the name, no identifier.
        if not words[i + 1].startswith("(") and handler.recognise(value) is not None:
            found.setdefault(handler.kind, value)
            used.update((i, i + 1))
        return
    head, colon, rest = lower.partition(":")
    if colon and head in _PUBMED_LABELS and _PUBMED_LABELS[head].recognise(rest) is not None:
        found.setdefault(_PUBMED_LABELS[head].kind, word)
        used.add(i)
    elif lower.startswith("pmc") and PMCID.recognise(word) is not None:
        found.setdefault("pmcid", word)
        used.add(i)


@dataclass(frozen=True, slots=True)
class EntryFields:
    """The reference as written: what it is searched by and checked with."""

    first_author: str | None
    year: int | None
    title: str | None
    confident: bool  # the title was quoted or followed the year (see the module's rules)


def _quoted(text: str) -> tuple[int, str] | None:
    """Where the first quoted segment of two words or more opens, and its text."""
    for i, c in enumerate(text):
        close = _QUOTES.get(c)
        if close is None or (c == '"' and i > 0 and text[i - 1].isalnum()):
            continue
        end = text.find(close, i + 1)
        if end < 0:
            continue
        inner = text[i + 1 : end].strip().rstrip(",.;:").strip()
        if len(inner.split()) >= 2:
            return i, inner
    return None


def _year_word(word: str) -> str | None:
    core = word.strip(_OPEN + _TRIM)
    return core[:4] if is_year(core) else None


def _first_author(authors: str) -> str | None:
    parts = [p.strip() for p in authors.replace(" & ", ", ").replace(" and ", ", ").split(",")]
    parts = [p.removeprefix("and ").removeprefix("& ").strip() for p in parts if p.strip()]
    if not parts:
        return None
    first = parts[0]
    for tail in (" et al.", " et al", " and others"):
        first = first.removesuffix(tail)
    words = first.split()
    if not words or any(ch.isdigit() for ch in first):
        return None
    if len([w for w in words if w[:1].isupper()]) == 1 and len(parts) > 1:
        given = parts[1]
        if given and not any(ch.isdigit() for ch in given) and len(given.split()) <= 3:
            return f"{first}, {given}"  # Vaswani, A. / Vaswani, Ashish
    return first


# Indexes an entry may name where its authors go: never an author.
_INDEXES = frozenset(["pubmed", "pmc", "europe pmc", "medline", "crossref", "arxiv", "google scholar",
                      "semantic scholar", "openalex", "dblp", "ncbi"])  # fmt: skip

# What an entry writes before its link ("… (Lancet, 2007). URL: https://…"): never a title.
_LINK_LABELS = frozenset(
    ["url", "link", "available at", "available from", "retrieved from", "online", "source"]
)


def _link_label(segment: str) -> bool:
    return segment.strip().rstrip(":.").strip().casefold() in _LINK_LABELS


def entry_fields(text: str) -> EntryFields:
    """First author, year and title of an entry's text (its identifiers left out)."""
    words = text.split()
    text = " ".join(words)
    # The year: parenthesised (APA), else ending a segment (ACM, Chicago), else the last (IEEE).
    year: str | None = None
    year_at: int | None = None
    for i, w in enumerate(words):
        if w.startswith("(") and _year_word(w):
            year, year_at = _year_word(w), i
            break
    if year is None:
        for i, w in enumerate(words):
            if w.rstrip(")").endswith(".") and _year_word(w) and i > 0:
                year, year_at = _year_word(w), i
                break
    if year is None:
        for i in range(len(words) - 1, -1, -1):
            if _year_word(words[i]):
                year, year_at = _year_word(words[i]), i
                break
    spans = sentence_spans(text, [], [])
    segments = [text[a:b] for a, b in spans]
    quoted = _quoted(text)
    title = quoted[1] if quoted is not None else None
    confident = title is not None
    year_offset = len(" ".join(words[:year_at])) + (1 if year_at else 0) if year_at is not None else None
    if title is None and year_at is not None and re.fullmatch(r"\(\d{4}[a-z]?\)\.", words[year_at]):
        # APA, "(2020). taxadb: A …": the title is the sentence after the year, whatever the case
        # of its first letter (a sentence does not end before a lower-case word).
        rest_at = len(" ".join(words[: year_at + 1])) + 1
        rest = text[rest_at:]
        first = sentence_spans(rest, [], [])[:1]
        candidate = rest[first[0][0] : first[0][1]].strip().rstrip(".").strip() if first else ""
        if candidate and not candidate.lower().startswith("in ") and not candidate.startswith("*"):
            title, confident = candidate, True
    if title is None and year_offset is not None:
        after = next((k for k, (a, b) in enumerate(spans) if a <= year_offset < b), None)
        if after is not None and after + 1 < len(segments):
            candidate = segments[after + 1].strip().rstrip(".").strip()
            if (
                len(candidate.split()) >= 1
                and not candidate.lower().startswith("in ")
                and not _link_label(candidate)
            ):
                title, confident = candidate, True
    if title is None:
        for segment in segments[1:]:
            s = segment.strip().rstrip(".").strip()
            if (
                s
                and not (len(s.split()) == 1 and _year_word(s))
                and not s.lower().startswith("in ")
                and not _link_label(s)
            ):
                title = s
                break
    # The authors: the text before the year, the quoted title or the end of the first segment.
    cut = len(text)
    if year_offset is not None and year_at is not None and year_at > 0:
        cut = min(cut, year_offset)
    if quoted is not None:
        cut = min(cut, quoted[0])
    if spans:
        cut = min(cut, spans[0][1])
    authors = text[:cut].strip().rstrip(".(,").strip()
    author = _first_author(authors)
    if author is not None and author.casefold() in _INDEXES:
        author = None  # "PubMed (2024), *Title*": where the work was found, not who wrote it
    return EntryFields(author, int(year) if year else None, title, confident)
