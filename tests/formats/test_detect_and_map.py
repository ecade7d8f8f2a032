"""The three seed formats and the native one are detected and mapped onto
one model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from citeaudit.formats import InputFormat, detect, parse_bytes, parse_document
from citeaudit.model import CorpusSource, StoreSource, WorkSource
from tests.conftest import GOLDEN

SEED_003: dict[str, Any] = {
    "answer": "Сервис хранит журнал операций 30 дней.",
    "claims": [{"id": "c1", "text": "Сервис хранит журнал операций 30 дней.", "citation_ids": ["q1"]}],
    "citations": [
        {
            "id": "q1",
            "document_id": "retention-policy",
            "document_version": "2026-01",
            "start": 24,
            "end": 79,
            "quote": "Журнал операций хранится в течение 30 календарных дней.",
        }
    ],
}

DIGEST = "0" * 64
SEED_002: dict[str, Any] = {
    "title": "方案资料的教学核对报告",
    "claims": [
        {
            "claim_id": "claim_a",
            "text": "教学说明称方案 A 支持离线整理。",
            "kind": "fact",
            "rationale": "",
            "citations": [
                {
                    "citation_id": "citation_a",
                    "ref": {"source_id": "plan_a", "revision": 1, "digest": DIGEST},
                    "start": 8,
                    "end": 19,
                    "quote": "方案 A 支持离线整理。",
                }
            ],
        },
        {
            "claim_id": "choice",
            "text": "若当前任务不能联网,可先核查方案 A。",
            "kind": "inference",
            "rationale": "离线整理说明支持这一候选方向,但没有验证其他前提。",
            "citations": [
                {
                    "citation_id": "citation_a",
                    "ref": {"source_id": "plan_a", "revision": 1, "digest": DIGEST},
                    "start": 8,
                    "end": 19,
                    "quote": "方案 A 支持离线整理。",
                }
            ],
        },
    ],
    "conflicts": [{"claim_ids": ["claim_a", "choice"], "reason": "两个论断方向相反,需要重新审阅。"}],
    "gaps": ["缺少功能验证和实际使用条件,不能据此宣布某方案整体更优。"],
}


def test_seed_000_is_detected_and_mapped() -> None:
    data = (GOLDEN / "seed000" / "claims.json").read_bytes()
    sub = parse_bytes(data, "claims.json")
    assert sub.format == InputFormat.SEED_000
    assert [c.id for c in sub.claims] == ["c1", "c2", "c3", "c4"]
    first = sub.claims[0].citations[0]
    assert first.id == "c1#1"
    assert first.source == WorkSource(
        identifier="https://doi.org/10.0000/DEMO.1",
        title="Demo Paper on Retrieval Grounding",
        year=2024,
        first_author="Ivanova",
    )
    assert sub.claims[3].citations == ()
    assert len(sub.input_sha256) == 64


def test_seed_003_is_detected_and_mapped() -> None:
    sub = parse_document(SEED_003, "response.json")
    assert sub.format == InputFormat.SEED_003
    assert sub.answer == SEED_003["answer"]
    assert sub.claims[0].citation_ids == ("q1",)
    (listed,) = sub.citations
    assert listed.id == "q1"
    assert listed.source == CorpusSource("retention-policy", "2026-01")
    assert (listed.start, listed.end) == (24, 79)


def test_seed_002_is_detected_and_mapped() -> None:
    sub = parse_document(SEED_002, "report.json")
    assert sub.format == InputFormat.SEED_002
    assert sub.title == SEED_002["title"]
    assert [c.kind for c in sub.claims] == ["fact", "inference"]
    assert sub.claims[0].rationale is None
    assert sub.claims[1].rationale
    citation = sub.claims[0].citations[0]
    assert citation.id == "citation_a"
    assert citation.source == StoreSource("plan_a", 1, DIGEST)
    assert sub.conflicts[0].claim_ids == ("claim_a", "choice")
    assert sub.gaps == tuple(SEED_002["gaps"])


def test_native_union_with_labels(tmp_path: Path) -> None:
    doc = {
        "claims": [
            {
                "id": "c1",
                "text": "t",
                "kind": "fact",
                "citations": [{"doi": "10.1/x"}],
                "citation_ids": ["q1"],
            }
        ],
        "citations": [SEED_003["citations"][0] | {"id": "q1"}],
        "labels": {"generator": "g-1", "retriever": "bm25"},
        "gaps": ["g"],
    }
    assert detect(doc) is InputFormat.NATIVE
    sub = parse_document(doc, "native.json")
    assert sub.labels == (("generator", "g-1"), ("retriever", "bm25"))
    assert sub.claims[0].citations[0].id == "c1#1"


def test_store_citation_in_native_form() -> None:
    doc = {
        "claims": [
            {
                "id": "c1",
                "text": "t",
                "citations": [
                    {"source_id": "s", "revision": 2, "digest": DIGEST, "start": 0, "end": 3, "quote": "abc"}
                ],
            }
        ]
    }
    sub = parse_document(doc, "x.json")
    assert sub.claims[0].citations[0].source == StoreSource("s", 2, DIGEST)


def test_byte_order_mark_is_accepted() -> None:
    data = b"\xef\xbb\xbf" + json.dumps({"claims": [{"id": "c1", "text": "t"}]}).encode()
    assert parse_bytes(data, "bom.json").claims[0].id == "c1"


def test_every_citation_knows_where_the_input_has_it() -> None:
    sub = parse_document(SEED_002, "report.json")
    assert [c.citations[0].origin for c in sub.claims] == [
        "$.claims[0].citations[0]",
        "$.claims[1].citations[0]",
    ]
    assert [c.origin for c in sub.claims] == ["$.claims[0]", "$.claims[1]"]
    listed = parse_document(SEED_003, "response.json").citations[0]
    assert listed.origin == "$.citations[0]"
