"""How every human format names a verdict judged on retrieved passages.

A claim whose citations give no quote is judged on passages of the cited works' pinned texts
(``"basis": "retrieved"`` in report.json): a judged support, never a proved one. The Markdown
report, SARIF and JUnit say so in the same words, built here from the report dictionary: the
basis of each passage (the abstract, the full text or the page of a citation), the best
passage and where it is (``[start, end)`` of the text named by its digest).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "BASIS_WORDS",
    "JUDGED_WORDS",
    "best_passage",
    "from_words",
    "is_retrieved",
    "passage_words",
    "short_digest",
    "text_of",
]

# Which text of the cited work a passage is from, as a reader says it.
BASIS_WORDS = {"abstract": "abstract", "full_text": "full text", "page": "page"}
# Said wherever a verdict on retrieved passages is shown: it is a judgement, not a check.
JUDGED_WORDS = "judged on retrieved passages (a judgement, not a verified quote)"
_DIGEST_CHARS = 12


def is_retrieved(claim: Mapping[str, Any]) -> bool:
    """The claim's verdict was given on passages of the cited texts, not on verified quotes."""
    verdict = claim.get("verdict") or {}
    return verdict.get("basis") == "retrieved" and bool(verdict.get("passages"))


def best_passage(claim: Mapping[str, Any], citation: str | None = None) -> dict[str, Any] | None:
    """The claim's best passage (rank 1), or the best one of ``citation``'s text."""
    verdict = claim.get("verdict") or {}
    passages = sorted(verdict.get("passages") or [], key=lambda p: (p["rank"], p["citation"]))
    return next((dict(p) for p in passages if citation is None or p["citation"] == citation), None)


def text_of(claim: Mapping[str, Any], passage: Mapping[str, Any]) -> dict[str, Any] | None:
    """The text read that ``passage`` is from (its name, digest and length)."""
    verdict = claim.get("verdict") or {}
    for text in verdict.get("texts") or []:
        if text["citation"] == passage["citation"] and text["sha256"] == passage["text_sha256"]:
            return dict(text)
    return None


def short_digest(sha256: str) -> str:
    return sha256[:_DIGEST_CHARS]


def from_words(basis: str, citation: str) -> str:
    """``from the abstract of q1``: the badge of a passage's basis."""
    return f"from the {BASIS_WORDS.get(basis, basis.replace('_', ' '))} of {citation}"


def passage_words(claim: Mapping[str, Any], passage: Mapping[str, Any]) -> str:
    """Where a passage is, in one line: ``passage (rank 1), from the abstract of q1, characters
    [12, 80) of "abstract in the crossref record of 10.1/x" (SHA-256 4a7a31a5f98a…, 640
    characters)``."""
    where = f"characters [{passage['start']}, {passage['end']})"
    text = text_of(claim, passage)
    if text is not None:
        where += (
            f' of "{text["name"]}" (SHA-256 {short_digest(text["sha256"])}…, {text["length"]} characters)'
        )
    else:
        where += f" of the text with SHA-256 {short_digest(passage['text_sha256'])}…"
    return f"passage (rank {passage['rank']}), {from_words(passage['basis'], passage['citation'])}, {where}"
