"""The Python API: audit an answer given as a dict, a path or a Submission,
with the CLI's options; turn a failing report into instructions for the agent;
and run the generate → audit → feedback loop of seed 000 step 6.

Nothing here prints, exits or keeps global state.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from citeaudit.config import Config
from citeaudit.formats import load_submission, parse_bytes
from citeaudit.model import Report, Review, Submission
from citeaudit.report.feedback import feedback, feedback_text
from citeaudit.semantic.interface import Judge
from citeaudit.sources.corpus import Corpus
from citeaudit.sources.interface import SourceLookup
from citeaudit.wiring import FROM_CONFIG, FromConfig, build_auditor, build_judge

__all__ = ["RepairResult", "audit", "feedback", "feedback_text", "repair_loop"]

Answer = Mapping[str, Any] | str | Path | Submission


def _submission(answer: Answer) -> Submission:
    if isinstance(answer, Submission):
        return answer
    if isinstance(answer, str | Path):
        return load_submission(Path(answer))
    # Serialised with sorted keys, so the same dict always gets the same input digest.
    raw = json.dumps(answer, ensure_ascii=False, sort_keys=True).encode("utf-8")
    return parse_bytes(raw, "<answer>")


# What a library call is when no configuration is given: offline, in this process.
LIBRARY_DEFAULTS = Config(offline=True, jobs=1)


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
) -> Config:
    """The configuration of one call: ``config`` (else :data:`LIBRARY_DEFAULTS`), then the options."""
    base = config if config is not None else LIBRARY_DEFAULTS
    paths = {"cache": cache, "sources": sources, "corpus": corpus, "verdict_cache": verdict_cache}
    changes: dict[str, Any] = {k: Path(v) for k, v in paths.items() if v is not None}
    values = {"offline": offline, "mailto": mailto, "min_quote_length": min_quote_length, "jobs": jobs}
    changes |= {k: v for k, v in values.items() if v is not None}
    if judge is not None:
        changes["judge"] = judge
    if severity:
        changes["severity"] = {**base.severity, **severity}
    return replace(base, **changes)


def audit(
    answer: Answer,
    *,
    config: Config | None = None,
    cache: str | Path | None = None,
    sources: str | Path | None = None,
    corpus: str | Path | Corpus | None = None,
    store: SourceLookup | None = None,
    offline: bool | None = None,
    mailto: str | None = None,
    min_quote_length: int | None = None,
    severity: Mapping[str, str] | None = None,
    jobs: int | None = None,
    trail: Any = None,
    judge: Judge | str | object | None = FROM_CONFIG,
    verdict_cache: str | Path | None = None,
    reviews: Sequence[Review] = (),
) -> Report:
    """Audit one answer; the same options as ``citeaudit check``, built by the same composition
    root (:mod:`citeaudit.wiring`).

    ``config`` is a :class:`citeaudit.config.Config` (``citeaudit.config.load_config`` reads the
    file and the environment as ``check`` does: its ``[severity]`` and ``[policy]`` apply); without
    one the defaults are those of ``check`` except ``offline`` (True here: a library call touches
    the network only when asked to) and ``jobs`` (1). Each option given overrides the
    configuration. ``trail`` (a :class:`citeaudit.store.trail.ScopedTrail`) gets one record of
    the audit. ``judge`` is a judge or its spec (``rules``, ``nli:MODEL``, ``llm:MODEL@URL``; None
    or ``none`` skips the semantic stage), built as ``check --judge`` builds it: nli and llm
    verdicts are cached in ``verdict_cache`` (default: ``verdicts`` under ``cache``), and offline
    an nli model is read only from disk and an llm judge answers only from that cache. Pass a
    judge object made once with :func:`citeaudit.semantic.factory.make_judge` to load a model once
    for many calls (:func:`repair_loop` does that for a spec). ``reviews`` are applied if they are
    for this exact submission (a stale one raises :class:`citeaudit.policy.ReviewError`). Bad
    input raises :class:`citeaudit.InputError`.
    """
    submission = _submission(answer)
    built: Judge | FromConfig = FROM_CONFIG  # a spec (or None: "none") is built from the configuration
    spec: str | None = None
    if isinstance(judge, str) or judge is None:
        spec = "none" if judge is None else judge
    elif not isinstance(judge, FromConfig):
        if verdict_cache is not None:
            raise ValueError(
                "verdict_cache applies to a judge given by spec; wrap a judge object in CachedJudge"
            )
        built = cast(Judge, judge)
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
    )
    auditor = build_auditor(
        effective, judge=built, corpus=corpus if isinstance(corpus, Corpus) else FROM_CONFIG
    )
    return auditor.audit(submission, store=store, reviews=reviews, trail=trail)


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
    generate: Callable[[dict[str, Any] | None], Answer],
    max_rounds: int = 2,
    **options: Any,
) -> RepairResult:
    """generate → audit → feedback, until clean or out of rounds (seed 000 step 6).

    ``generate`` gets None first, then the previous round's feedback, and
    returns the answer. Rounds are the repairs allowed after the first answer.
    A claim the feedback said to keep that the agent changed anyway is
    recorded in the history, and sends the result to a person. A judge given
    by spec is built once, for every round.
    """
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
    instructions: dict[str, Any] | None = None
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
                "feedback": instructions,
                "changed_claims_it_was_told_to_keep": changed_kept,
            }
        )
        previous = claims
        if instructions["clean"]:
            return RepairResult(report, round_number, clean=True, needs_person=broke_rule, history=history)
    return RepairResult(report, max_rounds, clean=False, needs_person=True, history=history)
