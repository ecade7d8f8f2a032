"""The checks of a web citation against the pin of its page (the quote is the snapshot quote check):
the cited title among the page's titles, a page that is not there, and the DOI a page names."""

from __future__ import annotations

import re

from citeaudit.checks.codes import FindingMaker
from citeaudit.checks.metadata import check_controls
from citeaudit.identifiers.doi import normalize_doi
from citeaudit.model import Finding
from citeaudit.normalize import title_key

__all__ = ["check_page_doi", "check_page_title", "page_title_keys"]

# Page titles carry the site's name: "Title | Site", "Title – Site", "Site: Title".
_SITE_SEPARATORS = re.compile(r"\s+[|\u2013\u2014\u00b7\u2022-]\s+|\s*::\s*")
_COLON = re.compile(r":\s+")


def page_title_keys(titles: tuple[str, ...]) -> set[str]:
    """The keys a cited title may match: each title whole, and each part of it between the
    separators a site puts its name behind."""
    keys: set[str] = set()
    for title in titles:
        keys.add(title_key(title))
        for part in _SITE_SEPARATORS.split(title):
            keys.add(title_key(part))
            keys.update(title_key(piece) for piece in _COLON.split(part))
    keys.discard("")
    return keys


def check_page_title(cited: str, titles: tuple[str, ...], make: FindingMaker) -> list[Finding]:
    """A warning, not an error, when the cited title is none of the page's titles: a page's title
    is not a registry's, and sites name their pages as they please."""
    findings = check_controls("title", cited, make)
    if not titles:
        return findings
    key = title_key(cited)
    if key and key in page_title_keys(titles):
        return findings
    shown = titles[0]
    return [
        *findings,
        make(
            "W_URL_TITLE_MISMATCH",
            f"the page's title is {shown!r}, not the title cited",
            suggestion={"title": shown, "titles": list(titles)},
        ),
    ]


def check_page_doi(cited: str | None, page: str | None, make: FindingMaker) -> list[Finding]:
    """The DOI a web citation names against the ``citation_doi`` its page gives: they must agree.
    Nothing to compare when either is missing."""
    if cited is None or page is None or normalize_doi(cited) == normalize_doi(page):
        return []
    return [
        make(
            "E_URL_DOI_MISMATCH",
            f"the citation names the DOI {normalize_doi(cited)}; the page gives {normalize_doi(page)}",
            suggestion={"doi": normalize_doi(page)},
        )
    ]
