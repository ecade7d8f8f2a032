"""Input formats, detected automatically and mapped onto one model."""

from citeaudit.formats.interface import InputFormat, detect, load_submission, parse_bytes, parse_document

__all__ = ["InputFormat", "detect", "load_submission", "parse_bytes", "parse_document"]
