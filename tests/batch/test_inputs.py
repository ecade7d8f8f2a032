"""Parquet input gives the reports JSONL gives; missing DOIs are resolved once, before the
audits, through the polite resolver (and not at all with --offline)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.batch.workload import make_workload, part_lines, tree
from tests.conftest import run_cli, shared_data
from tests.registry_server import RegistryServer

pq = pytest.importorskip("pyarrow.parquet", reason="Parquet input needs the parquet extra (pyarrow)")
pa = pytest.importorskip("pyarrow")


def write_parquet(lines: list[bytes], path: Path) -> None:
    """The envelopes of ``lines`` as Parquet rows: id, the answer as JSON text, labels as a map."""
    ids, answers, labels = [], [], []
    for line in lines:
        document = json.loads(line)
        ids.append(document["id"])
        answers.append(json.dumps(document["answer"], ensure_ascii=False))
        labels.append(list(document.get("labels", {}).items()))
    table = pa.table(
        {"id": ids, "answer": answers, "labels": pa.array(labels, type=pa.map_(pa.string(), pa.string()))}
    )
    pq.write_table(table, path, row_group_size=5)


def test_parquet_gives_the_reports_jsonl_gives(tmp_path: Path) -> None:
    w = make_workload(tmp_path / "w", count=20, bad=False)
    envelopes = [line for line in w.lines if json.loads(line).get("id") is not None]
    assert len(envelopes) >= 5
    jsonl = tmp_path / "envelopes.jsonl"
    jsonl.write_bytes(b"\n".join(envelopes) + b"\n")
    parquet = tmp_path / "envelopes.parquet"
    write_parquet(envelopes, parquet)
    base = ["--offline", "--cache", str(w.cache), "--sources", str(w.sources), "--part-size", "3"]
    a = run_cli("batch", jsonl, "--out", tmp_path / "a", *base)
    b = run_cli("batch", parquet, "--out", tmp_path / "b", *base)
    assert (a.code, b.code) == (1, 1), b.stderr
    reports = {k: v for k, v in tree(tmp_path / "a").items() if k.startswith("reports/")}
    assert reports == {k: v for k, v in tree(tmp_path / "b").items() if k.startswith("reports/")}
    assert len(part_lines(tmp_path / "b")) == len(envelopes)
    summary_a = json.loads((tmp_path / "a" / "summary.json").read_text("utf-8"))
    assert summary_a == json.loads((tmp_path / "b" / "summary.json").read_text("utf-8"))


def test_a_bad_parquet_row_is_rejected_with_its_row_number(tmp_path: Path) -> None:
    w = make_workload(tmp_path / "w", count=1, bad=False)
    path = tmp_path / "rows.parquet"
    good = json.dumps(json.loads(w.lines[0]))
    pq.write_table(pa.table({"answer": [good, '{"claims": []}', "[1"]}), path)
    result = run_cli("batch", path, "--out", tmp_path / "out", "--offline", "--cache", w.cache)
    assert result.code == 2
    rejected = [json.loads(line) for line in (tmp_path / "out" / "rejected.jsonl").open("rb")]
    assert [(r["line"], r["error"]) for r in rejected] == [
        (2, f"{path}:2: $.claims: no claims to audit (the array is empty)"),
        (3, f"{path}:3: invalid JSON at line 1 column 3: Expecting ',' delimiter"),
    ]
    pq.write_table(pa.table({"answer": [good], "status": ["accepted"]}), path)
    result = run_cli("batch", path, "--out", tmp_path / "out2", "--offline", "--cache", w.cache)
    assert result.code == 2
    assert result.stderr == (
        f"citeaudit: error: {path}: unknown Parquet column 'status' (expected id, answer, labels)\n"
    )


@pytest.fixture(scope="module")
def registry() -> Iterator[RegistryServer]:
    server = RegistryServer(shared_data("registry")).start()
    server.enforce_limits = True  # Crossref's announced limits: the resolver must keep within them
    yield server
    server.stop()


def _point_at(server: RegistryServer, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, path in (
        ("CROSSREF", "crossref"),
        ("DATACITE", "datacite"),
        ("DOI", "doi"),
        ("ARXIV", "arxiv"),
    ):
        monkeypatch.setenv(f"CITEAUDIT_{name}_URL", f"{server.url}/{path}")


def test_missing_dois_are_resolved_once_before_the_audits(
    registry: RegistryServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _point_at(registry, monkeypatch)
    w = make_workload(tmp_path / "w", count=12, bad=False, cache=False)
    dois = set()
    for line in w.lines:
        document = json.loads(line)
        answer = document.get("answer", document) if isinstance(document.get("answer"), dict) else document
        dois |= {c["doi"] for claim in answer["claims"] for c in claim.get("citations", [])}
    registry.log.clear()
    result = run_cli("batch", w.jsonl, "--out", tmp_path / "out", "--cache", w.cache, "--sources", w.sources,
                     "--mailto", "tests@example.org", "--workers", "2")  # fmt: skip
    assert result.code == 1, result.stderr
    assert registry.count(status=429) == 0
    asked = len(registry.log)
    assert 0 < asked <= 1 + len(dois)  # the batch route first, then one lookup per DOI it did not return
    # The cache now holds every final answer: the same run offline asks nothing and says the same.
    registry.log.clear()
    offline = run_cli("batch", w.jsonl, "--out", tmp_path / "offline", "--cache", w.cache, "--sources",
                      w.sources, "--offline")  # fmt: skip
    assert offline.code == 1
    assert registry.log == []
    online_reports = [e["report"] for e in part_lines(tmp_path / "out")]
    offline_reports = [e["report"] for e in part_lines(tmp_path / "offline")]
    assert online_reports == offline_reports  # the report does not say which run it was
    # A rerun of the finished online run resolves nothing again.
    registry.log.clear()
    again = run_cli("batch", w.jsonl, "--out", tmp_path / "out", "--cache", w.cache, "--sources", w.sources,
                    "--mailto", "tests@example.org")  # fmt: skip
    assert again.code == 1
    assert registry.log == []


def test_offline_never_opens_a_socket(
    registry: RegistryServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _point_at(registry, monkeypatch)
    w = make_workload(tmp_path / "w", count=4, bad=False, cache=False)
    registry.log.clear()
    result = run_cli("batch", w.jsonl, "--out", tmp_path / "out", "--cache", w.cache, "--offline")
    assert result.code == 1  # seed 000's uncited claim; every other DOI is not cached
    assert registry.log == []
    codes = {c for e in part_lines(tmp_path / "out") for c in e["report"]["summary"]["by_code"]}
    assert "E_NOT_CACHED" in codes
