"""The Markdown artifact (seed 002 §5): status, every claim with its kind,
rationale and state, conflicts and gaps, and for every citation where it
points — source, version or revision, content digest, time it entered the
store, character range and lines — and the quote.

All external text (titles, claims, quotes, notes, reasons) is rendered as
literal text: HTML and Markdown special characters are escaped, so a quote can
never become an image, a link or markup. The artifact ends with the SHA-256
of the report it was rendered from and of its own bytes before that line, so
a frozen artifact can be re-checked before it is saved.
"""

from __future__ import annotations

import hashlib
import html
import re
from typing import Any

from citeaudit.normalize import show_controls
from citeaudit.report.pins import pinned_page
from citeaudit.report.retrieved import JUDGED_WORDS, best_passage, is_retrieved, passage_words
from citeaudit.report.spans import spans_of, unsupported_summary

__all__ = ["literal", "render_markdown", "verify_markdown"]

_MD_SPECIAL_RE = re.compile(r"([\\`*_{}\[\]()#+\-.!|>~<])")
_FOOTER = "artifact-sha256: "


def literal(text: object) -> str:
    """External text as literal Markdown: one line, bidirectional controls and variation
    selectors written out (``<U+202E>``: an override must not show a reversed title as the
    registry's), HTML escaped, Markdown escaped."""
    flat = show_controls(" ".join(str(text).split()))
    return _MD_SPECIAL_RE.sub(r"\\\1", html.escape(flat, quote=False))


def _claim_lines(report: dict[str, Any]) -> list[str]:
    lines = ["## Claims", ""]
    rows_of: dict[str, list[dict[str, Any]]] = {}  # one pass: a scan per claim was quadratic
    for r in report["results"]:
        if r["claim"] is not None:
            rows_of.setdefault(r["claim"], []).append(r)
    for claim in report["claims"]:
        own = rows_of.get(claim["id"], [])
        refs = (
            ", ".join(f"[{literal(c)}](#citation-{_anchor(c)})" for c in claim["citations"]) or "no citation"
        )
        lines.append(f"- **{literal(claim['id'])}** · {claim['kind']} · `{claim['status']}` · {refs}")
        text = claim.get("text")
        if text:
            lines.append(f"  {literal(text)}")
        if claim.get("rationale"):
            lines.append(f"  Rationale: {literal(claim['rationale'])}")
        codes = sorted({code for r in own for code in r["errors"] + r["warnings"]})
        if codes:
            lines.append(f"  Findings: {', '.join(f'`{c}`' for c in codes)}")
        verdict = claim.get("verdict")
        if verdict:
            by = literal(verdict["judge"])
            lines.append(f"  Semantic verdict (a judge's, not a check): `{verdict['label']}` by {by}")
            if verdict.get("probability") is not None:
                why = literal(verdict.get("reason") or "")
                lines.append(f"  Probability of support: {verdict['probability']}; {why}")
            if spans_of(claim):
                lines.append(f"  Unsupported by its fragments: {literal(unsupported_summary(claim))}")
            lines += _retrieved_lines(claim)
        lines.append(f"  Review status: `{claim.get('review_status', 'pending_review')}`")
    lines += ["", *_review_lines(report.get("reviews") or []), ""]
    return lines


def _retrieved_lines(claim: dict[str, Any]) -> list[str]:
    """A verdict given on passages of the cited texts (no quote to verify): said to be judged,
    with the best passage and where it is."""
    best = best_passage(claim) if is_retrieved(claim) else None
    if best is None:
        return []
    return [
        f"  Basis: {JUDGED_WORDS}; best {literal(passage_words(claim, best))}",
        f"  Best passage: {literal(best['text'])}",
    ]


def _review_lines(reviews: list[dict[str, str]]) -> list[str]:
    if not reviews:
        return ["No review records: support of each claim is not confirmed by a reviewer."]
    lines = ["## Reviews", ""]
    for r in reviews:
        lines.append(
            f"- **{literal(r['claim'])}** `{r['verdict']}` by {literal(r['reviewer'])}: {literal(r['note'])}"
        )
    return lines


def _anchor(citation_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "-", citation_id)


_IDENTIFIER_NAMES = {"doi": "DOI", "pmid": "PMID", "pmcid": "PMCID"}


def _source_lines(row: dict[str, Any]) -> list[str]:
    source, record = row.get("source") or {}, row.get("record") or {}
    out = []
    if source.get("kind") in _IDENTIFIER_NAMES:  # a work named by a registry's identifier
        kind = source["kind"]
        shown = row["doi"] if kind == "doi" else source.get(kind, "")
        cited = literal(source.get("title", "—"))
        out.append(f"{_IDENTIFIER_NAMES[kind]}: {literal(shown)}; cited title: {cited}")
        if record.get("title"):
            out.append(f"Registry: {literal(record['agency'])}; title: {literal(record['title'])}")
    elif source.get("kind") == "corpus":
        out.append(
            f"Document: {literal(source['document_id'])}; version: {literal(source['document_version'])}"
        )
    elif source.get("kind") == "store":
        out.append(
            f"Source: {literal(record.get('title', source['source_id']))} ({literal(source['source_id'])})"
        )
        if record.get("locator"):
            out.append(f"Locator: {literal(record['locator'])}; kind: {literal(record.get('kind', ''))}")
        out.append(f"Revision: {source['revision']}; text SHA-256: {source['digest']}")
        if record.get("entered_at"):
            out.append(f"Entered the store: {literal(record['entered_at'])}")
    elif source.get("kind") == "url":
        out.append(
            f"Web page: {literal(pinned_page(row) or '')}; cited title: {literal(source.get('title', '—'))}"
        )
        if record.get("title"):
            out.append(f"Page title: {literal(record['title'])}")
    elif source.get("kind") == "work":
        out.append(f"Reference without identifier: {literal(source.get('title', '—'))}")
        matched = record.get("matched")
        if matched:  # found by search: never "resolved by identifier"
            found = f"Matched by search (not by identifier) in {literal(matched['index'])}: "
            found += f"{literal(matched['key'])}, title similarity {matched['score']}"
            out.append(found + (f"; DOI {literal(record['doi'])}" if record.get("doi") else ""))
            out.append(f"Record title: {literal(record.get('title') or '—')}")
    elif source:
        out.append(f"Reference without identifier: {literal(source.get('title', '—'))}")
    location = row.get("location")
    if location:
        span = f"Characters [{location['start']}, {location['end']})"
        if "line_start" in location:
            first, last = location["line_start"], location["line_end"]
            span += f"; line {first}" if first == last else f"; lines {first}–{last}"
        out.append(span)
    return out


def _citation_lines(report: dict[str, Any]) -> list[str]:
    lines = ["## Citations", ""]
    seen: set[str] = set()
    for row in report["results"]:
        cid = row["citation"]
        if cid is None or cid in seen:
            continue
        seen.add(cid)
        lines.append(f'<a id="citation-{_anchor(cid)}"></a>')
        lines.append("")
        lines.append(f"### {literal(cid)} · `{row['status']}`")
        lines.append("")
        lines += [f"{line}  " for line in _source_lines(row)]
        for finding in row["findings"]:
            lines.append(f"- `{finding['label']}` ({finding['severity']}): {literal(finding['message'])}  ")
        quote = row.get("quote")
        if quote:
            lines += ["", f"> {literal(quote)}"]
        lines.append("")
    return lines


def _by_status(report: dict[str, Any]) -> str:
    """The results apart, in the HTML header's words: a result that could not be checked is
    never counted as failed (``3 passed, 1 failed, 2 could not be checked``)."""
    by_status = report["summary"]["results_by_status"]  # a report written before a status existed lacks it
    return (
        f"{by_status.get('pass', 0)} passed, {by_status.get('fail', 0)} failed, "
        f"{by_status.get('could_not_check', 0)} could not be checked"
    )


def _body(report: dict[str, Any], report_digest: str) -> str:
    title = report.get("title") or "Citation audit"
    lines = [
        f"# {literal(title)}",
        "",
        "> A candidate artifact: the deterministic checks passed or failed as shown; they do not prove "
        "that any claim is true or supported.",
        "",
        f"Status: `{report['status']}` · decision: `{report.get('decision', 'not recorded')}` · "
        f"outcome: `{report['outcome']}` · checked {report['checked']}: {_by_status(report)} · "
        f"citeaudit {report['checker']['version']}",
        "",
        f"Report SHA-256: {report_digest}",
        "",
    ]
    lines += _claim_lines(report)
    lines += ["## Conflicts and gaps", ""]
    for conflict in report["conflicts"]:
        ids = ", ".join(literal(c) for c in conflict["claim_ids"])
        lines.append(f"- Conflict between {ids}: {literal(conflict['reason'])}")
    for gap in report["gaps"]:
        lines.append(f"- Gap: {literal(gap)}")
    if not report["conflicts"] and not report["gaps"]:
        lines.append("No conflicts or gaps are registered; this does not mean the material is complete.")
    lines.append("")
    lines += _citation_lines(report)
    return "\n".join(lines) + "\n"


def render_markdown(report: dict[str, Any], report_digest: str) -> bytes:
    body = _body(report, report_digest).encode("utf-8")
    return body + f"{_FOOTER}{hashlib.sha256(body).hexdigest()}\n".encode()


def verify_markdown(artifact: bytes) -> bool:
    """The artifact is intact: its last line is the SHA-256 of everything before it."""
    body, sep, footer = artifact.rstrip(b"\n").rpartition(b"\n")
    if not sep or not footer.startswith(_FOOTER.encode()):
        return False
    return footer[len(_FOOTER) :].decode("ascii", "replace") == hashlib.sha256(body + b"\n").hexdigest()
