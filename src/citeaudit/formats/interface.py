"""Input formats: detect which one a document is, and parse it into the
canonical :class:`~citeaudit.model.Submission`.

Each format is one module with a ``parse(document, name) -> Submission``; a new
format is one new module and one line in :data:`FORMATS`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from citeaudit.errors import InputError
from citeaudit.formats import native, seed002
from citeaudit.model import Submission
from citeaudit.util.jsonload import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_DEPTH,
    json_path,
    load_json_bytes,
    read_input,
)

__all__ = [
    "FORMATS",
    "INPUT_FORMAT_CHOICES",
    "InputFormat",
    "detect",
    "input_format_of",
    "load_submission",
    "parse_document",
    "submission_from_bytes",
]


class InputFormat(StrEnum):
    NATIVE = "native"
    SEED_000 = "seed-000"  # claims with inline DOI citations
    SEED_002 = "seed-002"  # report with ref{source_id, revision, digest}
    SEED_003 = "seed-003"  # response with citation_ids and a top-level citations list
    BIBTEX = "bibtex"  # a .bib file: each entry a claim citing one work
    MARKDOWN_REPORT = "markdown-report"  # a research report: sentences with markers, a reference list


# What --input-format (and CITEAUDIT_INPUT_FORMAT, input_format in citeaudit.toml) accepts.
AUTO = "auto"
INPUT_FORMAT_CHOICES: tuple[str, ...] = (AUTO, *(f.value for f in InputFormat))
_MARKDOWN_SUFFIXES = (".md", ".markdown")
_BIBTEX_SUFFIXES = (".bib", ".bibtex")


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


def input_format_of(value: str | None) -> InputFormat | None:
    """The format ``--input-format`` names; None for ``auto`` (detected)."""
    if value is None or value == AUTO:
        return None
    return InputFormat(value)


# JSON can write half of a UTF-16 pair ("\ud800"); Python reads it as a string no UTF-8 can hold,
# and the report, its digest and every output are UTF-8. A pair ("\ud83d\ude00") is one character.
_SURROGATE_ESCAPE_RE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE_RE = re.compile("[\ud800-\udfff]")


def _shown(text: str) -> str:
    quoted = repr(text)
    return quoted if len(quoted) <= 40 else quoted[:37] + "..."


def _lone_surrogate(document: Any, name: str) -> None:
    """Refuse a key or a string value anywhere in the document that holds a lone surrogate (a
    field no model reads strictly, as a citation's ``start``, would carry it into the report)."""
    stack: list[tuple[Any, list[str | int]]] = [(document, [])]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            if _SURROGATE_RE.search(value):
                problem = f"not valid Unicode text (a lone surrogate): {_shown(value)}"
                raise InputError(name, json_path(path), problem)
        elif isinstance(value, dict):
            for key in reversed(list(value)):
                if isinstance(key, str) and _SURROGATE_RE.search(key):
                    problem = f"a key is not valid Unicode text (a lone surrogate): {_shown(key)}"
                    raise InputError(name, json_path(path), problem)
                stack.append((value[key], [*path, key]))
        elif isinstance(value, list):
            stack.extend((value[i], [*path, i]) for i in range(len(value) - 1, -1, -1))


def parse_document(document: Any, name: str, fmt: InputFormat | None = None) -> Submission:
    """Map one JSON document; ``fmt`` forces one of the JSON formats (else it is detected)."""
    _lone_surrogate(document, name)
    return _parse_document(document, name, fmt)


def _parse_document(document: Any, name: str, fmt: InputFormat | None) -> Submission:
    if not isinstance(document, dict):
        raise InputError(name, "$", 'expected an object with a "claims" array')
    fmt = fmt or detect(document)
    if fmt not in FORMATS:
        raise InputError(name, "", f"{fmt.value} is not a JSON format")
    submission = FORMATS[fmt](document, name)
    if not submission.claims:  # as for a .bib without entries: most often a broken claim extraction
        raise InputError(name, "$.claims", "no claims to audit (the array is empty)")
    return replace(submission, format=fmt.value)


def load_submission(
    path: Path,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_depth: int = DEFAULT_MAX_DEPTH,
    input_format: InputFormat | None = None,
) -> Submission:
    """Read, bound, parse and map one input file. Its format is ``input_format`` when given, else
    named by its suffix (``.bib``/``.bibtex`` BibTeX, ``.md``/``.markdown`` a Markdown report),
    else detected from the content."""
    data = read_input(path, max_bytes)
    if input_format is None:
        suffix = path.suffix.lower()
        if suffix in _BIBTEX_SUFFIXES:
            input_format = InputFormat.BIBTEX
        elif suffix in _MARKDOWN_SUFFIXES:
            input_format = InputFormat.MARKDOWN_REPORT
    return submission_from_bytes(data, str(path), max_depth=max_depth, input_format=input_format)


def looks_like_bibtex(data: bytes) -> bool:
    """For input with no file name (standard input): JSON opens with ``{``; BibTeX
    with an entry (``@``) or a comment (``%``)."""
    return data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"@", b"%")


def _text(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(
            name, "", f"not valid UTF-8: byte 0x{data[e.start]:02x} at offset {e.start}"
        ) from None


def _sniff(data: bytes) -> InputFormat | None:
    """The format of input without a name that says it: BibTeX, a Markdown report (a references
    heading, and not JSON), else None (JSON, whose format its keys tell)."""
    if looks_like_bibtex(data):
        return InputFormat.BIBTEX
    if data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"{", b"["):
        return None  # JSON: the Markdown reader is not even imported
    from citeaudit.formats.markdown_report import looks_like_report

    if looks_like_report(data.decode("utf-8", "replace")):
        return InputFormat.MARKDOWN_REPORT
    return None


def submission_from_bytes(
    data: bytes,
    name: str,
    *,
    bibtex: bool | None = None,
    max_depth: int = DEFAULT_MAX_DEPTH,
    input_format: InputFormat | None = None,
) -> Submission:
    """Parse and map input already read. ``input_format`` forces a format; without it,
    ``bibtex=True`` is BibTeX, ``bibtex=False`` JSON, and ``None`` decides by the content."""
    if input_format is None:
        input_format = InputFormat.BIBTEX if bibtex else (None if bibtex is False else _sniff(data))
    digest = hashlib.sha256(data).hexdigest()
    if input_format is InputFormat.BIBTEX:
        from citeaudit.formats.bibtex import parse_bibtex  # BibTeX's modules only for BibTeX

        return replace(parse_bibtex(_text(data, name), name), input_sha256=digest)
    if input_format is InputFormat.MARKDOWN_REPORT:
        from citeaudit.formats.markdown_report import parse_markdown  # the parser only for Markdown

        return replace(parse_markdown(_text(data, name), name), input_sha256=digest)
    return parse_bytes(data, name, max_depth=max_depth, fmt=input_format)


def parse_bytes(
    data: bytes, name: str, *, max_depth: int = DEFAULT_MAX_DEPTH, fmt: InputFormat | None = None
) -> Submission:
    document = load_json_bytes(data, name, max_depth)
    if _SURROGATE_ESCAPE_RE.search(data):  # only JSON's escapes write a lone surrogate
        _lone_surrogate(document, name)
    submission = _parse_document(document, name, fmt)
    return replace(submission, input_sha256=hashlib.sha256(data).hexdigest())


def needs_registry_cache(submission: Submission) -> bool:
    """Whether a citation of ``submission`` is answered from the registry cache offline (a DOI, an
    arXiv id, a reference found by search): a cache folder that does not exist is then a mistake."""
    from citeaudit.identifiers import resolver_key, search_key

    citations = [c for claim in submission.claims for c in claim.citations] + list(submission.citations)
    return any(resolver_key(c.source) is not None or search_key(c.source) is not None for c in citations)


def cache_folder_missing(submission: Submission, cache: Path, *, offline: bool, named: bool) -> bool:
    """Whether ``check`` and :func:`citeaudit.audit` refuse the run: a cache folder someone named
    (not the default) that does not exist, offline, for citations only the cache can answer —
    every one would be ``E_NOT_CACHED``."""
    return named and offline and not cache.is_dir() and needs_registry_cache(submission)
