"""Report formats, all rendered from one :class:`~citeaudit.model.Report`."""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from citeaudit.report.json import render_json, report_to_dict

__all__ = ["render_json", "report_to_dict"]


def __getattr__(name: str) -> object:
    """The JSON report's functions, imported when first used (PEP 562): the command line reads
    the table of formats (:mod:`citeaudit.report.formats`) to build its parser, without them."""
    if name not in __all__:
        raise AttributeError(f"module 'citeaudit.report' has no attribute {name!r}")
    from citeaudit.report import json

    value = getattr(json, name)
    globals()[name] = value
    return value
