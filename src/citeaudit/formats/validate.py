"""Strict validation of wire objects with pydantic, errors as InputError."""

from __future__ import annotations

import re
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from citeaudit.errors import InputError
from citeaudit.util.jsonload import json_path

__all__ = ["NOT_BLANK", "StrictWire", "expect_object", "is_blank", "validate"]

# A character that is not white space in any of the regular-expression dialects that read the
# schema (ECMA-262's \s has U+FEFF, Unicode's White_Space has U+0085, Python's str.isspace has
# U+001C–U+001F): a text is blank unless it has one, wherever it is checked.
NOT_BLANK = r"[^\s\x1c-\x1f\x85\ufeff]"
_NOT_BLANK_RE = re.compile(NOT_BLANK)


def is_blank(text: str) -> bool:
    return _NOT_BLANK_RE.search(text) is None


M = TypeVar("M", bound=BaseModel)


class StrictWire(BaseModel):
    """Base of every wire model: unknown fields and type coercion are errors.

    A model must not be able to smuggle a ``status`` or a ``review`` into its
    own output, so nothing unknown is silently dropped.

    Each model's validator is built when it first validates (``defer_build``), not when its
    module is imported: a run reads one or two formats, and building every wire model's
    schema up front was most of the cost of importing the formats.
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, defer_build=True)


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


_TYPE_NAMES = {
    "string_type": "a string",
    "int_type": "an integer",
    "list_type": "an array",
    "dict_type": "an object",
    "model_type": "an object",
    "bool_type": "a boolean",
}
_JSON_TYPES = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    list: "array",
    dict: "object",
    type(None): "null",
}


def _problem(err: dict[str, Any]) -> str:
    kind = err["type"]
    if kind == "extra_forbidden":
        return "unknown field (not part of the contract)"
    if kind == "missing":
        return "required field is missing"
    if kind in _TYPE_NAMES:
        value = err["input"]
        got = _JSON_TYPES.get(type(value), type(value).__name__)
        return f"expected {_TYPE_NAMES[kind]}, got {got}" + ("" if value is None else f" {_describe(value)}")
    ctx = err.get("ctx") or {}
    if kind == "value_error":  # a validator of ours: its own words
        return str(ctx.get("error"))
    if kind == "greater_than_equal":
        return f"expected a value of at least {ctx.get('ge')}, got {_describe(err['input'])}"
    if kind == "less_than_equal":
        return f"expected a value of at most {ctx.get('le')}, got {_describe(err['input'])}"
    if kind == "string_too_long":
        return f"longer than the limit of {ctx.get('max_length')} characters"
    if kind == "string_too_short":
        return "must not be empty" if ctx.get("min_length") == 1 else str(err["msg"])
    if kind == "too_short":
        return f"needs at least {ctx.get('min_length')} items"
    if kind == "string_pattern_mismatch":
        return f"does not have the expected form ({ctx.get('pattern')}), got {_describe(err['input'])}"
    if kind == "string_unicode":  # JSON's "\ud800": a string Python holds, that UTF-8 cannot write
        return f"not valid Unicode text (a lone surrogate): {_describe(err['input'])}"
    if kind == "literal_error":
        return f"{err['msg'].replace('Input should be', 'expected')}, got {_describe(err['input'])}"
    return str(err["msg"])


def validate(model: type[M], obj: Any, name: str, path: list[str | int]) -> M:
    """Validate ``obj`` against ``model``; the first error becomes an InputError."""
    try:
        return model.model_validate(obj)
    except ValidationError as e:
        err = e.errors(include_url=False)[0]
        loc = [p for p in err["loc"] if isinstance(p, (str, int))]
        raise InputError(name, json_path([*path, *loc]), _problem(dict(err))) from None


def expect_object(obj: Any, name: str, path: list[str | int]) -> dict[str, Any]:
    if not isinstance(obj, dict):
        got = _JSON_TYPES.get(type(obj), type(obj).__name__)
        raise InputError(name, json_path(path), f"expected an object, got {got}")
    return obj
