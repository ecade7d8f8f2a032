"""citeaudit: deterministic audits of the citations in what agents write."""

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
