"""Report formats, all rendered from one :class:`~citeaudit.model.Report`."""

from citeaudit.report.json import render_json, report_to_dict

__all__ = ["render_json", "report_to_dict"]
