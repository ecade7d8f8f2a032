"""One interface for every judge backend (``factory.py`` builds one from its spec, ``base.py`` holds
what the backends share).

A judge sees one atomic claim and only its cited fragments, never the whole
answer, and returns one of four verdicts with the citations it relied on, the
parts of the claim it found unsupported, and its own identity.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from citeaudit.model import VERDICTS, JudgeIdentity, Verdict, VerdictLabel

__all__ = [
    "VERDICTS",
    "Fragment",
    "Judge",
    "JudgeIdentity",
    "Verdict",
    "VerdictLabel",
    "judge_each",
]


@dataclass(frozen=True, slots=True)
class Fragment:
    """A cited passage as the judge sees it: the citation's id and its text."""

    citation_id: str
    text: str
    years: tuple[int, ...] = ()  # the cited work's year as verified: a claim may name it unquoted
    # A passage found in the cited work's text for a citation with no quote (semantic/passages.py),
    # not a verified quote: a judge may weigh it by its own bands for retrieved passages.
    retrieved: bool = False


class Judge(Protocol):
    @property
    def identity(self) -> JudgeIdentity: ...

    @property
    def per_claim(self) -> bool:
        """True for a judge that is cheap, stateless, local Python: the audit then
        asks it claim by claim inside its worker processes. False for one that
        batches (``nli``) or waits on a server (``llm``): it gets one list."""
        ...

    def judge(self, claim: str, fragments: Sequence[Fragment]) -> Verdict: ...

    def judge_many(self, items: Sequence[tuple[str, Sequence[Fragment]]]) -> list[Verdict]:
        """Several claims at once; a backend that batches (``nli``) is faster here."""
        ...


def judge_each(judge: Judge, items: Sequence[tuple[str, Sequence[Fragment]]]) -> list[Verdict]:
    """``judge_many`` for a backend with nothing to gain from batching."""
    return [judge.judge(claim, fragments) for claim, fragments in items]
