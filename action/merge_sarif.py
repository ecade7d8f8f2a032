"""Merge the SARIF files of several ``citeaudit check`` runs into one run.

Code scanning takes one run per tool and category; every file citeaudit writes has the same driver
(its rules are the whole catalogue, in one order), so results, artifacts and notifications can be
concatenated without renumbering a ``ruleIndex``. Usage: ``merge_sarif.py OUT IN [IN ...]``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def merge(logs: list[dict[str, Any]]) -> dict[str, Any]:
    runs = [run for log in logs for run in log["runs"]]
    driver = runs[0]["tool"]["driver"]
    for run in runs[1:]:
        if run["tool"]["driver"] != driver:
            raise SystemExit("merge_sarif: the files come from different citeaudit versions")
    artifacts: list[dict[str, Any]] = []
    for run in runs:
        artifacts.extend(a for a in run.get("artifacts", []) if a not in artifacts)
    notifications = [
        note
        for run in runs
        for invocation in run.get("invocations", [])
        for note in invocation.get("toolExecutionNotifications", [])
    ]
    merged: dict[str, Any] = {
        "tool": runs[0]["tool"],
        "artifacts": artifacts,
        "results": [result for run in runs for result in run.get("results", [])],
        "invocations": [
            {
                "executionSuccessful": all(
                    i.get("executionSuccessful", True) for run in runs for i in run.get("invocations", [])
                ),
                "toolExecutionNotifications": notifications,
            }
        ],
        "properties": {"reports": [run.get("properties", {}) for run in runs]},
    }
    return {"$schema": logs[0]["$schema"], "version": logs[0]["version"], "runs": [merged]}


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: merge_sarif.py OUT IN [IN ...]", file=sys.stderr)
        return 2
    logs = [json.loads(Path(name).read_text(encoding="utf-8")) for name in argv[1:]]
    text = json.dumps(merge(logs), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    Path(argv[0]).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
