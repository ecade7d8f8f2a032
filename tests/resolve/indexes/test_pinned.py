"""Search pins: written atomically and deterministically, read bounded, and never trusted when they
are not exactly the pin of that index's answer to that query."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from citeaudit.errors import CacheError
from citeaudit.resolve.indexes import pinned
from citeaudit.resolve.indexes.interface import Candidate, IndexAnswer, WorkQuery
from citeaudit.resolve.indexes.pinned import PIN_SCHEMA, SearchPins
from citeaudit.resolve.interface import Author, Record

QUERY = WorkQuery("Attention Is All You Need", "Vaswani", 2017)
CANDIDATE = Candidate(
    "dblp",
    "conf/nips/VaswaniSPUJGKP17",
    Record(doi="", agency="dblp", titles=("Attention is All you Need",), years=(("issued", 2017),),
           authors=(Author(family="Vaswani", given="Ashish", sequence="first"),), type="proceedings-article"),
    "1706.03762",
)  # fmt: skip
ANSWER = IndexAnswer("dblp", (CANDIDATE,))


def test_round_trip_and_form(tmp_path: Path) -> None:
    pins = SearchPins(tmp_path)
    assert pins.get("dblp", QUERY.key) is None
    pins.put(QUERY.key, ANSWER)
    path = pins.path_for("dblp", QUERY.key)
    assert path.parent == tmp_path / "searches" / "dblp"
    assert pins.get("dblp", QUERY.key) == ANSWER
    data = json.loads(path.read_text("utf-8"))
    assert sorted(data) == ["candidates", "index", "query", "schema"]
    assert (data["schema"], data["index"], data["query"]) == (
        PIN_SCHEMA,
        "dblp",
        "attention is all you need|vaswani|2017",
    )
    text = path.read_text("utf-8")
    assert text == json.dumps(data, ensure_ascii=False, sort_keys=True, indent=2) + "\n"


def test_empty_answer_is_pinned(tmp_path: Path) -> None:
    pins = SearchPins(tmp_path)
    pins.put(QUERY.key, IndexAnswer("arxiv"))
    assert pins.get("arxiv", QUERY.key) == IndexAnswer("arxiv")


def test_an_unavailable_answer_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CacheError, match="refusing to pin a failed search of dblp"):
        SearchPins(tmp_path).put(QUERY.key, IndexAnswer.unavailable("dblp", "E_REGISTRY_UNAVAILABLE", "down"))
    assert not (tmp_path / "searches").exists()


def test_keys_that_share_a_slug_get_two_files(tmp_path: Path) -> None:
    pins = SearchPins(tmp_path)
    assert pins.path_for("dblp", "a b||") != pins.path_for("dblp", "a_b||")
    assert pins.path_for("dblp", QUERY.key) != pins.path_for("crossref", QUERY.key)


def _corrupt(pins: SearchPins, key: str = QUERY.key) -> IndexAnswer:
    answer = pins.get("dblp", key)
    assert answer is not None
    assert not answer.answered
    assert answer.code == "E_CACHE_CORRUPT"
    assert answer.index == "dblp"
    return answer


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"{not json", "is not valid (JSONDecodeError"),
        (b"\xff\xfe", "is not valid (UnicodeDecodeError"),
        (b"[]", "is not valid (ValueError: not a JSON object)"),
        (b'{"schema": "citeaudit-search/0"}', "unknown schema 'citeaudit-search/0'"),
        (b'{"schema": "citeaudit-search/1", "index": "crossref", "query": "x", "candidates": []}',
         "it is the answer of 'crossref' to 'x'"),
        (b'{"schema": "citeaudit-search/1", "index": "dblp", "query": "attention is all you need|vaswani|2017",'
         b' "candidates": ["no"]}', "its candidates are not a list of objects"),
        (b'{"schema": "citeaudit-search/1", "index": "dblp", "query": "attention is all you need|vaswani|2017",'
         b' "candidates": [{"index": "dblp", "key": "k", "record": {"agency": "dblp", "doi": "", "authors": [1]}}]}',
         "is not valid (AttributeError"),
    ],
)  # fmt: skip
def test_a_corrupt_pin_is_not_trusted(tmp_path: Path, content: bytes, problem: str) -> None:
    pins = SearchPins(tmp_path)
    path = pins.path_for("dblp", QUERY.key)
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    reason = _corrupt(pins).reason
    assert reason.startswith(f"the pinned answer searches/dblp/{path.name} ")
    assert problem in reason
    assert reason.endswith("and was not trusted")


def test_candidates_of_another_index_are_not_trusted(tmp_path: Path) -> None:
    pins = SearchPins(tmp_path)
    pins.put(QUERY.key, ANSWER)
    path = pins.path_for("dblp", QUERY.key)
    path.write_text(
        path.read_text("utf-8").replace('"index": "dblp",\n      "key"', '"index": "crossref",\n      "key"')
    )
    assert "it holds candidates of another index" in _corrupt(pins).reason


def test_a_symlink_pin_is_refused(tmp_path: Path) -> None:
    elsewhere = SearchPins(tmp_path / "other")
    elsewhere.put(QUERY.key, ANSWER)  # a valid pin, reached through a link
    pins = SearchPins(tmp_path / "cache")
    path = pins.path_for("dblp", QUERY.key)
    path.parent.mkdir(parents=True)
    path.symlink_to(elsewhere.path_for("dblp", QUERY.key))
    assert _corrupt(pins).reason.endswith("is a symbolic link and was not trusted")


def test_a_fifo_or_a_directory_is_not_a_pin(tmp_path: Path) -> None:
    pins = SearchPins(tmp_path)
    path = pins.path_for("dblp", QUERY.key)
    path.parent.mkdir(parents=True)
    os.mkfifo(path)  # opened without blocking, then refused
    assert "is not a regular file" in _corrupt(pins).reason
    path.unlink()
    path.mkdir()
    assert "is not a regular file" in _corrupt(pins).reason


def test_an_oversized_pin_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pins = SearchPins(tmp_path)
    pins.put(QUERY.key, ANSWER)
    monkeypatch.setattr(pinned, "MAX_PIN_BYTES", 64)
    assert "is over 64 bytes" in _corrupt(pins).reason


def test_a_write_that_fails_is_a_cache_error(tmp_path: Path) -> None:
    (tmp_path / "searches").write_text("a file where the folder should be")
    with pytest.raises(CacheError, match="cannot pin the answer of dblp"):
        SearchPins(tmp_path).put(QUERY.key, ANSWER)
