"""What a batch worker audits with, built in one place from the run's settings.

:class:`WorkerSpec` is the picklable part of the configuration a worker needs (it
travels to processes and to Ray actors); :func:`build_auditor` turns it into the
collaborators ``check`` uses — cache-only resolver, snapshots, corpus, store lookup,
judge and :class:`~citeaudit.core.AuditSettings` — once per worker, so a judge that
loads a model loads it once. Workers never go online for registry answers: the
driver resolved the missing DOIs before the audits (:func:`online_resolver`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citeaudit.core import AuditSettings, audit
from citeaudit.model import Report, Submission
from citeaudit.policy import Policy
from citeaudit.resolve.cache import CachingResolver, DoiCache
from citeaudit.resolve.interface import Resolution, Resolver
from citeaudit.sources.directory import SnapshotDirectory
from citeaudit.sources.interface import SnapshotStore

__all__ = ["Auditor", "WorkerSpec", "build_auditor", "online_resolver"]


@dataclass(frozen=True)
class WorkerSpec:
    cache: str
    sources: str
    corpus: str | None = None
    store: str | None = None
    scope: str | None = None
    judge: str = "rules"
    verdict_cache: str | None = None
    offline: bool = True
    min_quote_length: int = 30
    severity: tuple[tuple[str, str], ...] = ()
    policy: Policy = field(default_factory=Policy)
    max_input_bytes: int = 32 * 1024 * 1024
    max_depth: int = 32
    fail_on: str = "error"
    # Answers the driver got for DOIs it could not resolve (registry unavailable), so a
    # worker reports them as check does rather than as a cache miss.
    unavailable: tuple[tuple[str, Resolution], ...] = ()

    def fingerprint(self) -> dict[str, Any]:
        """Everything that changes a report, a rejection or the exit code, for the run's manifest."""
        return {
            "cache": self.cache,
            "corpus": self.corpus,
            "fail_on": self.fail_on,
            "judge": self.judge,
            "max_depth": self.max_depth,
            "max_input_bytes": self.max_input_bytes,
            "min_quote_length": self.min_quote_length,
            "offline": self.offline,
            "policy": self.policy.to_json(),
            "scope": self.scope,
            "severity": dict(sorted(self.severity)),
            "sources": self.sources,
            "store": self.store,
            "verdict_cache": self.verdict_cache,
        }


class _KnownAnswers(Resolver):
    """Upstream of the worker's cache: the driver's answers for DOIs that stayed unavailable."""

    def __init__(self, answers: Mapping[str, Resolution]) -> None:
        self.answers = answers

    def resolve_many(self, dois: list[str]) -> dict[str, Resolution]:
        missing = Resolution.unavailable("E_NOT_CACHED", "offline and not in the cache")
        return {doi: self.answers.get(doi, missing) for doi in dois}


class _Memo(Resolver):
    """Registry answers read from the cache once per worker (bounded), not once per answer."""

    def __init__(self, inner: Resolver, limit: int = 100_000) -> None:
        self.inner = inner
        self.limit = limit
        self.seen: OrderedDict[str, Resolution] = OrderedDict()

    def resolve_many(self, dois: list[str]) -> dict[str, Resolution]:
        missing = [d for d in dois if d not in self.seen]
        if missing:
            for doi, answer in self.inner.resolve_many(missing).items():
                self.seen[doi] = answer
                if len(self.seen) > self.limit:
                    self.seen.popitem(last=False)
        out: dict[str, Resolution] = {}
        for doi in dois:
            known = self.seen.get(doi)
            # None: pushed out by this very call, so asked again
            out[doi] = known if known is not None else self.inner.resolve_many([doi])[doi]
        return out


class _SnapshotMemo(SnapshotStore):
    """Snapshot texts kept per worker up to a byte budget: answers of a batch share sources."""

    def __init__(self, inner: SnapshotStore, budget: int = 256 * 1024 * 1024) -> None:
        self.inner = inner
        self.budget = budget
        self.used = 0
        self.texts: OrderedDict[str, str | None] = OrderedDict()

    def text_for_doi(self, doi: str) -> str | None:
        if doi in self.texts:
            self.texts.move_to_end(doi)
            return self.texts[doi]
        text = self.inner.text_for_doi(doi)
        size = len(text) if text is not None else 0
        if size <= self.budget // 4:
            self.texts[doi] = text
            self.used += size
            while self.used > self.budget or len(self.texts) > 100_000:
                _, dropped = self.texts.popitem(last=False)
                self.used -= len(dropped) if dropped is not None else 0
        return text


class Auditor:
    """``check``'s audit of one submission, with collaborators built once."""

    def __init__(self, spec: WorkerSpec, **collaborators: Any) -> None:
        self.spec = spec
        self.collaborators = collaborators

    def __call__(self, submission: Submission) -> Report:
        return audit(submission, suggester=None, reviews=(), **self.collaborators)


def build_auditor(spec: WorkerSpec) -> Auditor:
    """Every collaborator of a worker's audits, built as ``check`` builds them, offline."""
    cache = DoiCache(Path(spec.cache))
    upstream = _KnownAnswers(dict(spec.unavailable)) if spec.unavailable else None
    corpus = None
    if spec.corpus is not None:
        from citeaudit.sources.corpus import load_corpus

        corpus = load_corpus(Path(spec.corpus), spec.max_input_bytes)
    lookup = None
    if spec.store is not None and spec.scope is not None:
        from citeaudit.sources.store import Scope, ScopedLookup, open_store  # SQLAlchemy only when used

        lookup = ScopedLookup(open_store(spec.store), Scope.parse(spec.scope))
    from citeaudit.semantic.judge import configured_judge

    judge = configured_judge(
        spec.judge,
        verdict_cache=Path(spec.verdict_cache) if spec.verdict_cache is not None else None,
        cache=Path(spec.cache),
        offline=spec.offline,
    )
    settings = AuditSettings(
        min_quote_length=spec.min_quote_length,
        severity=dict(spec.severity),
        offline=spec.offline,
        jobs=1,  # the batch spreads answers over workers; one answer's sources stay in its worker
        policy=spec.policy,
    )
    return Auditor(
        spec,
        resolver=_Memo(CachingResolver(cache, upstream)),
        snapshots=_SnapshotMemo(SnapshotDirectory(Path(spec.sources))),
        corpus=corpus,
        store=lookup,
        settings=settings,
        judge=judge,
    )


def online_resolver(cache: Path, mailto: str, progress: Any) -> Resolver:
    """The driver's polite resolver for the DOIs missing from the cache (batch route, limits, cache)."""
    from citeaudit.resolve.registry import RegistryResolver  # httpx only when going online

    doi_cache = DoiCache(cache)
    return CachingResolver(doi_cache, RegistryResolver(doi_cache, mailto=mailto, progress=progress))
