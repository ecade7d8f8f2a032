"""The canonical ``report.json``: byte-identical for the same inputs.

Sorted keys, collections in a fixed order, no wall-clock time, no paths.
The seed's top-level fields (``input_sha256``, ``checked``, ``failed``,
``results[]`` with ``claim``, ``doi``, ``errors``) keep their meaning.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import orjson

from citeaudit.identifiers import HANDLERS
from citeaudit.model import (
    Citation,
    Claim,
    ClaimResult,
    Report,
    Review,
    Row,
    Severity,
    Verdict,
    WorkSource,
)

__all__ = ["REPORT_SCHEMA", "compact_json", "dump_report_dict", "render_json", "report_to_dict"]

REPORT_SCHEMA = "citeaudit-report/1"


def _source(citation: Citation | None) -> dict[str, Any] | None:
    if citation is None:
        return None
    s = citation.source
    if isinstance(s, WorkSource):  # its identifier's handler names it
        return HANDLERS[s.kind].report_source(s.identifier) | s.cited_fields()
    return s.to_json()


def _location(row: Row) -> dict[str, int] | None:
    if row.location is None:
        return None
    out = row.location.to_json()
    if row.lines is not None:
        out |= {"line_end": row.lines[1], "line_start": row.lines[0]}
    return out


def _row_status(row: Row) -> str:
    if not row.errors:
        return "pass"
    return "could_not_check" if row.unchecked else "fail"


def _row(row: Row) -> dict[str, Any]:
    labels: dict[Severity, list[str]] = {Severity.ERROR: [], Severity.WARNING: [], Severity.INFO: []}
    for f in row.findings:
        labels[f.severity].append(f.label)
    out: dict[str, Any] = {
        "citation": row.citation_id,
        "claim": row.claim_id,
        "doi": row.doi,
        "errors": labels[Severity.ERROR],
        "excerpt": row.excerpt,
        "findings": [f.to_json() for f in row.findings],
        "input_path": row.origin,
        "location": _location(row),
        "notes": labels[Severity.INFO],
        "record": row.record,
        "source": _source(row.citation),
        "status": _row_status(row),
        "warnings": labels[Severity.WARNING],
    }
    if row.citation is not None:
        out["quote"] = row.citation.quote
        if row.citation.source.ranged:
            out["range"] = {"start": row.citation.start, "end": row.citation.end}
    return out


def report_outcome(report: Report) -> str:
    """``errors``, ``could_not_check`` or ``clean``: what the exit code follows."""
    if report.has_errors:
        return "errors"
    return "could_not_check" if report.has_unchecked else "clean"


def _verdict(verdict: Verdict | None) -> dict[str, Any] | None:
    """A judge's verdict, labelled with the judge: semantic, never a deterministic result."""
    if verdict is None:
        return None
    out: dict[str, Any] = {
        "basis": verdict.basis,
        "confidence": verdict.confidence,
        "judge": str(verdict.judge),
        "label": verdict.label,
        "relied_on": list(verdict.relied_on),
        "signals": list(verdict.signals),
        "unsupported": list(verdict.unsupported),
    }
    if verdict.probability is not None:  # a judge with a probability of support (learned)
        out["probability"] = verdict.probability
        out["reason"] = verdict.reason
        if verdict.vetoes:  # what it says that the source does not, by the judge's own rules
            out["vetoes"] = list(verdict.vetoes)
        out["unsupported_spans"] = [[start, end] for start, end in verdict.unsupported_spans]
    if verdict.passages:  # judged on passages of the cited texts: which texts, which ranges
        out["passages"] = [p.to_json() for p in verdict.passages]
        out["texts"] = [t.to_json() for t in verdict.texts]
    return out


def _claim(result: ClaimResult, claim: Claim | None) -> dict[str, Any]:
    out = {"citations": list(result.citation_ids), "id": result.id, "kind": result.kind,
           "review_status": result.review_status, "status": result.status.value,
           "text": claim.text if claim else None, "verdict": _verdict(result.verdict)}  # fmt: skip
    if claim is not None and claim.rationale:
        out["rationale"] = claim.rationale
    if claim is not None and claim.place is not None:  # a claim read from a document (Markdown)
        out["position"] = claim.place.to_json()
    return out


def _review(review: Review) -> dict[str, str]:
    return {"claim": review.claim_id, "note": review.note, "reviewer": review.reviewer,
            "verdict": review.verdict}  # fmt: skip


def report_to_dict(report: Report) -> dict[str, Any]:
    rows = [_row(r) for r in report.rows]
    texts = {c.id: c for c in report.submission.claims}
    codes = Counter(f.code for r in report.rows for f in r.findings)
    sub = report.submission
    return {
        "checked": len(report.rows),
        "checker": {"name": "citeaudit", "version": report.checker_version},
        "claims": [_claim(c, texts.get(c.id)) for c in report.claims],
        "conflicts": [{"claim_ids": list(c.claim_ids), "reason": c.reason} for c in sub.conflicts],
        "decision": report.decision.value,
        "failed": report.failed,
        "gaps": list(sub.gaps),
        "input_format": sub.format,
        "input_sha256": sub.input_sha256,
        "labels": dict(sub.labels),
        "outcome": report_outcome(report),
        "title": sub.title,
        "results": rows,
        "reviews": [_review(r) for r in report.reviews],
        "schema": REPORT_SCHEMA,
        "status": report.status.value,
        "submission_sha256": sub.digest,
        "settings": report.settings,
        "summary": {
            "by_code": dict(sorted(codes.items())),
            "claims": len(report.claims),
            "claims_by_status": dict(sorted(Counter(c.status.value for c in report.claims).items())),
            "claims_by_verdict": dict(
                sorted(Counter(c.verdict.label for c in report.claims if c.verdict is not None).items())
            ),
            "errors": sum(1 for r in report.rows for f in r.errors),
            "results_by_status": {
                status: sum(1 for r in rows if r["status"] == status)
                for status in ("could_not_check", "fail", "pass")
            },
            "warnings": sum(1 for r in report.rows for f in r.findings if f.severity is Severity.WARNING),
        },
    }


def compact_json(value: Any) -> bytes:
    """Sorted keys, no spaces, UTF-8 as is (only ``"``, ``\\`` and control characters escaped).

    orjson writes it at about four times the speed of ``json`` (bench/README.md); an integer past
    64 bits (a range as the input gave it) falls back to ``json`` with the same layout.
    """
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")


def render_json(report: Report) -> bytes:
    return dump_report_dict(report_to_dict(report))


def dump_report_dict(data: dict[str, Any]) -> bytes:
    """Top-level keys one per line, each claim and result on a line of its own.

    A diff of two reports then shows one line per changed citation, and the
    compact rows go through the compiled encoder (indenting every level would not).
    """
    lines = [b"{"]
    keys = sorted(data)
    for i, key in enumerate(keys):
        value = data[key]
        comma = b"," if i < len(keys) - 1 else b""
        name = compact_json(key)
        if key in ("claims", "results") and value:
            rows = b",\n    ".join([compact_json(v) for v in value])
            lines.append(b"  " + name + b": [\n    " + rows + b"\n  ]" + comma)
        else:
            lines.append(b"  " + name + b": " + compact_json(value) + comma)
    lines.append(b"}\n")
    return b"\n".join(lines)
