"""A work's abstract as plain text, from the forms the registries and dumps give it in:
Crossref's JATS XML (``<jats:p>…</jats:p>``), DataCite's and arXiv's plain strings, and
OpenAlex's inverted index (``{"word": [positions]}``).

The text is what the semantic stage judges a quote-less citation against, so it keeps
every word and the paragraph breaks, drops markup, and is the same for the same input.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from typing import Any

__all__ = ["MAX_ABSTRACT_CHARS", "abstract_from_inverted_index", "plain_abstract"]

# No abstract is this long (the longest of the recorded Crossref answers is under 6,000
# characters); a longer field is cut here so that one record cannot carry a book.
MAX_ABSTRACT_CHARS = 100_000

# Elements that end a paragraph: a break in the text, so sentences do not run together.
_BLOCKS = frozenset({"p", "sec", "title", "list-item", "li", "div", "br", "abstract", "para"})
# A heading that only names the field ("Abstract", "Summary") is no part of the abstract.
_LABEL = re.compile(r"^(abstract|summary|background|résumé)\s*[:.]?$", re.IGNORECASE)
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")


class _Text(HTMLParser):
    """JATS or HTML to text: element names with a namespace prefix (``jats:p``) read as
    their local name; titles kept apart so a lone "Abstract" label can be dropped."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[list[str]] = [[]]
        self.in_title = 0

    def _local(self, tag: str) -> str:
        return tag.rsplit(":", 1)[-1].lower()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        local = self._local(tag)
        if local in _BLOCKS:
            self.blocks.append([])
        if local == "title":
            self.in_title += 1

    def handle_endtag(self, tag: str) -> None:
        local = self._local(tag)
        if local == "title":
            self.in_title = max(0, self.in_title - 1)
            block = " ".join("".join(self.blocks[-1]).split())
            if _LABEL.match(block):
                self.blocks[-1] = []
        if local in _BLOCKS:
            self.blocks.append([])

    def handle_data(self, data: str) -> None:
        self.blocks[-1].append(data)


# A tag left in the text once the markup is read: HTML escaped inside JATS (real Crossref
# records carry ``<jats:p>&lt;p&gt;…``), read once more.
_TAG = re.compile(r"</?[A-Za-z][\w:-]*(?:\s[^<>]*)?>")


def plain_abstract(value: Any, _again: bool = True) -> str | None:
    """The text of an abstract given as a string of JATS, HTML or plain text; None when
    it has no words. Paragraphs are joined by one blank line, runs of spaces are one."""
    if not isinstance(value, str) or not value.strip():
        return None
    value = value[: MAX_ABSTRACT_CHARS * 2]
    if "<" in value:
        parser = _Text()
        parser.feed(value)
        parser.close()
        paragraphs = [" ".join(_SPACES.sub(" ", "".join(b)).split()) for b in parser.blocks]
    else:
        paragraphs = [" ".join(_SPACES.sub(" ", html.unescape(p)).split()) for p in value.split("\n\n")]
    paragraphs = [p for p in paragraphs if p and not _LABEL.match(p)]
    text = "\n\n".join(paragraphs)[:MAX_ABSTRACT_CHARS].strip()
    if _again and "<" in value and _TAG.search(text):
        return plain_abstract(text, _again=False)
    return text or None


def abstract_from_inverted_index(index: Any) -> str | None:
    """OpenAlex's ``abstract_inverted_index`` (each word with the positions it stands at)
    as the text it was made from; None when it is empty or not that shape. A position
    claimed by two words keeps the word that sorts first, so the text is deterministic."""
    if not isinstance(index, dict) or not index:
        return None
    at: dict[int, str] = {}
    for word in sorted(k for k in index if isinstance(k, str)):
        positions = index[word]
        if not isinstance(positions, list):
            return None
        for position in positions:
            if (
                isinstance(position, int)
                and not isinstance(position, bool)
                and 0 <= position < MAX_ABSTRACT_CHARS
            ):
                at.setdefault(position, word)
    if not at:
        return None
    text = " ".join(at[p] for p in sorted(at))
    return plain_abstract(text)
