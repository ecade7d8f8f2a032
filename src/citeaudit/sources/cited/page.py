"""Basis ``page``: the text of a web page as pinned."""

from __future__ import annotations

from citeaudit.sources.cited.interface import Basis, CitedText
from citeaudit.sources.interface import Pin

__all__ = ["page_text"]


def page_text(pin: Pin) -> CitedText | None:
    """The extracted text of a page found when it was pinned; None for one not found or empty."""
    if not pin.found or not pin.text or not pin.text.strip():
        return None
    return CitedText(Basis.PAGE, f"page {pin.url} as pinned {pin.fetched_at}", pin.text)
