"""One interface for every judge backend.

A judge sees one atomic claim and only its cited fragments, never the whole
answer, and returns one of four verdicts with the citations it relied on, the
parts of the claim it found unsupported, and its own identity.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
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
    signals: tuple[str, ...] = ()  # signal codes that routed the claim


class Judge(Protocol):
    @property
    def identity(self) -> JudgeIdentity: ...

    def judge(self, claim: str, fragments: Sequence[Fragment]) -> Verdict: ...


def make_judge(spec: str, cache_dir: Path | None = None) -> Judge:
    """A judge from its spec: ``rules`` (the offline default) or
    ``llm:MODEL@BASE_URL`` (an OpenAI-compatible endpoint, e.g.
    ``llm:qwen2.5-7b-instruct@http://127.0.0.1:8000/v1``). With ``cache_dir``
    its verdicts are cached there."""
    judge: Judge
    backend, _, rest = spec.partition(":")
    if spec == "rules":
        from citeaudit.semantic.rules import RulesJudge

        judge = RulesJudge()
    elif backend == "llm":
        model, at, url = rest.rpartition("@")
        if not at or not model or not url.startswith(("http://", "https://")):
            raise ConfigError(f"judge {spec!r}: expected llm:MODEL@http(s)://HOST/PATH")
        from citeaudit.semantic.llm import LlmJudge

        judge = LlmJudge(url, model)
    elif backend == "nli":
        raise ConfigError("judge backend 'nli' is not available in this version; use 'rules' or 'llm:…'")
    else:
        raise ConfigError(f"unknown judge {spec!r}; expected 'rules' or 'llm:MODEL@URL'")
    if cache_dir is None:
        return judge
    from citeaudit.semantic.cache import CachedJudge

    return CachedJudge(judge, cache_dir)
