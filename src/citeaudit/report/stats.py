"""Metrics over many audits (seed 003's observability): the share of uncited
claims, of deterministically invalid citations, the distribution of claim
statuses, the manual-review rate and the decisions, grouped by the submission's labels
(generator, retriever, corpus) and the checker version."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from typing import Any

__all__ = ["GROUP_KEYS", "aggregate", "to_json", "to_prometheus", "to_table"]

GROUP_KEYS = ("generator", "retriever", "corpus", "checker_version")
# Report statuses that send an answer to a person before it can be used.
_MANUAL = {"needs_review", "partial"}


def _group(report: dict[str, Any]) -> tuple[str, ...]:
    labels = report.get("labels") or {}
    return (
        str(labels.get("generator", "")),
        str(labels.get("retriever", "")),
        str(labels.get("corpus", "")),
        str(report["checker"]["version"]),
    )


def aggregate(reports: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per group, sorted by group; every count derived from the reports alone."""
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = defaultdict(list)
    for report in reports:
        groups[_group(report)].append(report)
    out = []
    for key in sorted(groups):
        members = groups[key]
        claims = [c for r in members for c in r["claims"]]
        rows = [row for r in members for row in r["results"] if row["citation"] is not None]
        statuses = Counter(c["status"] for c in claims)
        invalid = sum(1 for row in rows if row["status"] == "fail")
        manual = sum(1 for r in members if r["status"] in _MANUAL)
        out.append(
            {
                "group": dict(zip(GROUP_KEYS, key, strict=True)),
                "reports": len(members),
                "claims": len(claims),
                "citations": len(rows),
                "uncited_claims": statuses.get("unsupported", 0),
                "uncited_claims_share": _share(statuses.get("unsupported", 0), len(claims)),
                "invalid_citations": invalid,
                "invalid_citations_share": _share(invalid, len(rows)),
                "claims_by_status": dict(sorted(statuses.items())),
                "reports_by_status": dict(sorted(Counter(r["status"] for r in members).items())),
                "reports_by_decision": dict(
                    sorted(Counter(r.get("decision", "not_recorded") for r in members).items())
                ),
                "manual_review_reports": manual,
                "manual_review_rate": _share(manual, len(members)),
            }
        )
    return out


def _share(part: int, whole: int) -> float:
    return round(part / whole, 6) if whole else 0.0


def to_json(groups: list[dict[str, Any]]) -> str:
    return json.dumps(groups, ensure_ascii=False, sort_keys=True, indent=2) + "\n"


def to_table(groups: list[dict[str, Any]]) -> str:
    header = [
        "generator",
        "retriever",
        "corpus",
        "version",
        "reports",
        "claims",
        "uncited",
        "invalid",
        "manual",
    ]
    lines = [header]
    for g in groups:
        label = g["group"]
        names = [label["generator"] or "-", label["retriever"] or "-", label["corpus"] or "-"]
        counts = [str(g["reports"]), str(g["claims"])]
        shares = [g["uncited_claims_share"], g["invalid_citations_share"], g["manual_review_rate"]]
        lines.append([*names, label["checker_version"], *counts, *(f"{x:.1%}" for x in shares)])
    widths = [max(len(row[i]) for row in lines) for i in range(len(header))]
    return (
        "\n".join(
            "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in lines
        )
        + "\n"
    )


def _labels(group: dict[str, str], **extra: str) -> str:
    items = {**group, **extra}
    return "{" + ",".join(f'{k}="{_escape(v)}"' for k, v in items.items()) + "}"


def _escape(value: str) -> str:
    """Prometheus label values: backslash, double quote and newline escaped."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def to_prometheus(groups: list[dict[str, Any]]) -> str:
    metrics = [
        ("citeaudit_reports", "gauge", "Audited answers.", "reports"),
        ("citeaudit_claims", "gauge", "Claims in the audited answers.", "claims"),
        ("citeaudit_citations", "gauge", "Citations in the audited answers.", "citations"),
        ("citeaudit_uncited_claims_ratio", "gauge", "Share of uncited claims.", "uncited_claims_share"),
        ("citeaudit_invalid_citations_ratio", "gauge", "Share of invalid citations.",
         "invalid_citations_share"),
        ("citeaudit_manual_review_ratio", "gauge", "Share of answers for a person.", "manual_review_rate"),
    ]  # fmt: skip
    lines = []
    for name, kind, help_text, field in metrics:
        lines += [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}"]
        lines += [f"{name}{_labels(g['group'])} {g[field]}" for g in groups]
    breakdowns = [
        ("citeaudit_claims_by_status", "Claims by status.", "claims_by_status", "status"),
        (
            "citeaudit_reports_by_decision",
            "Answers by the policy's decision.",
            "reports_by_decision",
            "decision",
        ),
    ]
    for name, help_text, field, label in breakdowns:
        lines += [f"# HELP {name} {help_text}", f"# TYPE {name} gauge"]
        for g in groups:
            lines += [f"{name}{_labels(g['group'], **{label: key})} {n}" for key, n in g[field].items()]
    return "\n".join(lines) + "\n"
