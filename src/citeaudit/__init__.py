"""citeaudit: deterministic audits of the citations in what agents write."""

from citeaudit.api import RepairResult, audit, feedback, feedback_text, repair_loop
from citeaudit.core import AuditSettings
from citeaudit.errors import CiteauditError, InputError
from citeaudit.formats import load_submission, parse_bytes, parse_document
from citeaudit.model import Report, Submission
from citeaudit.util.version import __version__

__all__ = [
    "AuditSettings",
    "CiteauditError",
    "InputError",
    "RepairResult",
    "Report",
    "Submission",
    "__version__",
    "audit",
    "feedback",
    "feedback_text",
    "load_submission",
    "parse_bytes",
    "parse_document",
    "repair_loop",
]
