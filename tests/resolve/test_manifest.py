"""Issue 28: a tampered cache is not trusted. Every cache entry, snapshot, page pin and search pin has
its digest recorded in ``MANIFEST.json``; bytes that are not the recorded ones are E_CACHE_CORRUPT
(could not check), never a verdict. A directory with no manifest is read as before."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from citeaudit import api
from citeaudit.checks.codes import CATALOGUE
from citeaudit.errors import CacheError
from citeaudit.resolve.cache import DoiCache
from citeaudit.resolve.crossref import record_from_message
from citeaudit.resolve.indexes.interface import Candidate, IndexAnswer
from citeaudit.resolve.indexes.pinned import SearchPins
from citeaudit.resolve.interface import Record, Resolution, ResolutionStatus
from citeaudit.sources.directory import CorruptSnapshot, SnapshotDirectory
from citeaudit.sources.interface import Pin
from citeaudit.sources.pins import PinDirectory, pin_from_answer
from citeaudit.util.manifest import MANIFEST_NAME, MANIFEST_SCHEMA, Manifest, digest
from citeaudit.util.slugs import hashed_name
from tests.conftest import GOLDEN, read_jsonl, run_cli, shared_data
from tests.registry_server import RegistryServer
from tests.resolve.conftest import environment_of, resolver_for

DOI = "10.1002/ece3.2314"
TEXT = (
    "Range expansion is a test of dispersal. We measured 42 sites across the continent and found that "
    "dispersal attenuates after range expansion in every population we sampled over ten years."
)
QUOTE = "dispersal attenuates after range expansion in every population"


def _message(doi: str) -> dict[str, Any]:
    rows = read_jsonl(shared_data("registry", "crossref_works.jsonl"))
    found: dict[str, Any] = next(r["message"] for r in rows if r["doi"].lower() == doi)
    return found


def _claims() -> dict[str, Any]:
    record = record_from_message(_message(DOI))
    citation = {
        "doi": DOI,
        "title": record.titles[0],
        "year": record.year_values[0],
        "first_author": record.authors[0].family,
        "authors": [a.family for a in record.authors if a.family],
        "container": record.container[0],
        "quote": QUOTE,
    }
    return {
        "claims": [
            {"id": "c1", "text": "Dispersal attenuates after range expansion.", "citations": [citation]}
        ]
    }


def _findings(claims: dict[str, Any], cache: Path, sources: Path) -> list[dict[str, Any]]:
    report = json.loads(api.render(api.audit(claims, cache=cache, sources=sources, offline=True, judge=None)))
    found: list[dict[str, Any]] = report["results"][0]["findings"]
    return found


def _unchecked(findings: list[dict[str, Any]]) -> bool:
    return any(CATALOGUE[f["code"]].outcome.value == "could_not_check" for f in findings)


def _one_byte_changes(data: bytes) -> list[bytes]:
    """Every position changed once: a letter's case flipped, any other byte plus one."""
    out = []
    for i, b in enumerate(data):
        new = b ^ 0x20 if chr(b).isascii() and chr(b).isalpha() else (b + 1) % 256
        out.append(data[:i] + bytes([new]) + data[i + 1 :])
    return out


@pytest.fixture
def fetched(replay: RegistryServer, tmp_path: Path) -> tuple[Path, Path]:
    """A real cache entry (fetched from the replay registry) and a snapshot made by ``snapshot``."""
    cache, sources = tmp_path / "cache", tmp_path / "sources"
    from citeaudit.resolve.cache import CachingResolver

    resolver = CachingResolver(DoiCache(cache), resolver_for(replay, cache))
    assert resolver.resolve_many([DOI])[DOI].status is ResolutionStatus.FOUND
    paper = tmp_path / "paper.txt"
    paper.write_text(TEXT, "utf-8")
    assert run_cli("snapshot", paper, "--doi", DOI, "--sources", sources).code == 0
    return cache, sources


def _sweep(target: Path, claims: dict[str, Any], cache: Path, sources: Path) -> dict[str, int]:
    base = _findings(claims, cache, sources)
    original = target.read_bytes()
    counts = {"changes": 0, "unchanged": 0, "could_not_check": 0, "other_verdict": 0, "corrupt": 0}
    try:
        for changed in _one_byte_changes(original):
            target.write_bytes(changed)
            found = _findings(claims, cache, sources)
            counts["changes"] += 1
            if found == base:
                counts["unchanged"] += 1
            elif _unchecked(found):
                counts["could_not_check"] += 1
                counts["corrupt"] += any("E_CACHE_CORRUPT" in f["message"] or f["code"] == "E_CACHE_CORRUPT"
                                         for f in found)  # fmt: skip
            else:
                counts["other_verdict"] += 1
    finally:
        target.write_bytes(original)
    return counts


def test_every_one_byte_change_of_an_entry_and_a_snapshot_is_corrupt_never_another_verdict(
    fetched: tuple[Path, Path],
) -> None:
    cache, sources = fetched
    claims = _claims()
    assert _findings(claims, cache, sources) == []  # the clean citation passes
    entry = cache / hashed_name(DOI, ".json")
    snapshot = sources / hashed_name(DOI, ".txt")
    assert json.loads((cache / MANIFEST_NAME).read_bytes())["files"][entry.name] == digest(entry.read_bytes())

    for target in (entry, snapshot):
        counts = _sweep(target, claims, cache, sources)
        assert counts["changes"] == len(target.read_bytes())
        assert counts["other_verdict"] == 0, (target.name, counts)
        assert counts["corrupt"] == counts["changes"] - counts["unchanged"], (target.name, counts)

    # Before manifests (and for a cache that has none): the same changes did give other verdicts.
    (cache / MANIFEST_NAME).unlink()
    (sources / MANIFEST_NAME).unlink()
    assert _sweep(entry, claims, cache, sources)["other_verdict"] > 0
    assert _sweep(snapshot, claims, cache, sources)["other_verdict"] > 0


def test_a_tampered_entry_is_e_cache_corrupt_with_its_reason(tmp_path: Path) -> None:
    cache = DoiCache(tmp_path)
    record = record_from_message(_message(DOI))
    cache.put(DOI, Resolution.found(record))
    path = cache.path_for(DOI)
    path.write_bytes(path.read_bytes().replace(b'"issued": 2016', b'"issued": 2015'))
    have, want = (
        digest(path.read_bytes()),
        json.loads((tmp_path / MANIFEST_NAME).read_bytes())["files"][path.name],
    )
    assert cache.get(DOI) == Resolution.unavailable(
        "E_CACHE_CORRUPT",
        f"cache entry {path.name} was not trusted: its bytes ({have[:19]}…) are not those "
        f"MANIFEST.json records ({want[:19]}…)",
    )


def test_an_entry_with_no_line_is_corrupt_when_there_is_a_manifest(tmp_path: Path) -> None:
    cache = DoiCache(tmp_path)
    cache.put(DOI, Resolution.not_found("crossref"))
    planted = "10.5555/planted"
    entry = {"doi": planted, "schema": "citeaudit-cache/1", "status": "not_found", "agency": "crossref"}
    cache.path_for(planted).write_text(json.dumps(entry), "utf-8")  # as a pull request would add it
    assert cache.get(planted) == Resolution.unavailable(
        "E_CACHE_CORRUPT",
        f"cache entry {cache.path_for(planted).name} was not trusted: "
        f"MANIFEST.json records no digest for {cache.path_for(planted).name}",
    )
    assert cache.get(DOI) == Resolution.not_found("crossref")
    (tmp_path / MANIFEST_NAME).unlink()  # no manifest at all: read as before manifests
    assert cache.get(planted) == Resolution.not_found("crossref")


def test_an_unreadable_manifest_trusts_nothing_and_is_not_written_over(tmp_path: Path) -> None:
    cache = DoiCache(tmp_path)
    cache.put(DOI, Resolution.not_found("crossref"))
    (tmp_path / MANIFEST_NAME).write_text("{not json", "utf-8")
    answer = cache.get(DOI)
    assert answer is not None
    assert answer.code == "E_CACHE_CORRUPT"
    assert answer.reason.startswith(
        f"cache entry {cache.path_for(DOI).name} was not trusted: MANIFEST.json is not valid JSON ("
    )
    assert answer.reason.endswith(f", so no entry of {tmp_path.name}/ is trusted")
    with pytest.raises(CacheError) as caught:
        cache.put("10.5555/other", Resolution.not_found("crossref"))
    assert str(caught.value).startswith(
        "cannot record the cache's entries in its manifest: MANIFEST.json is not valid JSON ("
    )
    assert (tmp_path / MANIFEST_NAME).read_text("utf-8") == "{not json"


def test_the_manifest_is_sorted_has_no_time_and_takes_in_an_old_cache(tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    shutil.copytree(GOLDEN / "seed000" / "cache", cache_dir)
    seed_entry = cache_dir / "10.0000_demo.1.json"
    cache = DoiCache(cache_dir)
    before = cache.get("10.0000/demo.1")
    cache.put("10.5555/b", Resolution.not_found("crossref"))  # the first write into an old cache
    cache.put("10.5555/a", Resolution.not_found("crossref"))
    files = {
        "10.0000_demo.1.json": digest(seed_entry.read_bytes()),
        cache.path_for("10.5555/a").name: digest(cache.path_for("10.5555/a").read_bytes()),
        cache.path_for("10.5555/b").name: digest(cache.path_for("10.5555/b").read_bytes()),
    }
    expected = json.dumps({"files": dict(sorted(files.items())), "schema": MANIFEST_SCHEMA}, indent=2) + "\n"
    assert (cache_dir / MANIFEST_NAME).read_text("utf-8") == expected
    assert cache.get("10.0000/demo.1") == before  # the seed's entry, taken in as it was, still reads


def _put_many(root: str, start: int) -> None:
    cache = DoiCache(Path(root))
    for n in range(start, start + 20):
        cache.put(f"10.5555/w{n}", Resolution.not_found("crossref"))


def test_writers_in_parallel_processes_lose_no_line(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    workers = [ctx.Process(target=_put_many, args=(str(tmp_path), 100 * i)) for i in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
        assert w.exitcode == 0
    recorded = json.loads((tmp_path / MANIFEST_NAME).read_bytes())["files"]
    assert len(recorded) == 80
    cache = DoiCache(tmp_path)
    assert all(cache.get(f"10.5555/w{100 * i + n}") == Resolution.not_found("crossref")
               for i in range(4) for n in range(20))  # fmt: skip


def test_a_tampered_agency_entry_is_asked_again(tmp_path: Path) -> None:
    cache = DoiCache(tmp_path)
    cache.put_agency("10.5061", "DataCite")
    assert cache.get_agency("10.5061") == "DataCite"
    path = tmp_path / "agencies" / hashed_name("10.5061", ".json")
    path.write_text(path.read_text("utf-8").replace("DataCite", "Crossref"), "utf-8")
    assert cache.get_agency("10.5061") is None  # online, a fresh lookup; it never routes a DOI


def test_a_tampered_or_planted_search_pin_is_corrupt(tmp_path: Path) -> None:
    pins = SearchPins(tmp_path)
    record = Record(doi="", agency="dblp", titles=("Attention Is All You Need",), years=(("issued", 2017),))
    candidate = Candidate(index="dblp", key="conf/nips/VaswaniSPUJGKP17", record=record)
    pins.put("q", IndexAnswer("dblp", (candidate,)))
    assert pins.get("dblp", "q") == IndexAnswer("dblp", (candidate,))
    path = pins.path_for("dblp", "q")
    path.write_text(path.read_text("utf-8").replace("2017", "2016"), "utf-8")
    answer = pins.get("dblp", "q")
    where = path.relative_to(tmp_path).as_posix()
    assert answer is not None
    assert answer.code == "E_CACHE_CORRUPT"
    assert answer.reason.startswith(
        f"the pinned answer {where} does not match the manifest (its bytes (sha256:"
    )
    planted = pins.path_for("dblp", "other")
    planted.write_text(path.read_text("utf-8").replace('"query": "q"', '"query": "other"'), "utf-8")
    answer = pins.get("dblp", "other")
    where = planted.relative_to(tmp_path).as_posix()
    assert answer == IndexAnswer.unavailable(
        "dblp",
        "E_CACHE_CORRUPT",
        f"the pinned answer {where} does not match the manifest (MANIFEST.json records no digest for "
        f"{where}) and was not trusted",
    )


def _pin(status: int = 200) -> Pin:
    from citeaudit.resolve.web import PageAnswer

    html = b"<html><head><title>Budget</title></head><body><p>The committee approved the budget.</p></body></html>"
    answer = PageAnswer(url="https://news.example/a", final_url="https://news.example/a", status=status,
                        content_type="text/html", body=html)  # fmt: skip
    pin = pin_from_answer("https://news.example/a", answer, "2026-01-01T00:00:00Z")
    assert isinstance(pin, Pin)
    return pin


def test_a_pin_whose_status_is_edited_from_200_to_404_is_corrupt(tmp_path: Path) -> None:
    directory = PinDirectory(tmp_path)
    pin = _pin()
    directory.write(pin)
    record, text = directory.paths(pin.url)
    assert json.loads((tmp_path / MANIFEST_NAME).read_bytes())["files"] == {
        record.name: digest(record.read_bytes()),
        text.name: digest(text.read_bytes()),
    }
    edited = record.read_text("utf-8").replace('"status": 200', '"status": 404')
    record.write_text(edited, "utf-8")
    answer = directory.lookup(pin.url)
    assert (answer.pin, answer.code) == (None, "E_CACHE_CORRUPT")
    assert answer.reason.startswith(f"{record.name}: the pin was not trusted: its bytes (sha256:")
    (tmp_path / MANIFEST_NAME).unlink()  # what it was before manifests: a "page not found" verdict
    assert directory.lookup(pin.url).pin is not None


def test_a_pin_whose_text_is_swapped_with_a_matching_digest_is_corrupt(tmp_path: Path) -> None:
    directory = PinDirectory(tmp_path)
    pin = _pin()
    directory.write(pin)
    record, text = directory.paths(pin.url)
    text.write_text("The committee rejected the budget.", "utf-8")  # and the record's digest with it
    data = json.loads(record.read_text("utf-8"))
    from citeaudit.sources.interface import digest_text

    data["text_sha256"] = digest_text("The committee rejected the budget.")
    record.write_text(json.dumps(data, sort_keys=True, indent=2) + "\n", "utf-8")
    answer = directory.lookup(pin.url)
    assert (answer.pin, answer.code) == (None, "E_CACHE_CORRUPT")


def test_a_snapshot_changed_is_corrupt_and_one_with_no_manifest_reads_as_before(tmp_path: Path) -> None:
    snapshots = SnapshotDirectory(tmp_path)
    path = snapshots.write("10.5555/x", TEXT.encode("utf-8"))
    assert snapshots.text_for_doi("10.5555/x") == TEXT
    path.write_text(TEXT.replace("42", "24"), "utf-8")
    with pytest.raises(CorruptSnapshot, match=r"the snapshot was not trusted \(E_CACHE_CORRUPT\): its bytes"):
        snapshots.text_for_doi("10.5555/x")
    os.unlink(tmp_path / MANIFEST_NAME)
    assert snapshots.text_for_doi("10.5555/x") == TEXT.replace("42", "24")


# -- citeaudit cache manifest / cache verify ------------------------------------------


@pytest.fixture
def seed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    work = tmp_path / "seed"
    shutil.copytree(GOLDEN / "seed000", work)
    monkeypatch.chdir(work)
    for var in [v for v in os.environ if v.startswith("CITEAUDIT_")]:
        monkeypatch.delenv(var)
    return work


def test_cache_manifest_records_both_directories_deterministically(seed: Path) -> None:
    result = run_cli("cache", "manifest", "--cache", "cache", "--sources", "sources")
    assert (result.code, result.stdout) == (
        0,
        "manifest=cache/MANIFEST.json entries=1 skipped=0\nmanifest=sources/MANIFEST.json entries=1 skipped=0\n",
    )
    first = (seed / "cache" / MANIFEST_NAME).read_bytes()
    assert json.loads(first) == {
        "files": {"10.0000_demo.1.json": digest((seed / "cache" / "10.0000_demo.1.json").read_bytes())},
        "schema": MANIFEST_SCHEMA,
    }
    assert run_cli("cache", "manifest", "--cache", "cache", "--sources", "sources").code == 0
    assert (seed / "cache" / MANIFEST_NAME).read_bytes() == first  # byte for byte: no time in it
    report = run_cli("check", "claims.json", "--offline", "--cache", "cache", "--sources", "sources")
    assert report.code == 1  # the seed's findings, read through the manifest


def test_cache_manifest_leaves_a_link_out(seed: Path) -> None:
    (seed / "cache" / "10.5555_link.json").symlink_to("/dev/zero")
    result = run_cli("cache", "manifest", "--cache", "cache", "--sources", "sources")
    assert (result.code, result.stdout) == (
        1,
        "skipped cache/10.5555_link.json: it is a symbolic link, not a regular file; it stays untrusted\n"
        "manifest=cache/MANIFEST.json entries=1 skipped=1\n"
        "manifest=sources/MANIFEST.json entries=1 skipped=0\n",
    )


def test_cache_verify_offline_lists_what_differs(seed: Path) -> None:
    verify = ("cache", "verify", "--offline", "--cache", "cache", "--sources", "sources")
    result = run_cli(*verify)
    assert (result.code, result.stdout) == (
        3,
        "cache: no MANIFEST.json; its entries are read unverified (citeaudit cache manifest records one)\n"
        "sources: no MANIFEST.json; its entries are read unverified (citeaudit cache manifest records one)\n"
        "entries=0 differing=0 missing=0 changed=0 could_not_check=0 offline\n",
    )
    assert run_cli("cache", "manifest", "--cache", "cache", "--sources", "sources").code == 0
    assert run_cli(*verify).stdout == "entries=2 differing=0 missing=0 changed=0 could_not_check=0 offline\n"
    entry = seed / "cache" / "10.0000_demo.1.json"
    recorded = digest(entry.read_bytes())
    entry.write_text(entry.read_text("utf-8").replace("2024", "2023"), "utf-8")
    (seed / "cache" / "10.5555_new.json").write_text("{}", "utf-8")
    (seed / "sources" / "10.0000_demo.1.txt").unlink()
    result = run_cli(*verify)
    assert (result.code, result.stdout) == (
        1,
        f"corrupt cache/10.0000_demo.1.json: its digest is {digest(entry.read_bytes())}, the manifest records "
        f"{recorded}\n"
        "unrecorded cache/10.5555_new.json: MANIFEST.json records no digest for it\n"
        "missing sources/10.0000_demo.1.txt: recorded, not there (a cache miss)\n"
        "entries=2 differing=2 missing=1 changed=0 could_not_check=0 offline\n",
    )


def test_cache_verify_online_finds_an_entry_edited_with_its_manifest_line(
    replay: RegistryServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in environment_of(replay).items():
        monkeypatch.setenv(name, value)
    cache = tmp_path / "cache"
    claims = tmp_path / "claims.json"
    claims.write_text(json.dumps({"claims": [{"id": "c1", "text": "t", "citations": [{"doi": DOI}]}]}))
    assert run_cli("fetch", claims, "--cache", cache, "--mailto", "tests@example.org").code == 0
    verify = (
        "cache",
        "verify",
        "--cache",
        cache,
        "--sources",
        tmp_path / "none",
        "--mailto",
        "t@example.org",
    )
    assert (
        run_cli(*verify).stdout == "entries=2 differing=0 missing=0 changed=0 could_not_check=0\n"
    )  # and its agency
    entry = cache / hashed_name(DOI, ".json")
    entry.write_text(entry.read_text("utf-8").replace('"issued": 2016', '"issued": 2015'), "utf-8")
    assert run_cli("cache", "manifest", "--cache", cache, "--sources", tmp_path / "none").code == 0
    listing = {
        p: p.read_bytes() for p in sorted(cache.rglob("*")) if p.is_file() and ".limits" not in p.parts
    }
    result = run_cli(*verify)  # the digests agree now: only the registry can tell
    assert (result.code, result.stdout) == (
        1,
        f"{DOI}: years: [2015, 2016] -> [2016]\nentries=2 differing=0 missing=0 changed=1 could_not_check=0\n",
    )
    assert Manifest(cache).files()[entry.name] == digest(entry.read_bytes())
    after = {p: p.read_bytes() for p in sorted(cache.rglob("*")) if p.is_file() and ".limits" not in p.parts}
    assert after == listing  # verify writes nothing into the cache
