"""Input formats, detected automatically and mapped onto one model."""

from citeaudit.formats.interface import (
    INPUT_FORMAT_CHOICES,
    InputFormat,
    detect,
    input_format_of,
    load_submission,
    parse_bytes,
    parse_document,
    submission_from_bytes,
)

__all__ = [
    "INPUT_FORMAT_CHOICES",
    "InputFormat",
    "detect",
    "input_format_of",
    "load_submission",
    "parse_bytes",
    "parse_document",
    "submission_from_bytes",
]
