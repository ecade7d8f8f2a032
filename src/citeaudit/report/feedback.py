"""A report turned into instructions for the agent that wrote the answer: which claims to fix or
delete and why, with the suggestions, which to keep as they are, and the claims a judge found not
shown by their quotes (seed 000 step 6). ``citeaudit feedback`` and the repair loop use it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from citeaudit.model import Outcome, Report
from citeaudit.report.fixes import finding_patch, passage_fixes
from citeaudit.report.json import report_to_dict

__all__ = ["RULE", "feedback", "feedback_text"]

_UNCHECKED_BEFORE = frozenset(("E_NOT_CACHED", "E_NO_SNAPSHOT", "E_REGISTRY_UNAVAILABLE"))

RULE = (
    "Fix or delete only the claims listed below. Do not change, add or reword any other claim. "
    "Use only the sources you were given; a quote must be copied verbatim from the source."
)


def feedback(report: Report | Mapping[str, Any]) -> dict[str, Any]:
    """Instructions for the agent: which claims to fix or delete, why, with the
    suggestions (registry title and years, the right range, the occurrence of the
    quote), and the rule that every other claim must stay as it is. A problem's ``fix``,
    when it has one, is the patch to merge into its citation (the input's own field names)."""
    data = report_to_dict(report) if isinstance(report, Report) else dict(report)
    by_claim: dict[str, list[dict[str, Any]]] = {}
    checkable: set[str] = set()  # claims with an error that is not "could not check"
    for row in data["results"]:
        errors = [f for f in row["findings"] if f["severity"] == "error"]
        if row["claim"] is None or not errors:
            continue
        for finding in errors:
            # (a report without outcomes, written by an earlier citeaudit: the codes it knew)
            outcome = finding.get("outcome") or (
                Outcome.UNCHECKED.value if finding["label"] in _UNCHECKED_BEFORE else None
            )
            if outcome != Outcome.UNCHECKED.value:
                checkable.add(row["claim"])
            problem = {"citation": row["citation"], "code": finding["label"], "why": finding["message"]}
            if finding.get("suggestion"):
                problem["suggestion"] = finding["suggestion"]
            patch = finding_patch(row, finding)
            if patch is not None:
                problem["fix"] = patch
            by_claim.setdefault(row["claim"], []).append(problem)
    statuses = {c["id"]: c["status"] for c in data["claims"]}
    fix = []
    for claim_id, problems in sorted(by_claim.items()):
        # only "could not check" (offline, no pin, no snapshot, a registry down): nothing to fix
        action = "fix_or_delete" if claim_id in checkable else "wait_for_a_person"
        fix.append(
            {"claim": claim_id, "action": action, "status": statuses.get(claim_id), "problems": problems}
        )
    keep = sorted(c for c in statuses if c not in by_claim)
    return {
        "clean": not fix,
        "fix": fix,
        "keep_unchanged": keep,
        "weak": _weak_claims(data),
        "quote": _passages_to_quote(data),
        "rule": RULE,
        "report_input_sha256": data["input_sha256"],
    }


def _passages_to_quote(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Claims a judge found supported by a passage of a cited text, though they quote nothing:
    the passage to quote, so the next audit proves the citation (advice; ``clean`` ignores it)."""
    out = []
    for claim in data["claims"]:
        for item in passage_fixes(claim):
            out.append({"claim": claim["id"], **item})
    return out


def _weak_claims(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Claims that passed every check but that a judge or a reviewer found not
    shown by their quotes (``insufficient``, ``contradicted``, or ``unknown`` with a veto naming
    what the source does not say): advice, not errors (``clean`` ignores them)."""
    weak = []
    for claim in data["claims"]:
        verdict = claim.get("verdict") or {}
        reviewed = claim.get("review_status")
        label = reviewed if reviewed in ("insufficient", "contradicted") else verdict.get("label")
        if reviewed == "supported" or label not in ("insufficient", "contradicted", "unknown"):
            continue
        by = "a reviewer" if reviewed in ("insufficient", "contradicted") else verdict["judge"]
        # a learned judge's veto names the part the source does not say (the verdict stays unknown)
        vetoes = [] if by == "a reviewer" else list(verdict.get("vetoes") or [])
        if label not in ("insufficient", "contradicted") and not vetoes:
            continue
        weak.append(
            {
                "claim": claim["id"],
                "verdict": label,
                "by": by,
                "unsupported": verdict.get("unsupported", []),
                # what was read: the quotes, or passages of the cited text found for a quote-less claim
                "basis": verdict.get("basis", "quote"),
                **({"vetoes": vetoes} if vetoes else {}),
            }
        )
    return weak


def feedback_text(instructions: Mapping[str, Any]) -> str:
    """The same instructions as plain text, for a prompt."""
    weak = instructions.get("weak", [])
    read = {"quote": "the quotes", "retrieved": "the passages read of the cited text"}
    advice = [
        f"  - {w['claim']}: {w['verdict']} according to {w['by']}"
        + (f"; it says what the source does not: {'; '.join(w['vetoes'])}" if w.get("vetoes") else "")
        + (
            f"; not found in {read[w.get('basis', 'quote')]}: {', '.join(w['unsupported'])}"
            if w["unsupported"]
            else ""
        )
        for w in weak
    ]
    if advice:
        shown = (
            "their quotes"
            if all(w.get("basis", "quote") == "quote" for w in weak)
            else "their quotes or the cited texts"
        )
        advice = ["", f"Not shown by {shown} (a judgement, not a failed check); narrow the claim to what "
                  "the source says, cite a passage that says it, or remove it:", *advice]  # fmt: skip
    to_quote = [
        f"  - {q['claim']}, citation {q['citation']}: set {json.dumps(q['fix'], ensure_ascii=False)} "
        f"(from the {q['basis'].replace('_', ' ')} at [{q['start']}, {q['end']}))"
        for q in instructions.get("quote", [])
    ]
    if to_quote:
        advice += ["", "Judged supported by a passage of the cited work, but not quoted; quote the passage "
                   "verbatim so the next audit proves it:", *to_quote]  # fmt: skip
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
                f" Fix: set {json.dumps(p['fix'], ensure_ascii=False)} in the citation."
                if "fix" in p
                else (
                    f" Suggestion: {json.dumps(p['suggestion'], ensure_ascii=False)}"
                    if "suggestion" in p
                    else ""
                )
            )
            where = f"citation {p['citation']}" if p["citation"] else "the claim"
            why = p["why"] if p["why"].endswith((".", "?", "!")) else p["why"] + "."
            lines.append(f"  - {p['code']} on {where}: {why}{hint}")
    if instructions["keep_unchanged"]:
        lines += ["", "Keep unchanged: " + ", ".join(instructions["keep_unchanged"])]
    return "\n".join(lines + advice) + "\n"
