"""The chain of indexes: its order and its stop rule, the pins between it and the network, and
``fetch`` then ``--offline`` giving the same answers and the same bytes."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from citeaudit.errors import ConfigError
from citeaudit.resolve.indexes.arxiv import ArxivIndex
from citeaudit.resolve.indexes.crossref import CrossrefIndex
from citeaudit.resolve.indexes.dblp import DblpIndex
from citeaudit.resolve.indexes.finder import WorkFinder, online_indexes
from citeaudit.resolve.indexes.interface import Candidate, IndexAnswer, SearchIndex, WorkQuery
from citeaudit.resolve.indexes.openalex import OpenAlexIndex
from citeaudit.resolve.indexes.pinned import SearchPins
from citeaudit.resolve.interface import Record
from tests.resolve.indexes.conftest import Indexes
from tests.resolve.indexes.replay import IndexServer

FOUND = WorkQuery("Found locally", "Ley", 2009)
MISSING = WorkQuery("Nowhere at all", "Nobody", 2024)
ATTENTION = WorkQuery("Attention Is All You Need", "Vaswani", 2017)


def never(query: WorkQuery, candidates: Sequence[Candidate]) -> bool:
    return False


def any_candidate(query: WorkQuery, candidates: Sequence[Candidate]) -> bool:
    return bool(candidates)


class FakeIndex(SearchIndex):
    """Answers the keys it holds with one candidate, the others with none; records each batch."""

    def __init__(self, name: str, holds: set[str], unavailable: bool = False) -> None:
        self.name = name
        self.holds = holds
        self.unavailable = unavailable
        self.batches: list[list[str]] = []

    def search_many(self, queries: Sequence[WorkQuery], limit: int = 10) -> dict[str, IndexAnswer]:
        self.batches.append([q.key for q in queries])
        if self.unavailable:
            return {
                q.key: IndexAnswer.unavailable(self.name, "E_REGISTRY_UNAVAILABLE", "down") for q in queries
            }
        return {
            q.key: IndexAnswer(self.name, (Candidate(self.name, q.key, Record(doi="", agency=self.name)),))
            if q.key in self.holds
            else IndexAnswer(self.name)
            for q in queries
        }


def test_order_and_stop_rule(tmp_path: Path) -> None:
    first = FakeIndex("mirror:dblp", {FOUND.key})
    down = FakeIndex("mirror:crossref", set(), unavailable=True)
    online = FakeIndex("openalex", {MISSING.key})
    finder = WorkFinder([first, down], [online], SearchPins(tmp_path), offline=False)
    found = finder.find_many([FOUND, MISSING, FOUND], any_candidate)
    assert list(found) == [FOUND.key, MISSING.key]
    # FOUND stopped at the first index; MISSING went on past the index that could not be asked.
    assert [a.index for a in found[FOUND.key]] == ["mirror:dblp"]
    assert [a.index for a in found[MISSING.key]] == ["mirror:dblp", "mirror:crossref", "openalex"]
    assert found[MISSING.key][1].code == "E_REGISTRY_UNAVAILABLE"
    assert found[MISSING.key][2].candidates[0].key == MISSING.key
    assert (first.batches, down.batches, online.batches) == (
        [[FOUND.key, MISSING.key]],
        [[MISSING.key]],
        [[MISSING.key]],
    )
    # Online answers are pinned, local ones are not (a mirror is its own store).
    assert SearchPins(tmp_path).get("openalex", MISSING.key) == found[MISSING.key][2]
    assert SearchPins(tmp_path).get("mirror:dblp", FOUND.key) is None


def test_every_index_asked_when_none_is_enough(tmp_path: Path) -> None:
    indexes = [FakeIndex(n, {ATTENTION.key}) for n in ("crossref", "dblp")]
    found = WorkFinder([], indexes, SearchPins(tmp_path), offline=False).find_many([ATTENTION], never)
    assert [(a.index, len(a.candidates)) for a in found[ATTENTION.key]] == [("crossref", 1), ("dblp", 1)]


def test_offline_miss_code_and_message(tmp_path: Path) -> None:
    online = FakeIndex("dblp", {ATTENTION.key})
    found = WorkFinder([], [online], SearchPins(tmp_path), offline=True).find_many([ATTENTION], never)
    (answer,) = found[ATTENTION.key]
    assert (answer.index, answer.code, answer.reason) == (
        "dblp",
        "E_NOT_CACHED",
        "offline, and the cache holds no pinned answer for this reference: run `citeaudit fetch` on this "
        "input online (same --cache) to pin the answer",
    )
    assert online.batches == []
    assert not (tmp_path / "searches").exists()


def _fetch(indexes: Indexes, cache: Path, offline: bool) -> dict[str, tuple[IndexAnswer, ...]]:
    online = [indexes.make(name, cache) for name in ("crossref", "dblp", "arxiv", "openalex")]
    return WorkFinder([], online, SearchPins(cache), offline=offline).find_many([ATTENTION, MISSING], never)


def _pins(cache: Path) -> dict[str, bytes]:
    return {
        p.relative_to(cache).as_posix(): p.read_bytes() for p in sorted((cache / "searches").rglob("*.json"))
    }


def test_fetch_then_offline_asks_nothing_and_pins_are_byte_identical(
    indexes: Indexes, server: IndexServer, tmp_path: Path
) -> None:
    fetched = _fetch(indexes, tmp_path / "a", offline=False)
    assert server.count() == 8
    assert all(a.answered for answers in fetched.values() for a in answers)
    assert len(_pins(tmp_path / "a")) == 8
    offline = _fetch(indexes, tmp_path / "a", offline=True)
    assert offline == fetched
    assert server.count() == 8
    again = _fetch(indexes, tmp_path / "a", offline=False)
    assert again == fetched
    assert server.count() == 8
    _fetch(indexes, tmp_path / "b", offline=False)  # a second fetch, into another cache
    assert _pins(tmp_path / "b") == _pins(tmp_path / "a")


def test_a_transient_failure_is_never_pinned(indexes: Indexes, server: IndexServer, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    server.fault("dblp", "503", "503", "503")
    server.fault("arxiv", "html")
    found = WorkFinder(
        [], [indexes.make("dblp", cache), indexes.make("arxiv", cache)], SearchPins(cache), offline=False
    ).find_many([ATTENTION], never)
    assert [a.code for a in found[ATTENTION.key]] == ["E_REGISTRY_UNAVAILABLE", "E_REGISTRY_UNAVAILABLE"]
    assert not (cache / "searches").exists()
    offline = WorkFinder([], [indexes.make("dblp", cache)], SearchPins(cache), offline=True).find_many(
        [ATTENTION], never
    )
    assert offline[ATTENTION.key][0].code == "E_NOT_CACHED"
    # The next run online asks again and pins the answer it gets.
    retried = WorkFinder([], [indexes.make("dblp", cache)], SearchPins(cache), offline=False).find_many(
        [ATTENTION], never
    )
    assert retried[ATTENTION.key][0].answered
    assert SearchPins(cache).get("dblp", ATTENTION.key) is not None


def test_a_corrupt_pin_is_reported_and_not_asked_again(
    indexes: Indexes, server: IndexServer, tmp_path: Path
) -> None:
    pins = SearchPins(tmp_path / "cache")
    path = pins.path_for("dblp", ATTENTION.key)
    path.parent.mkdir(parents=True)
    path.write_text("{")
    found = WorkFinder([], [indexes.make("dblp")], pins, offline=False).find_many([ATTENTION], never)
    assert found[ATTENTION.key][0].code == "E_CACHE_CORRUPT"
    assert server.count() == 0
    assert path.read_text() == "{"  # reported, left for a person to look at


def test_online_indexes_by_name(tmp_path: Path) -> None:
    built = online_indexes(["dblp", "crossref", "openalex", "arxiv"], "me@example.org", tmp_path)
    assert [type(i) for i in built] == [DblpIndex, CrossrefIndex, OpenAlexIndex, ArxivIndex]
    assert all(i.cache_root == tmp_path and i.mailto == "me@example.org" for i in built)  # type: ignore[attr-defined]
    assert CrossrefIndex("me@example.org").limits() == (3 * 0.9, 1)
    assert CrossrefIndex("").limits() == (1 * 0.9, 1)
    assert (DblpIndex().limits(), ArxivIndex().limits(), OpenAlexIndex().limits()) == (
        (1.0, 1),
        (1 / 3, 1),
        (9.0, 4),
    )


def test_online_indexes_unknown_or_twice(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown online search index 'scholar': the online indexes are "
                       "crossref, dblp, arxiv, openalex"):  # fmt: skip
        online_indexes(["crossref", "scholar"], "", tmp_path)
    with pytest.raises(ConfigError, match="the online search index 'dblp' is named twice"):
        online_indexes(["dblp", "dblp"], "", tmp_path)
