"""How every human format names the pinned page a web citation was checked against: the URL as
cited, the final URL it was pinned from, and the digest of the pinned text."""

from __future__ import annotations

from typing import Any

from citeaudit.normalize import show_controls

__all__ = ["pinned_page"]


def pinned_page(row: dict[str, Any]) -> str | None:
    """``URL, pinned from FINAL (HTTP 200, fetched AT), text SHA-256 D`` for a web citation's
    row (plain text: each format escapes it); None for any other row. A display control in a URL
    (U+202E turns ``a\u202egnp.exe`` into what reads as ``aexe.png``) is written out, ``<U+202E>``,
    as every format writes it in a finding's message."""
    source, record = row.get("source") or {}, row.get("record") or {}
    if source.get("kind") != "url":
        return None
    words = show_controls(str(source.get("url")))
    if record.get("final_url"):
        fetched = f"HTTP {record.get('status')}, fetched {record.get('fetched_at')}"
        words += f", pinned from {show_controls(str(record['final_url']))} ({fetched})"
        if record.get("text_sha256"):
            words += f", text SHA-256 {record['text_sha256']}"
    else:
        words += ", not pinned"
    return words
