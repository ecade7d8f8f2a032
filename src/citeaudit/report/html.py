"""The HTML report: one self-contained file a person would rather look at than
JSON. A summary bar, claims filterable by status, and each citation's quote
highlighted in its surrounding source text with the findings, suggestions and
registry metadata beside it.

It never loads anything: a Content-Security-Policy forbids every request and
allows only the page's own script, by its hash. All report text is escaped by
the template engine, so titles, claims and quotes show literally.
"""

from __future__ import annotations

import base64
import hashlib
from functools import cache
from importlib.resources import files
from typing import Any

from jinja2 import Environment, Template

__all__ = ["render_html"]

_ENV = Environment(autoescape=True, keep_trailing_newline=True)


def _show(value: Any) -> str:
    """Structured values as a reader wants them: ``issued 2024, print 2023``, ``a, b``."""
    if isinstance(value, dict):
        return ", ".join(f"{k} {_show(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(_show(v) for v in value)
    return "" if value is None else str(value)


_ENV.filters["show"] = _show
_SCRIPT = files("citeaudit.report").joinpath("templates/report.js").read_text("utf-8")
_SCRIPT_HASH = "sha256-" + base64.b64encode(hashlib.sha256(_SCRIPT.encode("utf-8")).digest()).decode("ascii")


@cache
def _template() -> Template:
    """Compiled on first use: importing the package does not pay for it."""
    return _ENV.from_string(files("citeaudit.report").joinpath("templates/report.html.j2").read_text("utf-8"))


_STATUSES = ("invalid_reference", "unsupported", "could_not_check", "disputed", "requires_entailment_check")


def render_html(report: dict[str, Any]) -> bytes:
    rows_by_claim: dict[str, list[dict[str, Any]]] = {}
    for row in report["results"]:
        rows_by_claim.setdefault(row["claim"] or "", []).append(row)
    html: str = _template().render(
        report=report,
        title=report.get("title") or "Citation audit",
        rows_by_claim=rows_by_claim,
        statuses=_STATUSES,
        script=_SCRIPT,
        script_hash=_SCRIPT_HASH,
    )
    return html.encode("utf-8")
