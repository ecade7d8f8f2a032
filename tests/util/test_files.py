"""Files a committed cache or a pull request's pins may hold that are no entry of ours: a link to
/dev/zero, a FIFO with no writer, a 2 GB sparse file. Each is refused at once, unread, as
"could not check" (E_CACHE_CORRUPT, E_PIN_CORRUPT), never a hang or gigabytes of memory."""

from __future__ import annotations

import os
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from citeaudit.resolve.cache import DoiCache
from citeaudit.resolve.interface import Resolution
from citeaudit.sources.interface import Pin, PinAnswer
from citeaudit.sources.pins import PinDirectory, pin_from_answer
from citeaudit.util.files import UnsafeFile, read_regular_file
from tests.sources.test_pins import AT, URL, answer
from tests.web_server import wrap

LINK = "it is a symbolic link, not a regular file"
NOT_REGULAR = "it is not a regular file (a FIFO, a device, a socket or a directory)"


def _zero_link(path: Path) -> str:
    path.symlink_to("/dev/zero")
    return LINK


def _fifo(path: Path) -> str:
    os.mkfifo(path)  # no writer: a plain open() of it waits for one forever
    return NOT_REGULAR


def _sparse(path: Path) -> str:
    with path.open("wb") as fh:
        fh.truncate(2 * 1024**3)  # 2 GB that take no disk, and would take 2 GB of memory
    return f"it is {2 * 1024**3} bytes, over the limit of "


def _directory(path: Path) -> str:
    path.mkdir()
    return NOT_REGULAR


HOSTILE: dict[str, Callable[[Path], str]] = {
    "link to /dev/zero": _zero_link,
    "fifo": _fifo,
    "sparse 2 GB": _sparse,
    "directory": _directory,
}


def test_a_regular_file_is_read_up_to_its_bound(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"x" * 10)
    assert read_regular_file(path, 10) == b"x" * 10
    with pytest.raises(UnsafeFile, match=r"^it is 10 bytes, over the limit of 9$"):
        read_regular_file(path, 9)
    with pytest.raises(FileNotFoundError):
        read_regular_file(tmp_path / "missing", 10)
    (tmp_path / "link").symlink_to(path)
    assert read_regular_file(tmp_path / "link", 10, follow_links=True) == b"x" * 10
    with pytest.raises(UnsafeFile, match=f"^{LINK}$"):
        read_regular_file(tmp_path / "link", 10)


@pytest.mark.timeout(30)
@pytest.mark.parametrize("kind", HOSTILE)
def test_a_cache_entry_that_is_not_a_bounded_regular_file_is_corrupt_unread(
    tmp_path: Path, kind: str
) -> None:
    cache = DoiCache(tmp_path)
    doi = "10.1/x"
    said = HOSTILE[kind](cache.path_for(doi))
    tracemalloc.start()
    try:
        got = cache.get(doi)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert got is not None
    assert got.code == "E_CACHE_CORRUPT"
    assert got.reason.startswith(
        f"cache entry {cache.path_for(doi).name} is not valid and was not trusted: {said}"
    )
    assert peak < 1 << 20  # nothing of it was read
    assert cache.dois() == []  # and listing the cache skips it too


@pytest.mark.timeout(30)
@pytest.mark.parametrize("kind", HOSTILE)
def test_an_agency_entry_that_is_not_a_bounded_regular_file_is_a_miss(tmp_path: Path, kind: str) -> None:
    cache = DoiCache(tmp_path)
    cache.put_agency("10.1", "Crossref")
    path = next((tmp_path / "agencies").iterdir())
    path.unlink()
    HOSTILE[kind](path)
    assert cache.get_agency("10.1") is None  # looked up afresh online; never trusted, never a wait


def _pinned(tmp_path: Path) -> tuple[PinDirectory, Path, Path]:
    directory = PinDirectory(tmp_path)
    html = wrap("Budget", ["The committee approved the new budget after a long debate on Tuesday."])
    pin = pin_from_answer(URL, answer(html.encode(), "text/html"), AT)
    assert isinstance(pin, Pin)
    directory.write(pin)
    assert directory.lookup(URL) == PinAnswer(pin)
    record, text = directory.paths(URL)
    return directory, record, text


@pytest.mark.timeout(30)
@pytest.mark.parametrize("kind", HOSTILE)
def test_a_pin_record_that_is_not_a_bounded_regular_file_is_corrupt_unread(tmp_path: Path, kind: str) -> None:
    directory, record, _ = _pinned(tmp_path)
    record.unlink()
    said = HOSTILE[kind](record)
    got = directory.lookup(URL)
    assert (got.pin, got.code) == (None, "E_PIN_CORRUPT")
    assert got.reason.startswith(f"{record.name}: the pin is not trusted: {said}")
    assert directory.urls() == []


@pytest.mark.timeout(30)
@pytest.mark.parametrize("kind", HOSTILE)
def test_a_pin_text_that_is_not_a_bounded_regular_file_is_corrupt_unread(tmp_path: Path, kind: str) -> None:
    directory, record, text = _pinned(tmp_path)
    text.unlink()
    said = HOSTILE[kind](text)
    got = directory.lookup(URL)
    assert (got.pin, got.code) == (None, "E_PIN_CORRUPT")
    assert got.reason.startswith(
        f"{record.name}: the pin is not trusted: its text {text.name} is not read: {said}"
    )


def test_a_found_entry_still_reads(tmp_path: Path) -> None:
    cache = DoiCache(tmp_path)
    cache.put("10.1/y", Resolution.not_found("crossref"))
    assert cache.get("10.1/y") == Resolution.not_found("crossref")
