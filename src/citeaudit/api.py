"""The Python API: audit an answer given as a dict, a path or a Submission,
with the CLI's options; turn a failing report into instructions for the agent;
and run the generate → audit → feedback loop of seed 000 step 6.

Nothing here prints, exits or keeps global state.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citeaudit.core import AuditSettings
from citeaudit.core import audit as run_audit
from citeaudit.formats import load_submission, parse_bytes
from citeaudit.model import Report, Review, Submission
from citeaudit.report.json import report_to_dict
from citeaudit.resolve.cache import CachingResolver, DoiCache
from citeaudit.semantic.judge import Judge, configured_judge
from citeaudit.sources.corpus import Corpus, load_corpus
from citeaudit.sources.directory import SnapshotDirectory
from citeaudit.sources.interface import SourceLookup

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


def audit(
    answer: Answer,
    *,
    cache: str | Path = "cache",
    sources: str | Path = "sources",
    corpus: str | Path | Corpus | None = None,
    store: SourceLookup | None = None,
    offline: bool = True,
    mailto: str = "",
    min_quote_length: int = 30,
    severity: Mapping[str, str] | None = None,
    jobs: int = 1,
    trail: Any = None,
    judge: Judge | str | None = "rules",
    verdict_cache: str | Path | None = None,
    reviews: Sequence[Review] = (),
) -> Report:
    """Audit one answer; the same options as ``citeaudit check``.

    ``offline`` defaults to True here: a library call touches the network only
    when asked to. ``trail`` (a :class:`citeaudit.sources.trail.ScopedTrail`)
    gets one record of the audit. ``judge`` is a judge or its spec (``rules``,
    ``nli:MODEL``, ``llm:MODEL@URL``; None or ``none`` skips the semantic
    stage), built as ``check --judge`` builds it: nli and llm verdicts are
    cached in ``verdict_cache`` (default: ``verdicts`` under ``cache``), and
    offline an nli model is read only from disk and an llm judge answers
    only from that cache. Pass a judge object made once with
    :func:`citeaudit.semantic.judge.make_judge` to load a model once for many
    calls (:func:`repair_loop` does that for a spec). ``reviews`` are
    applied if they are for this exact submission (a stale one raises
    :class:`citeaudit.policy.ReviewError`). Bad input raises
    :class:`citeaudit.InputError`.
    """
    submission = _submission(answer)
    doi_cache = DoiCache(Path(cache))
    upstream = None
    if not offline:
        from citeaudit.resolve.registry import RegistryResolver

        upstream = RegistryResolver(doi_cache, mailto=mailto)
    loaded = load_corpus(Path(corpus)) if isinstance(corpus, str | Path) else corpus
    report = run_audit(
        submission,
        resolver=CachingResolver(doi_cache, upstream),
        snapshots=SnapshotDirectory(Path(sources)),
        corpus=loaded,
        store=store,
        settings=AuditSettings(
            min_quote_length=min_quote_length, severity=dict(severity or {}), offline=offline, jobs=jobs
        ),
        judge=_judge(judge, verdict_cache, cache, offline),
        reviews=reviews,
    )
    if trail is not None:
        trail.append(report)
    return report


def _judge(
    judge: Judge | str | None, verdict_cache: str | Path | None, cache: str | Path, offline: bool
) -> Judge | None:
    if not isinstance(judge, str):
        if verdict_cache is not None:
            raise ValueError(
                "verdict_cache applies to a judge given by spec; wrap a judge object in CachedJudge"
            )
        return judge
    chosen = Path(verdict_cache) if verdict_cache is not None else None
    return configured_judge(judge, verdict_cache=chosen, cache=Path(cache), offline=offline)


RULE = (
    "Fix or delete only the claims listed below. Do not change, add or reword any other claim. "
    "Use only the sources you were given; a quote must be copied verbatim from the source."
)


def feedback(report: Report | Mapping[str, Any]) -> dict[str, Any]:
    """Instructions for the agent: which claims to fix or delete, why, with the
    suggestions (registry title and years, the right range, the occurrence of the
    quote), and the rule that every other claim must stay as it is."""
    data = report_to_dict(report) if isinstance(report, Report) else dict(report)
    by_claim: dict[str, list[dict[str, Any]]] = {}
    for row in data["results"]:
        errors = [f for f in row["findings"] if f["severity"] == "error"]
        if row["claim"] is None or not errors:
            continue
        for finding in errors:
            problem = {"citation": row["citation"], "code": finding["label"], "why": finding["message"]}
            if finding.get("suggestion"):
                problem["suggestion"] = finding["suggestion"]
            by_claim.setdefault(row["claim"], []).append(problem)
    statuses = {c["id"]: c["status"] for c in data["claims"]}
    fix = []
    for claim_id, problems in sorted(by_claim.items()):
        unchecked = all(
            p["code"] in {"E_NOT_CACHED", "E_NO_SNAPSHOT", "E_REGISTRY_UNAVAILABLE"} for p in problems
        )
        action = "wait_for_a_person" if unchecked else "fix_or_delete"
        fix.append(
            {"claim": claim_id, "action": action, "status": statuses.get(claim_id), "problems": problems}
        )
    keep = sorted(c for c in statuses if c not in by_claim)
    return {
        "clean": not fix,
        "fix": fix,
        "keep_unchanged": keep,
        "weak": _weak_claims(data),
        "rule": RULE,
        "report_input_sha256": data["input_sha256"],
    }


def _weak_claims(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Claims that passed every check but that a judge or a reviewer found not
    shown by their quotes: advice, not errors (``clean`` ignores them)."""
    weak = []
    for claim in data["claims"]:
        verdict = claim.get("verdict") or {}
        reviewed = claim.get("review_status")
        label = reviewed if reviewed in ("insufficient", "contradicted") else verdict.get("label")
        if reviewed == "supported" or label not in ("insufficient", "contradicted"):
            continue
        by = "a reviewer" if reviewed in ("insufficient", "contradicted") else verdict["judge"]
        weak.append(
            {"claim": claim["id"], "verdict": label, "by": by, "unsupported": verdict.get("unsupported", [])}
        )
    return weak


def feedback_text(instructions: Mapping[str, Any]) -> str:
    """The same instructions as plain text, for a prompt."""
    weak = instructions.get("weak", [])
    advice = [
        f"  - {w['claim']}: {w['verdict']} according to {w['by']}"
        + (f"; not found in the quotes: {', '.join(w['unsupported'])}" if w["unsupported"] else "")
        for w in weak
    ]
    if advice:
        advice = ["", "Not shown by their quotes (a judgement, not a failed check); narrow the claim to what "
                  "the quote says, cite a passage that says it, or remove it:", *advice]  # fmt: skip
    if instructions["clean"]:
        return (
            "Every citation passed the deterministic checks. Change nothing.\n"
            if not advice
            else ("Every citation passed the deterministic checks.\n" + "\n".join(advice[1:]) + "\n")
        )
    lines = [instructions["rule"], ""]
    for item in instructions["fix"]:
        lines.append(f"Claim {item['claim']} ({item['action'].replace('_', ' ')}):")
        for p in item["problems"]:
            hint = (
                f" Suggestion: {json.dumps(p['suggestion'], ensure_ascii=False)}" if "suggestion" in p else ""
            )
            where = f"citation {p['citation']}" if p["citation"] else "the claim"
            lines.append(f"  - {p['code']} on {where}: {p['why']}.{hint}")
    if instructions["keep_unchanged"]:
        lines += ["", "Keep unchanged: " + ", ".join(instructions["keep_unchanged"])]
    return "\n".join(lines + advice) + "\n"


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
    spec = options.get("judge", "rules")
    if isinstance(spec, str):
        verdict_cache = options.pop("verdict_cache", None)
        options["judge"] = _judge(
            spec, verdict_cache, options.get("cache", "cache"), options.get("offline", True)
        )
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
