"""One record to one answer: the envelope, the audited bytes, and the rejections.

A JSONL line is either an envelope ``{"id": …, "answer": {…}, "labels": {…}}`` (an
object whose ``answer`` is an object) or a bare answer in any JSON format ``check``
reads. A bare answer is audited as the bytes of its line, so its report is the one
``check`` writes for a file holding that line, and its id is the SHA-256 of the line
(the report's ``input_sha256``). An envelope's answer is audited as its canonical
serialisation (sorted keys, UTF-8, as the Python API serialises a dict), so the same
answer gives the same report from JSONL and from Parquet; its id defaults to the
SHA-256 of those bytes. A research report in Markdown comes in an envelope of its own,
``{"id": …, "markdown": "…", "labels": {…}}``, and is audited as the UTF-8 bytes of that string
(its id defaults to their SHA-256), as ``check`` audits a ``.md`` file; in Parquet, an ``answer``
string that is a Markdown report (a references heading, not JSON) is read as one. Every record is
bounded like a file given to ``check``: ``max_input_bytes`` and ``max_depth`` apply to each answer.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from typing import Any

from citeaudit.batch.records import Record
from citeaudit.errors import InputError
from citeaudit.formats import InputFormat, parse_bytes, parse_document, submission_from_bytes
from citeaudit.formats.markdown_report import looks_like_report
from citeaudit.model import Submission
from citeaudit.util.jsonload import json_path, load_json_bytes

__all__ = ["MAX_ID_LENGTH", "Answer", "Rejection", "read_answer"]

MAX_ID_LENGTH = 1024
MAX_LABELS = 64
_ENVELOPE_KEYS = ("answer", "id", "labels")
_MARKDOWN_KEYS = ("id", "labels", "markdown")


@dataclass(frozen=True, slots=True)
class Answer:
    id: str
    labels: dict[str, str]
    submission: Submission


@dataclass(frozen=True, slots=True)
class Rejection:
    """A record that is not a valid answer, with the message ``check`` prints for it."""

    source: str
    number: int
    id: str | None
    error: str

    def to_json(self) -> dict[str, Any]:
        return {"error": self.error, "id": self.id, "input": self.source, "line": self.number}


def canonical(answer: dict[str, Any]) -> bytes:
    return json.dumps(answer, ensure_ascii=False, sort_keys=True).encode("utf-8")


def _type_name(value: Any) -> str:
    names = {str: "string", bool: "boolean", int: "integer", float: "number", list: "array", dict: "object"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def _envelope_id(value: Any, name: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        got = f"{_type_name(value)}" if not isinstance(value, str) else "an empty string"
        raise InputError(name, "$.id", f"expected a non-empty string, got {got}")
    if len(value) > MAX_ID_LENGTH:
        raise InputError(name, "$.id", f"longer than {MAX_ID_LENGTH} characters")
    return value


def _envelope_labels(value: Any, name: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InputError(name, "$.labels", f"expected an object, got {_type_name(value)}")
    if len(value) > MAX_LABELS:
        raise InputError(name, "$.labels", f"more than {MAX_LABELS} labels")
    for key, label in value.items():
        if not isinstance(label, str):
            raise InputError(name, json_path(["labels", key]), f"expected a string, got {_type_name(label)}")
    return dict(value)


def _audit_bytes(
    data: bytes, name: str, max_bytes: int, max_depth: int, fmt: InputFormat | None = None
) -> Submission:
    if len(data) > max_bytes:
        raise InputError(name, "", f"input is {len(data)} bytes, over the limit of {max_bytes}")
    return parse_bytes(data, name, max_depth=max_depth, fmt=fmt)


_MARKDOWN_LINE = (
    'with --input-format markdown-report a line is {"id", "markdown", "labels"} '
    "or the Markdown as a JSON string"
)


def _from_line(
    record: Record, name: str, max_bytes: int, max_depth: int, fmt: InputFormat | None = None
) -> Answer:
    try:  # parse_bytes's own steps, as check reads a file: bounded JSON, then the format
        document = load_json_bytes(record.line, name, max_depth)
    except InputError:
        try:  # an envelope's answer may use the full depth, one level down
            document = load_json_bytes(record.line, name, max_depth + 1)
        except InputError:
            document = None
        if not _is_envelope(document):
            raise
    if _is_markdown_envelope(document):
        return _markdown_answer(document, name, max_bytes)
    if fmt is InputFormat.MARKDOWN_REPORT:
        if not isinstance(document, str):
            raise InputError(name, "$", _MARKDOWN_LINE)
        return _markdown_answer({"markdown": document}, name, max_bytes)
    if not _is_envelope(document):
        submission = parse_document(document, name, fmt)
        digest = hashlib.sha256(record.line).hexdigest()
        return Answer(digest, {}, replace(submission, input_sha256=digest))
    unknown = sorted(set(document) - set(_ENVELOPE_KEYS))
    if unknown:
        raise InputError(name, json_path([unknown[0]]), "unknown field (an envelope has id, answer, labels)")
    given = _envelope_id(document.get("id"), name)
    labels = _envelope_labels(document.get("labels"), name)
    submission = _audit_bytes(canonical(document["answer"]), name, max_bytes, max_depth, fmt)
    return Answer(given or submission.input_sha256, labels, submission)


def _is_envelope(document: Any) -> bool:
    return isinstance(document, dict) and isinstance(document.get("answer"), dict)


def _is_markdown_envelope(document: Any) -> bool:
    return isinstance(document, dict) and "markdown" in document and "claims" not in document


def _markdown(data: bytes, name: str, max_bytes: int) -> Submission:
    if len(data) > max_bytes:
        raise InputError(name, "", f"input is {len(data)} bytes, over the limit of {max_bytes}")
    return submission_from_bytes(data, name, input_format=InputFormat.MARKDOWN_REPORT)


def _markdown_answer(document: dict[str, Any], name: str, max_bytes: int) -> Answer:
    unknown = sorted(set(document) - set(_MARKDOWN_KEYS))
    if unknown:
        message = "unknown field (a report's envelope has id, markdown, labels)"
        raise InputError(name, json_path([unknown[0]]), message)
    text = document["markdown"]
    if not isinstance(text, str):
        raise InputError(
            name, "$.markdown", f"expected the report's Markdown as a string, got {_type_name(text)}"
        )
    given = _envelope_id(document.get("id"), name)
    labels = _envelope_labels(document.get("labels"), name)
    submission = _markdown(text.encode("utf-8"), name, max_bytes)
    return Answer(given or submission.input_sha256, labels, submission)


def _parse_labels_text(value: str, name: str, max_depth: int) -> Any:
    return load_json_bytes(value.encode("utf-8"), name, max_depth)


def _from_row(
    record: Record, name: str, max_bytes: int, max_depth: int, fmt: InputFormat | None = None
) -> Answer:
    assert record.row is not None
    given, answer, labels = record.row
    markdown = fmt is InputFormat.MARKDOWN_REPORT or (
        fmt is None and isinstance(answer, str) and looks_like_report(answer)
    )
    if isinstance(answer, str) and markdown:
        submission = _markdown(answer.encode("utf-8"), name, max_bytes)
        labels = _parse_labels_text(labels, name, 2) if isinstance(labels, str) else labels
        labels = dict(labels) if isinstance(labels, list) else labels
        found = _envelope_id(given, name)
        return Answer(found or submission.input_sha256, _envelope_labels(labels, name), submission)
    if isinstance(answer, str):
        data = answer.encode("utf-8")
        if len(data) > max_bytes:
            raise InputError(name, "", f"input is {len(data)} bytes, over the limit of {max_bytes}")
        answer = load_json_bytes(data, name, max_depth)
    if not isinstance(answer, dict):
        raise InputError(name, "$.answer", f"expected an object or its JSON text, got {_type_name(answer)}")
    if isinstance(labels, str):
        labels = _parse_labels_text(labels, name, 2)
    elif isinstance(labels, list):  # a Parquet map column: key/value pairs
        labels = dict(labels)
    submission = _audit_bytes(canonical(answer), name, max_bytes, max_depth, fmt)
    found = _envelope_id(given, name)
    return Answer(found or submission.input_sha256, _envelope_labels(labels, name), submission)


def read_answer(
    record: Record, max_bytes: int, max_depth: int, fmt: InputFormat | None = None
) -> Answer | Rejection:
    """The answer of a record, or its rejection with the message ``check`` would print; ``fmt``
    (``--input-format``) names the format every answer is read as (None: detected)."""
    name = f"{record.source}:{record.number}"
    if record.oversize:
        message = f"{name}: input is {record.oversize} bytes, over the limit of {max_bytes}"
        return Rejection(record.source, record.number, None, message)
    try:
        if record.row is not None:
            return _from_row(record, name, max_bytes, max_depth, fmt)
        return _from_line(record, name, max_bytes, max_depth, fmt)
    except InputError as e:
        return Rejection(record.source, record.number, _fallback_id(record), e.diagnostics())


def _fallback_id(record: Record) -> str | None:
    """The id a rejected record would have had: the SHA-256 of a line, an envelope's own id."""
    if record.row is not None:
        given = record.row[0]
        return given if isinstance(given, str) and 0 < len(given) <= MAX_ID_LENGTH else None
    try:
        document = json.loads(record.line)
    except (ValueError, RecursionError):
        document = None
    if isinstance(document, dict) and (
        isinstance(document.get("answer"), dict) or _is_markdown_envelope(document)
    ):
        given = document.get("id")
        return given if isinstance(given, str) and 0 < len(given) <= MAX_ID_LENGTH else None
    return hashlib.sha256(record.line).hexdigest()
