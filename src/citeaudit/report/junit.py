"""JUnit XML: one test case per citation (per claim for an uncited claim),
failures carrying the codes; "could not check" rows are skipped, not passed.

A claim judged on passages of the cited texts (no quote to verify) is said to be judged, never
passed: a suite property per claim (``citeaudit.judged_on_passages.ID``) and, on the test case of
each citation whose text was read, its best passage and where it is."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from citeaudit.report.pins import pinned_page
from citeaudit.report.retrieved import JUDGED_WORDS, best_passage, is_retrieved, passage_words
from citeaudit.report.spans import spans_of, unsupported_summary

__all__ = ["render_junit"]


def render_junit(report: dict[str, Any]) -> bytes:
    rows = report["results"]
    failures = sum(1 for r in rows if r["status"] == "fail")
    skipped = sum(1 for r in rows if r["status"] == "could_not_check")
    counts = {"tests": str(len(rows)), "failures": str(failures), "errors": "0", "skipped": str(skipped)}
    suites = ET.Element("testsuites", {"name": "citeaudit", **counts})
    suite = ET.SubElement(suites, "testsuite", {"name": f"citeaudit {report['input_format']}", **counts})
    properties = ET.SubElement(suite, "properties")
    for name in ("decision", "status", "outcome"):
        if name in report:
            ET.SubElement(properties, "property", {"name": f"citeaudit.{name}", "value": str(report[name])})
    for claim in report["claims"]:
        if spans_of(claim):  # the claim words a judge found unsupported
            name = f"citeaudit.unsupported.{claim['id']}"
            ET.SubElement(properties, "property", {"name": name, "value": unsupported_summary(claim)})
    retrieved = {c["id"]: c for c in report["claims"] if is_retrieved(c)}
    for claim_id, claim in sorted(retrieved.items()):
        best = best_passage(claim)
        if best is None:
            continue
        value = f"verdict {claim['verdict']['label']}, {JUDGED_WORDS}; best {passage_words(claim, best)}"
        ET.SubElement(
            properties, "property", {"name": f"citeaudit.judged_on_passages.{claim_id}", "value": value}
        )
    for row in rows:
        case = ET.SubElement(
            suite,
            "testcase",
            {"classname": f"claim {row['claim'] or '(citation list)'}", "name": row["citation"] or "(claim)"},
        )
        if row["status"] != "pass":
            _fail(case, row)
        said = []
        matched = (row.get("record") or {}).get("matched")
        if matched:  # found by search, not resolved by an identifier: said on the case itself
            said.append(f"matched by search (not by identifier): {matched['index']} {matched['key']}")
        claim = retrieved.get(row["claim"] or "")
        best = best_passage(claim, row["citation"]) if claim is not None and row["citation"] else None
        if claim is not None and best is not None:
            said.append(
                f"verdict {claim['verdict']['label']}, {JUDGED_WORDS}; best {passage_words(claim, best)}:"
            )
            said.append(best["text"])
        if said:
            out = ET.SubElement(case, "system-out")
            out.text = "\n".join(said)
    ET.indent(suites)
    data: bytes = ET.tostring(suites, encoding="utf-8", xml_declaration=True)
    return data + b"\n"


def _fail(case: ET.Element, row: dict[str, Any]) -> None:
    """The failure (or skip) element of a row that did not pass, with its errors."""
    detail = "\n".join(f"{f['label']}: {f['message']}" for f in row["findings"] if f["severity"] == "error")
    page = pinned_page(row)
    if page:
        detail += f"\npage {page}"
    tag = "failure" if row["status"] == "fail" else "skipped"
    element = ET.SubElement(case, tag, {"message": " ".join(row["errors"]), "type": row["errors"][0]})
    element.text = detail
