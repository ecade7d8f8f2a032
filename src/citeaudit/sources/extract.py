"""Text snapshots from real documents: ``.txt``, ``.md``, ``.html`` and ``.pdf``.

The extracted text is what a revision stores and what ranges point into, so
extraction repairs what would otherwise break verbatim quotes:

* PDF (pypdf): words hyphenated across line ends are joined, ligatures
  (ﬁ, ﬂ, …) are folded, running headers and footers (a line repeated at the
  top or bottom of most pages, page numbers aside) are dropped, and the
  lines of a paragraph are joined with spaces.
* HTML (trafilatura): the main text only — no scripts, styles, navigation,
  headers or footers of the site.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from io import BytesIO
from pathlib import Path

from citeaudit.errors import SourceError
from citeaudit.sources.interface import normalize_newlines

# pypdf and trafilatura log what they repair or skip in a damaged file; with no handler
# configured Python would print that to stderr around our own one-line result or error.
for _library in ("pypdf", "trafilatura"):
    logging.getLogger(_library).addHandler(logging.NullHandler())

__all__ = [
    "DEFAULT_MAX_DOCUMENT_BYTES",
    "SUPPORTED_SUFFIXES",
    "clean_pdf_pages",
    "extract_file",
    "extract_html",
    "extract_pdf_bytes",
]

SUPPORTED_SUFFIXES = (".txt", ".md", ".html", ".htm", ".pdf")

_LIGATURES = str.maketrans(
    {
        "\ufb00": "ff",
        "\ufb01": "fi",
        "\ufb02": "fl",
        "\ufb03": "ffi",
        "\ufb04": "ffl",
        "\ufb05": "st",
        "\ufb06": "st",
    }
)
# A word broken at a line end: "experi-\nment". Only when the next line goes on in lower case,
# so "Covid-\n19" or a dash before a capitalised name stays.
# Starts only where a word starts: from inside a long run of letters it would scan the run
# again at every position (a 40,000-letter run: 36 s).
_HYPHENATED_RE = re.compile(r"(?<![^\W\d_])([^\W\d_]+)([-\u00ad\u2010])\n([a-zà-ÿа-яё][^\W\d_]*)", re.UNICODE)
_SOFT_HYPHEN_RE = re.compile("\u00ad")
_DIGITS_RE = re.compile(r"\d+")


def _edge_key(line: str) -> str:
    """A running header with its page number replaced, spaces collapsed."""
    return " ".join(_DIGITS_RE.sub("#", line).split()).casefold()


def _rejoin(match: re.Match[str], text: str) -> str:
    """A hyphenated word: joined, unless the document writes it with its hyphen
    elsewhere ("well-calibrated"), in which case the hyphen was the word's own."""
    left, hyphen, right = match.groups()
    if hyphen == "-" and f"{left}-{right}" in text:
        return f"{left}-{right}"
    return left + right


def clean_pdf_pages(pages: list[str]) -> str:
    """Join page texts into one snapshot text (see the module notes)."""
    split = [[ln.rstrip() for ln in normalize_newlines(p).translate(_LIGATURES).split("\n")] for p in pages]
    edges: Counter[str] = Counter()
    for lines in split:
        content = [ln for ln in lines if ln.strip()]
        for line in {*content[:2], *content[-2:]}:
            edges[_edge_key(line)] += 1
    threshold = max(2, (len(pages) + 1) // 2)
    running = {key for key, n in edges.items() if n >= threshold and key}
    kept_pages = []
    for lines in split:
        content_idx = [i for i, ln in enumerate(lines) if ln.strip()]
        edge_idx = set(content_idx[:2] + content_idx[-2:])
        kept = [ln for i, ln in enumerate(lines) if not (i in edge_idx and _edge_key(ln) in running)]
        kept_pages.append("\n".join(kept).strip("\n"))
    text = "\n".join(p for p in kept_pages if p)
    text = _HYPHENATED_RE.sub(lambda m: _rejoin(m, text), text)
    text = _SOFT_HYPHEN_RE.sub("", text)
    # Paragraphs are separated by blank lines; the lines of one paragraph become one line.
    paragraphs = re.split(r"\n\s*\n", text)
    return "\n\n".join(
        " ".join(line.strip() for line in p.split("\n") if line.strip()) for p in paragraphs
    ).strip()


def _extract_pdf(path: Path | BytesIO, name: str) -> str:
    try:
        from pypdf import PdfReader
    except ModuleNotFoundError:
        raise SourceError("reading PDF needs pypdf: pip install 'citeaudit[documents]'") from None
    try:
        reader = PdfReader(path)
        pages = [page.extract_text() or "" for page in reader.pages]
    except Exception as e:  # a damaged file: PyPdfError, but also NotImplementedError, KeyError…
        raise SourceError(f"{name}: cannot read the PDF: {e}") from None
    text = clean_pdf_pages(pages)
    if not text:
        raise SourceError(f"{name}: the PDF has no extractable text (a scan needs OCR first)")
    return text


def extract_pdf_bytes(data: bytes, name: str = "document") -> str:
    """The snapshot text of a PDF held in memory (a fetched page), as :func:`extract_file` reads a file."""
    return _extract_pdf(BytesIO(data), name)


def extract_html(html: str, name: str = "document") -> str:
    try:
        import trafilatura
    except ModuleNotFoundError:
        raise SourceError("reading HTML needs trafilatura: pip install 'citeaudit[documents]'") from None
    text = trafilatura.extract(
        html, include_comments=False, include_tables=True, favor_precision=True, deduplicate=False
    )
    if not text or not text.strip():
        raise SourceError(f"{name}: no main text found in the HTML")
    return normalize_newlines(text).strip()


def _decode(path: Path, data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise SourceError(
            f"{path}: not valid UTF-8 (byte 0x{data[e.start]:02x} at offset {e.start})"
        ) from None


DEFAULT_MAX_DOCUMENT_BYTES = 256 * 1024 * 1024


def extract_file(path: Path, max_bytes: int = DEFAULT_MAX_DOCUMENT_BYTES) -> str:
    """The snapshot text of a file, by its suffix; a file over ``max_bytes`` is refused
    before it is read (documents are untrusted input, like claims)."""
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise SourceError(
            f"{path}: unsupported file type {suffix or '(none)'}; use {', '.join(SUPPORTED_SUFFIXES)}"
        )
    if not path.is_file():
        raise SourceError(f"{path}: no such file")
    size = path.stat().st_size
    if size > max_bytes:
        raise SourceError(
            f"{path}: {size} bytes, over the document limit of {max_bytes} (max_document_bytes)"
        )
    if suffix == ".pdf":
        return _extract_pdf(path, str(path))
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise SourceError(f"{path}: no such file") from None
    except OSError as e:
        raise SourceError(f"{path}: cannot read: {e.strerror}") from None
    text = _decode(path, data)
    if suffix in (".html", ".htm"):
        return extract_html(text, str(path))
    return normalize_newlines(text)
