"""One interface for every judge backend.

A judge sees one atomic claim and only its cited fragments, never the whole
answer, and returns one of four verdicts with the citations it relied on, the
parts of the claim it found unsupported, and its own identity.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from citeaudit.errors import ConfigError

__all__ = ["VERDICTS", "Fragment", "Judge", "JudgeIdentity", "Verdict", "VerdictLabel", "make_judge"]

VerdictLabel = Literal["entailed", "contradicted", "insufficient", "unknown"]
VERDICTS: tuple[VerdictLabel, ...] = ("entailed", "contradicted", "insufficient", "unknown")


@dataclass(frozen=True, slots=True)
class Fragment:
    """A cited passage as the judge sees it: the citation's id and its text."""

    citation_id: str
    text: str


@dataclass(frozen=True, slots=True)
class JudgeIdentity:
    backend: str
    model: str
    prompt_version: str


@dataclass(frozen=True, slots=True)
class Verdict:
    label: VerdictLabel
    judge: JudgeIdentity
    relied_on: tuple[str, ...] = ()  # citation ids
    unsupported: tuple[str, ...] = ()  # parts of the claim the fragments do not cover
    confidence: float | None = None
    signals: tuple[str, ...] = field(default=())  # signal codes that routed the claim


class Judge(Protocol):
    @property
    def identity(self) -> JudgeIdentity: ...

    def judge(self, claim: str, fragments: Sequence[Fragment]) -> Verdict: ...


def make_judge(spec: str) -> Judge:
    """A judge from its spec string: ``rules`` (the offline default)."""
    from citeaudit.semantic.rules import RulesJudge

    if spec == "rules":
        return RulesJudge()
    backend = spec.partition(":")[0]
    if backend in {"nli", "llm"}:
        raise ConfigError(f"judge backend {backend!r} is not available in this version; use 'rules'")
    raise ConfigError(f"unknown judge {spec!r}; expected 'rules'")
