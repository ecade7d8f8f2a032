"""Every class of bad input: exit 2, one exact message naming file, JSON path
and problem, no traceback, and no report written."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_cli

CASES = {
    "no_claims": (b'{"claims": []}', "$.claims: no claims to audit (the array is empty)"),
    "no_claims_seed_003": (
        b'{"answer": "x", "claims": [], "citations": []}',
        "$.claims: no claims to audit (the array is empty)",
    ),
    "unknown_field": (
        b'{"claims": [{"id": "c1", "text": "x", "status": "ok", "citations": []}]}',
        "$.claims[0].status: unknown field (not part of the contract)",
    ),
    "smuggled_review": (
        b'{"claims": [{"id": "c1", "text": "x"}], "review": {"c1": "supported"}}',
        "$.review: unknown field (not part of the contract)",
    ),
    "wrong_type": (
        b'{"claims": [{"id": "c1", "text": "x", "citations": [{"doi": "10.1/x", "year": "2024"}]}]}',
        "$.claims[0].citations[0].year: expected an integer, got string '2024'",
    ),
    "bool_for_int": (
        b'{"claims": [{"id": "c1", "text": "x", "citations": [{"doi": "10.1/x", "year": true}]}]}',
        "$.claims[0].citations[0].year: expected an integer, got boolean True",
    ),
    "missing_field": (
        b'{"claims": [{"id": "c1"}]}',
        "$.claims[0].text: required field is missing",
    ),
    "duplicate_claim_id": (
        b'{"claims": [{"id": "c1", "text": "x"}, {"id": "c1", "text": "y"}]}',
        "$.claims[1].id: duplicate claim id 'c1' (first at $.claims[0])",
    ),
    "duplicate_key": (
        b'{"claims": [{"id": "c1", "id": "c2", "text": "x"}]}',
        "$.claims[0]: duplicate key 'id' in one object",
    ),
    "not_utf8": (
        b'{"claims": [{"id": "c1", "text": "x\xff"}]}',
        "not valid UTF-8: byte 0xff at offset 35",
    ),
    "invalid_json": (
        b'{"claims": [{"id": "c1", "text": "x",}]}',
        "invalid JSON at line 1 column 38: Expecting property name enclosed in double quotes",
    ),
    "nan": (
        b'{"claims": [{"id": "c1", "text": "x", "citations": [{"doi": "10.1/x", "year": NaN}]}]}',
        "invalid JSON: NaN is not valid JSON",
    ),
    "too_deep": (
        b'{"claims": [{"id": "c1", "text": "x", "citations": [{"doi": "10.1/x", "title": '
        + b"[" * 40
        + b"]" * 40
        + b"}]}]}",
        "$.claims[0].citations[0].title" + "[0]" * 28 + ": nesting deeper than 32 levels",
    ),
    "far_too_deep": (
        b'{"claims": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        "nesting deeper than 32 levels",
    ),
    "not_an_object": (b"[1, 2]", '$: expected an object with a "claims" array'),
    "no_source": (
        b'{"claims": [{"id": "c1", "text": "x", "citations": [{"year": 2017, "quote": "q"}]}]}',
        "$.claims[0].citations[0]: a citation must name its source: doi, arxiv, url, pmid, pmcid, "
        "document_id, source_id or ref, or give the title of the work to find it by",
    ),
    "blank_title": (
        b'{"claims": [{"id": "c1", "text": "x", "citations": [{"title": " \\t ", "year": 2017}]}]}',
        "$.claims[0].citations[0].title: a reference without an identifier needs a title to be looked up: ' \\t '",
    ),
    "work_with_unknown_field": (
        b'{"claims": [{"id": "c1", "text": "x", "citations": [{"title": "T", "status": "ok"}]}]}',
        "$.claims[0].citations[0].status: unknown field (not part of the contract)",
    ),
    "two_sources": (
        b'{"claims": [{"id": "c1", "text": "x", "citations": [{"doi": "10.1/x", "document_id": "d"}]}]}',
        "$.claims[0].citations[0]: a citation names more than one source: doi, document_id",
    ),
    "inference_without_rationale": (
        b'{"claims": [{"id": "c1", "text": "x", "kind": "inference"}]}',
        "$.claims[0]: an inference needs a non-empty rationale",
    ),
    "bad_kind": (
        b'{"claims": [{"id": "c1", "text": "x", "kind": "opinion"}]}',
        "$.claims[0].kind: expected 'fact' or 'inference', got 'opinion'",
    ),
    "empty_claim_id": (
        b'{"claims": [{"id": "", "text": "x"}]}',
        "$.claims[0].id: must not be empty",
    ),
    "conflict_unknown_claim": (
        b'{"claims": [{"id": "c1", "text": "x"}], "conflicts": [{"claim_ids": ["c1", "c9"], "reason": "r"}]}',
        "$.conflicts[0].claim_ids[1]: no claim has the id 'c9'",
    ),
    "seed002_bad_revision": (
        b'{"title": "t", "claims": [{"claim_id": "c1", "text": "x", "kind": "fact", "citations": '
        b'[{"citation_id": "a", "ref": {"source_id": "s", "revision": 0, "digest": "'
        + b"a" * 64
        + b'"}, "start": 0, "end": 1, "quote": "q"}]}]}',
        "$.claims[0].citations[0].ref.revision: expected a value of at least 1, got 0",
    ),
    "seed002_same_id_other_fragment": (
        b'{"title": "t", "claims": [{"claim_id": "c1", "text": "x", "kind": "fact", "citations": '
        b'[{"citation_id": "a", "ref": {"source_id": "s", "revision": 1, "digest": "'
        + b"a"
        * 64
        + b'"}, "start": 0, "end": 1, "quote": "q"}]}, {"claim_id": "c2", "text": "y", "kind": "fact", '
        b'"citations": [{"citation_id": "a", "ref": {"source_id": "s", "revision": 1, "digest": "'
        + b"a" * 64
        + b'"}, "start": 0, "end": 2, "quote": "qq"}]}]}',
        "$.claims[1].citations[0]: citation id 'a' names a different fragment "
        "than at $.claims[0].citations[0]",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_exits_2_with_exact_message(name: str, tmp_path: Path) -> None:
    data, problem = CASES[name]
    claims = tmp_path / f"{name}.json"
    claims.write_bytes(data)
    out = tmp_path / "report.json"
    result = run_cli("check", claims, "--offline", "--out", out, "--cache", tmp_path)
    assert result.code == 2
    assert result.stderr == f"citeaudit: error: {claims}: {problem}\n"
    assert result.stdout == ""
    assert not out.exists()


def test_oversize_input_is_refused_before_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claims = tmp_path / "big.json"
    claims.write_bytes(b'{"claims": []}' + b" " * 100)
    monkeypatch.setenv("CITEAUDIT_MAX_INPUT_BYTES", "64")
    result = run_cli("check", claims, "--offline", "--out", tmp_path / "r.json")
    assert result.code == 2
    assert result.stderr == f"citeaudit: error: {claims}: input is 114 bytes, over the limit of 64\n"


def test_missing_file(tmp_path: Path) -> None:
    result = run_cli("check", tmp_path / "nope.json", "--offline")
    assert result.code == 2
    assert result.stderr == f"citeaudit: error: {tmp_path / 'nope.json'}: no such file\n"


def test_a_failed_run_keeps_the_previous_report(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    out.write_text("previous report\n")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert run_cli("check", bad, "--offline", "--out", out).code == 2
    assert out.read_text() == "previous report\n"
