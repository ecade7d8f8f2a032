"""Web pages pinned beside the DOI snapshots: ``<slug>-<hash>.pin.json`` (the record) and, for a
page found, ``<slug>-<hash>.pin.txt`` (its extracted text), under the snapshot directory.

A pin is made only from a final answer: a 200 whose text could be extracted, or a 404/410 (the page
is not there). A transient failure, a page with no text, a robots.txt refusal, a refused address
are never pinned. Reading a pin checks that it is the pin of the URL asked for and that its text is
the text its digest names; anything else is "could not check" (``E_PIN_CORRUPT``), not trusted.

The text is extracted by :mod:`citeaudit.sources.extract` (trafilatura for HTML, pypdf for PDF);
the title comes from ``citation_title``, else ``og:title``, else ``<title>``.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from citeaudit.errors import SourceError
from citeaudit.sources.directory import DEFAULT_MAX_SNAPSHOT_BYTES
from citeaudit.sources.interface import Pin, PinAnswer, PinStore, digest_text, normalize_newlines
from citeaudit.util.atomic import atomic_write
from citeaudit.util.files import UnsafeFile, read_regular_file
from citeaudit.util.jsonload import load_json_bytes
from citeaudit.util.manifest import Manifest, ManifestError
from citeaudit.util.slugs import hashed_name

if TYPE_CHECKING:
    from citeaudit.resolve.web import PageAnswer, PageFailure, WebFetcher

__all__ = [
    "PIN_SCHEMA",
    "FetchingPins",
    "PinDirectory",
    "PinOutcome",
    "Pinner",
    "decode_page",
    "pin_file",
    "pin_from_answer",
    "require_web_extra",
    "same_page",
    "utc_now",
]

PIN_SCHEMA = "citeaudit-pin/1"
MAX_PIN_RECORD_BYTES = 1024 * 1024
NOT_FOUND = (404, 410)
_HTML_TYPES = ("text/html", "application/xhtml+xml")
_META_CHARSET_RE = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_HEADER_CHARSET_RE = re.compile(r"""charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_SPACES_RE = re.compile(r"\s+")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def utc_now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _versions(*libraries: str) -> dict[str, str]:
    from importlib import metadata  # only when a page is pinned

    out: dict[str, str] = {}
    for name in libraries:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


class _Heads(HTMLParser):
    """The titles and the DOI a page names in its head: citation_title, og:title, <title>."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.meta: dict[str, str] = {}
        self.title: list[str] = []
        self._in_title = False
        self._titles_seen = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title" and self._titles_seen == 0:
            self._in_title = True
        elif tag == "meta":
            values = {k.lower(): v or "" for k, v in attrs}
            name = (values.get("name") or values.get("property") or "").strip().lower()
            if (
                name in ("citation_title", "og:title", "citation_doi", "dc.identifier")
                and name not in self.meta
            ):
                self.meta[name] = values.get("content", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title" and self._in_title:
            self._in_title = False
            self._titles_seen += 1

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title.append(data)


def _clean(text: str) -> str:
    return _SPACES_RE.sub(" ", text).strip()


def _heads(html: str) -> tuple[tuple[str, ...], str | None]:
    """The page's titles (citation_title, og:title, <title>, each once, in that order) and its DOI."""
    parser = _Heads()
    try:
        parser.feed(html)
        parser.close()
    except AssertionError:  # html.parser on a malformed declaration: keep what was read
        pass
    found = [parser.meta.get("citation_title", ""), parser.meta.get("og:title", ""), "".join(parser.title)]
    titles = tuple(dict.fromkeys(t for t in (_clean(x) for x in found) if t))
    doi = _clean(parser.meta.get("citation_doi", "")) or None
    if doi is None:
        identifier = _clean(parser.meta.get("dc.identifier", ""))
        doi = identifier if identifier.lower().startswith(("10.", "doi:", "https://doi.org/")) else None
    return titles, doi


def _charset(content_type: str) -> str | None:
    m = _HEADER_CHARSET_RE.search(content_type)
    return m.group(1) if m else None


# Labels servers give by default whatever the bytes are (ISO-8859-1 is HTTP/1.1's old default):
# bytes that are valid UTF-8 are read as UTF-8 despite them, as the page extractor reads them.
_DEFAULT_LABELS = frozenset({"iso8859-1", "cp1252", "ascii"})


def _default_label(charset: str) -> bool:
    try:
        return codecs.lookup(charset).name in _DEFAULT_LABELS
    except LookupError:
        return False


def decode_page(body: bytes, content_type: str) -> str:
    """The text of an HTML or plain-text body: a byte-order mark, else the charset of the header,
    else of a ``<meta>`` (HTML), else UTF-8 when it is valid, else the charset detected. A Latin-1,
    Windows-1252 or ASCII label on bytes that are valid UTF-8 is read as UTF-8 (a UTF-8 page a
    server labels ISO-8859-1 was pinned as mojibake: "Ã©" for "é")."""
    for bom, marked in ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16")):
        if body.startswith(bom):
            return body.decode(marked, "replace")
    media = content_type.split(";", 1)[0].strip().lower()
    candidates: list[str | None] = [_charset(content_type)]
    if media in _HTML_TYPES or not media:
        m = _META_CHARSET_RE.search(body[:4096])
        candidates.append(m.group(1).decode("ascii") if m else None)
    for charset in candidates:
        if charset:
            if _default_label(charset):
                try:
                    return body.decode("utf-8")
                except UnicodeDecodeError:
                    pass
            try:
                return body.decode(charset)
            except (LookupError, UnicodeDecodeError):
                continue
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    best = from_bytes(body).best()
    if best is None:
        raise SourceError("the page's encoding could not be told")
    return str(best)


def _failure(code: str, reason: str) -> PageFailure:
    from citeaudit.resolve.web import PageFailure

    return PageFailure(code, reason)


def pin_from_answer(
    key: str, answer: PageAnswer, fetched_at: str, *, requested_url: str | None = None
) -> Pin | PageFailure:
    """The pin of a final answer, or why the answer cannot be pinned (always could-not-check)."""
    from citeaudit.sources.extract import extract_html, extract_pdf_bytes  # only to make a pin

    common: dict[str, Any] = {
        "url": key,
        "requested_url": requested_url or answer.url,
        "final_url": answer.final_url,
        "status": answer.status,
        "content_type": answer.content_type,
        "body_sha256": _sha256(answer.body),
        "fetched_at": fetched_at,
        "redirects": tuple(h.to_json() for h in answer.redirects),
    }
    if answer.status in NOT_FOUND:
        if answer.transient:
            reason = (
                f"HTTP {answer.status} after a transient failure ({answer.transient}): not taken as final"
            )
            return _failure("E_URL_UNREACHABLE", reason)
        return Pin(**common)
    if answer.status != 200:
        return _failure("E_URL_UNREACHABLE", f"{answer.final_url} answered HTTP {answer.status}")
    media = answer.content_type.split(";", 1)[0].strip().lower()
    titles: tuple[str, ...] = ()
    doi: str | None = None
    where = answer.final_url
    try:
        if media == "application/pdf" or (not media and answer.body.startswith(b"%PDF-")):
            text = extract_pdf_bytes(answer.body, where)
            extractor = _versions("pypdf")
            titles = _pdf_titles(answer.body)
        elif media in _HTML_TYPES or (not media and b"<html" in answer.body[:4096].lower()):
            html = decode_page(answer.body, answer.content_type)
            titles, doi = _heads(html)
            extractor = _versions("trafilatura")
            try:
                text = extract_html(html, where)
            except SourceError:
                text = ""
        elif media == "text/plain":
            text = normalize_newlines(decode_page(answer.body, answer.content_type)).strip()
            extractor = {}
        else:
            shown = media or "(none)"
            return _failure(
                "E_URL_UNREADABLE",
                f"{where}: the content type {shown} cannot be read (HTML, PDF, plain text)",
            )
    except SourceError as e:
        return _failure("E_URL_UNREADABLE", f"{where}: {e}")
    if not text.strip():
        return _failure(
            "E_URL_NO_TEXT",
            f"{where}: no text could be extracted from the page; it may need a browser to render "
            "(pin a saved copy with citeaudit snapshot --url)",
        )
    return Pin(
        **common,
        text=text,
        text_sha256=digest_text(text),
        title=titles[0] if titles else None,
        titles=titles,
        citation_doi=doi,
        extractor=extractor,
    )


def _pdf_titles(body: bytes) -> tuple[str, ...]:
    from io import BytesIO

    from pypdf import PdfReader

    try:
        info = PdfReader(BytesIO(body)).metadata
        title = _clean(str(info.title)) if info is not None and info.title else ""
    except Exception:  # a damaged info dictionary: no title, the text is what counts
        return ()
    return (title,) if title else ()


def _record(pin: Pin) -> dict[str, Any]:
    return {
        "body_sha256": pin.body_sha256,
        "citation_doi": pin.citation_doi,
        "content_type": pin.content_type,
        "extractor": dict(sorted(pin.extractor.items())),
        "fetched_at": pin.fetched_at,
        "final_url": pin.final_url,
        "redirects": list(pin.redirects),
        "requested_url": pin.requested_url,
        "schema": PIN_SCHEMA,
        "status": pin.status,
        "text_sha256": pin.text_sha256,
        "title": pin.title,
        "titles": list(pin.titles),
        "url": pin.url,
    }


class _Corrupt(Exception):
    pass


class _Untrusted(Exception):
    """A pin file whose bytes are not those the manifest records."""


def _str(data: dict[str, Any], key: str, optional: bool = False) -> Any:
    value = data.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise _Corrupt(f"{key} is not a string")
    return value


class PinDirectory(PinStore):
    """The pins under the snapshot directory; read-only unless :meth:`write` is called."""

    def __init__(self, root: Path, max_text_bytes: int = DEFAULT_MAX_SNAPSHOT_BYTES) -> None:
        self.root = root
        self.max_text_bytes = max_text_bytes  # a pin's text is bounded as a snapshot is
        self.manifest = Manifest(root)

    def paths(self, url: str) -> tuple[Path, Path]:
        return self.root / hashed_name(url, ".pin.json"), self.root / hashed_name(url, ".pin.txt")

    def lookup_many(self, urls: list[str]) -> dict[str, PinAnswer]:
        return {url: self.lookup(url) for url in urls}

    def urls(self) -> list[str]:
        """The URLs pinned here (by the record each pin file names), sorted."""
        found: set[str] = set()
        for path in sorted(self.root.glob("*.pin.json")) if self.root.is_dir() else ():
            try:
                record = load_json_bytes(read_regular_file(path, MAX_PIN_RECORD_BYTES), path.name)
            except Exception:  # unreadable: refresh reports nothing for it, check calls it corrupt
                continue
            url = record.get("url") if isinstance(record, dict) else None
            if isinstance(url, str) and path.name == hashed_name(url, ".pin.json"):
                found.add(url)
        return sorted(found)

    def lookup(self, url: str) -> PinAnswer:
        record_path, text_path = self.paths(url)
        try:
            data = read_regular_file(record_path, MAX_PIN_RECORD_BYTES)
        except FileNotFoundError:
            reason = f"offline, and no pin of {url} was found (citeaudit fetch pins it)"
            return PinAnswer(None, "E_NOT_PINNED", reason)
        except OSError as e:
            return PinAnswer(None, "E_PIN_CORRUPT", f"{record_path.name}: cannot read the pin: {e.strerror}")
        except UnsafeFile as e:
            return PinAnswer(None, "E_PIN_CORRUPT", f"{record_path.name}: the pin is not trusted: {e}")
        try:
            pin = self._parse(url, data, text_path)
            untrusted = self.manifest.problem(record_path.name, data)  # well formed; the bytes recorded?
            if untrusted is not None:
                raise _Untrusted(untrusted)
        except _Untrusted as e:
            return PinAnswer(None, "E_CACHE_CORRUPT", f"{record_path.name}: the pin was not trusted: {e}")
        except (_Corrupt, SourceError) as e:
            return PinAnswer(None, "E_PIN_CORRUPT", f"{record_path.name}: the pin is not trusted: {e}")
        return PinAnswer(pin)

    def _parse(self, url: str, data: bytes, text_path: Path) -> Pin:
        if len(data) > MAX_PIN_RECORD_BYTES:
            raise _Corrupt(f"the record is over {MAX_PIN_RECORD_BYTES} bytes")
        try:
            record = load_json_bytes(data, text_path.name)
        except Exception as e:  # the bounded reader's InputError, or anything malformed
            raise _Corrupt(f"the record is not valid JSON ({e})") from None
        if not isinstance(record, dict) or record.get("schema") != PIN_SCHEMA:
            raise _Corrupt(f"the record is not a {PIN_SCHEMA} record")
        if record.get("url") != url:
            raise _Corrupt(f"it is the pin of {record.get('url')!r}, not of {url}")
        status = record.get("status")
        if type(status) is not int:
            raise _Corrupt("status is not a number")
        text: str | None = None
        text_sha256 = _str(record, "text_sha256", optional=True)
        if status == 200:
            try:
                raw = read_regular_file(text_path, self.max_text_bytes)
            except OSError as e:
                raise _Corrupt(f"its text {text_path.name} cannot be read ({e.strerror})") from None
            except UnsafeFile as e:
                raise _Corrupt(f"its text {text_path.name} is not read: {e}") from None
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise _Corrupt(f"its text {text_path.name} is not UTF-8") from None
            if text_sha256 is None or digest_text(text) != text_sha256:
                raise _Corrupt(f"its text {text_path.name} is not the text its digest names")
            untrusted = self.manifest.problem(text_path.name, raw)
            if untrusted is not None:
                raise _Untrusted(f"its text {text_path.name}: {untrusted}")
        elif status not in NOT_FOUND:
            raise _Corrupt(f"status {status} is not a final answer")
        titles = record.get("titles", [])
        redirects = record.get("redirects", [])
        extractor = record.get("extractor", {})
        if not (isinstance(titles, list) and all(isinstance(t, str) for t in titles)):
            raise _Corrupt("titles is not a list of strings")
        if not (isinstance(redirects, list) and all(isinstance(r, dict) for r in redirects)):
            raise _Corrupt("redirects is not a list of objects")
        if not (isinstance(extractor, dict) and all(isinstance(v, str) for v in extractor.values())):
            raise _Corrupt("extractor is not a table of versions")
        return Pin(
            url=url,
            requested_url=_str(record, "requested_url"),
            final_url=_str(record, "final_url"),
            status=status,
            content_type=_str(record, "content_type"),
            body_sha256=_str(record, "body_sha256"),
            fetched_at=_str(record, "fetched_at"),
            text=text,
            text_sha256=text_sha256,
            title=_str(record, "title", optional=True),
            titles=tuple(titles),
            citation_doi=_str(record, "citation_doi", optional=True),
            redirects=tuple(redirects),
            extractor=dict(extractor),
        )

    def write(self, pin: Pin) -> None:
        """Both digests into the manifest, then the text, then the record that names its digest (a
        crash between leaves the old record, whose digest then refuses the new text: corrupt, never
        a wrong pass)."""
        record_path, text_path = self.paths(pin.url)
        text = pin.text.encode("utf-8") if pin.text is not None else None
        body = (json.dumps(_record(pin), ensure_ascii=False, sort_keys=True, indent=2) + "\n").encode("utf-8")
        try:
            self.manifest.record({text_path.name: text, record_path.name: body})  # before the files
        except ManifestError as e:
            raise SourceError(f"{record_path}: cannot record the pin in the manifest: {e}") from None
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            if text is not None:
                atomic_write(text_path, text)
            else:
                text_path.unlink(missing_ok=True)
            atomic_write(record_path, body)
        except OSError as e:
            raise SourceError(f"{record_path}: cannot write the pin: {e.strerror}") from None


Action = Literal["created", "unchanged", "changed", "replaced", "failed"]


@dataclass(frozen=True)
class PinOutcome:
    """What pinning one URL did: the pin kept, the one it found (if any), or why nothing was pinned."""

    url: str
    action: Action
    pin: Pin | None = None  # the pin now on disk (the old one when a change was not taken)
    previous: Pin | None = None
    new: Pin | None = None  # the page as fetched now, when it differs from the pin kept
    code: str = ""
    reason: str = ""

    def answer(self) -> PinAnswer:
        if self.pin is not None:
            return PinAnswer(self.pin)
        return PinAnswer(None, self.code, self.reason)


def same_page(a: Pin, b: Pin) -> bool:
    """Two pins of one page say the same: the same final status and the same text."""
    return a.status == b.status and a.text_sha256 == b.text_sha256


def require_web_extra() -> None:
    """Fetching pages needs protego (robots.txt), trafilatura and pypdf (the text): refused at once
    when one is missing, before any request (a missing extractor must not read as an empty page)."""
    missing = []
    for module in ("protego", "trafilatura", "pypdf"):
        try:
            __import__(module)
        except ImportError:
            missing.append(module)
    if missing:
        raise SourceError(
            f"fetching cited web pages needs {', '.join(missing)}: pip install 'citeaudit[web]'"
        )


class Pinner:
    """Fetches pages and pins their final answers in a :class:`PinDirectory`."""

    def __init__(
        self, directory: PinDirectory, fetcher: WebFetcher, now: Callable[[], str] = utc_now
    ) -> None:
        self.directory = directory
        self.fetcher = fetcher
        self.now = now

    def pin_many(self, urls: Iterable[str], *, replace_changed: bool = False) -> dict[str, PinOutcome]:
        wanted = sorted(set(urls))
        if wanted:
            require_web_extra()
        answers = self.fetcher.fetch_many(wanted) if wanted else {}
        fetched_at = self.now()
        return {url: self._keep(url, answers[url], fetched_at, replace_changed) for url in wanted}

    def _keep(
        self, url: str, answer: PageAnswer | PageFailure, fetched_at: str, replace_changed: bool
    ) -> PinOutcome:
        from citeaudit.resolve.web import PageFailure

        made = answer if isinstance(answer, PageFailure) else pin_from_answer(url, answer, fetched_at)
        old = self.directory.lookup(url).pin
        if isinstance(made, PageFailure):
            return PinOutcome(url, "failed", old, code=made.code, reason=made.reason)
        if old is None:
            self.directory.write(made)
            return PinOutcome(url, "created", made)
        if same_page(old, made):
            return PinOutcome(url, "unchanged", old)  # nothing written: the pin stays byte for byte
        if not replace_changed:
            return PinOutcome(url, "changed", old, previous=old, new=made)
        self.directory.write(made)
        return PinOutcome(url, "replaced", made, previous=old, new=made)


class FetchingPins(PinStore):
    """Pins first; a page not pinned yet is fetched and pinned (what ``check`` does online)."""

    def __init__(self, pinner: Pinner) -> None:
        self.pinner = pinner

    def lookup_many(self, urls: list[str]) -> dict[str, PinAnswer]:
        answers = self.pinner.directory.lookup_many(urls)
        missing = [url for url, answer in answers.items() if answer.code == "E_NOT_PINNED"]
        for url, outcome in self.pinner.pin_many(missing).items():
            answers[url] = outcome.answer()
        return answers


def pin_file(url: str, path: Path, content_type: str, fetched_at: str, max_bytes: int) -> Pin | PageFailure:
    """A saved HTML or PDF file read as the page of ``url`` (a page that needs a browser, one behind
    a login): the same extraction and the same record as a fetched page; the caller writes it."""
    from citeaudit.resolve.web import PageAnswer

    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise SourceError(
                f"{path}: {size} bytes, over the document limit of {max_bytes} (max_document_bytes)"
            )
        body = path.read_bytes()
    except OSError as e:
        raise SourceError(f"{path}: cannot read: {e.strerror}") from None
    answer = PageAnswer(url=url, final_url=url, status=200, content_type=content_type, body=body)
    return pin_from_answer(url, answer, fetched_at, requested_url=f"file:{path.name}")
