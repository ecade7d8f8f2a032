"""The cache: the seed's files read as they are, new entries written
atomically under collision-safe names, corrupt entries not trusted."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from citeaudit.errors import CacheError
from citeaudit.resolve.cache import CachingResolver, DoiCache, doi_slug
from citeaudit.resolve.crossref import record_from_message
from citeaudit.resolve.interface import Author, Record, Resolution, ResolutionStatus, Resolver
from citeaudit.util.slugs import hashed_name
from tests.conftest import GOLDEN, read_jsonl, shared_data


def test_reads_the_seed_cache_file_as_it_is() -> None:
    answer = DoiCache(GOLDEN / "seed000" / "cache").get("10.0000/demo.1")
    assert answer is not None
    assert answer.record is not None
    assert answer.record.titles == ("Demo Paper on Retrieval Grounding",)
    assert answer.record.year_values == (2024,)
    assert [a.family for a in answer.record.authors] == ["Ivanova", "Petrov"]


def test_a_miss_is_none() -> None:
    assert DoiCache(GOLDEN / "seed000" / "cache").get("10.0000/demo.2") is None


def test_two_dois_with_one_slug_get_two_files(tmp_path: Path) -> None:
    a, b = "10.1/a(b)", "10.1/a_b_"
    assert doi_slug(a) == doi_slug(b)
    assert hashed_name(a, ".json") != hashed_name(b, ".json")
    cache = DoiCache(tmp_path)
    cache.put(a, Resolution.found(Record(doi=a, agency="crossref", titles=("A",))))
    cache.put(b, Resolution.not_found())
    found, missing = cache.get(a), cache.get(b)
    assert found is not None
    assert found.record is not None
    assert found.record.titles == ("A",)
    assert missing is not None
    assert missing.status is ResolutionStatus.NOT_FOUND


def test_entries_are_sorted_and_round_trip_every_field(tmp_path: Path) -> None:
    rows = read_jsonl(shared_data("registry", "crossref_works.jsonl"))
    message = next(r["message"] for r in rows if r["doi"] == "10.1002/ece3.2314")
    record = record_from_message(message)
    cache = DoiCache(tmp_path)
    cache.put(record.doi, Resolution.found(record))
    raw = cache.path_for(record.doi).read_text("utf-8")
    assert raw == json.dumps(json.loads(raw), ensure_ascii=False, sort_keys=True, indent=2) + "\n"
    again = cache.get(record.doi)
    assert again is not None
    assert again.record == record
    # No temp file left; the entry's digest is in the manifest.
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [cache.path_for(record.doi).name, "MANIFEST.json"]
    )


def test_updates_and_relations_are_kept() -> None:
    rows = read_jsonl(shared_data("registry", "crossref_works.jsonl"))
    with_updates = [record_from_message(r["message"]) for r in rows if "updated-by" in r["message"]]
    assert with_updates
    assert all(any(rel.relation == "updated-by" for rel in rec.relations) for rec in with_updates)


@pytest.mark.parametrize(
    "content",
    [b"{not json", b"[]", b'{"status": "maybe"}', b'{"status": "found", "year": "2024"}', b"\xff"],
)
def test_corrupt_entry_is_could_not_check(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "10.1_x.json").write_bytes(content)
    answer = DoiCache(tmp_path).get("10.1/x")
    assert answer is not None
    assert answer.status is ResolutionStatus.UNAVAILABLE
    assert answer.code == "E_CACHE_CORRUPT"
    assert answer.reason.startswith("cache entry 10.1_x.json is not valid and was not trusted")


def test_an_entry_for_another_doi_is_corrupt(tmp_path: Path) -> None:
    cache = DoiCache(tmp_path)
    cache.put("10.1/a", Resolution.not_found())
    os.replace(cache.path_for("10.1/a"), cache.path_for("10.1/b"))
    answer = cache.get("10.1/b")
    assert answer is not None
    assert answer.code == "E_CACHE_CORRUPT"


def test_transient_failures_are_never_cached(tmp_path: Path) -> None:
    with pytest.raises(CacheError):
        DoiCache(tmp_path).put("10.1/x", Resolution.unavailable("E_NOT_CACHED", "timeout"))


class _Scripted(Resolver):
    def __init__(self, answers: dict[str, Resolution]) -> None:
        self.answers = answers
        self.asked: list[list[str]] = []

    def resolve_many(self, dois: list[str]) -> dict[str, Resolution]:
        self.asked.append(dois)
        return {d: self.answers[d] for d in dois}


def test_caching_resolver_stores_final_answers_only(tmp_path: Path) -> None:
    record = Record(doi="10.1/a", agency="crossref", authors=(Author(family="X"),))
    upstream = _Scripted(
        {
            "10.1/a": Resolution.found(record),
            "10.1/b": Resolution.not_found(),
            "10.1/c": Resolution.unavailable("E_REGISTRY_UNAVAILABLE", "503 after 4 tries"),
        }
    )
    resolver = CachingResolver(DoiCache(tmp_path), upstream)
    first = resolver.resolve_many(["10.1/a", "10.1/b", "10.1/c"])
    assert first["10.1/c"].status is ResolutionStatus.UNAVAILABLE
    second = resolver.resolve_many(["10.1/a", "10.1/b", "10.1/c"])
    assert upstream.asked == [["10.1/a", "10.1/b", "10.1/c"], ["10.1/c"]]
    assert second["10.1/a"].record == record
    assert second["10.1/b"].status is ResolutionStatus.NOT_FOUND


def test_offline_miss_is_not_cached(tmp_path: Path) -> None:
    answer = CachingResolver(DoiCache(tmp_path)).resolve_many(["10.1/x"])["10.1/x"]
    assert answer.code == "E_NOT_CACHED"
    assert answer.reason == (
        "offline and not in the cache: run `citeaudit fetch` on this input online (same --cache) "
        "to pin the registry's answer"
    )
    assert list(tmp_path.iterdir()) == []
