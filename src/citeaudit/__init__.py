"""citeaudit: deterministic audits of the citations in what agents write."""

import os as _os
import signal as _signal
import sys as _sys
from typing import TYPE_CHECKING as _TYPE_CHECKING


def _interrupted_while_starting(signum: int, frame: object) -> None:
    """Ctrl-C while the command line is still importing: one line and 130, as later on."""
    _sys.stderr.write("citeaudit: interrupted\n")
    _os._exit(130)


# Only for the command line (the console script, ``python -m citeaudit``), never for a program that
# imports the library; ``citeaudit.cli.main`` puts Python's own handler back once it runs.
if _os.path.basename(_sys.argv[0] if _sys.argv else "") in ("citeaudit", "-m") and (
    _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler
):
    _signal.signal(_signal.SIGINT, _interrupted_while_starting)

from citeaudit.util.version import __version__

if _TYPE_CHECKING:
    from citeaudit.api import (
        Feedback,
        FixItem,
        Problem,
        RepairResult,
        WeakClaim,
        audit,
        feedback,
        feedback_text,
        render,
        repair_loop,
    )
    from citeaudit.core import AuditSettings
    from citeaudit.errors import CiteauditError, ConfigError, InputError
    from citeaudit.formats import load_submission, parse_bytes, parse_document
    from citeaudit.model import (
        Citation,
        Claim,
        ClaimResult,
        ClaimStatus,
        Decision,
        Finding,
        Report,
        ReportStatus,
        Review,
        Row,
        Severity,
        Submission,
        Verdict,
    )

__all__ = [
    "AuditSettings",
    "Citation",
    "CiteauditError",
    "Claim",
    "ClaimResult",
    "ClaimStatus",
    "ConfigError",
    "Decision",
    "Feedback",
    "Finding",
    "FixItem",
    "InputError",
    "Problem",
    "RepairResult",
    "Report",
    "ReportStatus",
    "Review",
    "Row",
    "Severity",
    "Submission",
    "Verdict",
    "WeakClaim",
    "__version__",
    "audit",
    "feedback",
    "feedback_text",
    "load_submission",
    "parse_bytes",
    "parse_document",
    "render",
    "repair_loop",
]

# The public names, each with the module that defines it. They are imported when first used
# (PEP 562), so ``citeaudit --version`` and a program that needs only the model do not pay for
# the whole audit (the resolvers, the input formats, the report formats) at start-up.
_PUBLIC_MODULES = {
    "citeaudit.api": (
        "Feedback",
        "FixItem",
        "Problem",
        "RepairResult",
        "WeakClaim",
        "audit",
        "feedback",
        "feedback_text",
        "render",
        "repair_loop",
    ),
    "citeaudit.core": ("AuditSettings",),
    "citeaudit.errors": ("CiteauditError", "ConfigError", "InputError"),
    "citeaudit.formats": ("load_submission", "parse_bytes", "parse_document"),
    "citeaudit.model": (
        "Citation",
        "Claim",
        "ClaimResult",
        "ClaimStatus",
        "Decision",
        "Finding",
        "Report",
        "ReportStatus",
        "Review",
        "Row",
        "Severity",
        "Submission",
        "Verdict",
    ),
}
_MODULE_OF = {name: module for module, names in _PUBLIC_MODULES.items() for name in names}


def __getattr__(name: str) -> object:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'citeaudit' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module), name)
    globals()[name] = value  # once: later look-ups do not come here
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
