"""One exception root, one subclass per layer.

Every error a person can cause (a bad file, a bad flag, a bad configuration)
is a :class:`CiteauditError`; ``main()`` catches it once and prints
:meth:`CiteauditError.diagnostics`. Anything else is a bug and keeps its
traceback.
"""

from __future__ import annotations

__all__ = [
    "CacheError",
    "CiteauditError",
    "ConfigError",
    "InputError",
    "ResolveError",
    "SourceError",
]


class CiteauditError(Exception):
    """Root of every error citeaudit raises on purpose."""

    def diagnostics(self) -> str:
        """A one-line explanation for a person."""
        return str(self)


class InputError(CiteauditError):
    """The audited input is not valid: file, JSON path and problem."""

    def __init__(self, file: str, path: str, problem: str) -> None:
        self.file = file
        self.path = path
        self.problem = problem
        super().__init__(f"{file}: {path}: {problem}" if path else f"{file}: {problem}")


class ConfigError(CiteauditError):
    """A configuration file, environment variable or flag has a bad value."""


class CacheError(CiteauditError):
    """The registry cache cannot be read or written."""


class SourceError(CiteauditError):
    """A source text store cannot be read."""


class ResolveError(CiteauditError):
    """A registry lookup failed for a reason that is not a final answer."""
