"""Seed 002's candidate report: ``claim_id``, ``kind``, ``rationale``,
citations by ``ref{source_id, revision, digest}``, ``conflicts`` and ``gaps``."""

from __future__ import annotations

from typing import Any

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
from citeaudit.model import Claim, Submission
from citeaudit.util.jsonload import json_path

__all__ = ["parse"]


class ClaimIn(StrictWire):
    claim_id: Id
    text: LongText
    kind: Kind
    rationale: LongText = ""
    citations: list[Any] = []


class ReportIn(StrictWire):
    title: ShortText
    claims: list[Any]
    conflicts: list[ConflictIn] = []
    gaps: list[LongText] = []


def parse(document: dict[str, Any], name: str) -> Submission:
    top = validate(ReportIn, document, name, [])
    claims: list[Claim] = []
    for i, raw in enumerate(top.claims):
        c = validate(ClaimIn, raw, name, ["claims", i])
        citations = tuple(
            citation_from_wire(
                obj, name, ["claims", i, "citations", j], f"{c.claim_id}#{j + 1}", id_key="citation_id"
            )
            for j, obj in enumerate(c.citations)
        )
        claims.append(
            Claim(
                origin=json_path(["claims", i]),
                id=c.claim_id,
                text=c.text,
                kind=c.kind,
                rationale=c.rationale or None,
                citations=citations,
            )
        )
    check_claims(claims, name, id_key="claim_id")
    return Submission(
        claims=tuple(claims),
        conflicts=conflicts_from_wire(top.conflicts, claims, name),
        gaps=tuple(top.gaps),
        title=top.title,
    )
