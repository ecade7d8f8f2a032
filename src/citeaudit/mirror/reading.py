"""Reading dump files with bounded memory, and the read errors of a broken download as one-line
errors: a gzip stream cut short, corrupt compressed data, a record longer than the limit."""

from __future__ import annotations

import gzip
import json
import re
import tarfile
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from citeaudit.mirror.interface import PASSED, DumpFile, Keep, MirrorError

__all__ = [
    "DEFAULT_MAX_RECORD_BYTES",
    "TOO_DEEP",
    "TOO_DEEP_REASON",
    "dump_files",
    "json_items",
    "json_lines",
    "open_maybe_gzip",
    "read_errors",
]

#: The longest record (a JSON line, a Crossref work) read; a longer one is skipped or refused, so a
#: corrupt file with no line breaks cannot take the memory. Real records are under a few MB.
DEFAULT_MAX_RECORD_BYTES = 64 * 1024 * 1024

_CHUNK = 1 << 20


class _TooDeep:
    """A record nested deeper than a JSON reader goes (thousands of levels: no real record is)."""

    def __repr__(self) -> str:
        return "TOO_DEEP"


#: What the readers give for a record nested too deeply to decode: an importer counts it skipped.
TOO_DEEP = _TooDeep()
TOO_DEEP_REASON = "a record nested too deeply to read"
# A JSON string (complete, or cut short at the window's end) or a bracket: what a record's extent
# is found by when it cannot be decoded.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.S)
# The escape of a UTF-16 surrogate (``\ud800``): alone, a character no UTF-8 can write.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")


def _int_or_float(digits: str) -> int | float:
    """A JSON integer; one of more digits than ``int()`` reads is the float it is (inf)."""
    try:
        return int(digits)
    except ValueError:
        return float(digits)


# The decoder a value is read again with when an integer in it is too long for int().
_LONG_NUMBERS = json.JSONDecoder(parse_int=_int_or_float)


def _whole_characters(value: Any) -> Any:
    """``value`` with each lone surrogate of its strings (escaped in the JSON, which decodes it
    as written) replaced by U+FFFD: a title with one broken character is still the work, and the
    mirror, its index and its reports are UTF-8. Recursive: called only on a value that was
    decoded, so no deeper than the decoder went."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return value
    if isinstance(value, list):
        return [_whole_characters(v) for v in value]
    if isinstance(value, dict):
        return {_whole_characters(k): _whole_characters(v) for k, v in value.items()}
    return value


def open_maybe_gzip(path: Path) -> BinaryIO:
    """The file's bytes, decompressed when it is gzip (by its magic number, not its name)."""
    raw = path.open("rb")  # handed to the caller, who closes it
    if raw.read(2) == b"\x1f\x8b":
        raw.seek(0)
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    raw.seek(0)
    return raw


@contextmanager
def read_errors(name: str) -> Iterator[None]:
    """Read errors of a dump file as :class:`MirrorError` naming it."""
    try:
        yield
    except EOFError:
        raise MirrorError(
            f"{name}: the gzip stream is truncated (the file ends before its compressed data does); "
            "download it again"
        ) from None
    except gzip.BadGzipFile as e:
        raise MirrorError(f"{name}: not a valid gzip file ({e})") from None
    except zlib.error as e:
        raise MirrorError(f"{name}: corrupt compressed data ({e}); download it again") from None
    except UnicodeDecodeError as e:
        raise MirrorError(f"{name}: byte {e.start} of a record is not UTF-8") from None
    except tarfile.TarError as e:
        raise MirrorError(f"{name}: not a readable tar archive ({e})") from None


def _file(path: Path, opener: Callable[[Path], BinaryIO] = open_maybe_gzip) -> DumpFile:
    st = path.stat()
    return DumpFile(str(path.resolve()), st.st_size, int(st.st_mtime), lambda: opener(path))


def _tar_members(path: Path, suffixes: Sequence[str]) -> list[DumpFile]:
    """The members of a tar archive whose names end with one of ``suffixes``, each opened by
    reading the archive up to it (tar has no index), in the archive's order."""
    out = []
    with read_errors(str(path)), tarfile.open(path) as tar:
        for member in tar:
            if member.isfile() and member.name.endswith(tuple(suffixes)):
                out.append(
                    DumpFile(
                        f"{path.resolve()}:{member.name}",
                        member.size,
                        int(member.mtime),
                        _member_opener(path, member.name),
                    )
                )
    return out


def _member_opener(path: Path, member: str) -> Callable[[], BinaryIO]:
    def open_member() -> BinaryIO:
        tar = tarfile.open(path)  # noqa: SIM115  # lives as long as the member's stream
        stream = tar.extractfile(member)
        if stream is None:  # listed as a file a moment ago
            raise MirrorError(f"{path}:{member}: cannot be read from the archive")
        raw: BinaryIO = stream  # type: ignore[assignment]
        head = raw.read(2)
        raw.seek(0)
        return gzip.GzipFile(fileobj=raw, mode="rb") if head == b"\x1f\x8b" else raw  # type: ignore[return-value]

    return open_member


def dump_files(path: str, suffixes: Sequence[str]) -> list[DumpFile]:
    """The dump files a command-line argument names: a file, a folder (its files ending with one
    of ``suffixes``, sorted, recursively) or a tar archive (its members ending so)."""
    p = Path(path)
    if not p.exists():
        raise MirrorError(f"{path}: no such file or folder")
    if p.is_dir():
        files = sorted(f for f in p.rglob("*") if f.is_file() and f.name.endswith(tuple(suffixes)))
        if not files:
            raise MirrorError(f"{path}: the folder holds no {' or '.join(suffixes)} file")
        return [_file(f) for f in files]
    if p.name.endswith((".tar", ".tar.gz", ".tgz")) and tarfile.is_tarfile(p):
        members = _tar_members(p, suffixes)
        if not members:
            raise MirrorError(f"{path}: the archive holds no {' or '.join(suffixes)} file")
        return members
    return [_file(p)]


def json_lines(stream: BinaryIO, skip: int, max_bytes: int, keep: Keep | None = None) -> Iterator[Any]:
    """The JSON value of every non-blank line after the first ``skip``; ``None`` for a line that
    is longer than ``max_bytes`` (read past in bounded chunks) or not valid JSON; :data:`TOO_DEEP`
    for one nested deeper than JSON readers go; :data:`PASSED`,
    not decoded, for one that ``keep`` (given the line's number after those skipped) leaves out."""
    seen = 0
    while True:
        line = stream.readline(max_bytes + 1)
        if not line:
            return
        too_long = len(line) > max_bytes and not line.endswith(b"\n")
        while too_long:  # drop the rest of the line without holding it
            part = stream.readline(_CHUNK)
            if not part or part.endswith(b"\n"):
                break
        if not too_long and not line.strip():
            continue
        seen += 1
        if seen <= skip:
            continue
        if keep is not None and not keep(seen - skip - 1):
            yield PASSED
            continue
        if too_long:
            yield None
            continue
        try:
            yield orjson.loads(line)
        except ValueError:  # orjson refuses a few lines json reads (NaN, huge integers, lone surrogates)
            try:
                yield _whole_characters(json.loads(line))
            except RecursionError:  # orjson stops at 1,024 levels; json at the interpreter's limit
                yield TOO_DEEP
            except ValueError:
                yield None


def json_items(stream: BinaryIO, name: str, skip: int, max_bytes: int) -> Iterator[Any]:
    """Every element of the ``items`` array of one ``{"items": [...]}`` document after the first
    ``skip``, decoded one at a time from a bounded buffer (a file is never read whole);
    :data:`TOO_DEEP` for one nested deeper than the decoder goes (read past)."""
    decoder = json.JSONDecoder()
    reader = _Buffer(stream, name, max_bytes)
    reader.expect("{")
    seen = 0
    while True:
        key = reader.value()
        if not isinstance(key, str):
            raise MirrorError(f"{name}: expected a key of the top-level object, found {key!r}")
        reader.expect(":")
        if key != "items":
            reader.value()
        else:
            reader.expect("[")
            if not reader.peek("]"):
                while True:
                    seen += 1
                    item = reader.value(decoder)
                    if seen > skip:
                        yield item
                    if not reader.peek(","):
                        break
            reader.expect("]")
        if not reader.peek(","):
            break
    reader.expect("}")


class _Buffer:
    """A window on a UTF-8 JSON document: decodes one value at a time, reading more as needed."""

    def __init__(self, stream: BinaryIO, name: str, max_bytes: int) -> None:
        self.stream = stream
        self.name = name
        self.max_bytes = max_bytes
        self.text = ""
        self.pos = 0
        self.dropped = 0  # characters of the document before the window
        self.eof = False
        self.decoder = json.JSONDecoder()
        self._utf8 = _Utf8Reader(stream)

    def _more(self, size: int = _CHUNK) -> bool:
        if self.eof:
            return False
        chunk = self._utf8.read(size)
        if not chunk:
            self.eof = True
            return False
        if self.pos > len(self.text) // 2:
            self.dropped += self.pos
            self.text, self.pos = self.text[self.pos :], 0
        self.text += chunk
        return True

    def _skip_space(self) -> None:
        while True:
            while self.pos < len(self.text) and self.text[self.pos] in " \t\r\n":
                self.pos += 1
            if self.pos < len(self.text) or not self._more():
                return

    def peek(self, char: str) -> bool:
        """Consume ``char`` if it comes next (after whitespace)."""
        self._skip_space()
        if self.text.startswith(char, self.pos):
            self.pos += 1
            return True
        return False

    def expect(self, char: str) -> None:
        if not self.peek(char):
            found = self.text[self.pos : self.pos + 20] or "the end of the file"
            raise MirrorError(f"{self.name}: not a Crossref data file: expected {char!r}, found {found!r}")

    def value(self, decoder: json.JSONDecoder | None = None) -> Any:
        decoder = decoder or self.decoder
        self._skip_space()
        size = _CHUNK
        while True:
            try:
                value, end = decoder.raw_decode(self.text, self.pos)
            except RecursionError:
                return self._past_deep_value()
            except json.JSONDecodeError as e:
                truncated = e.pos >= len(self.text) or e.msg.startswith("Unterminated string")
                if not truncated:
                    raise MirrorError(
                        f"{self.name}: invalid JSON: {e.msg} (character {self.dropped + e.pos})"
                    ) from None
                if len(self.text) - self.pos > self.max_bytes:
                    raise MirrorError(
                        f"{self.name}: a record longer than {self.max_bytes} bytes; "
                        "the file is corrupt or not a Crossref data file"
                    ) from None
                if not self._more(size):
                    raise MirrorError(
                        f"{self.name}: invalid JSON: {e.msg} near the end of the file"
                    ) from None
                size = min(size * 2, 64 * _CHUNK)
                continue
            except ValueError:  # an integer of more digits than int() reads (4,300): read again
                if decoder is _LONG_NUMBERS:
                    raise
                decoder = _LONG_NUMBERS
                continue
            if end - self.pos > self.max_bytes:
                raise MirrorError(
                    f"{self.name}: a record longer than {self.max_bytes} bytes; "
                    "the file is corrupt or not a Crossref data file"
                )
            if end == len(self.text) and not self.eof and not isinstance(value, (dict, list, str)):
                self._more()  # a number at the window's edge may go on
                continue
            if _SURROGATE_ESCAPE.search(self.text, self.pos, end):
                try:
                    value = _whole_characters(value)
                except RecursionError:
                    value = TOO_DEEP
            self.pos = end
            return value

    def _past_deep_value(self) -> _TooDeep:
        """Reads past an array or object nested too deeply to decode, by its brackets (those in
        its strings aside), as far as the record limit; an invalid one is found by what follows."""
        size = _CHUNK
        while True:
            depth = 0
            for m in _TOKENS.finditer(self.text, self.pos):
                token = m.group()
                if token[0] == '"':
                    if len(token) < 2 or not token.endswith('"') or _escaped(token):
                        break  # a string cut short by the window's end
                    continue
                depth += 1 if token in "[{" else -1
                if depth == 0:
                    self.pos = m.end()
                    return TOO_DEEP
            if len(self.text) - self.pos > self.max_bytes:
                raise MirrorError(
                    f"{self.name}: a record longer than {self.max_bytes} bytes; "
                    "the file is corrupt or not a Crossref data file"
                )
            if not self._more(size):
                raise MirrorError(f"{self.name}: invalid JSON: a record nested too deeply ends with the file")
            size = min(size * 2, 64 * _CHUNK)


def _escaped(token: str) -> bool:
    """Whether the closing quote of a string token is escaped (an odd run of backslashes before it)."""
    run = len(token) - 1 - len(token[:-1].rstrip("\\"))
    return run % 2 == 1


class _Utf8Reader:
    """Decoded text of a byte stream, a chunk at a time, never splitting a character."""

    def __init__(self, stream: BinaryIO) -> None:
        import codecs

        self.stream = stream
        self.decoder = codecs.getincrementaldecoder("utf-8")("strict")

    def read(self, size: int) -> str:
        data = self.stream.read(size)
        return self.decoder.decode(data, final=not data)
