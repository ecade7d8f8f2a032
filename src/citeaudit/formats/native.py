"""The native format (DESIGN §3): the union of seed 000 and seed 003, plus
kinds, conflicts, gaps and labels."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from citeaudit.formats.validate import StrictWire, validate
from citeaudit.formats.wire import (
    ConflictIn,
    Id,
    Kind,
    LongText,
    ShortText,
    check_claims,
    citation_from_wire,
    conflicts_from_wire,
)
from citeaudit.model import Citation, Claim, Submission
from citeaudit.util.jsonload import json_path

__all__ = ["parse"]


class ClaimIn(StrictWire):
    id: Id
    text: LongText
    kind: Kind = "fact"
    rationale: LongText | None = None
    citations: list[Any] = []
    citation_ids: list[Id] = []


class SubmissionIn(StrictWire):
    claims: list[Any]
    citations: list[Any] = []
    conflicts: list[ConflictIn] = []
    gaps: list[LongText] = []
    labels: dict[Annotated[str, Field(max_length=100)], ShortText] = {}
    answer: LongText | None = None
    title: ShortText | None = None
    question: ShortText | None = None  # what the answer answers: a short claim is judged as its answer


def parse(document: dict[str, Any], name: str) -> Submission:
    top = validate(SubmissionIn, document, name, [])
    claims: list[Claim] = []
    for i, raw in enumerate(top.claims):
        c = validate(ClaimIn, raw, name, ["claims", i])
        citations = tuple(
            citation_from_wire(obj, name, ["claims", i, "citations", j], f"{c.id}#{j + 1}")
            for j, obj in enumerate(c.citations)
        )
        claims.append(
            Claim(
                origin=json_path(["claims", i]),
                id=c.id,
                text=c.text,
                kind=c.kind,
                rationale=c.rationale,
                citations=citations,
                citation_ids=tuple(c.citation_ids),
            )
        )
    check_claims(claims, name)
    # Top-level citations keep a missing id as "": seed 003 reports it as a finding.
    listed: list[Citation] = [
        citation_from_wire(obj, name, ["citations", k], "") for k, obj in enumerate(top.citations)
    ]
    return Submission(
        claims=tuple(claims),
        citations=tuple(listed),
        conflicts=conflicts_from_wire(top.conflicts, claims, name),
        gaps=tuple(top.gaps),
        labels=tuple(sorted(top.labels.items())),
        title=top.title,
        answer=top.answer,
        question=top.question,
    )
