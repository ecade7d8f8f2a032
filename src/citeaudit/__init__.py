"""citeaudit: deterministic audits of the citations in what agents write."""

import os as _os
import signal as _signal
import sys as _sys


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
from citeaudit.util.version import __version__

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
