"""``citeaudit mcp``: an MCP server over stdio, for agents to check their own
work before they hand it in.

It is read-only with respect to everything an answer is checked against: the
registry cache (no upstream: a miss is "could not check"), the snapshots, the
corpus and the evidence store (opened read-only). No tool writes anything —
an agent can check its work but cannot make it pass by changing what it is
checked against (seed 000's main rule). Inputs and answers are bounded, and
every failure is a tool error of one line in citeaudit's own words.

The tools are served by the SDK's low-level server: each tool's input schema
is generated from the pydantic models that validate its arguments (for
``audit_claims`` and ``feedback``, the native format's own models), and the
arguments are validated here, so that an unknown argument is refused by name
and an error is one line, never pydantic's text. The stdio transport is ours
too: a line that is not JSON gets a JSON-RPC -32700 answer, and the requests
in flight when standard input closes are answered before the server exits.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Awaitable, Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass
from typing import Any, BinaryIO

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.shared.message import SessionMessage
from pydantic import BaseModel, ConfigDict, Field, create_model

from citeaudit.errors import CiteauditError, InputError
from citeaudit.formats import InputFormat, parse_bytes, submission_from_bytes
from citeaudit.formats.native import ClaimIn, SubmissionIn
from citeaudit.formats.validate import validate
from citeaudit.formats.wire import (
    WORK_CITATION_MODELS,
    CorpusCitationIn,
    RefCitationIn,
    StoreCitationIn,
)
from citeaudit.identifiers import KINDS
from citeaudit.report.feedback import feedback as feedback_of
from citeaudit.report.feedback import feedback_text
from citeaudit.report.fixes import PASSAGE_FIX, finding_patch, passage_fixes
from citeaudit.report.json import report_to_dict
from citeaudit.report.read import ReportDoc
from citeaudit.sources.interface import StoredSource
from citeaudit.util.version import __version__
from citeaudit.wiring import Auditor, Evidence

__all__ = ["McpOptions", "build_server", "compact_report", "fit_report", "output_schemas", "serve_stdio"]

logger = logging.getLogger(__name__)

INSTRUCTIONS = (
    "citeaudit checks citations deterministically: that sources exist, that metadata match the "
    "registry, that quotes occur verbatim in the pinned text, that numbers occur in the quotes. "
    "It never says whether a passage supports a claim. Call list_sources to see what you may cite, "
    "get_source_excerpt to read a source, locate_quote to turn a passage of it into an exact citation, "
    "audit_claims on your claims before you answer (audit_report on a report written in Markdown), and "
    "feedback for what to fix and what to keep. "
    "Nothing here can change what you are checked against."
)

# Every tool only reads, gives the same answer for the same arguments, and reaches nothing
# outside the cache, snapshots, corpus and store the operator gave it.
ANNOTATIONS = types.ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)


@dataclass(frozen=True)
class McpOptions:
    auditor: Auditor  # from citeaudit.wiring.read_only_auditor: the cache only read, no verdict written
    evidence: Evidence | None = None  # the store opened read-only, in the scope the host chose
    max_input_bytes: int = 1_000_000
    max_response_bytes: int = 2_000_000  # one answer, text and structured content together
    max_fragment_chars: int = 5_000
    max_excerpt_chars: int = 8_000
    max_line_bytes: int = 4_000_000  # one JSON-RPC message on standard input


class ToolFailure(Exception):
    """A tool's answer is an error: one line for the agent."""


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _size(value: Any) -> int:
    return len(_dumps(value).encode("utf-8"))


# --- The input schemas -----------------------------------------------------------------------

_SUBMISSION_FIELDS = {
    "claims": "The claims to audit, each with the citations that support it.",
    "citations": "Citations listed once for the whole answer, referred to from claims by citation_ids "
    "(each needs an id).",
    "conflicts": "Claims that contradict each other, at least two ids and why.",
    "gaps": "What the answer could not find sources for, one sentence each.",
    "labels": "Free labels recorded with the audit (generator, retriever, corpus...).",
    "answer": "The answer's prose, if any.",
    "title": "The answer's title, if any.",
    "question": "The question the answer answers, if any: a claim of one to three words is judged "
    "as its answer.",
}
_CLAIM_FIELDS = {
    "id": "The claim's id, unique in the answer.",
    "text": "The claim as the answer states it. Numbers in it must occur in a quote of its citations.",
    "kind": '"fact" (the default) or "inference"; an inference needs a rationale.',
    "rationale": "Why the claim follows from its citations (required for an inference).",
    "citations": "The citations of this claim. Each names exactly one source: a work by its identifier "
    "(doi, arxiv) or a web page (url), an evidence-store source (source_id, revision, digest, or ref), "
    "or a corpus document (document_id, document_version).",
    "citation_ids": "Ids of citations in the top-level citations list.",
}
_CITATION_FIELDS = {
    "id": "The citation's id (default: CLAIM_ID#N).",
    "title": "The work's title as cited; compared with the registry's.",
    "year": "The year as cited (an integer); compared with every year the registry has.",
    "first_author": "The first author's family name (or 'Family, Given') as cited.",
    "authors": "The authors as cited, in order.",
    "container": "The journal, proceedings or book as cited.",
    "volume": "The volume as cited (string or integer).",
    "issue": "The issue as cited (string or integer).",
    "pages": "The pages as cited, such as '12-19'.",
    "type": "The work's type as cited, such as 'journal-article'.",
    "source_id": "An evidence-store source id, as list_sources gives it.",
    "revision": "The source's revision (from list_sources or locate_quote).",
    "digest": "The revision's SHA-256 (64 lowercase hex characters), from list_sources or locate_quote.",
    "ref": "The source, revision and digest as one object (seed 002's form).",
    "start": "Where the quote starts in the source's text (a character offset, an integer).",
    "end": "Where the quote ends, exclusive (an integer greater than start).",
    "document_id": "A corpus document's id.",
    "document_version": "The corpus document's version.",
}
_KIND_FIELDS = {
    "doi": "The work's DOI, such as 10.1000/xyz123 (a https://doi.org/ URL or doi: prefix is read too).",
    "arxiv": "The arXiv id, such as 2401.01234v2 (the version is noted, not compared).",
    "url": "The web page's address (http or https, no credentials); its quote is checked against the "
    "page as pinned by citeaudit fetch (this server never fetches).",
    "accessed": "When the page was read, as written (kept in the report, not checked).",
}
_NESTED_FIELDS = {
    "claim_ids": "The ids of the claims that contradict each other (at least two).",
    "reason": "Why they contradict each other.",
}
_VARIANTS = {
    "StoreCitationIn": "A quote from an evidence-store source: copy source_id, revision, digest, start, "
    "end and quote from locate_quote.",
    "RefCitationIn": "The same, with the source as ref {source_id, revision, digest}.",
    "CorpusCitationIn": "A quote from a corpus document.",
}


def _inline(node: Any, defs: Mapping[str, Any], properties: bool = False) -> Any:
    """The schema with its ``$ref`` replaced by their definitions and pydantic's titles dropped:
    one self-contained object, as agents read it best."""
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    if not isinstance(node, dict):
        return node
    if not properties and "$ref" in node:
        return _inline(defs[str(node["$ref"]).rsplit("/", 1)[-1]], defs)
    out = {}
    for key, value in node.items():
        if properties:
            out[key] = _inline(value, defs)
        elif key not in ("$defs", "title"):
            out[key] = _inline(value, defs, properties=key == "properties")
    return out


def _optional(prop: dict[str, Any]) -> dict[str, Any]:
    """An optional field as an agent should write it: left out, not null (null is accepted too)."""
    if prop.get("default", ...) is not None or "anyOf" not in prop:
        return prop
    branches = [b for b in prop["anyOf"] if b != {"type": "null"}]
    rest = {k: v for k, v in prop.items() if k not in ("anyOf", "default")}
    return {**branches[0], **rest} if len(branches) == 1 else {"anyOf": branches, **rest}


def model_schema(model: type[BaseModel]) -> dict[str, Any]:
    schema = model.model_json_schema()
    result: dict[str, Any] = _inline(schema, schema.get("$defs", {}))
    props = result.setdefault("properties", {})
    for name in props:
        props[name] = _optional(props[name])
    return result


def _describe(schema: dict[str, Any], descriptions: Mapping[str, str]) -> dict[str, Any]:
    for name, prop in schema.get("properties", {}).items():
        text = descriptions.get(name)
        if text is not None:
            prop["description"] = text
    return schema


def _citation_schemas(min_quote: int) -> list[dict[str, Any]]:
    quote = (
        f"The passage copied verbatim from the source, at least {min_quote} characters "
        "(E_QUOTE_TOO_SHORT otherwise); whitespace and typographic quotes are normalised, nothing else."
    )
    offset = {"type": "integer", "minimum": 0}
    variants = []
    models: list[type[BaseModel]] = [
        *(WORK_CITATION_MODELS[kind] for kind in KINDS),
        StoreCitationIn,
        RefCitationIn,
        CorpusCitationIn,
    ]
    for model in models:
        schema = _describe(model_schema(model), {**_CITATION_FIELDS, **_KIND_FIELDS, "quote": quote})
        props = schema["properties"]
        for name in ("start", "end"):
            if name in props:  # typed loosely in the model: a bad type is a finding, not an input error
                props[name] = {**offset, "description": _CITATION_FIELDS[name]}
        kind = next((k for k in KINDS if model is WORK_CITATION_MODELS[k]), None)
        if kind is not None and kind not in props:  # a work named by its metadata alone
            schema["description"] = (
                "A work cited by its title (with any of authors, first_author, year, container, volume, "
                "pages) and no identifier: found by bibliographic search in the configured mirrors and "
                "pinned search answers, then checked against the record found (I_MATCHED_BY_SEARCH)."
            )
        elif kind is not None:
            props[kind].setdefault("description", f"The work's {kind} identifier.")
            if kind == "url":
                if "doi" in props:
                    props["doi"]["description"] = (
                        "The DOI of the work the page is, if any: it must be the page's own citation_doi."
                    )
                schema["description"] = (
                    "A web page cited by its URL, with its title as cited (compared with the page's "
                    "titles; a difference is a warning) and a quote checked against the pinned page."
                )
            else:
                schema["description"] = (
                    f"A work cited by its {kind}, with the metadata as cited (each given field is compared "
                    "with the registry's record) and optionally a quote from its snapshot."
                )
        else:
            schema["description"] = _VARIANTS[model.__name__]
        variants.append(schema)
    return variants


EXAMPLE = {
    "claims": [
        {
            "id": "c1",
            "text": "Pinning every claim to a retrieved passage removes citation errors in 3 of 4 cases.",
            "citations": [
                {
                    "doi": "10.1000/xyz123",
                    "title": "Grounded generation with verifiable citations",
                    "year": 2024,
                    "first_author": "Garcia",
                    "quote": "pinning every claim to a retrieved passage removed citation errors in 3 of 4 "
                    "cases",
                }
            ],
        },
        {
            "id": "c2",
            "text": "Plan A works offline and needs no account.",
            "citations": [
                {
                    "source_id": "plan_a",
                    "revision": 1,
                    "digest": "7efd2622f4e298bf8628f8c4dd0b8152d586ab5d5d2669b877c3b1b4ade7ed70",
                    "start": 9,
                    "end": 55,
                    "quote": "Plan A works offline. Plan A needs no account.",
                }
            ],
        },
    ]
}


def submission_schema(min_quote: int, extra: Mapping[str, Any]) -> dict[str, Any]:
    """The native format's schema, from its own models: the submission, its claims, every citation
    form, with descriptions, bounds and one example."""
    citations = _citation_schemas(min_quote)
    claim = _describe(model_schema(ClaimIn), _CLAIM_FIELDS)
    claim["properties"]["citations"]["items"] = {"$ref": "#/$defs/citation"}
    claim["description"] = "One claim of the answer with its citations."
    top = _describe(model_schema(SubmissionIn), _SUBMISSION_FIELDS)
    top["properties"]["claims"]["items"] = claim
    top["properties"]["claims"]["minItems"] = 1
    top["properties"]["citations"]["items"] = {"$ref": "#/$defs/citation"}
    top["properties"].update(extra)
    top["$defs"] = {"citation": {"anyOf": citations}}
    top["examples"] = [EXAMPLE]
    _fill(top, {**_CITATION_FIELDS, **_NESTED_FIELDS})
    return top


def _fill(node: Any, descriptions: Mapping[str, str]) -> None:
    """Describe the fields of nested objects (a conflict, a ref) that have no description yet."""
    if isinstance(node, list):
        for item in node:
            _fill(item, descriptions)
    elif isinstance(node, dict):
        for name, prop in (node.get("properties") or {}).items():
            if isinstance(prop, dict) and "description" not in prop and name in descriptions:
                prop["description"] = descriptions[name]
        for key, value in node.items():
            if key != "description":
                _fill(value, descriptions)


class _Arguments(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


def _source_id() -> Any:
    return (
        str,
        Field(min_length=1, max_length=200, description="The source's id, as list_sources gives it."),
    )


def _arguments_models(options: McpOptions) -> dict[str, type[_Arguments]]:
    fragment = Field(
        min_length=1,
        max_length=options.max_fragment_chars,
        description="A passage of the source's current text, copied exactly; it must occur exactly once "
        "(give more of it when it occurs more often).",
    )
    locate = create_model(
        "LocateQuote", __base__=_Arguments, source_id=_source_id(), fragment=(str, fragment)
    )
    context = Field(
        200,
        ge=0,
        description="Characters of text to return before and after the range (an integer). The window "
        f"returned (before, range, after) must be at most {options.max_excerpt_chars} characters.",
    )
    excerpt = create_model(
        "GetSourceExcerpt",
        __base__=_Arguments,
        source_id=_source_id(),
        start=(int, Field(ge=0, description="The range's first character (an integer).")),
        end=(int, Field(ge=1, description="The character after the range (an integer > start).")),
        context=(int, context),
    )
    return {"locate_quote": locate, "get_source_excerpt": excerpt, "list_sources": _Arguments}


_DETAIL = {
    "type": "string",
    "enum": ["compact", "full"],
    "default": "compact",
    "description": '"compact" (the default): the decision, the status, and per claim its status, codes, '
    'one-line messages and suggestions. "full": the whole report (report.json\'s content).',
}


# --- The output schemas ----------------------------------------------------------------------


def _object(required: list[str], optional: Mapping[str, Any] | None = None, **props: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {**props, **(optional or {})},
        "required": required,
        "additionalProperties": False,
    }


_STR: dict[str, Any] = {"type": "string"}
_INT = {"type": "integer"}
_STRS = {"type": "array", "items": _STR}
_COUNTS = {"type": "object", "additionalProperties": _INT}
_NULLABLE_STR = {"type": ["string", "null"]}
_REF: dict[str, Any] = {"source_id": _STR, "revision": {"type": "integer", "minimum": 1}, "digest": _STR}


def _findings_schema() -> dict[str, Any]:
    suggestion = _object(
        ["citation", "code"],
        {
            "fix": {
                "type": "object",
                "description": "The fields to set in the citation, in the input's own names: merge them "
                "into the citation as it is (citation | fix) and audit again.",
            },
            "hint": {"type": "object", "description": "What the check found, when no field can fix it."},
        },
        citation=_NULLABLE_STR,
        code=_STR,
    )
    return {"codes": _STRS, "messages": _STRS, "suggestions": {"type": "array", "items": suggestion}}


def _compact_schema() -> dict[str, Any]:
    findings = _findings_schema()
    claim = _object(["id", "status", *findings], id=_STR, status=_STR, **findings)
    counts = _object(
        ["claims", "claims_by_status", "errors", "warnings"],
        claims=_INT,
        claims_by_status=_COUNTS,
        errors=_INT,
        warnings=_INT,
    )
    schema = _object(
        ["detail", "decision", "status", "outcome", "counts", "claims"],
        {
            "other": _object(list(findings), **findings),
            "input_sha256": _STR,
            "note": _STR,
            "by_code": _COUNTS,
            "truncated": {"type": "object"},
        },
        detail={"enum": ["compact", "summary"]},
        decision=_STR,
        status=_STR,
        outcome=_STR,
        counts=counts,
        claims={"type": "array", "items": claim},
    )
    schema["description"] = (
        'The compact result ("summary" when cut to fit: truncated says how many claims are shown).'
    )
    return schema


def _full_schema() -> dict[str, Any]:
    schema = model_schema(ReportDoc)
    schema["description"] = 'The whole report (report.json\'s content), for detail "full" when it fits.'
    return schema


def _feedback_schema() -> dict[str, Any]:
    problem = _object(
        ["citation", "code", "why"],
        {
            "suggestion": {"type": "object", "description": "What the check found."},
            "fix": {
                "type": "object",
                "description": "The fields to set in the citation, in the input's own names.",
            },
        },
        citation=_NULLABLE_STR,
        code=_STR,
        why=_STR,
    )
    item = _object(
        ["claim", "action", "status", "problems"],
        claim=_STR,
        action={"enum": ["fix_or_delete", "wait_for_a_person"]},
        status=_NULLABLE_STR,
        problems={"type": "array", "items": problem},
    )
    weak = _object(
        ["claim", "verdict", "by", "unsupported"],
        {
            "basis": {
                "enum": ["quote", "retrieved"],
                "description": "What was read: quotes, or passages found.",
            },
            "vetoes": {
                **_STRS,
                "description": "The learned judge's vetoes: what the claim says that the source does not.",
            },
        },
        claim=_STR,
        verdict=_STR,
        by=_STR,
        unsupported=_STRS,
    )
    to_quote = _object(
        ["claim", "citation", "fix", "basis", "start", "end"],
        claim=_STR,
        citation=_STR,
        fix={
            "type": "object",
            "description": "The passage as the citation's quote: merge it and audit again.",
        },
        basis={"enum": ["full_text", "page", "abstract"]},
        start=_INT,
        end=_INT,
    )
    schema = _object(
        ["clean", "fix", "keep_unchanged", "weak", "rule", "report_input_sha256"],
        {"quote": {"type": "array", "items": to_quote}},
        clean={"type": "boolean"},
        fix={"type": "array", "items": item},
        keep_unchanged=_STRS,
        weak={"type": "array", "items": weak},
        rule=_STR,
        report_input_sha256=_STR,
    )
    schema["description"] = "What to fix and what to keep."
    return schema


def output_schemas() -> dict[str, dict[str, Any]]:
    """The JSON Schema of each tool's structured result."""
    report = {"type": "object", "anyOf": [_compact_schema(), _full_schema()]}
    nullable_int = {"type": ["integer", "null"]}
    source = _object(
        ["source_id", "title", "kind", "revision", "digest", "size"],
        {"removed": {"const": True}},
        source_id=_STR,
        title=_STR,
        kind=_STR,
        revision=nullable_int,
        digest=_NULLABLE_STR,
        size=nullable_int,
    )
    offsets: dict[str, Any] = {"start": _INT, "end": _INT}
    return {
        "list_sources": _object(
            ["scope", "sources"],
            {
                "truncated": _object(
                    ["sources_shown", "sources_total"], sources_shown=_INT, sources_total=_INT
                )
            },
            scope=_NULLABLE_STR,
            sources={"type": "array", "items": source},
        ),
        "get_source_excerpt": _object(
            [*_REF, *offsets, "text", "before", "after"],
            **_REF,
            **offsets,
            text=_STR,
            before=_STR,
            after=_STR,
        ),
        "locate_quote": _object([*_REF, *offsets, "quote"], **_REF, **offsets, quote=_STR),
        "audit_claims": report,
        "audit_report": report,
        "feedback": {"type": "object", "anyOf": [_feedback_schema(), _compact_schema()]},
    }


# --- The answers ------------------------------------------------------------------------------


def compact_report(data: Mapping[str, Any]) -> dict[str, Any]:
    """The report as an agent needs it: the decision, the status, and per claim its status, the
    codes of its findings, one line per finding and the suggestions."""
    rows: dict[str | None, list[Mapping[str, Any]]] = {}
    for row in data["results"]:
        rows.setdefault(row["claim"], []).append(row)

    def findings(of: list[Mapping[str, Any]]) -> dict[str, Any]:
        codes: list[str] = []
        messages: list[str] = []
        suggestions: list[dict[str, Any]] = []
        for row in of:
            where = row["citation"] or "the claim"
            for f in row["findings"]:
                if f["label"] not in codes:
                    codes.append(f["label"])
                messages.append(f"{f['label']} ({where}): {f['message']}")
                patch = finding_patch(row, f)
                if patch is not None:  # the fields to set in the citation, merged as they are
                    suggestions.append({"citation": row["citation"], "code": f["label"], "fix": patch})
                elif f.get("suggestion"):
                    suggestions.append(
                        {"citation": row["citation"], "code": f["label"], "hint": f["suggestion"]}
                    )
        return {"codes": codes, "messages": messages, "suggestions": suggestions}

    claims = []
    for c in data["claims"]:
        claim = {"id": c["id"], "status": c["status"], **findings(rows.get(c["id"], []))}
        for item in passage_fixes(c):  # a judged citation made a proved one: quote the passage
            claim["suggestions"].append(
                {"citation": item["citation"], "code": PASSAGE_FIX, "fix": item["fix"]}
            )
        claims.append(claim)
    other = findings(rows.get(None, []))
    summary = data["summary"]
    return {
        "detail": "compact",
        "decision": data["decision"],
        "status": data["status"],
        "outcome": data["outcome"],
        "counts": {
            "claims": summary["claims"],
            "claims_by_status": summary["claims_by_status"],
            "errors": summary["errors"],
            "warnings": summary["warnings"],
        },
        "claims": claims,
        "other": other,  # findings on no claim: unused citations, conflicts, gaps
        "input_sha256": data["input_sha256"],
    }


def fit_report(data: Mapping[str, Any], detail: str, limit: int) -> dict[str, Any]:
    """The answer within ``limit`` bytes: the full report when asked for and it fits, else the
    compact result, else the compact result cut to the claims that fit with the counts of all —
    never an error."""
    if detail == "full":
        size = _size(data)
        if size <= limit:
            return dict(data)
        note = (
            f"the full report is {size} bytes, over the limit of {limit} bytes for a result: the compact "
            "result follows"
        )
    else:
        note = None
    compact = compact_report(data)
    if note:
        compact["note"] = note
    size = _size(compact)
    if size <= limit:
        return compact
    # Claims with findings first, in the report's order; the counts still cover every claim.
    ordered = [c for c in compact["claims"] if c["codes"]] + [c for c in compact["claims"] if not c["codes"]]
    by_code = data["summary"]["by_code"]

    def cut(n: int) -> dict[str, Any]:
        return {
            **compact,
            "detail": "summary",
            "by_code": by_code,
            "claims": ordered[:n],
            "truncated": {
                "claims_shown": n,
                "claims_total": len(ordered),
                "reason": f"the compact result is {size} bytes, over the limit of {limit} bytes for a "
                "result; audit the claims in smaller batches for the rest",
            },
        }

    low, high = 0, len(ordered)
    while low < high:  # the most claims that fit
        mid = (low + high + 1) // 2
        if _size(cut(mid)) <= limit:
            low = mid
        else:
            high = mid - 1
    result = cut(low)
    if _size(result) > limit:  # even the counts do not fit: a very small limit
        result = {k: result[k] for k in ("decision", "status", "outcome", "counts", "detail", "truncated")}
        result["claims"] = []
    return result


# --- The server -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Tool:
    name: str
    description: str
    schema: dict[str, Any]
    arguments: frozenset[str]
    run: Callable[[dict[str, Any]], Awaitable[tuple[Any, str | None]]]


def _failure(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _text(source: StoredSource) -> str:
    assert source.current is not None
    assert source.current.text is not None
    return source.current.text


def _ref(source: StoredSource) -> dict[str, Any]:
    assert source.current is not None
    return source.current.ref()


def build_server(options: McpOptions) -> Server[Any]:
    models = _arguments_models(options)
    min_quote = options.auditor.settings.min_quote_length
    limiter = anyio.CapacityLimiter(1)  # one audit or store read at a time, off the event loop

    async def in_thread(fn: Callable[[], Any]) -> Any:
        return await anyio.to_thread.run_sync(fn, limiter=limiter)

    def stored(tool: str, source_id: str) -> StoredSource:
        where = f"{tool}: $.source_id"
        if options.evidence is None:
            raise ToolFailure(
                f"{where}: no evidence store is configured for this server (the host gives --store and "
                "--scope)"
            )
        try:
            source = options.evidence.store.get(options.evidence.scope, source_id)
        except CiteauditError as e:
            raise ToolFailure(f"{where}: {e.diagnostics()}") from None
        if source is None:
            raise ToolFailure(f"{where}: no source {source_id!r} in this scope (list_sources names them)")
        if source.current is None or source.current.text is None:
            raise ToolFailure(f"{where}: source {source_id!r} was removed")
        return source

    def checked(tool: str, model: type[_Arguments], arguments: dict[str, Any]) -> Any:
        try:
            return validate(model, arguments, tool, [])
        except InputError as e:
            diagnostics = e.diagnostics()
            raise ToolFailure(
                diagnostics if diagnostics.startswith(f"{tool}:") else f"{tool}: {diagnostics}"
            ) from None

    def report_of(tool: str, arguments: dict[str, Any]) -> Any:
        claims = arguments.get("claims")
        if isinstance(claims, dict) and "claims" in claims:
            raise ToolFailure(
                f"{tool}: claims: expected an array of claims, got an object: the arguments are the claims "
                'document itself ({"claims": [...]}), not nested in claims'
            )
        # The document as the report's input_sha256 names it: sorted keys, JSON's default separators.
        raw = json.dumps(arguments, ensure_ascii=False, sort_keys=True).encode("utf-8")
        if len(raw) > options.max_input_bytes:
            raise ToolFailure(
                f"{tool}: the claims are {len(raw)} bytes, over the limit of {options.max_input_bytes}"
            )
        try:
            submission = parse_bytes(raw, "claims")
            lookup = options.evidence.lookup() if options.evidence is not None else None
            return options.auditor.audit(submission, store=lookup)
        except CiteauditError as e:
            raise ToolFailure(f"{tool}: {e.diagnostics()}") from None

    async def audit_claims(arguments: dict[str, Any]) -> tuple[Any, str | None]:
        detail = arguments.pop("detail", "compact")
        if detail not in ("compact", "full"):
            raise ToolFailure(f'audit_claims: $.detail: expected "compact" or "full", got {detail!r}')
        report = await in_thread(lambda: report_of("audit_claims", arguments))
        # The answer carries the result twice (text and structured content): each gets half the bound.
        return fit_report(report_to_dict(report), detail, options.max_response_bytes // 2), None

    def report_of_markdown(arguments: dict[str, Any]) -> Any:
        markdown = arguments.get("markdown")
        if not isinstance(markdown, str) or not markdown.strip():
            raise ToolFailure("audit_report: $.markdown: expected the report's Markdown, a non-empty string")
        raw = markdown.encode("utf-8")
        if len(raw) > options.max_input_bytes:
            raise ToolFailure(
                f"audit_report: the report is {len(raw)} bytes, over the limit of {options.max_input_bytes}"
            )
        try:
            submission = submission_from_bytes(raw, "report.md", input_format=InputFormat.MARKDOWN_REPORT)
            lookup = options.evidence.lookup() if options.evidence is not None else None
            return options.auditor.audit(submission, store=lookup)
        except CiteauditError as e:
            raise ToolFailure(f"audit_report: {e.diagnostics()}") from None

    async def audit_report(arguments: dict[str, Any]) -> tuple[Any, str | None]:
        detail = arguments.pop("detail", "compact")
        if detail not in ("compact", "full"):
            raise ToolFailure(f'audit_report: $.detail: expected "compact" or "full", got {detail!r}')
        report = await in_thread(lambda: report_of_markdown(arguments))
        return fit_report(report_to_dict(report), detail, options.max_response_bytes // 2), None

    async def feedback(arguments: dict[str, Any]) -> tuple[Any, str | None]:
        report = await in_thread(lambda: report_of("feedback", arguments))
        result = feedback_of(report)
        text = feedback_text(result)
        if _size(result) + len(text.encode("utf-8")) > options.max_response_bytes:
            return fit_report(report_to_dict(report), "compact", options.max_response_bytes // 2), None
        return result, text

    async def list_sources(arguments: dict[str, Any]) -> tuple[Any, str | None]:
        checked("list_sources", models["list_sources"], arguments)
        if options.evidence is None:
            return {"scope": None, "sources": []}, None
        evidence = options.evidence
        try:
            found: list[StoredSource] = await in_thread(lambda: evidence.store.list(evidence.scope))
        except CiteauditError as e:
            raise ToolFailure(f"list_sources: {e.diagnostics()}") from None
        sources = [
            {
                "source_id": s.source_id,
                "title": s.title,
                "kind": s.kind,
                **(
                    {"revision": s.current.revision, "digest": s.current.digest, "size": s.current.size}
                    if s.current is not None
                    else {"revision": None, "digest": None, "size": None, "removed": True}
                ),
            }
            for s in found
        ]
        result: dict[str, Any] = {"scope": str(evidence.scope), "sources": sources}
        if 2 * _size(result) > options.max_response_bytes:
            while sources and 2 * _size(result) > options.max_response_bytes:
                del sources[len(sources) // 2 :]
            result["truncated"] = {"sources_shown": len(sources), "sources_total": len(found)}
        return result, None

    async def locate_quote(arguments: dict[str, Any]) -> tuple[Any, str | None]:
        args = checked("locate_quote", models["locate_quote"], arguments)
        source = await in_thread(lambda: stored("locate_quote", args.source_id))
        text = _text(source)
        count = text.count(args.fragment)
        if count != 1:
            raise ToolFailure(
                f"locate_quote: $.fragment: occurs {count} times in {args.source_id}; it must occur exactly "
                "once" + (" (give more of the passage around it)" if count > 1 else "")
            )
        start = text.index(args.fragment)
        return {
            **_ref(source),
            "start": start,
            "end": start + len(args.fragment),
            "quote": args.fragment,
        }, None

    async def get_source_excerpt(arguments: dict[str, Any]) -> tuple[Any, str | None]:
        args = checked("get_source_excerpt", models["get_source_excerpt"], arguments)
        source = await in_thread(lambda: stored("get_source_excerpt", args.source_id))
        text = _text(source)
        start, end, context = args.start, args.end, args.context
        if not start < end <= len(text):
            which = "$.end" if end > len(text) else "$.start"
            raise ToolFailure(
                f"get_source_excerpt: {which}: [{start}, {end}) is not a range of {args.source_id} "
                f"({len(text)} characters)"
            )
        before, after = max(0, start - context), min(len(text), end + context)
        if after - before > options.max_excerpt_chars:  # the window returned, not the one asked for
            raise ToolFailure(
                f"get_source_excerpt: $.context: the window [{before}, {after}) is {after - before} "
                f"characters, over the limit of {options.max_excerpt_chars}; ask for a shorter range or "
                "less context"
            )
        return {
            **_ref(source),
            "start": start,
            "end": end,
            "text": text[start:end],
            "before": text[before:start],
            "after": text[end:after],
        }, None

    submission_props = {"detail": _DETAIL}
    audit_schema = submission_schema(min_quote, submission_props)
    feedback_schema = submission_schema(min_quote, {})
    tools = [  # in the order an agent uses them
        _Tool(
            "list_sources",
            "The evidence-store sources you may cite in this scope: for each its source_id, title, kind "
            "and current revision, digest and size (a removed source has no revision and cannot be cited). "
            "Takes no arguments.",
            model_schema(models["list_sources"]),
            frozenset(),
            list_sources,
        ),
        _Tool(
            "get_source_excerpt",
            "Read a store source around [start, end): returns the text of the range, up to context "
            f"characters before and after it (at most {options.max_excerpt_chars} characters in all), "
            "and the revision and digest to cite. Offsets are integers, end > start.",
            model_schema(models["get_source_excerpt"]),
            frozenset(models["get_source_excerpt"].model_fields),
            get_source_excerpt,
        ),
        _Tool(
            "locate_quote",
            "The exact citation of a passage of a store source: give source_id and a fragment copied from "
            "its text that occurs exactly once; returns source_id, revision, digest, start, end and quote, "
            "ready to put in a citation for audit_claims.",
            model_schema(models["locate_quote"]),
            frozenset(models["locate_quote"].model_fields),
            locate_quote,
        ),
        _Tool(
            "audit_claims",
            "Audit claims with their citations before you answer. The arguments are the claims document "
            'itself: {"claims": [{"id", "text", "citations": [...]}]}; each citation names one source: a '
            "work by doi or arxiv with its metadata as cited, or a store source with source_id, revision, "
            f"digest, start, end and quote (take them from locate_quote). Quotes are verbatim, at least "
            f"{min_quote} characters; year is an integer; unknown fields are refused. Returns the decision "
            'and, per claim, its status, codes, one-line messages and suggestions; detail "full" returns '
            "the whole report.",
            audit_schema,
            frozenset(audit_schema["properties"]),
            audit_claims,
        ),
        _Tool(
            "audit_report",
            "Audit a research report written in Markdown before you hand it over: each sentence with a "
            "citation marker ([1], [1, 3], [^note], (Author, 2020), an inline link) is a claim citing the "
            "entries of its References (or Sources, Bibliography) section; an entry's DOI, arXiv id or URL "
            "is checked, an entry with none is found by bibliographic search. Also reports markers with "
            "no entry and entries never cited. Returns what audit_claims returns; each claim's place in "
            'the Markdown (start, end, line, column) is in detail "full".',
            {
                "type": "object",
                "properties": {
                    "markdown": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": options.max_input_bytes,
                        "description": "The whole report, as Markdown text.",
                    },
                    "detail": _DETAIL,
                },
                "required": ["markdown"],
                "examples": [
                    {
                        "markdown": "# Notes\n\nAttention replaced recurrence in translation [1].\n\n"
                        "## References\n\n1. Vaswani, A., et al. (2017). Attention is all you need. "
                        "arXiv:1706.03762\n"
                    }
                ],
            },
            frozenset({"markdown", "detail"}),
            audit_report,
        ),
        _Tool(
            "feedback",
            "What to fix, why, and what to keep: audits the same claims document as audit_claims and "
            "returns the claims to fix or delete with each problem and its suggestion, the claims to keep "
            "unchanged, the claims a judge found not shown by their quotes, and the rule to follow (change "
            "nothing else). The text content is the same as a prompt.",
            feedback_schema,
            frozenset(feedback_schema["properties"]),
            feedback,
        ),
    ]
    by_name = {t.name: t for t in tools}
    outputs = output_schemas()
    for tool in tools:
        tool.schema.setdefault("properties", {})
        tool.schema["additionalProperties"] = False

    async def on_list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=t.name,
                    description=t.description,
                    input_schema=t.schema,
                    output_schema=outputs[t.name],
                    annotations=ANNOTATIONS,
                )
                for t in tools
            ]
        )

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        tool = by_name.get(params.name)
        try:
            if tool is None:
                raise ToolFailure(f"no tool {params.name!r}; the tools are {', '.join(by_name)}")
            arguments = dict(params.arguments or {})
            unknown = sorted(set(arguments) - tool.arguments)
            if unknown:
                takes = ", ".join(sorted(tool.arguments)) if tool.arguments else "no arguments"
                raise ToolFailure(
                    f"{tool.name}: unknown argument{'s' if len(unknown) > 1 else ''} "
                    f"{', '.join(repr(u) for u in unknown)}; it takes {takes}"
                )
            result, text = await tool.run(arguments)
        except ToolFailure as e:
            return _failure(_one_line(str(e)))
        except Exception:  # a bug of ours: logged on stderr, one line for the agent, the server goes on
            logger.exception("tool %r failed", params.name)
            return _failure(
                f"{params.name}: internal error (logged by the server); the call was not completed"
            )
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text if text is not None else _dumps(result))],
            structured_content=result,
        )

    return Server(
        "citeaudit",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )


# --- The stdio transport ------------------------------------------------------------------------


_STRUCTURE = re.compile(rb'["{}\[\]:]')
_STRING_REST = re.compile(rb'(?:[^"\\]|\\.)*+"')  # possessive: one linear pass, never quadratic
_ID_VALUE = re.compile(rb'\s*+(-?\d{1,18}(?![\d.eE])|"(?:[^"\\]|\\.){0,200}+")')


def _request_id(prefix: bytes) -> str | int | None:
    """The top-level ``"id"`` of a message read only in part (an over-long line), when the part
    read holds it: a string or an integer, as JSON-RPC allows; None when it cannot be read. One
    pass over the bytes, following the nesting without parsing the values."""
    if not prefix.lstrip().startswith(b"{"):
        return None
    depth = 0
    last = b""  # the last string at depth 1, or b"" after anything else
    at = 0
    while (found := _STRUCTURE.search(prefix, at)) is not None:
        char = found.group()
        at = found.end()
        if char == b'"':
            rest = _STRING_REST.match(prefix, at)
            if rest is None:  # the string runs past what was read
                return None
            last = prefix[found.start() : rest.end()] if depth == 1 else b""
            at = rest.end()
            continue
        if char in (b"{", b"["):
            depth += 1
        elif char in (b"}", b"]"):
            depth -= 1
            if depth <= 0:
                return None
        elif last == b'"id"':  # a ":" after the top-level key "id"
            value = _ID_VALUE.match(prefix, at)
            if value is None:
                return None
            try:
                ident = json.loads(value.group(1))
            except ValueError:
                return None
            return ident if isinstance(ident, (str, int)) and not isinstance(ident, bool) else None
        last = b""
    return None


def _parse_error(line: bytes, limit: int) -> types.JSONRPCError | None:
    """The JSON-RPC answer to a line that is not a message, or None for a message. An over-long
    line is answered with its request's id when the part read names it, so that the client
    matches the answer to its request instead of waiting for one."""
    if len(line) > limit:
        return types.JSONRPCError(
            jsonrpc="2.0",
            id=_request_id(line),
            error=types.ErrorData(
                code=types.INVALID_REQUEST, message=f"the message is over the limit of {limit} bytes"
            ),
        )
    try:
        value = json.loads(line)
    except (ValueError, RecursionError) as e:
        return types.JSONRPCError(
            jsonrpc="2.0", id=None, error=types.ErrorData(code=types.PARSE_ERROR, message=f"not JSON: {e}")
        )
    ident = value.get("id") if isinstance(value, dict) else None
    try:
        types.jsonrpc_message_adapter.validate_python(value, by_name=False)
    except ValueError:
        return types.JSONRPCError(
            jsonrpc="2.0",
            id=ident if isinstance(ident, (str, int)) and not isinstance(ident, bool) else None,
            error=types.ErrorData(code=types.INVALID_REQUEST, message="not a JSON-RPC 2.0 message"),
        )
    return None


class _InFlight:
    """The ids of the requests read and not yet answered."""

    def __init__(self) -> None:
        self.ids: set[str] = set()
        self.idle = anyio.Event()
        self.idle.set()

    def add(self, ident: object) -> None:
        if not self.ids:
            self.idle = anyio.Event()
        self.ids.add(json.dumps(ident))

    def done(self, ident: object) -> None:
        self.ids.discard(json.dumps(ident))
        if not self.ids:
            self.idle.set()


def _claim_stdio() -> tuple[BinaryIO, BinaryIO]:
    """The wire on private descriptors; fd 0 reads the null device and fd 1 writes to stderr while
    serving, so stray reads and prints cannot touch it."""
    wire_in = os.fdopen(os.dup(0), "rb", buffering=0)
    wire_out = os.fdopen(os.dup(1), "wb", buffering=0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return wire_in, wire_out


async def serve_stdio(
    server: Server[Any],
    options: McpOptions,
    wire_in: BinaryIO | None = None,
    wire_out: BinaryIO | None = None,
) -> None:
    """Serve over the process's standard input and output until standard input closes and every
    request read before that has been answered."""
    if wire_in is None or wire_out is None:
        wire_in, wire_out = _claim_stdio()
    inbound_send, inbound = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    outbound_send, outbound = anyio.create_memory_object_stream[SessionMessage](0)
    direct_send = outbound_send.clone()  # for the parse errors this transport answers itself
    in_flight = _InFlight()
    line_limit = options.max_line_bytes

    def read_line() -> bytes:
        line = wire_in.readline(line_limit + 1)
        if len(line) > line_limit and not line.endswith(b"\n"):
            while True:  # the rest of an over-long line is skipped
                rest = wire_in.readline(65_536)
                if not rest or rest.endswith(b"\n"):
                    break
        return line

    async def reader() -> None:
        async with inbound_send, direct_send:
            while True:
                line = await anyio.to_thread.run_sync(read_line, abandon_on_cancel=True)
                if not line:
                    break
                if not line.strip():
                    continue
                error = _parse_error(line, line_limit)
                if error is not None:
                    await direct_send.send(SessionMessage(error))
                    continue
                message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                if isinstance(message, types.JSONRPCRequest):
                    in_flight.add(message.id)
                elif (
                    isinstance(message, types.JSONRPCNotification)
                    and message.method == "notifications/cancelled"
                ):
                    in_flight.done(
                        (message.params or {}).get("requestId")
                    )  # a cancelled request gets no answer
                await inbound_send.send(SessionMessage(message))
            await in_flight.idle.wait()  # answer what is in flight before the server stops

    async def writer() -> None:
        async with outbound:
            async for session_message in outbound:
                message = session_message.message
                data = message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8") + b"\n"
                await anyio.to_thread.run_sync(wire_out.write, data)
                if isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)):
                    in_flight.done(message.id)

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(writer)
            tg.start_soon(reader)
            await server.run(inbound, outbound_send, server.create_initialization_options())
    finally:
        with suppress(OSError):
            wire_out.flush()
