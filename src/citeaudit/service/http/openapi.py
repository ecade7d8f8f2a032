"""The OpenAPI document of the HTTP API, as the service behaves: FastAPI's own, completed with what it
cannot see — the bodies ``POST /v1/audit`` accepts (the real schemas of the input formats, built
from their wire models, and BibTeX), the problem documents (RFC 9457) of every error status with
``Allow`` on 405, and the key as an HTTP bearer security scheme.

Where the parser refuses what a wire model alone would let through (a blank claim text, an
inference without a rationale, an arXiv identifier that is not one), the schema says so with a
pattern or a variant of its own, so that a body the schema calls valid is one the service audits.
What JSON Schema cannot say (claim ids unique in a document, conflicts naming claims that exist,
one content per inline citation id) is written in the descriptions.
"""

from __future__ import annotations

import copy
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from citeaudit.formats import native, seed002
from citeaudit.formats.validate import NOT_BLANK as BLANK_FREE
from citeaudit.formats.wire import (
    WORK_CITATION_MODELS,
    ConflictIn,
    CorpusCitationIn,
    RefCitationIn,
    StoreCitationIn,
)
from citeaudit.identifiers import KINDS

__all__ = [
    "AUDIT_MEDIA_TYPES",
    "BIBTEX_TYPES",
    "JSON_MEDIA_TYPES",
    "MARKDOWN_TYPES",
    "PROBLEM_TYPE",
    "complete",
    "json_body",
    "problem_responses",
]

PROBLEM_TYPE = "application/problem+json"
BIBTEX_TYPES = ("text/x-bibtex", "application/x-bibtex")
MARKDOWN_TYPES = ("text/markdown", "text/x-markdown")  # a research report (markdown-report)
AUDIT_MEDIA_TYPES = ("application/json", *BIBTEX_TYPES, *MARKDOWN_TYPES)
JSON_MEDIA_TYPES = ("application/json",)  # and any application/…+json
# What a body sent with no type of its own is read as (``curl --data`` sends form-urlencoded).
UNTYPED_BODIES = (
    "A body sent as `application/x-www-form-urlencoded` (curl's default) or `text/plain`, or with no "
    "`Content-Type`, is read {how}; a body of any other media type is refused (415)."
)

REF = "#/components/schemas/{model}"
NOT_BLANK = BLANK_FREE  # at least one character that is not white space, in every dialect
# The forms of an identifier its handler accepts, for the kinds that refuse any other at input (a
# DOI is taken as written and a bad one reported as a finding, so any string is one).
IDENTIFIER_PATTERNS = {
    "arxiv": r"^(?:[0-9]{4}\.[0-9]{4,5}|[a-z]+(?:-[a-z]+)?(?:\.[A-Z]{2})?/[0-9]{7})(?:v[0-9]+)?$",
}

STATUS_TITLES = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    409: "Conflict",
    413: "Payload Too Large",
    415: "Unsupported Media Type",
    422: "Unprocessable Content",
}
STATUS_MEANINGS = {
    401: "No `Authorization: Bearer <key>` header, or an unknown key.",
    403: "The key's role may not do this.",
    404: "Nothing of this id in the key's tenant (another tenant's is a 404 too).",
    405: "The path has no such method; `Allow` lists those it has.",
    409: "The request conflicts with the state of the resource.",
    413: "The body is over the service's limit (`--max-body-bytes`).",
    415: "The body's media type (`Content-Type`) is not one the operation reads.",
    422: "The request is not valid: the body, its fields or the claims document (`detail` says where).",
}


def problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """FastAPI ``responses=`` entries for error statuses, each a reference to its component."""
    return {status: {"$ref": f"#/components/responses/{status}"} for status in statuses}


def json_body(model: type[BaseModel]) -> dict[str, Any]:
    """FastAPI ``openapi_extra=`` for an operation whose JSON body is ``model``, read by the
    endpoint itself (``routes._json_body``); :func:`complete` adds the model's schema."""
    return {
        "requestBody": {
            "required": True,
            "description": "JSON. " + UNTYPED_BODIES.format(how="as JSON"),
            "content": {"application/json": {"schema": _ref(model.__name__)}},
        }
    }


def _response_components() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for status, meaning in STATUS_MEANINGS.items():
        response: dict[str, Any] = {
            "description": f"{STATUS_TITLES[status]}. {meaning}",
            "content": {PROBLEM_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
        }
        if status == 405:
            response["headers"] = {
                "Allow": {
                    "description": "The methods the path has.",
                    "required": True,
                    "schema": {"type": "string"},
                }
            }
        out[str(status)] = response
    return out


PROBLEM_SCHEMA: dict[str, Any] = {
    "title": "Problem",
    "description": "An error, as a problem document (RFC 9457).",
    "type": "object",
    "additionalProperties": False,
    "required": ["type", "title", "status", "detail"],
    "properties": {
        "type": {"type": "string", "const": "about:blank"},
        "title": {"type": "string"},
        "status": {"type": "integer", "minimum": 400, "maximum": 599},
        "detail": {"type": "string", "description": "One line: what is wrong, and where."},
    },
}


def _renamed(value: Any, names: dict[str, str]) -> Any:
    """``value`` with its references to the models' schemas following their names here."""
    if isinstance(value, dict):
        out = {k: _renamed(v, names) for k, v in value.items()}
        ref = out.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            target = ref.rsplit("/", 1)[1]
            out["$ref"] = REF.format(model=names.get(target, target))
        return out
    if isinstance(value, list):
        return [_renamed(v, names) for v in value]
    return value


def _schemas(models: list[tuple[type[BaseModel], str]]) -> dict[str, Any]:
    refs, top = models_json_schema([(m, "validation") for m, _ in models], ref_template=REF)
    # pydantic names each model's schema (two ClaimIn get their module in the name): ours instead
    names = {refs[m, "validation"]["$ref"].rsplit("/", 1)[1]: name for m, name in models}
    out: dict[str, Any] = {}
    for key, schema in top.get("$defs", {}).items():
        name = names.get(key, key)
        out[name] = {**_renamed(schema, names), "title": name}
    return out


def _ref(name: str) -> dict[str, str]:
    return {"$ref": REF.format(model=name)}


def _not_blank(schema: dict[str, Any]) -> None:
    schema["pattern"] = NOT_BLANK


def _citation_variants(prefix: str, id_key: str, schemas: dict[str, Any]) -> list[dict[str, str]]:
    """One schema per source a citation may name; seed 002 calls the citation's id ``citation_id``."""
    variants = [f"{kind.title()}Citation" for kind in KINDS] + [
        "CorpusCitation",
        "StoreCitation",
        "RefCitation",
    ]
    refs = []
    for base in variants:
        schema = copy.deepcopy(schemas[base])
        if id_key != "id":
            props = schema["properties"]
            props = {(id_key if k == "id" else k): v for k, v in props.items()}
            schema["properties"] = props
        name = f"{prefix}{base}"
        schema["title"] = name
        schemas[name] = schema
        refs.append(_ref(name))
    return refs


def _claim_variants(name: str, base: dict[str, Any], id_key: str, required_kind: bool) -> dict[str, Any]:
    """A claim is a fact (``kind`` ``fact``, the default in the native format) or an inference,
    which needs a rationale that is not blank."""
    fact = copy.deepcopy(base)
    fact["title"] = f"{name}Fact"
    fact["properties"]["kind"] = {"type": "string", "const": "fact"}
    inference = copy.deepcopy(base)
    inference["title"] = f"{name}Inference"
    inference["properties"]["kind"] = {"type": "string", "const": "inference"}
    inference["properties"]["rationale"] = {"type": "string", "maxLength": 200_000, "pattern": NOT_BLANK}
    inference["required"] = sorted({*inference.get("required", []), "kind", "rationale"})
    if required_kind:
        fact["required"] = sorted({*fact.get("required", []), "kind"})
    return {
        "title": name,
        "description": f"A claim; its `{id_key}` is unique in the document.",
        "oneOf": [fact, inference],
    }


def audit_schemas() -> dict[str, Any]:
    """The component schemas of the claims documents ``POST /v1/audit`` accepts as JSON."""
    work = {m: f"{kind.title()}Citation" for kind, m in WORK_CITATION_MODELS.items()}
    models: list[tuple[type[BaseModel], str]] = [
        (native.SubmissionIn, "ClaimsDocument"),
        (native.ClaimIn, "Claim"),
        (seed002.ReportIn, "Seed002Report"),
        (seed002.ClaimIn, "Seed002Claim"),
        (ConflictIn, "Conflict"),
        (CorpusCitationIn, "CorpusCitation"),
        (StoreCitationIn, "StoreCitation"),
        (RefCitationIn, "RefCitation"),
        *((m, name) for m, name in work.items()),
    ]
    schemas = _schemas(models)
    for kind, pattern in IDENTIFIER_PATTERNS.items():
        name = f"{kind.title()}Citation"
        if name in schemas:
            schemas[name]["properties"][kind]["pattern"] = pattern
    _not_blank(schemas["WorkCitation"]["properties"]["title"])  # the one thing a work is searched by
    for name in ("CorpusCitation", "StoreCitation", "RefCitation"):
        for key in ("start", "end"):  # any JSON: a range of the wrong type is a finding, not an error
            schemas[name]["properties"][key] = {"description": "an offset into the text (`[start, end)`)"}
    native_citations = _citation_variants("", "id", schemas)
    seed_citations = _citation_variants("Seed002", "citation_id", schemas)
    schemas["Citation"] = {
        "title": "Citation",
        "description": "A citation names exactly one source: a work by one of its identifiers, a "
        "corpus document (`document_id`) or an evidence-store source (`source_id` or `ref`). Inline "
        "citations that share an `id` have the same content; a claim cites an id once.",
        "oneOf": native_citations,
    }
    schemas["Seed002Citation"] = {
        "title": "Seed002Citation",
        "description": "As `Citation`, with the id called `citation_id`.",
        "oneOf": seed_citations,
    }
    for claim, citation, id_key in (
        ("Claim", "Citation", "id"),
        ("Seed002Claim", "Seed002Citation", "claim_id"),
    ):
        base = schemas[claim]
        _not_blank(base["properties"]["text"])
        base["properties"]["citations"]["items"] = _ref(citation)
        schemas[claim] = _claim_variants(claim, base, id_key, required_kind=claim == "Seed002Claim")
    schemas["Conflict"]["properties"]["claim_ids"]["uniqueItems"] = True
    schemas["Conflict"]["description"] = "Claims that contradict each other: ids of claims in the document."
    for document, claim in (("ClaimsDocument", "Claim"), ("Seed002Report", "Seed002Claim")):
        claims = schemas[document]["properties"]["claims"]
        claims["items"] = _ref(claim)
        claims["minItems"] = 1
    schemas["ClaimsDocument"]["properties"]["citations"]["items"] = _ref("Citation")
    schemas["ClaimsDocument"]["description"] = (
        "The native claims format, the union of seed 000 (inline citations) and seed 003 (a "
        "top-level `citations` list the claims name by `citation_ids`)."
    )
    schemas["Seed002Report"]["description"] = "Seed 002's candidate report (`claim_id`, `ref`)."
    return schemas


AUDIT_BODY: dict[str, Any] = {
    "required": True,
    "description": "The answer to audit, in any supported claims format: JSON, BibTeX (a `.bib` "
    "file's content) or a research report in Markdown. "
    + UNTYPED_BODIES.format(
        how="as BibTeX when it opens with `@` or `%`, as a Markdown report when it has a references "
        "heading and does not open with `{` or `[`, as JSON otherwise"
    ),
    "content": {
        "application/json": {
            "schema": {"anyOf": [_ref("ClaimsDocument"), _ref("Seed002Report")]},
        },
        **{
            media: {
                "schema": {
                    "type": "string",
                    "format": "bibtex",
                    "minLength": 1,
                    "description": "A BibTeX bibliography with at least one entry; each entry is a "
                    "claim citing its work (by `doi`, or by its arXiv identifier). Every block must "
                    "parse, and each entry key and each field of an entry be given once.",
                }
            }
            for media in BIBTEX_TYPES
        },
        **{
            media: {
                "schema": {
                    "type": "string",
                    "format": "markdown",
                    "minLength": 1,
                    "description": "A research report in Markdown: each sentence with a citation "
                    "marker ([1], [^note], (Author, 2020), an inline link) is a claim citing the "
                    "entries of its References section. It must have a citation marker or a "
                    "references section with an entry.",
                }
            }
            for media in MARKDOWN_TYPES
        },
    },
}


# POST /v1/audit's 422 (its own description beside the reference, as OpenAPI 3.1 allows): also for
# a body its schema admits, by rules JSON Schema cannot state (a grammar, ids unique in a document),
# so a schema-valid request may be refused; the checkout's ``schemathesis.toml`` allows that 422 here.
AUDIT_422 = (
    f"{STATUS_TITLES[422]}. {STATUS_MEANINGS[422]} Also a body its schema admits but that is not an "
    "answer to audit, by rules JSON Schema cannot state: BibTeX with no entry (`00`) or with a block "
    "that does not parse or an entry key or field given twice; a Markdown report with no citation "
    "marker and no references; a claims document whose claim ids repeat, whose conflicts name a "
    "claim it does not have, or whose inline citation id has two contents."
)


def complete(document: dict[str, Any], body_models: tuple[type[BaseModel], ...] = ()) -> dict[str, Any]:
    """FastAPI's document completed (see the module's description); ``body_models`` are those of
    the JSON bodies the endpoints read themselves (:func:`json_body`)."""
    components = document.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    schemas.update(_schemas([(m, m.__name__) for m in body_models]))
    schemas.pop("HTTPValidationError", None)  # a validation error is a problem document here
    schemas.pop("ValidationError", None)
    schemas["Problem"] = PROBLEM_SCHEMA
    schemas.update(audit_schemas())
    components["responses"] = _response_components()
    for operations in document["paths"].values():
        for operation in operations.values():
            if "422" in operation["responses"]:  # FastAPI's own, for a path parameter: ours
                operation["responses"]["422"] = {"$ref": "#/components/responses/422"}
    audit = document["paths"]["/v1/audit"]["post"]
    audit["requestBody"] = AUDIT_BODY
    audit["responses"]["422"] = {"$ref": "#/components/responses/422", "description": AUDIT_422}
    return document
