"""Where each object of a JSON text starts (line and column, 1-based), by JSON
path, for reports that point into the input file (SARIF)."""

from __future__ import annotations

import json
import re

__all__ = ["json_positions"]

# Strings (skipped whole, so brackets inside them do not count) and structure.
_TOKEN_RE = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]')


def json_positions(text: str) -> dict[str, tuple[int, int]]:
    """``{"$.claims[0].citations[1]": (line, column), …}`` for every object and array."""
    out: dict[str, tuple[int, int]] = {}
    stack: list[list[object]] = []  # per open container: [path, kind, key or index, expecting key]
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
    line = 0

    def here(offset: int) -> tuple[int, int]:
        nonlocal line
        while line + 1 < len(line_starts) and line_starts[line + 1] <= offset:
            line += 1
        return line + 1, offset - line_starts[line] + 1

    def child_path() -> str:
        if not stack:
            return "$"
        path, kind, slot, _ = stack[-1]
        return f"{path}[{slot}]" if kind == "[" else f"{path}.{slot}"

    for m in _TOKEN_RE.finditer(text):
        token = m.group()
        if token in "{[":
            path = child_path()
            out[path] = here(m.start())
            stack.append([path, token, 0 if token == "[" else "", token == "{"])
        elif token in "}]":
            if stack:
                stack.pop()
        elif token == ",":
            if stack:
                top = stack[-1]
                if top[1] == "[":
                    top[2] = int(top[2]) + 1  # type: ignore[call-overload]
                else:
                    top[3] = True
        elif token == ":":
            if stack:
                stack[-1][3] = False
        elif stack and stack[-1][1] == "{" and stack[-1][3]:
            stack[-1][2] = json.loads(token)  # an object key, unescaped
    return out
