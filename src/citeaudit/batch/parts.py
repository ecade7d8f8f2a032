"""One part of a batch: its records in, its report lines, rejections and counts out.

This is the whole of a worker's job, the same function under every engine, so the
bytes of a part cannot depend on which engine or how many workers computed it.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from citeaudit.batch.answers import Rejection, read_answer
from citeaudit.batch.records import Record
from citeaudit.batch.wiring import Worker
from citeaudit.errors import CiteauditError
from citeaudit.report.json import compact_json, report_to_dict
from citeaudit.report.stats import Tally

__all__ = ["EXIT_REJECTED", "PartResult", "answer_exit_code", "audit_part", "compact", "worst_exit_code"]

EXIT_REJECTED = 2  # a line that is not a valid answer: what check exits with for it
# Worst first: an answer not audited at all, then check's order (errors, unchecked, decisions).
_SEVERITY = {EXIT_REJECTED: 6, 1: 5, 3: 4, 6: 3, 5: 2, 0: 0}


def compact(value: Any) -> bytes:
    """One JSON line's value: sorted keys, no spaces, UTF-8 (the report's own encoder)."""
    return compact_json(value)


def answer_exit_code(report: dict[str, Any], fail_on: str) -> int:
    """The exit code ``check`` gives for this report (``cli.check.exit_code``, over its JSON)."""
    deterministic = {"errors": 1, "could_not_check": 3}.get(report["outcome"], 0)
    if fail_on == "error" or deterministic:
        return deterministic
    return {"accept": 0, "regenerate_or_abstain": 5, "manual_review": 6}.get(report["decision"], 1)


def worst_exit_code(codes: Sequence[int]) -> int:
    return max(codes, key=_SEVERITY.__getitem__, default=0)


@dataclass(frozen=True)
class PartResult:
    index: int
    reports: bytes  # the part file: one compact {"id", "labels", "report"} line per answer
    state: dict[str, Any]  # rejections and counts, kept beside the part for the summary


def audit_part(auditor: Worker, index: int, records: Sequence[Record]) -> PartResult:
    spec = auditor.spec
    lines: list[bytes] = []
    rejected: list[dict[str, Any]] = []
    tally = Tally()
    codes: Counter[str] = Counter()
    results: Counter[str] = Counter()
    exits: Counter[int] = Counter()
    for record in records:
        answer = read_answer(record, spec.max_input_bytes, spec.max_depth, spec.input_format)
        if isinstance(answer, Rejection):
            rejected.append(answer.to_json())
            exits[EXIT_REJECTED] += 1
            continue
        try:
            report = report_to_dict(auditor(answer.submission))
        except CiteauditError as e:  # an unreadable snapshot, a store that refuses: check's exit 2
            where = Rejection(record.source, record.number, answer.id, e.diagnostics())
            rejected.append(where.to_json())
            exits[EXIT_REJECTED] += 1
            continue
        lines.append(compact({"id": answer.id, "labels": answer.labels, "report": report}) + b"\n")
        tally.add(report, answer.labels)
        codes.update(report["summary"]["by_code"])
        results.update(report["summary"]["results_by_status"])
        exits[answer_exit_code(report, spec.fail_on)] += 1
    data = b"".join(lines)
    state = {
        "answers": len(lines),
        "exit_codes": {str(k): v for k, v in sorted(exits.items())},
        "findings_by_code": dict(sorted(codes.items())),
        "part": index,
        "rejected": rejected,
        "reports_bytes": len(data),
        "reports_sha256": hashlib.sha256(data).hexdigest(),
        "results_by_status": dict(sorted(results.items())),
        "tally": tally.to_json(),
    }
    return PartResult(index, data, state)
