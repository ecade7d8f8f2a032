"""One record to one answer: envelopes and bare answers, ids, labels, line ends, depth."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from citeaudit.batch.answers import Answer, Rejection, canonical, read_answer
from citeaudit.batch.records import Record, read_records
from citeaudit.formats import parse_bytes

SEED = {"claims": [{"id": "c1", "text": "A claim.", "citations": [{"doi": "10.1000/x", "title": "T"}]}]}


def _answer(line: bytes, max_depth: int = 32) -> Answer | Rejection:
    return read_answer(Record("in.jsonl", 4, line=line), 1 << 20, max_depth)


def test_a_bare_answer_is_its_line_and_its_id_the_line_s_digest() -> None:
    line = json.dumps(SEED).encode()
    answer = _answer(line)
    assert isinstance(answer, Answer)
    assert answer.id == hashlib.sha256(line).hexdigest() == answer.submission.input_sha256
    assert answer.submission == parse_bytes(line, "in.jsonl:4")  # exactly as check parses a file
    assert answer.labels == {}


def test_an_envelope_is_audited_as_its_canonical_answer() -> None:
    line = json.dumps({"labels": {"generator": "g"}, "answer": SEED, "id": "x-1"}, indent=None).encode()
    answer = _answer(line)
    assert isinstance(answer, Answer)
    assert (answer.id, answer.labels) == ("x-1", {"generator": "g"})
    assert answer.submission == parse_bytes(canonical(SEED), "in.jsonl:4")
    anonymous = _answer(json.dumps({"answer": SEED}).encode())
    assert isinstance(anonymous, Answer)
    assert anonymous.id == hashlib.sha256(canonical(SEED)).hexdigest()


def test_seed_003_s_answer_string_is_not_an_envelope() -> None:
    seed003 = {"answer": "text", "claims": [{"id": "c1", "text": "t", "citation_ids": []}], "citations": []}
    answer = _answer(json.dumps(seed003).encode())
    assert isinstance(answer, Answer)
    assert answer.submission.format == "seed-003"


@pytest.mark.parametrize(
    ("envelope", "message"),
    [
        ({"id": "", "answer": SEED}, "$.id: expected a non-empty string, got an empty string"),
        ({"id": "x" * 1025, "answer": SEED}, "$.id: longer than 1024 characters"),
        ({"answer": SEED, "labels": []}, "$.labels: expected an object, got array"),
        ({"answer": SEED, "labels": {"generator": 3}}, "$.labels.generator: expected a string, got integer"),
        ({"answer": SEED, "status": "ok"}, "$.status: unknown field (an envelope has id, answer, labels)"),
        ({"answer": {"claims": []}}, "$.claims: no claims to audit (the array is empty)"),
    ],
)
def test_envelope_errors_name_the_field(envelope: dict[str, object], message: str) -> None:
    rejection = _answer(json.dumps(envelope).encode())
    assert isinstance(rejection, Rejection)
    assert rejection.error == f"in.jsonl:4: {message}"


def _nested(levels: int) -> object:
    deep: object = "leaf"
    for _ in range(levels):
        deep = [deep]
    return deep


def test_an_envelope_s_answer_gets_the_full_depth() -> None:
    # gaps + 30 arrays: the leaf at depth 31, the limit; one level deeper inside an envelope.
    answer = {"claims": [{"id": "c1", "text": "t"}], "gaps": _nested(30)}
    bare = _answer(json.dumps(answer).encode(), max_depth=31)
    inside = _answer(json.dumps({"answer": answer}).encode(), max_depth=31)
    assert isinstance(bare, Rejection)
    assert isinstance(inside, Rejection)
    assert "nesting deeper" not in bare.error  # within the bound: the format's own complaint
    assert inside.error == bare.error
    too_deep = {"claims": [{"id": "c1", "text": "t"}], "gaps": _nested(31)}
    for line in (json.dumps(too_deep).encode(), json.dumps({"answer": too_deep}).encode()):
        rejection = _answer(line, max_depth=31)
        assert isinstance(rejection, Rejection)
        assert rejection.error.endswith(": nesting deeper than 31 levels")


def test_line_ends_and_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    line = json.dumps(SEED).encode()
    path.write_bytes(line + b"\r\n\n   \n" + line)
    records = list(read_records([path], 1 << 20))
    assert [(r.number, r.line) for r in records] == [(1, line), (4, line)]
