"""The answer's optional ``question`` (native format): read, bounded, kept on the submission, and
in the digest only when given, so the digest of an answer without one is what it always was."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citeaudit.errors import InputError
from citeaudit.formats import InputFormat, parse_bytes
from tests.conftest import run_cli

QUOTE = "Paris is the capital and largest city of France."
ANSWER: dict[str, Any] = {
    "answer": "Paris.",
    "claims": [{"id": "c1", "text": "Paris", "citation_ids": ["q1"]}],
    "citations": [
        {"id": "q1", "document_id": "atlas", "document_version": "v1", "start": 0, "end": len(QUOTE),
         "quote": QUOTE}
    ],
}  # fmt: skip
# The digest of ANSWER before the question existed (citeaudit-submission/1): reviews bound to it stay bound.
DIGEST = "18f179b625bcdf9e9f9986b0b0c5392fdf2c436f1f5ab829a2b2357927428edc"


def _parse(document: dict[str, Any]) -> Any:
    return parse_bytes(json.dumps(document).encode("utf-8"), "answer.json")


def test_the_question_is_kept_on_the_submission() -> None:
    submission = _parse({**ANSWER, "question": "What is the capital of France?"})
    assert submission.question == "What is the capital of France?"
    # Seed 003 has no question: the native format, their union, reads it.
    assert submission.format == InputFormat.NATIVE.value
    assert _parse(ANSWER).question is None
    assert _parse({**ANSWER, "question": None}).question is None


def test_an_answer_without_a_question_keeps_its_digest() -> None:
    assert _parse(ANSWER).digest == DIGEST
    assert _parse({**ANSWER, "question": None}).digest == DIGEST
    asked = _parse({**ANSWER, "question": "What is the capital of France?"}).digest
    other = _parse({**ANSWER, "question": "What is the capital of Texas?"}).digest
    assert len({DIGEST, asked, other}) == 3  # a review of one question's answer is not another's


@pytest.mark.parametrize(
    ("question", "problem"),
    [
        (5, "$.question: expected a string, got integer 5"),
        (["What?"], "$.question: expected a string, got array ['What?']"),
        ({"text": "What?"}, "$.question: expected a string, got object {'text': 'What?'}"),
        ("?" * 2_001, "$.question: longer than the limit of 2000 characters"),
    ],
)
def test_a_question_that_is_not_a_bounded_string_is_an_input_error(question: Any, problem: str) -> None:
    with pytest.raises(InputError) as caught:
        _parse({**ANSWER, "question": question})
    assert str(caught.value) == f"answer.json: {problem}"


def test_a_question_at_the_limit_is_read() -> None:
    assert _parse({**ANSWER, "question": "?" * 2_000}).question == "?" * 2_000


def test_a_bad_question_is_exit_2_from_the_cli(tmp_path: Path) -> None:
    path = tmp_path / "claims.json"
    path.write_text(json.dumps({**ANSWER, "question": 5}), "utf-8")
    result = run_cli("check", path, "--offline", "--judge", "none")
    assert result.code == 2
    assert result.stderr == f"citeaudit: error: {path}: $.question: expected a string, got integer 5\n"
