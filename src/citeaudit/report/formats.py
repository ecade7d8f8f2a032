"""Output formats: a string enum and one exhaustive factory. Every format is
rendered from the canonical report (the dict that report.json holds)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

__all__ = [
    "FORMAT_ALIASES",
    "FORMAT_CHOICES",
    "FORMAT_NAMES",
    "RenderContext",
    "ReportFormat",
    "canonical_bytes",
    "render",
]


class ReportFormat(StrEnum):
    JSON = "json"
    MARKDOWN = "md"
    SARIF = "sarif"
    JUNIT = "junit"
    HTML = "html"

    @classmethod
    def _missing_(cls, value: object) -> ReportFormat | None:
        return FORMAT_ALIASES.get(value) if isinstance(value, str) else None


# Other names a format is asked for by: ``--format markdown`` is ``--format md``.
FORMAT_ALIASES: dict[str, ReportFormat] = {"markdown": ReportFormat.MARKDOWN}
# What --format accepts: the formats' own names, then the aliases.
FORMAT_CHOICES: list[str] = [f.value for f in ReportFormat] + list(FORMAT_ALIASES)


# What each format is called in help texts and the README.
FORMAT_NAMES: dict[ReportFormat, str] = {
    ReportFormat.JSON: "JSON",
    ReportFormat.MARKDOWN: "Markdown",
    ReportFormat.SARIF: "SARIF",
    ReportFormat.JUNIT: "JUnit",
    ReportFormat.HTML: "HTML",
}


@dataclass(frozen=True)
class RenderContext:
    input_uri: str = "claims.json"  # how SARIF names the input file
    input_text: str | None = None  # the input itself, to place SARIF results at line and column


def canonical_bytes(report: dict[str, Any]) -> bytes:
    from citeaudit.report.json import dump_report_dict

    return dump_report_dict(report)


def render(fmt: ReportFormat, report: dict[str, Any], context: RenderContext | None = None) -> bytes:
    # Each renderer is imported when it is asked for, and only it: `check` without --format loads
    # none of them, `--format sarif` not the HTML report's jinja2.
    context = context or RenderContext()
    if fmt is ReportFormat.JSON:
        return canonical_bytes(report)
    if fmt is ReportFormat.MARKDOWN:
        from citeaudit.report.markdown import render_markdown

        return render_markdown(report, hashlib.sha256(canonical_bytes(report)).hexdigest())
    if fmt is ReportFormat.SARIF:
        from citeaudit.formats.positions import json_positions
        from citeaudit.report.sarif import render_sarif

        positions = (
            json_positions(context.input_text)
            if context.input_text and _is_json(context.input_text)
            else None
        )
        return render_sarif(report, context.input_uri, positions)
    if fmt is ReportFormat.JUNIT:
        from citeaudit.report.junit import render_junit

        return render_junit(report)
    if fmt is ReportFormat.HTML:
        from citeaudit.report.html import render_html

        return render_html(report)
    raise AssertionError(f"unhandled format {fmt}")  # the enum is exhaustive; a test loops over it


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True
