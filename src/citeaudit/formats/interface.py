"""Input formats: detect which one a document is, and parse it into the
canonical :class:`~citeaudit.model.Submission`.

Each format is one module with a ``parse(document, name) -> Submission``; a new
format is one new module and one line in :data:`FORMATS`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from citeaudit.errors import InputError
from citeaudit.formats import native, seed002
from citeaudit.model import Submission
from citeaudit.util.jsonload import DEFAULT_MAX_BYTES, DEFAULT_MAX_DEPTH, load_json_bytes, read_input

__all__ = ["FORMATS", "InputFormat", "detect", "load_submission", "parse_document", "submission_from_bytes"]


class InputFormat(StrEnum):
    NATIVE = "native"
    SEED_000 = "seed-000"  # claims with inline DOI citations
    SEED_002 = "seed-002"  # report with ref{source_id, revision, digest}
    SEED_003 = "seed-003"  # response with citation_ids and a top-level citations list


FORMATS: dict[InputFormat, Callable[[dict[str, Any], str], Submission]] = {
    InputFormat.NATIVE: native.parse,
    InputFormat.SEED_000: native.parse,  # the native format is their union
    InputFormat.SEED_003: native.parse,
    InputFormat.SEED_002: seed002.parse,
}


def detect(document: dict[str, Any]) -> InputFormat:
    """Name the format by the keys it uses; the native format is the fallback."""
    claims = document.get("claims")
    claim_list = [c for c in claims if isinstance(c, dict)] if isinstance(claims, list) else []
    if any("claim_id" in c for c in claim_list):
        return InputFormat.SEED_002
    top = set(document) - {"claims"}
    claim_keys = set().union(*(set(c) for c in claim_list)) if claim_list else set()
    if top <= {"answer", "citations"} and claim_keys <= {"id", "text", "citation_ids"} and top:
        return InputFormat.SEED_003
    if not top and claim_keys <= {"id", "text", "citations"}:
        return InputFormat.SEED_000
    return InputFormat.NATIVE


def parse_document(document: Any, name: str) -> Submission:
    if not isinstance(document, dict):
        raise InputError(name, "$", 'expected an object with a "claims" array')
    fmt = detect(document)
    submission = FORMATS[fmt](document, name)
    if not submission.claims:  # as for a .bib without entries: most often a broken claim extraction
        raise InputError(name, "$.claims", "no claims to audit (the array is empty)")
    return replace(submission, format=fmt.value)


def load_submission(
    path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES, max_depth: int = DEFAULT_MAX_DEPTH
) -> Submission:
    """Read, bound, parse and map one input file."""
    data = read_input(path, max_bytes)
    bibtex = path.suffix.lower() in (".bib", ".bibtex")
    return submission_from_bytes(data, str(path), bibtex=bibtex, max_depth=max_depth)


def looks_like_bibtex(data: bytes) -> bool:
    """For input with no file name (standard input): JSON opens with ``{``; BibTeX
    with an entry (``@``) or a comment (``%``)."""
    return data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"@", b"%")


def submission_from_bytes(
    data: bytes, name: str, *, bibtex: bool | None = None, max_depth: int = DEFAULT_MAX_DEPTH
) -> Submission:
    """Parse and map input already read; ``bibtex=None`` decides by the content."""
    if bibtex is None:
        bibtex = looks_like_bibtex(data)
    if bibtex:
        from citeaudit.formats.bibtex import parse_bibtex  # BibTeX's modules only for BibTeX

        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise InputError(
                name, "", f"not valid UTF-8: byte 0x{data[e.start]:02x} at offset {e.start}"
            ) from None
        return replace(parse_bibtex(text, name), input_sha256=hashlib.sha256(data).hexdigest())
    return parse_bytes(data, name, max_depth=max_depth)


def parse_bytes(data: bytes, name: str, *, max_depth: int = DEFAULT_MAX_DEPTH) -> Submission:
    document = load_json_bytes(data, name, max_depth)
    submission = parse_document(document, name)
    return replace(submission, input_sha256=hashlib.sha256(data).hexdigest())
