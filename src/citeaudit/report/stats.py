"""Metrics over many audits (seed 003's observability): the share of uncited
claims, of deterministically invalid citations, the distribution of claim
statuses, the manual-review rate and the decisions, grouped by the submission's labels
(generator, retriever, corpus) and the checker version."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["GROUP_KEYS", "Tally", "aggregate", "to_json", "to_prometheus", "to_table"]

GROUP_KEYS = ("generator", "retriever", "corpus", "checker_version")
# Report statuses that send an answer to a person before it can be used.
_MANUAL = {"needs_review", "partial"}


def _group(report: dict[str, Any], labels: Mapping[str, str] | None = None) -> tuple[str, ...]:
    given = {**(report.get("labels") or {}), **(labels or {})}
    return (
        str(given.get("generator", "")),
        str(given.get("retriever", "")),
        str(given.get("corpus", "")),
        str(report["checker"]["version"]),
    )


_COUNTS = ("reports", "claims", "citations", "uncited_claims", "invalid_citations", "manual_review_reports")
_BREAKDOWNS = ("claims_by_status", "reports_by_status", "reports_by_decision")


class Tally:
    """The counts of :func:`aggregate`, added one report at a time: a batch of millions of
    answers is counted without holding its reports, and two tallies add up (``merge``)."""

    def __init__(self) -> None:
        self._groups: dict[tuple[str, ...], dict[str, Any]] = {}

    def _entry(self, key: tuple[str, ...]) -> dict[str, Any]:
        entry = self._groups.get(key)
        if entry is None:
            entry = self._groups[key] = {**dict.fromkeys(_COUNTS, 0), **{b: Counter() for b in _BREAKDOWNS}}
        return entry

    def add(self, report: dict[str, Any], labels: Mapping[str, str] | None = None) -> None:
        """Count one report; ``labels`` (a batch envelope's) win over the report's own."""
        entry = self._entry(_group(report, labels))
        statuses = Counter(c["status"] for c in report["claims"])
        rows = [row for row in report["results"] if row["citation"] is not None]
        entry["reports"] += 1
        entry["claims"] += len(report["claims"])
        entry["citations"] += len(rows)
        entry["uncited_claims"] += statuses.get("unsupported", 0)
        entry["invalid_citations"] += sum(1 for row in rows if row["status"] == "fail")
        entry["manual_review_reports"] += report["status"] in _MANUAL
        entry["claims_by_status"].update(statuses)
        entry["reports_by_status"][report["status"]] += 1
        entry["reports_by_decision"][report.get("decision", "not_recorded")] += 1

    def merge(self, other: Tally) -> None:
        for key, theirs in other._groups.items():
            entry = self._entry(key)
            for name in _COUNTS:
                entry[name] += theirs[name]
            for name in _BREAKDOWNS:
                entry[name].update(theirs[name])

    def to_json(self) -> list[dict[str, Any]]:
        """The raw counts, sorted by group (what :meth:`from_json` reads back)."""
        return [
            {
                "group": list(key),
                **{k: v if k in _COUNTS else dict(sorted(v.items())) for k, v in entry.items()},
            }
            for key, entry in sorted(self._groups.items())
        ]

    @classmethod
    def from_json(cls, data: list[dict[str, Any]]) -> Tally:
        tally = cls()
        for item in data:
            entry = tally._entry(tuple(str(part) for part in item["group"]))
            for name in _COUNTS:
                entry[name] = int(item[name])
            for name in _BREAKDOWNS:
                entry[name] = Counter({str(k): int(v) for k, v in item[name].items()})
        return tally

    def groups(self) -> list[dict[str, Any]]:
        """One entry per group, sorted by group; every count derived from the reports alone."""
        out = []
        for key, e in sorted(self._groups.items()):
            out.append(
                {
                    "group": dict(zip(GROUP_KEYS, key, strict=True)),
                    "reports": e["reports"],
                    "claims": e["claims"],
                    "citations": e["citations"],
                    "uncited_claims": e["uncited_claims"],
                    "uncited_claims_share": _share(e["uncited_claims"], e["claims"]),
                    "invalid_citations": e["invalid_citations"],
                    "invalid_citations_share": _share(e["invalid_citations"], e["citations"]),
                    "claims_by_status": dict(sorted(e["claims_by_status"].items())),
                    "reports_by_status": dict(sorted(e["reports_by_status"].items())),
                    "reports_by_decision": dict(sorted(e["reports_by_decision"].items())),
                    "manual_review_reports": e["manual_review_reports"],
                    "manual_review_rate": _share(e["manual_review_reports"], e["reports"]),
                }
            )
        return out


def aggregate(reports: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per group, sorted by group; every count derived from the reports alone."""
    tally = Tally()
    for report in reports:
        tally.add(report)
    return tally.groups()


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
