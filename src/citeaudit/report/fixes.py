"""The fix of a report row: the fields to set in the citation, in the input's own field names, so
that merged into the citation as the agent wrote it (``citation | fix``) the next audit reads it.

One function for every format — the MCP tools, ``feedback``, the API's repair loop and the HTML
report — so that a fix reads the same everywhere and an agent's repair loop converges."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["PASSAGE_FIX", "citation_patch", "finding_patch", "passage_fixes"]

# The name a passage offered as a quote goes by where fixes are listed by code (it is no finding:
# it comes from the judge, and it turns a judged citation into one the next audit proves).
PASSAGE_FIX = "QUOTE_THE_PASSAGE"


def _best_year(years: Mapping[str, Any]) -> Any:
    return years["issued"] if "issued" in years else next(iter(years.values()))


def _by_code(findings: Iterable[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """Each code's first finding's suggestion (empty when none)."""
    out: dict[str, Mapping[str, Any]] = {}
    for f in findings:
        out.setdefault(f["code"], f.get("suggestion") or {})
    return out


def citation_patch(
    row: Mapping[str, Any], findings: Iterable[Mapping[str, Any]] | None = None
) -> dict[str, Any] | None:
    """The patch for ``row``'s citation from its findings (or from ``findings``, some of them):
    the fields to set, sorted by name, or None when the findings suggest no change to the
    citation."""
    found = _by_code(row.get("findings") or [] if findings is None else findings)
    kind = (row.get("source") or {}).get("kind")
    fix: dict[str, Any] = {}
    if found.get("E_TITLE_MISMATCH", {}).get("title"):
        fix["title"] = found["E_TITLE_MISMATCH"]["title"]
    if found.get("E_YEAR_MISMATCH", {}).get("years"):
        fix["year"] = _best_year(found["E_YEAR_MISMATCH"]["years"])
    for code in ("E_AUTHOR_MISMATCH", "W_AUTHOR_NOT_FIRST"):
        if found.get(code, {}).get("first_author"):
            fix["first_author"] = found[code]["first_author"]
    if found.get("E_AUTHOR_NOT_ON_WORK", {}).get("authors"):
        fix["authors"] = found["E_AUTHOR_NOT_ON_WORK"]["authors"]
    for code, field in (
        ("E_VOLUME_MISMATCH", "volume"),
        ("E_ISSUE_MISMATCH", "issue"),
        ("E_PAGES_MISMATCH", "pages"),
    ):
        if found.get(code, {}).get(field) is not None:
            fix[field] = found[code][field]
    if found.get("E_VENUE_MISMATCH", {}).get("container"):
        fix["container"] = found["E_VENUE_MISMATCH"]["container"][0]
    for code in ("E_QUOTE_MISMATCH", "E_RANGE_INVALID"):
        right = found.get(code, {})
        if "start" in right:
            fix["start"], fix["end"] = right["start"], right["end"]
            if right.get("normalized_match"):
                fix["quote"] = right["source_text"]
    for field in ("doi", "arxiv"):  # a reference matched by search becomes a proved citation
        if kind == "work" and found.get("I_MATCHED_BY_SEARCH", {}).get(field):
            fix[field] = found["I_MATCHED_BY_SEARCH"][field]
    if kind == "corpus" and found.get("E_VERSION_MISMATCH", {}).get("version"):
        fix["document_version"] = found["E_VERSION_MISMATCH"]["version"]
    if kind == "store":
        ref = found.get("E_VERSION_MISMATCH") or found.get("E_DIGEST_MISMATCH") or {}
        fix |= {k: ref[k] for k in ("revision", "digest") if k in ref}
    return dict(sorted(fix.items())) or None


def finding_patch(row: Mapping[str, Any], finding: Mapping[str, Any]) -> dict[str, Any] | None:
    """The part of the row's patch that one finding asks for (None: it asks for no change)."""
    if row.get("citation") is None:
        return None
    return citation_patch(row, [finding])


def passage_fixes(claim: Mapping[str, Any]) -> list[dict[str, Any]]:
    """For a claim a judge found ``entailed`` on passages of the cited texts (no quote was
    given), the best passage of each citation offered as its quote: ``{"citation", "fix",
    "basis", "start", "end"}``, the fix in the input's field names (``quote``). The next audit
    then finds the quote verbatim in the same pinned text (the snapshot, the page, or the
    abstract in the record) and the citation is proved, not judged."""
    verdict = claim.get("verdict") or {}
    if verdict.get("basis") != "retrieved" or verdict.get("label") != "entailed":
        return []
    best: dict[str, Mapping[str, Any]] = {}
    for passage in sorted(verdict.get("passages") or [], key=lambda p: p["rank"]):
        best.setdefault(passage["citation"], passage)
    return [
        {
            "basis": p["basis"],
            "citation": cid,
            "end": p["end"],
            "fix": {"quote": p["text"]},
            "start": p["start"],
        }
        for cid, p in sorted(best.items())
    ]
