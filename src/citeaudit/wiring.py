"""The composition root: from a :class:`~citeaudit.config.Config` (file, environment and flags), the
collaborators of an audit — the resolver, the snapshots, the corpus, the evidence store, the suggester,
the judge and the :class:`~citeaudit.core.AuditSettings`.

Every shell builds its audits here and nowhere else: ``citeaudit check``, the Python API, the HTTP
service and the MCP server (and a batch worker, which receives the picklable ``Config`` and builds its
own :class:`Auditor` from it). One configuration therefore gives one report, whichever shell runs it.

What differs between the shells is said once, here:

* :func:`build_auditor` — what ``check`` and the Python API run: the registries online unless
  ``config.offline``, a bibliographic search for better candidates when online, the judge offline
  exactly when the registries are, its costly verdicts cached.
* :func:`service_auditor` — the HTTP service: the registry cache and the pinned pages only read (a
  service never goes online on a request's behalf: it fetches no page), one process per audit, the
  judge's own model or endpoint the operator's explicit choice, its verdicts cached.
* :func:`read_only_auditor` — the MCP server: as the service, and no verdict is written, as the server
  writes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Final

from citeaudit.config import Config
from citeaudit.core import AuditSettings, Suggester, WorkSearch
from citeaudit.core import audit as run_audit
from citeaudit.errors import ConfigError
from citeaudit.model import Report, Review, Submission
from citeaudit.resolve.cache import CachingResolver, DoiCache
from citeaudit.resolve.indexes.interface import Candidate, IndexAnswer, WorkQuery
from citeaudit.semantic.factory import configured_judge, make_judge
from citeaudit.semantic.interface import Judge
from citeaudit.sources.directory import SnapshotDirectory
from citeaudit.sources.interface import PinStore, SourceLookup
from citeaudit.sources.pins import FetchingPins, PinDirectory, Pinner

if TYPE_CHECKING:
    from citeaudit.resolve.indexes.finder import WorkFinder
    from citeaudit.resolve.web import WebFetcher
    from citeaudit.sources.corpus import Corpus
    from citeaudit.store.evidence import EvidenceStore, Scope
    from citeaudit.store.trail import ScopedTrail

__all__ = [
    "FROM_CONFIG",
    "Auditor",
    "Evidence",
    "FromConfig",
    "audit_settings",
    "build_auditor",
    "build_fetcher",
    "build_finder",
    "build_judge",
    "build_pins",
    "build_resolver",
    "open_evidence",
    "read_only_auditor",
    "service_auditor",
]

Progress = Callable[[int, int], None]


class FromConfig:
    """The type of :data:`FROM_CONFIG`, the marker for "build it from the configuration" where None
    already means "none"."""

    def __repr__(self) -> str:
        return "FROM_CONFIG"


FROM_CONFIG: Final = FromConfig()


def audit_settings(config: Config) -> AuditSettings:
    """The core's settings: quote length, the ``[severity]`` and ``[policy]`` tables, offline, jobs."""
    return AuditSettings(
        min_quote_length=config.min_quote_length,
        severity=dict(config.severity),
        offline=config.offline,
        jobs=config.jobs,
        policy=config.policy,
        full_text=config.full_text,
    )


def build_resolver(config: Config, progress: Progress | None = None) -> CachingResolver:
    """Cache first; the registries only without ``offline``."""
    cache = DoiCache(config.cache)
    if config.offline:
        return CachingResolver(cache)
    from citeaudit.resolve.registry import RegistryResolver  # httpx only when going online

    return CachingResolver(cache, RegistryResolver(cache, mailto=config.mailto, progress=progress))


def build_fetcher(config: Config) -> WebFetcher:
    """The fetcher of cited web pages, with the configuration's address, robots and size rules."""
    from citeaudit.resolve.web import WebFetcher, WebPolicy  # httpx only when going online

    policy = WebPolicy(
        max_page_bytes=config.max_page_bytes,
        delay=config.host_delay_ms / 1000,
        allow_private=config.allow_private_urls,
        ignore_robots=config.ignore_robots,
    )
    return WebFetcher(mailto=config.mailto, policy=policy)


def build_pins(config: Config) -> PinStore:
    """The pinned pages beside the snapshots; online, a page not pinned yet is fetched and pinned."""
    directory = PinDirectory(config.sources)
    if config.offline:
        return directory
    return FetchingPins(Pinner(directory, build_fetcher(config)))


def build_suggester(config: Config) -> Suggester | None:
    """A bibliographic search for a better candidate after a mismatch; only online."""
    if config.offline:
        return None
    from citeaudit.resolve.search import BibliographicSearch

    return BibliographicSearch(mailto=config.mailto)


class _ConfiguredSearch:
    """The bibliographic search of a configuration, built at its first use: an audit that cites
    no reference without an identifier opens no mirror and imports no HTTP client."""

    def __init__(self, config: Config) -> None:
        for path in config.mirrors:
            if not path.is_file():
                raise ConfigError(f"{path}: no mirror there; create it with `citeaudit mirror import`")
        self.config = config
        self._built: WorkFinder | None = None

    def find_many(
        self, queries: Sequence[WorkQuery], enough: Callable[[WorkQuery, Sequence[Candidate]], bool]
    ) -> Mapping[str, tuple[IndexAnswer, ...]]:
        return self._finder().find_many(queries, enough)

    def described(self) -> list[dict[str, Any]]:
        return self._finder().described()

    def _finder(self) -> WorkFinder:
        if self._built is None:
            from citeaudit.mirror import open_mirror
            from citeaudit.resolve.indexes.finder import WorkFinder, online_indexes
            from citeaudit.resolve.indexes.pinned import SearchPins

            config = self.config
            local = [open_mirror(path) for path in config.mirrors]
            online = online_indexes(config.indexes, config.mailto, config.cache)
            self._built = WorkFinder(local, online, SearchPins(config.cache), offline=config.offline)
        return self._built


def build_finder(config: Config) -> WorkSearch:
    """The bibliographic search of references without an identifier: the configuration's local
    mirrors first, then its online indexes in order, every online answer pinned in the cache.
    Offline, the online indexes are read from their pins alone."""
    return _ConfiguredSearch(config)


def build_judge(config: Config, *, judge_online: bool = False, write_verdicts: bool = True) -> Judge | None:
    """The judge of ``config.judge`` (None for ``none``). Offline when the registries are, unless
    ``judge_online`` (the services: a judge's own model or endpoint is the operator's choice). With
    ``write_verdicts`` the verdicts of the backends that cost something are cached in
    ``config.verdict_cache``, by default ``verdicts`` under the registry cache."""
    offline = config.offline and not judge_online
    if config.judge == "none":
        return None
    if not write_verdicts:
        return make_judge(config.judge, offline=offline)
    return configured_judge(
        config.judge, verdict_cache=config.verdict_cache, cache=config.cache, offline=offline
    )


def load_configured_corpus(config: Config) -> Corpus | None:
    if config.corpus is None:
        return None
    from citeaudit.sources.corpus import load_corpus  # its wire models only with a corpus

    return load_corpus(config.corpus, config.max_input_bytes, config.max_document_bytes)


@dataclass(frozen=True)
class Evidence:
    """The evidence store and the scope an audit reads it in."""

    store: EvidenceStore
    scope: Scope

    def lookup(self) -> SourceLookup:
        from citeaudit.store.evidence import ScopedLookup

        return ScopedLookup(self.store, self.scope)

    def trail(self) -> ScopedTrail:
        from citeaudit.store.trail import ScopedTrail, Trail

        return ScopedTrail(Trail(self.store), self.scope)

    def reviews_for(self, submission: Submission) -> list[Review]:
        from citeaudit.store.reviews import ReviewBook

        return ReviewBook(self.store).latest_for(self.scope.tenant, submission.digest)


def open_evidence(config: Config, *, read_only: bool = False, required: bool = False) -> Evidence | None:
    """The store and scope of ``config``. Without ``required`` none is opened unless a store, a scope
    or ``reviews`` is configured; then both the store and the scope must be given."""
    if not required and not (config.store or config.scope or config.reviews):
        return None
    if read_only and not (config.store and config.scope):
        return None
    if not config.store:
        raise ConfigError("no evidence store: give --store (a SQLite file or a postgresql:// URL)")
    if not config.scope:
        raise ConfigError("no scope: give --scope TENANT/USER")
    from citeaudit.store.evidence import Scope, open_store  # SQLAlchemy only when used

    return Evidence(open_store(config.store, read_only=read_only), Scope.parse(config.scope))


class Auditor:
    """The collaborators of one configuration, built once, for as many audits as are asked of it."""

    def __init__(
        self,
        config: Config,
        *,
        resolver: CachingResolver,
        corpus: Corpus | None,
        suggester: Suggester | None,
        judge: Judge | None,
        pins: PinStore | None = None,
        finder: WorkSearch | None = None,
    ) -> None:
        self.config = config
        self.finder = finder
        self.settings = audit_settings(config)
        self.resolver = resolver
        self.snapshots = SnapshotDirectory(config.sources, config.max_document_bytes)
        self.pins = pins if pins is not None else PinDirectory(config.sources)
        self.corpus = corpus
        self.suggester = suggester
        self.judge = judge

    def audit(
        self,
        submission: Submission,
        *,
        store: SourceLookup | None = None,
        reviews: Sequence[Review] = (),
        trail: Any = None,
    ) -> Report:
        """Audit one submission; ``trail`` (a scoped trail) gets one record of it."""
        report = run_audit(
            submission,
            resolver=self.resolver,
            snapshots=self.snapshots,
            corpus=self.corpus,
            store=store,
            suggester=self.suggester,
            settings=self.settings,
            judge=self.judge,
            reviews=reviews,
            pins=self.pins,
            finder=self.finder,
        )
        if trail is not None:
            trail.append(report)
        return report


def build_auditor(
    config: Config,
    *,
    judge: Judge | FromConfig | None = FROM_CONFIG,
    corpus: Corpus | FromConfig | None = FROM_CONFIG,
    judge_online: bool = False,
    write_verdicts: bool = True,
    progress: Progress | None = None,
) -> Auditor:
    """The auditor of ``check`` and the Python API. ``judge`` and ``corpus`` may be given as objects
    already built (a model loaded once for many audits); ``progress`` is told (done, total) as the
    registries answer."""
    return Auditor(
        config,
        resolver=build_resolver(config, progress),
        corpus=load_configured_corpus(config) if isinstance(corpus, FromConfig) else corpus,
        suggester=build_suggester(config),
        pins=build_pins(config),
        finder=build_finder(config),
        judge=(
            build_judge(config, judge_online=judge_online, write_verdicts=write_verdicts)
            if isinstance(judge, FromConfig)
            else judge
        ),
    )


def _as_service(config: Config) -> Config:
    """Registries read from the cache only, one process per audit."""
    return replace(config, offline=True, jobs=1)


def service_auditor(config: Config) -> Auditor:
    """The HTTP service's auditor (see the module's description)."""
    return build_auditor(_as_service(config), judge_online=True)


def read_only_auditor(config: Config) -> Auditor:
    """The MCP server's auditor: as the service's, and it writes no verdict."""
    return build_auditor(_as_service(config), judge_online=True, write_verdicts=False)
