"""ISO 4 abbreviations of title words, read from the List of Title Word Abbreviations (LTWA) of the
ISSN International Centre as the ``bibiso4`` package ships it (``exact.json``: whole words,
``prefix.json``: stems, ``nation-`` → ``natl.``). Its files are read, its code is not run.

ISO 4 abbreviates a journal's title word by word: ``Nature`` → ``Nat.``, ``National`` → ``Natl.``,
``Japan`` → ``Jpn.``, ``Systems`` → ``Syst.``. Most abbreviations are the start of the word, which
the venue check accepts without a list; the list adds the contractions (``Natl.``) and tells which
word a one-word abbreviation stands for (``Nat.`` is ``Nature``, not ``National``). Where the
package is not installed, :func:`abbreviation` answers None and the venue check accepts the starts
of words alone.
"""

from __future__ import annotations

import importlib.util
import json
import unicodedata
from functools import cache
from pathlib import Path

__all__ = ["abbreviation", "available"]

_PACKAGE = "bibiso4"
# The LTWA's mark of a word that is not abbreviated.
_NOT_ABBREVIATED = {"", "n.a.", "n. a.", "n.a", "-"}


def _fold(word: str) -> str:
    """A word as the venue check compares words: diacritics out, lower case, letters and digits."""
    if word.isascii() and word.isalnum():
        return word.lower()
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(c for c in decomposed if c.isalnum() and not unicodedata.combining(c)).casefold()


def _table(raw: object) -> dict[str, str]:
    """One-word LTWA entries, folded as the venue check folds words: the word (or stem) and its
    abbreviation, dots out; an entry that is not abbreviated maps to the word itself. The file's
    own order decides between two entries that fold alike (the first is kept)."""
    table: dict[str, str] = {}
    if not isinstance(raw, dict):
        return table
    for key, value in raw.items():
        if not isinstance(key, str) or not isinstance(value, str) or " " in key:
            continue
        word = _fold(key)
        if not word or word in table:
            continue
        short = value.strip().lower()
        table[word] = word if short in _NOT_ABBREVIATED else _fold(short.replace(".", ""))
    return table


@cache
def _ltwa() -> tuple[dict[str, str], dict[str, str]] | None:
    """The whole words and the stems of the LTWA, or None where the package is not installed."""
    try:
        spec = importlib.util.find_spec(_PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations)))
    try:
        exact = json.loads((root / "exact.json").read_text("utf-8"))
        prefix = json.loads((root / "prefix.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return _table(exact), _table(prefix)


def available() -> bool:
    """Whether the LTWA could be read (the ``bibiso4`` package is installed)."""
    return _ltwa() is not None


@cache
def abbreviation(word: str) -> str | None:
    """The ISO 4 abbreviation of a title word, folded, without its dot (``Nature`` → ``nat``,
    ``National`` → ``natl``), the word itself where the LTWA leaves it whole, None where the LTWA
    has no entry for it or is not installed. A whole-word entry is preferred, then the word
    without a plural ``s``, then the longest stem the word starts with."""
    tables = _ltwa()
    folded = _fold(word)
    if tables is None or not folded:
        return None
    exact, prefix = tables
    if folded in exact:
        return exact[folded]
    if folded.endswith("s") and folded[:-1] in exact:
        return exact[folded[:-1]]
    for end in range(len(folded), 2, -1):
        stem = folded[:end]
        if stem in prefix:
            return prefix[stem]
    return None
