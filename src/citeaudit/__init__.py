"""citeaudit: deterministic audits of the citations in what agents write."""

__version__ = "0.1.0"

from citeaudit.audit import AuditSettings, audit
from citeaudit.errors import CiteauditError, InputError
from citeaudit.formats import load_submission, parse_bytes, parse_document
from citeaudit.model import Report, Submission

__all__ = [
    "AuditSettings",
    "CiteauditError",
    "InputError",
    "Report",
    "Submission",
    "__version__",
    "audit",
    "load_submission",
    "parse_bytes",
    "parse_document",
]
