"""Research reports in Markdown for the tests and the bench: written out in each marker and
reference style, and long ones generated deterministically (no randomness: the same bytes on
every run)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from citeaudit.model import Submission

__all__ = ["STYLES", "long_report", "marker_ranges", "nth_index"]

# (first author's surname, given initial, title, year, venue, identifier or "")
_WORKS = [
    (
        "Vaswani",
        "A.",
        "Attention is all you need",
        2017,
        "Advances in Neural Information Processing Systems",
        "arXiv:1706.03762",
    ),
    (
        "Hochreiter",
        "S.",
        "Long short-term memory",
        1997,
        "Neural Computation",
        "doi:10.1162/neco.1997.9.8.1735",
    ),
    (
        "Devlin",
        "J.",
        "BERT: Pre-training of deep bidirectional transformers for language understanding",
        2019,
        "NAACL-HLT",
        "",
    ),
    ("LeCun", "Y.", "Deep learning", 2015, "Nature", "doi:10.1038/nature14539"),
    (
        "Goodfellow",
        "I.",
        "Generative adversarial nets",
        2014,
        "Advances in Neural Information Processing Systems",
        "",
    ),
    ("Kingma", "D. P.", "Adam: A method for stochastic optimization", 2015, "ICLR", "arXiv:1412.6980"),
    ("He", "K.", "Deep residual learning for image recognition", 2016, "CVPR", "doi:10.1109/CVPR.2016.90"),
    (
        "Srivastava",
        "N.",
        "Dropout: A simple way to prevent neural networks from overfitting",
        2014,
        "Journal of Machine Learning Research",
        "https://jmlr.org/papers/v15/srivastava14a.html",
    ),
]

_VERBS = ["shows", "reports", "argues", "finds", "demonstrates", "confirms", "suggests", "measures"]
_TOPICS = [
    "attention",
    "recurrence",
    "pre-training",
    "representation learning",
    "adversarial training",
    "optimisation",
    "residual connections",
    "regularisation",
]


def _apa(i: int, work: tuple[str, str, str, int, str, str]) -> str:
    surname, initial, title, year, venue, ident = work
    tail = ""
    if ident.startswith("doi:"):
        tail = f" https://doi.org/{ident[4:]}"
    elif ident.startswith("arXiv:") or ident:
        tail = f" {ident}"
    return f"{surname}, {initial} ({year}). {title}. *{venue}*.{tail}"


def _ieee(i: int, work: tuple[str, str, str, int, str, str]) -> str:
    surname, initial, title, year, venue, ident = work
    tail = (
        f", {ident}"
        if ident.startswith("doi:")
        else (
            f". [Online]. Available: {ident}" if ident.startswith("http") else (f", {ident}" if ident else "")
        )
    )
    return f'[{i}] {initial} {surname} et al., "{title}," in *{venue}*, {year}{tail}.'


def long_report(claims: int = 500, style: str = "ieee") -> str:
    """A report of ``claims`` cited sentences in paragraphs of five, some in lists and tables, over
    a reference list of the eight works above in IEEE (numeric markers) or APA (author–year)."""
    lines = ["# A long generated report", ""]
    n = 0
    paragraph: list[str] = []
    while n < claims:
        k = n % len(_WORKS)
        work = _WORKS[k]
        verb = _VERBS[n % len(_VERBS)]
        topic = _TOPICS[(n // 3) % len(_TOPICS)]
        if style == "ieee":
            marker = f"[{k + 1}]" if n % 7 else f"[{k + 1}, {(k + 2) % len(_WORKS) + 1}]"
        else:
            marker = (
                f"({work[0]}, {work[3]})"
                if n % 7
                else f"({work[0]} et al., {work[3]}; {_WORKS[(k + 1) % len(_WORKS)][0]}, {_WORKS[(k + 1) % len(_WORKS)][3]})"
            )
        sentence = f"Study {n + 1} {verb} that {topic} improves result {n % 97} {marker}."
        if n % 50 in (10, 20) and paragraph:
            lines += ["", " ".join(paragraph), ""]
            paragraph = []
        if n % 50 == 10:
            lines += ["", f"- {sentence}", ""]
        elif n % 50 == 20:
            lines += ["", "| Claim | Note |", "|---|---|", f"| {sentence} | row {n} |", ""]
        else:
            paragraph.append(sentence)
            if len(paragraph) == 5:
                lines += ["", " ".join(paragraph), ""]
                paragraph = []
        n += 1
    if paragraph:
        lines += ["", " ".join(paragraph), ""]
    lines += ["", "## References", ""]
    for i, work in enumerate(_WORKS, 1):
        lines.append(_ieee(i, work) if style == "ieee" else _apa(i, work))
        if style != "ieee":
            lines.append("")
    return "\n".join(lines) + "\n"


STYLES = ("ieee", "apa")


def marker_ranges(text: str, submission: Submission) -> list[tuple[str, int, int, tuple[str, ...]]]:
    """Every marker of the report's claims as (text, start, end, citations), each checked to be
    the text at its range."""
    out = []
    for claim in submission.claims:
        assert claim.place is not None
        for m in claim.place.markers:
            assert text[m.start : m.end] == m.text
            out.append((m.text, m.start, m.end, m.citations))
    return out


def nth_index(text: str, piece: str, nth: int = 0) -> int:
    """Where the ``nth`` (from 0) occurrence of ``piece`` starts in ``text``."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(piece, at + 1)
    return at
