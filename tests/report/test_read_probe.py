"""The damage probe: every path of a real report deleted, or set to a value of another type,
then rendered in every format through the public ``render``. Each damaged report either
renders or is refused with an InputError whose one-line message names a JSON path; no other
exception (a KeyError, IndexError, AttributeError or TypeError inside a renderer) ever."""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from citeaudit import render
from citeaudit.errors import InputError
from citeaudit.report.formats import ReportFormat
from tests.conftest import GOLDEN

_DELETE = object()
VALUES: list[Any] = [_DELETE, "x", None, [], 0]  # deleted, then retyped: string, null, array, integer
# seed000: DOI citations and an uncited claim; seed003_printed_range: a corpus citation with a range.
REPORTS = ["seed000", "seed003_printed_range"]


def _paths(value: Any, at: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    if at:
        yield at
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        yield from _paths(item, (*at, key))


def _damaged(report: dict[str, Any], path: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(report)
    parent: Any = out
    for key in path[:-1]:
        parent = parent[key]
    if value is _DELETE:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return out


def probe(report: dict[str, Any]) -> tuple[int, Counter[str], list[str]]:
    """(paths tried, counts of rendered and refused, the crashes)."""
    paths = list(_paths(report))
    counts: Counter[str] = Counter()
    crashes: list[str] = []
    for path in paths:
        for value in VALUES:
            damaged = _damaged(report, path, value)
            for fmt in ReportFormat:
                try:
                    render(damaged, fmt.value)
                except InputError as e:
                    message = str(e)
                    if e.path.startswith("$") and "\n" not in message and e.path in message:
                        counts["refused"] += 1
                    else:
                        crashes.append(f"{path} {value!r} {fmt.value}: message {message!r}")
                except Exception as e:  # the probe's whole point: anything else is a crash
                    crashes.append(f"{path} {value!r} {fmt.value}: {type(e).__name__}: {e}")
                else:
                    counts["rendered"] += 1
    return len(paths), counts, crashes


@pytest.mark.parametrize("name", REPORTS)
def test_no_damage_to_a_report_crashes_a_renderer(name: str) -> None:
    report = json.loads((GOLDEN / name / "expected.json").read_text("utf-8"))
    for fmt in ReportFormat:
        render(report, fmt.value)  # the report itself renders
    tried, counts, crashes = probe(report)
    assert crashes == []
    assert tried > 80
    assert counts["refused"] > 0
    assert counts["rendered"] > 0


@pytest.mark.parametrize(
    ("path", "value", "problem"),
    [
        (["results", 1, "errors"], [], "$.results[1].errors: does not agree with the findings"),
        (["results", 1, "status"], "pass", "$.results[1].status: a row with an error finding does not pass"),
        (["results", 0, "location", "line_end"], _DELETE, "$.results[0].location.line_end: required field"),
        (["results", 0, "record", "agency"], _DELETE, "$.results[0].record.agency: required field"),
        (["results", 0, "record", "years"], "x", "$.results[0].record.years: expected an object"),
        (["results", 0, "record", "authors", 0], None, "$.results[0].record.authors[0]: expected a string"),
        (["results", 1, "findings", 1, "suggestion", "span"], "x",
         "$.results[1].findings[1].suggestion.span: expected an object"),
        (["results", 0, "input_path"], "line ", "$.results[0].input_path: expected 'line N' or 'line N:M'"),
    ],
)  # fmt: skip
def test_the_rules_across_fields_name_the_path(path: list[str | int], value: Any, problem: str) -> None:
    report = json.loads((GOLDEN / "seed000" / "expected.json").read_text("utf-8"))
    with pytest.raises(InputError) as caught:
        render(_damaged(report, tuple(path), value), "junit")
    assert str(caught.value).startswith(f"<report>: {problem}")
