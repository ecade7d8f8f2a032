"""What a batch worker audits with: the composition root's auditor, built once per worker.

:class:`WorkerSpec` is what travels to a worker process or a Ray actor: the run's
:class:`~citeaudit.config.Config` (picklable) and the driver's answers for the DOIs that stayed
unavailable. :func:`build_worker` makes from it one call to
:func:`citeaudit.wiring.build_auditor`, so a batch audits exactly as ``check`` does, and a judge
that loads a model loads it once per worker. Workers never go online for registry answers: the
driver resolved the missing DOIs before the audits (:func:`driver_resolver`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from citeaudit.config import Config
from citeaudit.formats import InputFormat, input_format_of
from citeaudit.model import Report, Submission
from citeaudit.resolve.cache import CachingResolver
from citeaudit.resolve.interface import Resolution, Resolver
from citeaudit.sources.directory import SnapshotDirectory
from citeaudit.sources.interface import SourceLookup
from citeaudit.wiring import Auditor, build_auditor, build_resolver, open_evidence

__all__ = ["Worker", "WorkerSpec", "build_worker", "driver_resolver"]


@dataclass(frozen=True)
class WorkerSpec:
    config: Config
    # Answers the driver got for DOIs it could not resolve (registry unavailable), so a
    # worker reports them as check does rather than as a cache miss.
    unavailable: tuple[tuple[str, Resolution], ...] = ()

    @property
    def max_input_bytes(self) -> int:
        return self.config.max_input_bytes

    @property
    def max_depth(self) -> int:
        return self.config.max_depth

    @property
    def fail_on(self) -> str:
        return self.config.fail_on

    @property
    def input_format(self) -> InputFormat | None:
        """The format every answer is read as (``--input-format``); None: detected."""
        return input_format_of(self.config.input_format)

    def fingerprint(self) -> dict[str, Any]:
        """Everything that changes a report, a rejection or the exit code, for the run's manifest."""
        config = self.config
        return {
            "cache": str(config.cache),
            "corpus": str(config.corpus) if config.corpus is not None else None,
            "fail_on": config.fail_on,
            "judge": config.judge,
            "max_depth": config.max_depth,
            "max_input_bytes": config.max_input_bytes,
            "min_quote_length": config.min_quote_length,
            "offline": config.offline,
            "policy": config.policy.to_json(),
            "scope": config.scope,
            "severity": dict(sorted(config.severity.items())),
            "sources": str(config.sources),
            "store": config.store,
            "verdict_cache": str(config.verdict_cache) if config.verdict_cache is not None else None,
        } | ({"input_format": config.input_format} if config.input_format != "auto" else {})


class _KnownAnswers(Resolver):
    """Upstream of the worker's cache: the driver's answers for DOIs that stayed unavailable."""

    def __init__(self, answers: Mapping[str, Resolution]) -> None:
        self.answers = answers

    def resolve_many(self, dois: list[str]) -> dict[str, Resolution]:
        missing = Resolution.unavailable(
            "E_NOT_CACHED",
            "offline and not in the cache: run `citeaudit fetch` on this input online (same --cache) "
            "to pin the registry's answer",
        )
        return {doi: self.answers.get(doi, missing) for doi in dois}


class _Memo(CachingResolver):
    """The composition root's cache-only resolver, its answers kept once per worker (bounded),
    not read from the cache once per answer."""

    def __init__(self, inner: CachingResolver, upstream: Resolver | None, limit: int = 100_000) -> None:
        super().__init__(inner.cache, upstream)
        self.limit = limit
        self.seen: OrderedDict[str, Resolution] = OrderedDict()

    def resolve_many(self, dois: list[str]) -> dict[str, Resolution]:
        missing = [d for d in dois if d not in self.seen]
        if missing:
            for doi, answer in super().resolve_many(missing).items():
                self.seen[doi] = answer
                if len(self.seen) > self.limit:
                    self.seen.popitem(last=False)
        out: dict[str, Resolution] = {}
        for doi in dois:
            known = self.seen.get(doi)
            # None: pushed out by this very call, so asked again
            out[doi] = known if known is not None else super().resolve_many([doi])[doi]
        return out


class _SnapshotMemo(SnapshotDirectory):
    """The snapshot directory, texts kept per worker up to a byte budget: answers of a batch share
    sources."""

    def __init__(self, inner: SnapshotDirectory, budget: int = 256 * 1024 * 1024) -> None:
        super().__init__(inner.root)
        self.budget = budget
        self.used = 0
        self.texts: OrderedDict[str, str | None] = OrderedDict()

    def text_for_doi(self, doi: str) -> str | None:
        if doi in self.texts:
            self.texts.move_to_end(doi)
            return self.texts[doi]
        text = super().text_for_doi(doi)
        size = len(text) if text is not None else 0
        if size <= self.budget // 4:
            self.texts[doi] = text
            self.used += size
            while self.used > self.budget or len(self.texts) > 100_000:
                _, dropped = self.texts.popitem(last=False)
                self.used -= len(dropped) if dropped is not None else 0
        return text


class Worker:
    """``check``'s audit of one submission, with the collaborators built once."""

    def __init__(self, spec: WorkerSpec, auditor: Auditor, store: SourceLookup | None) -> None:
        self.spec = spec
        self.auditor = auditor
        self.store = store

    def __call__(self, submission: Submission) -> Report:
        return self.auditor.audit(submission, store=self.store)


def build_worker(spec: WorkerSpec) -> Worker:
    """The composition root's auditor for ``spec.config``, as a worker runs it: the registries read
    from the cache only (no socket, no bibliographic search), one process per audit (the batch
    spreads answers over workers), the judge offline exactly when the run is."""
    config = spec.config
    auditor = build_auditor(replace(config, offline=True, jobs=1), judge_online=not config.offline)
    # The report states the run's setting, as check's does: an online run resolved before the audits.
    auditor.settings = replace(auditor.settings, offline=config.offline)
    upstream = _KnownAnswers(dict(spec.unavailable)) if spec.unavailable else None
    auditor.resolver = _Memo(auditor.resolver, upstream)
    auditor.snapshots = _SnapshotMemo(auditor.snapshots)
    evidence = open_evidence(config, read_only=True)
    return Worker(spec, auditor, evidence.lookup() if evidence is not None else None)


def driver_resolver(config: Config, progress: Any) -> CachingResolver:
    """The driver's polite resolver for the DOIs missing from the cache (batch route, limits, cache):
    the composition root's, online."""
    return build_resolver(replace(config, offline=False), progress)
