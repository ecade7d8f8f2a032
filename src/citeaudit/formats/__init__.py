"""Input formats, detected automatically and mapped onto one model."""

from citeaudit.formats.interface import (
    InputFormat,
    detect,
    load_submission,
    parse_bytes,
    parse_document,
    submission_from_bytes,
)

__all__ = [
    "InputFormat",
    "detect",
    "load_submission",
    "parse_bytes",
    "parse_document",
    "submission_from_bytes",
]
