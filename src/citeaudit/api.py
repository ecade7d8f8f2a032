"""The Python API: audit an answer given as bytes, a JSON or BibTeX document, a dict, a path or a
Submission, with the CLI's options; render the report in any format; turn a failing report into
typed instructions for the agent; and run the generate → audit → feedback loop of seed 000 step 6.

Nothing here prints, exits or keeps global state. Every bad argument is an
:class:`~citeaudit.errors.InputError` (the answer) or a :class:`~citeaudit.errors.ConfigError`
(an option), each with a one-line ``diagnostics()``.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from citeaudit.config import Config, index_names
from citeaudit.errors import CiteauditError, ConfigError, InputError
from citeaudit.formats import input_format_of, load_submission, parse_bytes, submission_from_bytes
from citeaudit.formats.interface import cache_folder_missing, parse_document
from citeaudit.model import Report, Review, Submission
from citeaudit.report.feedback import RULE
from citeaudit.report.feedback import feedback as feedback_dict
from citeaudit.report.feedback import feedback_text as _feedback_text
from citeaudit.report.formats import RenderContext, ReportFormat
from citeaudit.report.formats import render as render_format
from citeaudit.report.json import report_to_dict
from citeaudit.report.read import checked_report
from citeaudit.semantic.interface import Judge
from citeaudit.sources.corpus import Corpus
from citeaudit.sources.interface import SourceLookup
from citeaudit.wiring import FROM_CONFIG, FromConfig, build_auditor, build_judge

__all__ = [
    "Feedback",
    "FixItem",
    "Problem",
    "RepairResult",
    "WeakClaim",
    "audit",
    "feedback",
    "feedback_text",
    "render",
    "repair_loop",
]

Answer = bytes | bytearray | memoryview | Mapping[str, Any] | str | Path | Submission
ANSWER_NAME = "<answer>"  # how errors name an answer that is not a file
REPORT_NAME = "<report>"  # and a report given as a mapping
FEEDBACK_NAME = "<feedback>"  # and instructions given as a mapping

# A str is a document, not a path, when its first character other than white space opens one:
# ``{`` (JSON) or ``@`` / ``%`` (BibTeX, an entry or a comment), or when it has a line break (a
# Markdown report; no path has one). Any other str is a path.
_DOCUMENT_OPENERS = ("{", "@", "%")


def _shown(path: str) -> str:
    """A path as an error names it: on one line, and not echoed whole when it is long."""
    one_line = path.encode("unicode_escape").decode("ascii")
    return one_line if len(one_line) <= 80 else one_line[:77] + "..."


def _lone_surrogate(text: str, at: int) -> InputError:
    """The error of a str answer that UTF-8 cannot encode: the CLI's (a lone surrogate), at its JSON
    path when the answer is a JSON document, else at its line."""
    if text.lstrip().startswith("{"):
        try:
            document = json.loads(text)
        except ValueError:
            pass
        else:
            try:
                parse_document(document, ANSWER_NAME)  # names the JSON path of the string
            except InputError as e:
                return e
    line = text.count("\n", 0, at) + 1
    return InputError(ANSWER_NAME, f"line {line}", f"not valid Unicode text (a lone surrogate): {text[at]!r}")


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise _lone_surrogate(text, e.start) from None


def _submission(answer: object, input_format: str | None = None) -> Submission:
    try:
        forced = input_format_of(input_format)
    except ValueError:
        raise ConfigError(f"input_format: {input_format!r} is not a format citeaudit reads") from None
    if isinstance(answer, Submission):
        return answer
    if isinstance(answer, bytes | bytearray | memoryview):
        return submission_from_bytes(bytes(answer), ANSWER_NAME, input_format=forced)
    if isinstance(answer, str) and (answer.lstrip().startswith(_DOCUMENT_OPENERS) or "\n" in answer.strip()):
        return submission_from_bytes(_utf8(answer), ANSWER_NAME, input_format=forced)
    if isinstance(answer, str | Path):
        name = _shown(str(answer))
        if not str(answer).strip() or "\0" in str(answer):
            raise InputError(ANSWER_NAME, "", f"not a path nor a document: {name!r}")
        try:
            return load_submission(Path(answer), input_format=forced)
        except InputError as e:
            raise InputError(name, e.path, e.problem) from None
        except OSError as e:  # a name too long, a device that cannot be read…
            raise InputError(name, "", e.strerror or type(e).__name__) from None
    if isinstance(answer, Mapping):
        # Serialised with sorted keys, so the same dict always gets the same input digest.
        try:
            text = json.dumps(answer, ensure_ascii=False, sort_keys=True, allow_nan=False)
            raw = _utf8(text)
        except (TypeError, ValueError) as e:
            raise InputError(ANSWER_NAME, "", f"not a JSON document: {e}") from None
        return parse_bytes(raw, ANSWER_NAME)
    raise InputError(
        ANSWER_NAME,
        "",
        "expected bytes, a JSON or BibTeX document (str), a path, a mapping or a Submission, "
        f"got {type(answer).__name__}",
    )


# What a library call is when no configuration is given: offline, in this process.
LIBRARY_DEFAULTS = Config(offline=True, jobs=1)


def _path(name: str, value: object) -> Path | None:
    if value is None:
        return None
    if not isinstance(value, str | Path) or not str(value) or "\0" in str(value):
        raise ConfigError(f"{name}: expected a path, got {_shown(repr(value))}")
    return Path(value)


def _positive(name: str, value: object) -> int | None:
    if value is None:
        return None
    if type(value) is not int or value < 1:
        raise ConfigError(f"{name}: expected a positive integer, got {_shown(repr(value))}")
    return value


def _config(
    config: Config | None,
    *,
    cache: str | Path | None = None,
    sources: str | Path | None = None,
    corpus: str | Path | None = None,
    offline: bool | None = None,
    mailto: str | None = None,
    min_quote_length: int | None = None,
    severity: Mapping[str, str] | None = None,
    jobs: int | None = None,
    judge: str | None = None,
    verdict_cache: str | Path | None = None,
    store: str | Path | None = None,
    scope: str | None = None,
    mirror: str | Path | Sequence[str | Path] | None = None,
    indexes: Sequence[str] | None = None,
) -> Config:
    """The configuration of one call: ``config`` (else :data:`LIBRARY_DEFAULTS`), then the options,
    each checked as the configuration file's value would be (a :class:`ConfigError` otherwise)."""
    if config is not None and not isinstance(config, Config):
        raise ConfigError(f"config: expected a citeaudit.config.Config, got {type(config).__name__}")
    base = config if config is not None else LIBRARY_DEFAULTS
    paths = {"cache": cache, "sources": sources, "corpus": corpus, "verdict_cache": verdict_cache}
    changes: dict[str, Any] = {k: _path(k, v) for k, v in paths.items() if v is not None}
    ints = {"min_quote_length": min_quote_length, "jobs": jobs}
    changes |= {k: _positive(k, v) for k, v in ints.items() if v is not None}
    if offline is not None:
        if not isinstance(offline, bool):
            raise ConfigError(f"offline: expected True or False, got {_shown(repr(offline))}")
        changes["offline"] = offline
    for name, text in (("mailto", mailto), ("judge", judge), ("scope", scope)):
        if text is not None:
            if not isinstance(text, str):
                raise ConfigError(f"{name}: expected a string, got {_shown(repr(text))}")
            changes[name] = text
    if store is not None:
        changes["store"] = str(_path("store", store))
    if mirror is not None:
        given = [mirror] if isinstance(mirror, str | Path) else list(mirror)
        changes["mirrors"] = tuple(_path("mirror", m) for m in given)
    if indexes is not None:
        if isinstance(indexes, str) or not all(isinstance(i, str) for i in indexes):
            raise ConfigError(f"indexes: expected a list of index names, got {_shown(repr(indexes))}")
        changes["indexes"] = index_names(tuple(indexes), "indexes")
    if severity:
        if not isinstance(severity, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in severity.items()
        ):
            raise ConfigError('severity: expected a mapping of CODE to "error", "warning" or "info"')
        changes["severity"] = {**base.severity, **severity}
    return replace(base, **changes)


def _lookup(config: Config, store: object, scope: str | None) -> SourceLookup | None:
    """The evidence the citations of stored sources are checked against: a lookup given as an
    object, or the store of a path or URL opened read-only in ``scope`` (``TENANT/USER``)."""
    if store is None or isinstance(store, SourceLookup):
        if scope is not None:
            raise ConfigError("scope: applies to a store given as a path or URL")
        return store
    if not config.scope:
        raise ConfigError("store: give scope='TENANT/USER' too (the scope its sources are read in)")
    from citeaudit.store.evidence import Scope, ScopedLookup, open_store  # SQLAlchemy only when used

    try:
        where = Scope.parse(config.scope)
        return ScopedLookup(open_store(str(config.store), read_only=True), where)
    except ConfigError:
        raise
    except CiteauditError as e:
        raise ConfigError(e.diagnostics()) from None


def audit(
    answer: Answer,
    *,
    config: Config | None = None,
    cache: str | Path | None = None,
    sources: str | Path | None = None,
    corpus: str | Path | Corpus | None = None,
    store: SourceLookup | str | Path | None = None,
    scope: str | None = None,
    offline: bool | None = None,
    mailto: str | None = None,
    min_quote_length: int | None = None,
    severity: Mapping[str, str] | None = None,
    jobs: int | None = None,
    trail: Any = None,
    judge: Judge | str | object | None = FROM_CONFIG,
    verdict_cache: str | Path | None = None,
    reviews: Sequence[Review] = (),
    mirror: str | Path | Sequence[str | Path] | None = None,
    indexes: Sequence[str] | None = None,
    input_format: str | None = None,
) -> Report:
    """Audit one answer; the same options as ``citeaudit check``, built by the same composition
    root (:mod:`citeaudit.wiring`).

    ``answer`` is bytes (JSON; BibTeX when it opens with ``@`` or ``%``; a Markdown report when it
    has a references heading), a str, a mapping, a path or a :class:`~citeaudit.model.Submission`. A
    str whose first character other than white space is ``{``, ``@`` or ``%``, or that has a line
    break, is the document itself; any other str is a path, as a :class:`~pathlib.Path` always is (a
    ``.bib`` or ``.bibtex`` file is BibTeX, a ``.md`` or ``.markdown`` file a Markdown report).
    ``input_format`` (``markdown-report``, ``bibtex``, ``seed-003``…, as ``check --input-format``)
    reads the answer as that format instead.

    ``config`` is a :class:`citeaudit.config.Config` (``citeaudit.config.load_config`` reads the
    file and the environment as ``check`` does: its ``[severity]`` and ``[policy]`` apply); without
    one the defaults are those of ``check`` except ``offline`` (True here: a library call touches
    the network only when asked to) and ``jobs`` (1). Each option given overrides the
    configuration. ``store`` is the evidence store (a SQLite path or a ``postgresql://`` URL,
    opened read-only, in ``scope`` ``TENANT/USER``), or a lookup object already scoped.
    ``trail`` (a :class:`citeaudit.store.trail.ScopedTrail`) gets one record of
    the audit. ``judge`` is a judge or its spec (``rules``, ``nli:MODEL``, ``llm:MODEL@URL``; None
    or ``none`` skips the semantic stage), built as ``check --judge`` builds it: nli and llm
    verdicts are cached in ``verdict_cache`` (default: ``verdicts`` under ``cache``), and offline
    an nli model is read only from disk and an llm judge answers only from that cache. Pass a
    judge object made once with :func:`citeaudit.semantic.factory.make_judge` to load a model once
    for many calls (:func:`repair_loop` does that for a spec). ``reviews`` are applied if they are
    for this exact submission (a stale one raises :class:`citeaudit.policy.ReviewError`).
    ``mirror`` (a path or several) and ``indexes`` (online index names, in order) are where a
    reference without an identifier is searched, as ``check --mirror`` and ``--indexes``. A bad
    answer raises :class:`citeaudit.InputError`, a bad option :class:`citeaudit.ConfigError`.
    """
    submission = _submission(answer, input_format)
    built: Judge | FromConfig = FROM_CONFIG  # a spec (or None: "none") is built from the configuration
    spec: str | None = None
    if isinstance(judge, str) or judge is None:
        spec = "none" if judge is None else judge
    elif not isinstance(judge, FromConfig):
        if not callable(getattr(judge, "judge", None)):
            raise ConfigError(f"judge: expected a spec or a judge object, got {type(judge).__name__}")
        if verdict_cache is not None:
            raise ConfigError(
                "verdict_cache applies to a judge given by spec; wrap a judge object in CachedJudge"
            )
        built = cast(Judge, judge)
    if corpus is not None and not isinstance(corpus, str | Path | Corpus):
        raise ConfigError(f"corpus: expected a path or a Corpus, got {type(corpus).__name__}")
    effective = _config(
        config,
        cache=cache,
        sources=sources,
        corpus=corpus if isinstance(corpus, str | Path) else None,
        offline=offline,
        mailto=mailto,
        min_quote_length=min_quote_length,
        severity=severity,
        jobs=jobs,
        judge=spec,
        verdict_cache=verdict_cache,
        store=store if isinstance(store, str | Path) else None,
        scope=scope,
        mirror=mirror,
        indexes=indexes,
    )
    if store is not None and not isinstance(store, str | Path | SourceLookup):
        raise ConfigError(f"store: expected a path, a URL or a SourceLookup, got {type(store).__name__}")
    # As ``check`` refuses it: a cache folder named (here or in ``config``) that does not exist.
    named = cache is not None or effective.cache != LIBRARY_DEFAULTS.cache
    if cache_folder_missing(submission, effective.cache, offline=effective.offline, named=named):
        raise ConfigError(
            f"cache: {_shown(str(effective.cache))} is not a folder; offline, every citation would be "
            "E_NOT_CACHED (give the cache folder, or fetch online to fill it)"
        )
    lookup = _lookup(effective, store, scope)
    auditor = build_auditor(
        effective, judge=built, corpus=corpus if isinstance(corpus, Corpus) else FROM_CONFIG
    )
    return auditor.audit(submission, store=lookup, reviews=reviews, trail=trail)


def render(report: Report | Mapping[str, Any], fmt: str = "json", *, input_uri: str = "claims.json") -> bytes:
    """The report in one of the output formats ``check --format`` writes: ``json`` (the canonical
    report.json bytes), ``md``, ``sarif``, ``junit`` or ``html``; ``report`` is a :class:`Report`
    or report.json's content. ``input_uri`` is how SARIF names the input."""
    try:
        chosen = ReportFormat(fmt)
    except ValueError:
        names = ", ".join(f.value for f in ReportFormat)
        raise ConfigError(f"unknown report format {_shown(repr(fmt))}; expected one of {names}") from None
    if isinstance(report, Report):
        data = report_to_dict(report)
    elif isinstance(report, Mapping):
        # Checked as ``citeaudit render`` checks a report.json: a damaged one is an InputError that
        # names what is wrong and where, never a KeyError in a renderer (nor bad JSON written).
        data = checked_report(dict(report), REPORT_NAME)
    else:
        raise ConfigError(f"report: expected a Report or report.json's content, got {type(report).__name__}")
    return render_format(chosen, data, RenderContext(input_uri=input_uri))


@dataclass(frozen=True)
class Problem:
    """One failed check of a claim: the citation (None for the claim itself), the code, why."""

    citation: str | None
    code: str
    why: str
    suggestion: Mapping[str, Any] | None = None
    fix: Mapping[str, Any] | None = None  # the patch to merge into the citation, in the input's names


@dataclass(frozen=True)
class FixItem:
    """A claim to fix or delete (``fix_or_delete``), or one only a person can clear
    (``wait_for_a_person``: could not be checked)."""

    claim: str
    action: str
    status: str | None
    problems: tuple[Problem, ...]


@dataclass(frozen=True)
class WeakClaim:
    """A claim that passed every check but that a judge or a reviewer found not shown by its quotes (or,
    where it quotes nothing, by the passages of the cited text the judge read)."""

    claim: str
    verdict: str
    by: str
    unsupported: tuple[str, ...]
    basis: str = "quote"  # what was read: "quote", or "retrieved" (passages of the cited text)
    vetoes: tuple[str, ...] = ()  # a learned judge's vetoes, each with what raised it


@dataclass(frozen=True)
class Feedback(Mapping[str, Any]):
    """What :func:`feedback` returns: typed attributes; read as a mapping it is the JSON object
    ``citeaudit feedback --format json`` prints (:meth:`to_dict`)."""

    clean: bool
    fix: tuple[FixItem, ...]
    keep_unchanged: tuple[str, ...]
    weak: tuple[WeakClaim, ...]
    report_input_sha256: str
    rule: str = RULE
    _data: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Feedback:
        fix = tuple(
            FixItem(
                item["claim"],
                item["action"],
                item["status"],
                tuple(
                    Problem(p["citation"], p["code"], p["why"], p.get("suggestion"), p.get("fix"))
                    for p in item["problems"]
                ),
            )
            for item in data["fix"]
        )
        weak = tuple(
            WeakClaim(
                w["claim"],
                w["verdict"],
                w["by"],
                tuple(w["unsupported"]),
                w.get("basis", "quote"),
                tuple(w.get("vetoes", ())),
            )
            for w in data["weak"]
        )
        keep = tuple(data["keep_unchanged"])
        return cls(data["clean"], fix, keep, weak, data["report_input_sha256"], data["rule"], dict(data))

    def to_dict(self) -> dict[str, Any]:
        copy: dict[str, Any] = json.loads(json.dumps(self._data))  # a copy the caller may change
        return copy

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


def feedback(report: Report | Mapping[str, Any]) -> Feedback:
    """Instructions for the agent: which claims to fix or delete, why, with the suggestions
    (registry title and years, the right range, the occurrence of the quote), which to keep as they
    are, and the claims a judge found not shown by their quotes (see :class:`Feedback`)."""
    if not isinstance(report, Report | Mapping):
        raise ConfigError(f"report: expected a Report or report.json's content, got {type(report).__name__}")
    try:
        return Feedback.from_dict(feedback_dict(report))
    except (KeyError, TypeError, AttributeError) as e:
        raise InputError(REPORT_NAME, "", f"not a citeaudit report: {type(e).__name__} {e}") from None


def feedback_text(instructions: Mapping[str, Any]) -> str:
    """The same instructions as plain text, for a prompt: ``instructions`` is what :func:`feedback`
    returns (a :class:`Feedback`, or its dict)."""
    if not isinstance(instructions, Mapping):
        raise ConfigError(
            "instructions: expected what citeaudit.feedback returns (a Feedback or its dict), "
            f"got {type(instructions).__name__}"
        )
    try:
        return _feedback_text(instructions)
    except (KeyError, TypeError, AttributeError) as e:
        raise InputError(FEEDBACK_NAME, "", f"not citeaudit feedback: {type(e).__name__} {e}") from None


@dataclass
class RepairResult:
    """Where the loop ended: clean, or handed to a person with the last audit."""

    report: Report
    rounds: int
    clean: bool
    needs_person: bool
    history: list[dict[str, Any]] = field(default_factory=list)  # per round: feedback and rule breaks


def _claims_by_id(submission: Submission) -> dict[str, Any]:
    return {c.id: (c.text, c.kind, c.rationale, c.citations, c.citation_ids) for c in submission.claims}


def repair_loop(
    generate: Callable[[Feedback | None], Answer],
    max_rounds: int = 2,
    **options: Any,
) -> RepairResult:
    """generate → audit → feedback, until clean or out of rounds (seed 000 step 6).

    ``generate`` gets None first, then the previous round's :class:`Feedback`, and
    returns the answer. Rounds are the repairs allowed after the first answer.
    A claim the feedback said to keep that the agent changed anyway is
    recorded in the history, and sends the result to a person. A judge given
    by spec is built once, for every round.
    """
    if not callable(generate):
        raise ConfigError(
            "generate: expected a function that takes the feedback (None at first) and returns "
            f"the answer, got {type(generate).__name__}"
        )
    unknown = sorted(set(options) - set(inspect.signature(audit).parameters) - {"answer"})
    if unknown:
        raise ConfigError(f"repair_loop: unknown option {unknown[0]!r}")
    if type(max_rounds) is not int or max_rounds < 0:
        raise ConfigError(
            f"max_rounds: expected a whole number of at least 0, got {_shown(repr(max_rounds))}"
        )
    spec = options.get("judge", FROM_CONFIG)
    if isinstance(spec, str | FromConfig):
        known = ("cache", "offline", "verdict_cache", "min_quote_length", "severity", "jobs", "mailto")
        judged = _config(
            options.get("config"),
            judge=spec if isinstance(spec, str) else None,
            **{k: options[k] for k in known if k in options},
        )
        options.pop("verdict_cache", None)
        options["judge"] = build_judge(judged)
    history: list[dict[str, Any]] = []
    instructions: Feedback | None = None
    previous: dict[str, Any] | None = None
    broke_rule = False
    for round_number in range(max_rounds + 1):
        submission = _submission(generate(instructions))
        report = audit(submission, **options)
        claims = _claims_by_id(submission)
        changed_kept = []
        if instructions is not None and previous is not None:
            changed_kept = [c for c in instructions["keep_unchanged"] if claims.get(c) != previous.get(c)]
            broke_rule = broke_rule or bool(changed_kept)
        instructions = feedback(report)
        history.append(
            {
                "round": round_number,
                "feedback": instructions.to_dict(),
                "changed_claims_it_was_told_to_keep": changed_kept,
            }
        )
        previous = claims
        if instructions["clean"]:
            return RepairResult(report, round_number, clean=True, needs_person=broke_rule, history=history)
    return RepairResult(report, max_rounds, clean=False, needs_person=True, history=history)
