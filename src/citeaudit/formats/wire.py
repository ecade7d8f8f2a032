"""Wire models shared by the JSON formats, and their mapping onto the model."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, create_model

from citeaudit.errors import InputError
from citeaudit.formats.validate import StrictWire, expect_object, is_blank, validate
from citeaudit.identifiers import FIELD_KINDS, KINDS, IdentifierError, handler
from citeaudit.model import Citation, Claim, Conflict, CorpusSource, StoreSource, WorkSource
from citeaudit.resolve.indexes.interface import WorkQuery
from citeaudit.util.jsonload import json_path

__all__ = [
    "ConflictIn",
    "Id",
    "LongText",
    "ShortText",
    "check_claims",
    "citation_from_wire",
    "conflicts_from_wire",
]

Id = Annotated[str, Field(min_length=1, max_length=200)]
ShortText = Annotated[str, Field(max_length=2_000)]
LongText = Annotated[str, Field(max_length=200_000)]
Digest = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


def _whole(value: Any) -> Any:
    """A number written with a zero fraction (``3.0``, ``1e2``) is the integer it is: JSON has one
    number type, and JSON Schema's ``integer`` is any number without a fraction."""
    return int(value) if type(value) is float and value.is_integer() else value


Whole = Annotated[int, BeforeValidator(_whole)]
# A revision the evidence store can hold (a 64-bit integer); a larger one is never a revision.
Revision = Annotated[int, Field(ge=1, le=2**63 - 1), BeforeValidator(_whole)]


class WorkFieldsIn(StrictWire):
    """What a citation of a work says besides its identifier: the metadata as cited, a quote."""

    id: Id | None = None
    title: ShortText | None = None
    year: Whole | None = None
    first_author: ShortText | None = None
    authors: list[ShortText] | None = None
    container: ShortText | None = None
    volume: ShortText | Whole | None = None
    issue: ShortText | Whole | None = None
    pages: ShortText | None = None
    type: ShortText | None = None
    quote: LongText | None = None


class PageFieldsIn(StrictWire):
    """What a citation of a web page says besides its URL: the title as cited, when it was read,
    the quote."""

    id: Id | None = None
    title: ShortText | None = None
    accessed: ShortText | None = None
    doi: ShortText | None = None  # the DOI of the work the page is, checked against its citation_doi
    quote: LongText | None = None


# One wire model per identifier kind: its own field (``doi``, ``arxiv``, ``url``…) and the work's
# fields (a pinned page's, for a kind whose text is a pin); a kind with no field of its own
# (``work``) is the work's fields with the title required, the one thing it is searched by.
def _work_model(kind: str) -> type[StrictWire]:
    if not handler(kind).named_by_field:
        return create_model(f"{kind.title()}CitationIn", __base__=WorkFieldsIn, title=(ShortText, ...))
    field: dict[str, Any] = {kind: (ShortText, ...)}
    base: type[StrictWire] = PageFieldsIn if handler(kind).text_source == "pin" else WorkFieldsIn
    return create_model(f"{kind.title()}CitationIn", __base__=base, **field)


WORK_CITATION_MODELS: dict[str, type[StrictWire]] = {kind: _work_model(kind) for kind in KINDS}


class CorpusCitationIn(StrictWire):
    id: Id | None = None
    document_id: Id
    document_version: ShortText
    start: Any = None  # the range check reports bad types as findings (seed 003)
    end: Any = None
    quote: LongText


class RefIn(StrictWire):
    source_id: Id
    revision: Revision
    digest: Digest


class StoreCitationIn(StrictWire):
    id: Id | None = None
    source_id: Id
    revision: Revision
    digest: Digest
    start: Any = None
    end: Any = None
    quote: LongText


class RefCitationIn(StrictWire):
    id: Id | None = None
    ref: RefIn
    start: Any = None
    end: Any = None
    quote: LongText


class ConflictIn(StrictWire):
    claim_ids: Annotated[list[Id], Field(min_length=2)]
    reason: ShortText


_SOURCE_KEYS = (*FIELD_KINDS, "document_id", "source_id", "ref")  # the identifier kinds first
# A citation that names none of them but gives a title is a reference found by search.
_SEARCHED = next(k for k in KINDS if not handler(k).named_by_field)


def citation_from_wire(
    obj: Any, name: str, path: list[str | int], default_id: str, id_key: str = "id"
) -> Citation:
    """Map one citation object; which source it names decides its shape."""
    return _citation(obj, name, path, default_id, id_key, json_path(path))


def _citation(
    obj: Any, name: str, path: list[str | int], default_id: str, id_key: str, origin: str
) -> Citation:
    raw = expect_object(obj, name, path)
    if id_key != "id":
        if "id" in raw:
            raise InputError(name, json_path([*path, "id"]), "unknown field (not part of the contract)")
        raw = {("id" if k == id_key else k): v for k, v in raw.items()}
    named = [k for k in _SOURCE_KEYS if k in raw]
    if (
        len(named) == 2
        and "doi" in named
        and any(handler(k).text_source == "pin" for k in named if k in KINDS)
    ):
        named.remove("doi")  # a web page that names the DOI of the work it is
    if not named and "title" in raw:
        named = [_SEARCHED]
    if not named:
        raise InputError(
            name,
            json_path(path),
            f"a citation must name its source: {', '.join(_SOURCE_KEYS[:-1])} or {_SOURCE_KEYS[-1]}, "
            "or give the title of the work to find it by",
        )
    if len(named) > 1:
        raise InputError(name, json_path(path), f"a citation names more than one source: {', '.join(named)}")
    kind = named[0]

    def fix(err: InputError) -> InputError:
        # Errors on the renamed id field point at the field the input used.
        if id_key != "id" and err.path.endswith(".id"):
            return InputError(name, err.path[: -len("id")] + id_key, err.problem)
        return err

    try:
        if kind in KINDS:
            # Every identifier kind has the same fields: its own, then the metadata as cited.
            model = WORK_CITATION_MODELS[kind]
            if kind == _SEARCHED:
                d: Any = validate(model, raw, name, path)
                return Citation(
                    id=d.id or default_id, source=searched_work(d, name, path), quote=d.quote, origin=origin
                )
            d = validate(model, {**raw, kind: _identifier(kind, raw[kind], name, path)}, name, path)
            if isinstance(d, PageFieldsIn):
                page = WorkSource(
                    identifier=getattr(d, kind),
                    title=d.title,
                    accessed=d.accessed,
                    named_doi=d.doi,
                    kind=kind,
                )
                return Citation(id=d.id or default_id, source=page, quote=d.quote, origin=origin)
            source: WorkSource | CorpusSource | StoreSource = WorkSource(
                identifier=getattr(d, kind),
                title=d.title,
                year=d.year,
                first_author=d.first_author,
                authors=tuple(d.authors or ()),
                container=d.container,
                volume=None if d.volume is None else str(d.volume),
                issue=None if d.issue is None else str(d.issue),
                pages=d.pages,
                type=d.type,
                kind=kind,
                form_note=handler(kind).form_note(raw[kind]),
            )
            return Citation(id=d.id or default_id, source=source, quote=d.quote, origin=origin)
        if kind == "document_id":
            c = validate(CorpusCitationIn, raw, name, path)
            return Citation(
                id=c.id or default_id,
                source=CorpusSource(c.document_id, c.document_version),
                quote=c.quote,
                start=c.start,
                end=c.end,
                origin=origin,
            )
        if kind == "source_id":
            s = validate(StoreCitationIn, raw, name, path)
            return Citation(
                id=s.id or default_id,
                source=StoreSource(s.source_id, s.revision, s.digest),
                quote=s.quote,
                start=s.start,
                end=s.end,
                origin=origin,
            )
        r = validate(RefCitationIn, raw, name, path)
        return Citation(
            id=r.id or default_id,
            source=StoreSource(r.ref.source_id, r.ref.revision, r.ref.digest),
            quote=r.quote,
            start=r.start,
            end=r.end,
            origin=origin,
        )
    except InputError as err:
        raise fix(err) from None


def searched_work(d: Any, name: str, path: list[str | int]) -> WorkSource:
    """The source of a reference found by search: the metadata as cited, keyed by its query."""
    authors = tuple(d.authors or ())
    first = d.first_author or (authors[0] if authors else None)
    query = WorkQuery(d.title, first, d.year)
    if is_blank(d.title) or not handler(_SEARCHED).is_valid(query.key):
        raise InputError(name, json_path([*path, "title"]), handler(_SEARCHED).invalid(d.title))
    return WorkSource(
        identifier=query.key,
        title=d.title,
        year=d.year,
        first_author=d.first_author,
        authors=authors,
        container=d.container,
        volume=None if d.volume is None else str(d.volume),
        issue=None if d.issue is None else str(d.issue),
        pages=d.pages,
        type=d.type,
        kind=_SEARCHED,
    )


def _identifier(kind: str, value: object, name: str, path: list[str | int]) -> object:
    """The identifier as its kind's handler reads it; a value it refuses is an input error there."""
    if not isinstance(value, str):
        return value  # the field's type error, as for any other field
    try:
        return handler(kind).read(value)
    except IdentifierError as e:
        raise InputError(name, json_path([*path, kind]), str(e)) from None


def check_claims(claims: list[Claim], name: str, id_key: str = "id") -> None:
    """Rules that span claims: unique ids, rationale of inferences, one
    content per inline citation id."""
    seen: dict[str, int] = {}
    inline: dict[str, tuple[Citation, int, int]] = {}
    for i, claim in enumerate(claims):
        if claim.id in seen:
            raise InputError(
                name,
                json_path(["claims", i, id_key]),
                f"duplicate claim id {claim.id!r} (first at {json_path(['claims', seen[claim.id]])})",
            )
        seen[claim.id] = i
        if claim.kind == "inference" and is_blank(claim.rationale or ""):
            raise InputError(name, json_path(["claims", i]), "an inference needs a non-empty rationale")
        if is_blank(claim.text):
            raise InputError(name, json_path(["claims", i, "text"]), "the claim text is empty")
        local: set[str] = set()
        for j, citation in enumerate(claim.citations):
            where = json_path(["claims", i, "citations", j])
            if citation.id in local:
                raise InputError(name, where, f"the claim cites {citation.id!r} twice")
            local.add(citation.id)
            previous = inline.get(citation.id)
            if previous is not None and replace(previous[0], origin="") != replace(citation, origin=""):
                first = json_path(["claims", previous[1], "citations", previous[2]])
                raise InputError(
                    name, where, f"citation id {citation.id!r} names a different fragment than at {first}"
                )
            inline.setdefault(citation.id, (citation, i, j))


def conflicts_from_wire(items: list[ConflictIn], claims: list[Claim], name: str) -> tuple[Conflict, ...]:
    ids = {c.id for c in claims}
    out = []
    for i, conflict in enumerate(items):
        if len(set(conflict.claim_ids)) != len(conflict.claim_ids):
            raise InputError(name, json_path(["conflicts", i, "claim_ids"]), "a claim is listed twice")
        for j, cid in enumerate(conflict.claim_ids):
            if cid not in ids:
                raise InputError(
                    name, json_path(["conflicts", i, "claim_ids", j]), f"no claim has the id {cid!r}"
                )
        out.append(Conflict(tuple(conflict.claim_ids), conflict.reason))
    return tuple(out)


Kind = Literal["fact", "inference"]
