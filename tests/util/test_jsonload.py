"""Issue 28: reading untrusted input never waits without bound and never names Python's settings."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from citeaudit.errors import InputError
from citeaudit.util.jsonload import load_json_bytes, read_input


def test_a_number_of_more_than_4300_digits_is_named_as_such() -> None:
    data = b'{"claims": [{"year": ' + b"9" * 5000 + b"}]}"
    with pytest.raises(InputError) as caught:
        load_json_bytes(data, "claims.json")
    assert (
        str(caught.value)
        == "claims.json: invalid JSON at line 1 column 22: a number with more than 4300 digits"
    )
    assert "set_int_max_str_digits" not in str(caught.value)


def test_the_long_number_is_found_past_digits_in_a_string() -> None:
    data = b'{"title": "' + b"1" * 5000 + b'",\n "year": -' + b"2" * 5000 + b"}"
    with pytest.raises(InputError) as caught:
        load_json_bytes(data, "claims.json")
    assert (
        str(caught.value)
        == "claims.json: invalid JSON at line 2 column 10: a number with more than 4300 digits"
    )


def test_a_fifo_with_no_writer_is_refused_within_seconds(tmp_path: Path) -> None:
    fifo = tmp_path / "claims.json"
    os.mkfifo(fifo)
    started = time.monotonic()
    with pytest.raises(InputError) as caught:
        read_input(fifo)
    assert str(caught.value) == f"{fifo}: is a FIFO that nothing writes to (not read: it would wait forever)"
    assert time.monotonic() - started < 10


def test_a_fifo_whose_writer_comes_just_after_is_read(tmp_path: Path) -> None:
    fifo = tmp_path / "claims.json"
    os.mkfifo(fifo)

    def write() -> None:
        time.sleep(0.3)  # after read_input has opened it
        with open(fifo, "wb") as fh:
            fh.write(b'{"claims": []}')

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    assert read_input(fifo) == b'{"claims": []}'
    writer.join(10)


def test_a_slow_writer_on_a_pipe_is_waited_for(tmp_path: Path) -> None:
    fifo = tmp_path / "claims.json"
    os.mkfifo(fifo)
    ready = threading.Event()

    def write() -> None:
        with open(fifo, "wb") as fh:  # opened: there is a writer, it just has not written yet
            ready.set()
            time.sleep(1.5)  # longer than the wait for a writer: a writer that is there is waited for
            fh.write(b'{"claims": []}')

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    deadline = time.monotonic() + 10
    result: list[bytes] = []
    reader = threading.Thread(target=lambda: result.append(read_input(fifo)), daemon=True)
    reader.start()
    assert ready.wait(10)
    reader.join(max(0.0, deadline - time.monotonic()))
    assert result == [b'{"claims": []}']
