"""A versioned corpus of documents (seed 003): ``documents.json``
(``{id: {version, text}}``), a JSONL file of ``{id, version, text}`` lines, or
a directory with a ``manifest.json`` (``{id: {version, file}}``) next to its
text files. Texts are newline-normalised: offsets are defined over that text.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from pydantic import Field

from citeaudit.errors import InputError
from citeaudit.formats.validate import StrictWire, expect_object, validate
from citeaudit.locate import SourceText
from citeaudit.sources.interface import normalize_newlines
from citeaudit.util.jsonload import DEFAULT_MAX_BYTES, json_path, load_json_bytes, read_input

__all__ = ["Corpus", "Document", "load_corpus"]

# The default of ``max_document_bytes``.
DEFAULT_MAX_DOCUMENT_BYTES = 256 * 1024 * 1024

Version = Annotated[str, Field(min_length=1, max_length=200)] | int


class _DocumentIn(StrictWire):
    version: Version
    text: str
    title: str | None = None


class _LineIn(_DocumentIn):
    id: Annotated[str, Field(min_length=1, max_length=200)]


class _ManifestEntryIn(StrictWire):
    version: Version
    file: Annotated[str, Field(min_length=1, max_length=255)]
    title: str | None = None


@dataclass(frozen=True, slots=True)
class Document:
    id: str
    version: str
    text: str
    title: str | None = None


class Corpus:
    """Documents by id, read once; lookups are dictionary reads. The search
    forms of a text (folded text, line index) are kept across audits."""

    def __init__(self, documents: dict[str, Document], name: str) -> None:
        self.documents = documents
        self.name = name
        self._texts: dict[str, SourceText] = {}

    def get(self, document_id: str) -> Document | None:
        return self.documents.get(document_id)

    def text_of(self, document: Document) -> SourceText:
        text = self._texts.get(document.id)
        if text is None or text.text is not document.text:
            text = self._texts[document.id] = SourceText(document.text)
        return text


def _from_json(path: Path, max_bytes: int) -> Corpus:
    name = str(path)
    top = expect_object(load_json_bytes(read_input(path, max_bytes), name), name, [])
    docs = {}
    for doc_id, raw in top.items():
        d = validate(_DocumentIn, raw, name, [doc_id])
        docs[doc_id] = Document(doc_id, str(d.version), normalize_newlines(d.text), d.title)
    return Corpus(docs, path.name)


def _from_jsonl(path: Path, max_bytes: int) -> Corpus:
    name = str(path)
    docs: dict[str, Document] = {}
    for number, line in enumerate(read_input(path, max_bytes).split(b"\n"), 1):
        if not line.strip():
            continue
        where = f"{name}:{number}"
        d = validate(_LineIn, load_json_bytes(line, where), where, [])
        if d.id in docs:
            raise InputError(where, json_path(["id"]), f"duplicate document id {d.id!r}")
        docs[d.id] = Document(d.id, str(d.version), normalize_newlines(d.text), d.title)
    return Corpus(docs, path.name)


def _from_directory(root: Path, max_bytes: int, max_document_bytes: int) -> Corpus:
    manifest = root / "manifest.json"
    name = str(manifest)
    top = expect_object(load_json_bytes(read_input(manifest, max_bytes), name), name, [])
    docs = {}
    base = root.resolve()
    for doc_id, raw in top.items():
        entry = validate(_ManifestEntryIn, raw, name, [doc_id])
        try:
            target = (root / entry.file).resolve()
        except (ValueError, OSError, RuntimeError) as e:  # a NUL in the name, a symlink loop
            raise InputError(name, json_path([doc_id, "file"]), f"not a usable file name: {e}") from None
        if base not in target.parents:
            raise InputError(
                name, json_path([doc_id, "file"]), "the file must lie inside the corpus directory"
            )
        data = read_input(target, max_document_bytes)  # a regular file or a pipe, within the bound
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            problem = f"not valid UTF-8: byte 0x{data[e.start]:02x} at offset {e.start}"
            raise InputError(str(target), "", problem) from None
        docs[doc_id] = Document(doc_id, str(entry.version), normalize_newlines(text), entry.title)
    return Corpus(docs, root.name)


def load_corpus(
    path: Path, max_bytes: int = DEFAULT_MAX_BYTES, max_document_bytes: int = DEFAULT_MAX_DOCUMENT_BYTES
) -> Corpus:
    """Read a corpus in any of the three forms; bad input is an InputError. ``max_bytes`` bounds
    the JSON files, ``max_document_bytes`` each text file of a corpus directory."""
    if path.is_dir():
        return _from_directory(path, max_bytes, max_document_bytes)
    if path.suffix == ".jsonl":
        return _from_jsonl(path, max_bytes)
    return _from_json(path, max_bytes)
