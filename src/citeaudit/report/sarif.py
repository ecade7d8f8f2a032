"""SARIF 2.1.0: one rule per finding code (from the catalogue), results at the
line and column of the citation in the input file, stable fingerprints, and
"could not check" findings as tool notifications rather than results.

A verdict judged on passages of the cited texts (no quote to verify) is never a result: the run's
properties name each such claim with its verdict, the texts read and the best passage with its
``[start, end)`` (``judgedOnRetrievedPassages``), and a result of such a claim's citation carries
the best passage of that citation's text in its properties."""

from __future__ import annotations

import hashlib
import json
from typing import Any
from urllib.parse import quote

from citeaudit.checks.codes import CATALOGUE
from citeaudit.model import Outcome
from citeaudit.report.pins import pinned_page
from citeaudit.report.retrieved import JUDGED_WORDS, best_passage, is_retrieved
from citeaudit.report.spans import spans_of

__all__ = ["render_sarif"]

_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


def _rules() -> tuple[list[dict[str, Any]], dict[str, int]]:
    codes = sorted(CATALOGUE)
    rules = [
        {
            "id": code,
            "name": "".join(part.capitalize() for part in code.split("_")[1:]),
            "shortDescription": {"text": CATALOGUE[code].summary},
            "fullDescription": {
                "text": f"{CATALOGUE[code].summary} Outcome: {CATALOGUE[code].outcome.value}."
            },
            "help": {"text": f"{CATALOGUE[code].summary} See the finding codes in citeaudit's README."},
            "defaultConfiguration": {"level": _LEVEL[CATALOGUE[code].severity.value]},
        }
        for code in codes
    ]
    return rules, {code: i for i, code in enumerate(codes)}


def _fingerprint(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).hexdigest()


def _judged(claim: dict[str, Any] | None, citation: str | None) -> dict[str, Any] | None:
    """On a result of a claim judged on retrieved passages: the verdict and the best passage of
    the result's citation's text."""
    best = best_passage(claim, citation) if claim is not None and citation is not None else None
    if claim is None or best is None:
        return None
    return {"basis": "retrieved", "bestPassage": best, "judgement": JUDGED_WORDS,
            "label": claim["verdict"]["label"]}  # fmt: skip


def _judged_claim(claim: dict[str, Any]) -> dict[str, Any]:
    verdict = claim["verdict"]
    return {"basis": "retrieved", "bestPassage": best_passage(claim), "judge": verdict["judge"],
            "judgement": JUDGED_WORDS, "label": verdict["label"], "passages": verdict["passages"],
            "texts": verdict.get("texts") or []}  # fmt: skip


def render_sarif(
    report: dict[str, Any], input_uri: str, positions: dict[str, tuple[int, int]] | None = None
) -> bytes:
    """``positions`` (JSON path → line, column) place results in the input; without them, at the file.
    ``input_uri`` is a path, written as a URI reference: a space or ``%``, ``#``, ``?`` percent-encoded."""
    input_uri = quote(input_uri, safe="/:@!$&'()*+,;=~")
    rules, index = _rules()
    results, notifications = [], []
    retrieved = {c["id"]: c for c in report["claims"] if is_retrieved(c)}
    for row in report["results"]:
        path = row.get("input_path") or ""
        region: dict[str, int] | None = None
        if positions and path in positions:
            region = {"startLine": positions[path][0], "startColumn": positions[path][1]}
        elif path.startswith("line "):  # "line 12" (BibTeX), "line 12:5" (a Markdown report)
            line, _, column = path.split()[1].partition(":")
            region = {"startLine": int(line)} | ({"startColumn": int(column)} if column else {})
        location: dict[str, Any] = {"artifactLocation": {"uri": input_uri}}
        if region:
            location["region"] = region
        for finding in row["findings"]:
            code = finding["code"]
            text = f"{finding['label']}: {finding['message']}"
            page = pinned_page(row)
            where = f" (claim {row['claim']}, citation {row['citation']}" + (
                f"; page {page})" if page else ")"
            )
            if finding["outcome"] == Outcome.UNCHECKED.value:
                notifications.append(
                    {
                        "level": "warning",
                        "message": {"text": text + where},
                        "descriptor": {"id": code, "index": index[code]},
                        "locations": [{"physicalLocation": location}],
                    }
                )
                continue
            judged = _judged(retrieved.get(row["claim"]), row["citation"])
            results.append(
                ({"properties": {"judgedOnRetrievedPassages": judged}} if judged else {})
                | {
                    "ruleId": code,
                    "ruleIndex": index[code],
                    "level": _LEVEL[finding["severity"]],
                    "message": {"text": text + where},
                    "locations": [{"physicalLocation": location}],
                    "partialFingerprints": {
                        "citeaudit/v1": _fingerprint(
                            code, row["claim"], row["citation"], path, finding["label"]
                        )
                    },
                }
            )
    sarif: dict[str, Any] = {
        "$schema": _SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "citeaudit",
                        "version": report["checker"]["version"],
                        "informationUri": "https://pypi.org/project/citeaudit/",
                        "rules": rules,
                    }
                },
                "artifacts": [{"location": {"uri": input_uri}}],
                "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": notifications}],
                "results": results,
                # The answer as a whole; the semantic verdicts are a judge's, kept apart from results.
                "properties": {
                    "decision": report.get("decision"),
                    "status": report["status"],
                    "verdicts": {
                        c["id"]: c["verdict"]["label"] for c in report["claims"] if c.get("verdict")
                    },
                },
            }
        ],
    }
    if retrieved:  # judged, not proved: apart from the results, with what was read and where
        sarif["runs"][0]["properties"]["judgedOnRetrievedPassages"] = {
            claim_id: _judged_claim(claim) for claim_id, claim in sorted(retrieved.items())
        }
    spans = {c["id"]: spans_of(c) for c in report["claims"] if spans_of(c)}
    if spans:  # the claim words a judge found unsupported, as [start, end) of the claim text
        sarif["runs"][0]["properties"]["unsupportedSpans"] = {
            k: [list(s) for s in v] for k, v in spans.items()
        }
    return (json.dumps(sarif, ensure_ascii=False, sort_keys=True, indent=2) + "\n").encode("utf-8")
