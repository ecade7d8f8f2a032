"""Benchmark: input shaped to hit the worst case of text handling — long runs
of dots, spaces or letters, long quotes against long texts that are not NFKC.

Each case runs the current code at sizes n and 4n (a time ratio near 4 means
linear) and, as the baseline in the same run, the pattern or function it
replaced at n and 2n (near 4 means quadratic), on identical inputs. The
baselines are kept here, verbatim, only to be measured.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from rapidfuzz import fuzz

from citeaudit.checks.bibliographic import _page_parts, _without_et_al
from citeaudit.formats.bibtex import _authors, _plain
from citeaudit.locate import SourceText
from citeaudit.normalize import _fold_clusters, _fold_words, normalize, normalize_with_map
from citeaudit.normalize import _without_trailing_punctuation as trailing
from citeaudit.sources.extract import _HYPHENATED_RE

_OLD_TRAILING = re.compile(r"[\s.;,:]+$")
_OLD_ET_AL = re.compile(r"\s*(?:,\s*)?(?:et\.?\s*al\.?|and others)\s*$", re.IGNORECASE)
_OLD_DASH = re.compile(r"\s*(?:-+|–|—|‐|‑|\u2212)\s*")
_OLD_AND = re.compile(r"\s+and\s+")
_OLD_HYPHENATED = re.compile(r"([^\W\d_]+)([-\u00ad\u2010])\n([a-zà-ÿа-яё][^\W\d_]*)")


def _closest_whole_text(text: str, needle: str) -> Any:
    """The closest passage as it was found on a text that is not NFKC: over all of it."""
    return fuzz.partial_ratio_alignment(needle, normalize_with_map(text).text)


def _closest_case(n: int) -> tuple[str, str]:
    """Distinct words, so that the quote's stay rare at every size; a ligature: not NFKC."""
    text = "\ufb01ne " + " ".join(f"w{i:06d}" for i in range(n // 8 + 1))[:n]
    quote = " ".join(f"w{i:06d}" for i in range(500, 1100)).replace("w000900", "w999999")
    return text, normalize(quote)  # 4,800 characters


# name, what the input is, input of size n, current code, the code it replaced
CASES: list[tuple[str, str, Callable[[int], Any], Callable[[Any], Any], Callable[[Any], Any]]] = [
    ("title", "a title: n dots, then a letter", lambda n: "A" + "." * n + "b",
     trailing, lambda s: _OLD_TRAILING.sub("", s)),
    ("et al", "an author: n spaces inside", lambda n: "Smith" + " " * n + "x",
     _without_et_al, lambda s: _OLD_ET_AL.sub("", s)),
    ("pages", "a page field: n spaces inside", lambda n: "12" + " " * n + "x",
     _page_parts, lambda s: [p.strip() for p in _OLD_DASH.split(s) if p.strip()]),
    ("authors", "a BibTeX author field: n spaces inside", lambda n: "Smith, A." + " " * n + "Jones",
     _authors, lambda s: [_plain(x) for x in _OLD_AND.split(s) if x.strip()]),
    ("hyphenation", "a PDF line of n letters", lambda n: "x" * n + "\n",
     lambda s: list(_HYPHENATED_RE.finditer(s)), lambda s: list(_OLD_HYPHENATED.finditer(s))),
    ("fold", "one line of n characters with a ™ in the middle",
     lambda n: ("word " * (n // 5))[: n // 2] + "\u2122 " + ("word " * (n // 5))[: n // 2],
     lambda s: _fold_words(s, 0, 0, []), lambda s: _fold_clusters(s, 0, 0, [])),
    ("closest", "a 4,800-character quote against n characters not NFKC", _closest_case,
     lambda case: SourceText(case[0]).closest(case[1]), lambda case: _closest_whole_text(*case)),
]  # fmt: skip


def _seconds(fn: Callable[[Any], Any], value: Any) -> float:
    """Best of three runs; one run when that already took over half a second (the baselines)."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        fn(value)
        best = min(best, time.perf_counter() - start)
        if best > 0.5:
            break
    return best


def run(quick: bool = False) -> dict[str, Any]:
    n = 2_000 if quick else 10_000
    rows = []
    for name, shape, make, current, old in CASES:
        size = n * 20 if name == "closest" else n  # the closest passage needs a text longer than its quote
        now_n, now_4n = _seconds(current, make(size)), _seconds(current, make(4 * size))
        old_n, old_2n = _seconds(old, make(size)), _seconds(old, make(2 * size))
        rows.append({"case": name, "shape": shape, "n": size, "current_n": now_n, "current_4n": now_4n,
                     "old_n": old_n, "old_2n": old_2n})  # fmt: skip
    return {"rows": rows}


def markdown(r: dict[str, Any]) -> str:
    lines = [
        "Input shaped for the worst case, in-process, best of three runs (one when a run takes over half "
        "a second). The "
        "current code at n and 4n (a time ratio near 4 is linear, near 1 constant); as the baseline in "
        "the same run, the pattern or function it replaced, at n and 2n (near 4 is quadratic, near 2 "
        "linear). `title` strips only the trailing run, so a run inside costs nothing; `fold` was linear "
        "but went character by character through the whole line; `closest` compared the quote with "
        "the whole text and now only with windows where its words occur.",
        "",
        "| case | input | n | now at n (ms) | now at 4n ÷ at n | replaced at n (ms) | replaced at 2n ÷ at n "
        "| speed-up at n |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for row in r["rows"]:
        lines.append(
            f"| {row['case']} | {row['shape']} | {row['n']:,} | {row['current_n'] * 1e3:.3f} "
            f"| {row['current_4n'] / row['current_n']:.1f} | {row['old_n'] * 1e3:.1f} "
            f"| {row['old_2n'] / row['old_n']:.1f} | {row['old_n'] / row['current_n']:,.0f}× |"
        )
    return "\n".join(lines)
