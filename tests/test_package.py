"""The packages whose public names are imported when first used (PEP 562): ``citeaudit``,
``citeaudit.batch`` and ``citeaudit.report``. Every name of their ``__all__`` is there and is the
object its module defines; importing the package alone imports none of them."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from types import ModuleType

import pytest

import citeaudit
import citeaudit.batch
import citeaudit.report

LAZY = {
    citeaudit: {
        "citeaudit.api": ["Feedback", "FixItem", "Problem", "RepairResult", "WeakClaim", "audit",
                          "feedback", "feedback_text", "render", "repair_loop"],
        "citeaudit.core": ["AuditSettings"],
        "citeaudit.errors": ["CiteauditError", "ConfigError", "InputError"],
        "citeaudit.formats": ["load_submission", "parse_bytes", "parse_document"],
        "citeaudit.model": ["Citation", "Claim", "ClaimResult", "ClaimStatus", "Decision", "Finding",
                            "Report", "ReportStatus", "Review", "Row", "Severity", "Submission", "Verdict"],
        "citeaudit.util.version": ["__version__"],
    },
    citeaudit.batch: {
        "citeaudit.batch.options": ["BatchOptions"],
        "citeaudit.batch.run": ["BatchOutcome", "run_batch"],
        "citeaudit.batch.wiring": ["WorkerSpec"],
    },
    citeaudit.report: {"citeaudit.report.json": ["render_json", "report_to_dict"]},
}  # fmt: skip


@pytest.mark.parametrize("package", list(LAZY), ids=lambda p: p.__name__)
def test_every_public_name_is_the_object_of_its_module(package: ModuleType) -> None:
    names = {name: module for module, names in LAZY[package].items() for name in names}
    assert sorted(package.__all__) == sorted(names)
    for name, module in names.items():
        assert getattr(package, name) is getattr(importlib.import_module(module), name), name
        assert name in dir(package)
    star: dict[str, object] = {}
    exec(f"from {package.__name__} import *", star)
    assert set(star) - {"__builtins__"} == set(names)


@pytest.mark.parametrize("package", list(LAZY), ids=lambda p: p.__name__)
def test_an_unknown_name_is_an_attribute_error(package: ModuleType) -> None:
    with pytest.raises(AttributeError, match=rf"^module '{package.__name__}' has no attribute 'nothing'$"):
        _ = package.nothing


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        ("import citeaudit", ["citeaudit", "citeaudit.util", "citeaudit.util.version"]),
        ("import citeaudit.batch", ["citeaudit", "citeaudit.batch", "citeaudit.util", "citeaudit.util.version"]),
        ("import citeaudit.report", ["citeaudit", "citeaudit.report", "citeaudit.util", "citeaudit.util.version"]),
        ("from citeaudit import __version__", ["citeaudit", "citeaudit.util", "citeaudit.util.version"]),
        ("from citeaudit import Severity", ["citeaudit", "citeaudit.model", "citeaudit.util", "citeaudit.util.version"]),
    ],
)  # fmt: skip
def test_importing_a_package_imports_none_of_its_names(statement: str, expected: list[str]) -> None:
    code = f"{statement}; import json, sys; print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'citeaudit')))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert json.loads(done.stdout) == expected
