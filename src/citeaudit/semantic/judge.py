"""One interface for every judge backend.

A judge sees one atomic claim and only its cited fragments, never the whole
answer, and returns one of four verdicts with the citations it relied on, the
parts of the claim it found unsupported, and its own identity.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from citeaudit.errors import ConfigError
from citeaudit.model import VERDICTS, JudgeIdentity, Verdict, VerdictLabel

__all__ = [
    "JUDGE_SPECS",
    "VERDICTS",
    "Fragment",
    "Judge",
    "JudgeIdentity",
    "Verdict",
    "VerdictLabel",
    "configured_judge",
    "judge_each",
    "make_judge",
]


@dataclass(frozen=True, slots=True)
class Fragment:
    """A cited passage as the judge sees it: the citation's id and its text."""

    citation_id: str
    text: str
    years: tuple[int, ...] = ()  # the cited work's year as verified: a claim may name it unquoted


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


# Every judge a spec can name, as its spec is written: help texts and the README list these.
JUDGE_SPECS: dict[str, str] = {
    "rules": "rules",
    "nli": "nli:MODEL[?OPTIONS][#LABELS]",
    "llm": "llm:MODEL@URL",
    "cascade": "rules+SPEC",
    "none": "none",
}


def judge_each(judge: Judge, items: Sequence[tuple[str, Sequence[Fragment]]]) -> list[Verdict]:
    """``judge_many`` for a backend with nothing to gain from batching."""
    return [judge.judge(claim, fragments) for claim, fragments in items]


def _nli_options(spec: str, query: str) -> tuple[int | None, str | None]:
    """The batch size and device of ``?batch=N&device=D`` in an nli spec: how
    the model runs, not what it says, so neither is part of the judge's identity."""
    batch: int | None = None
    device: str | None = None
    for item in filter(None, query.split("&")):
        key, _, value = item.partition("=")
        if key == "device" and value:
            device = value
        elif key == "batch":
            if not (value.isascii() and value.isdigit()) or int(value) < 1:
                raise ConfigError(f"judge {spec!r}: batch must be a positive integer, got {value!r}")
            batch = int(value)
        else:
            raise ConfigError(f"judge {spec!r}: unknown nli option {item!r}; expected batch=N or device=D")
    return batch, device


def make_judge(spec: str, cache_dir: Path | None = None, *, offline: bool = False) -> Judge:
    """A judge from its spec: ``rules`` (the offline default),
    ``nli:MODEL`` (a local model directory or a hub id, optionally
    ``?batch=N&device=D`` for how it runs and ``#label,label,…``
    for a head with meaningless label names) or
    ``llm:MODEL@BASE_URL`` (an OpenAI-compatible endpoint, e.g.
    ``llm:qwen2.5-7b-instruct@http://127.0.0.1:8000/v1``). With ``cache_dir``
    its verdicts are cached there. ``offline`` keeps an ``llm`` judge to its
    cached verdicts and an ``nli`` model to files already on disk.

    ``rules+SPEC`` runs the rules judge first and asks the judge of ``SPEC``
    only about the claims it leaves ``unknown``."""
    judge: Judge
    if spec.startswith("rules+"):
        from citeaudit.semantic.cascade import CascadeJudge
        from citeaudit.semantic.rules import RulesJudge

        return CascadeJudge(RulesJudge(), make_judge(spec.removeprefix("rules+"), cache_dir, offline=offline))
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
        located, _, labels = rest.partition("#")
        model, _, query = located.partition("?")
        if not model:
            raise ConfigError(f"judge {spec!r}: expected nli:MODEL_DIR_OR_HUB_ID[?OPTIONS][#LABEL,…]")
        batch, device = _nli_options(spec, query)
        from citeaudit.semantic.nli import NliJudge

        mapping = tuple(v.strip() for v in labels.split(",")) if labels else ()
        judge = NliJudge(model, labels=mapping, batch_size=batch, device=device, local_only=offline)
    else:
        expected = "'rules', 'nli:MODEL', 'llm:MODEL@URL' or 'rules+' and one of these"
        raise ConfigError(f"unknown judge {spec!r}; expected {expected}")
    if cache_dir is None:
        if offline and backend == "llm":
            raise ConfigError(
                "offline, an llm judge can only answer from a verdict cache: give --verdict-cache"
            )
        return judge
    from citeaudit.semantic.cache import CachedJudge

    return CachedJudge(judge, cache_dir, offline=offline and backend == "llm")


def configured_judge(spec: str, *, verdict_cache: Path | None, cache: Path, offline: bool) -> Judge | None:
    """The judge an audit runs for a spec, as ``check`` and the Python API build it:
    None for ``none``; the verdicts of the backends that cost something cached in
    ``verdict_cache``, by default ``verdicts`` under the registry cache directory."""
    if spec == "none":
        return None
    if verdict_cache is None and spec != "rules":
        verdict_cache = cache / "verdicts"
    return make_judge(spec, verdict_cache, offline=offline)
