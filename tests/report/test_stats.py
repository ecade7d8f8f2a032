"""citeaudit stats over 1,000 reports of real audits: every aggregate equals a
direct count, in JSON, the table and the Prometheus text format."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from citeaudit.core import AuditSettings, audit
from citeaudit.formats import parse_document
from citeaudit.report.json import render_json
from citeaudit.report.stats import aggregate, to_prometheus
from citeaudit.resolve.cache import CachingResolver, DoiCache
from citeaudit.sources.corpus import Corpus, Document
from citeaudit.sources.directory import SnapshotDirectory
from tests.conftest import run_cli

TEXT = "The journal is kept for 30 days. Backups are deleted separately after 90 days."
CORPUS = Corpus({"policy": Document("policy", "v1", TEXT)}, "c")


def make_reports(count: int, root: Path) -> list[Path]:
    rng = random.Random(3)
    paths = []
    for n in range(count):
        claims: list[dict[str, Any]] = []
        citations: list[dict[str, Any]] = []
        for c in range(rng.randint(1, 6)):
            roll = rng.random()
            if roll < 0.15:
                claims.append({"id": f"c{c}", "text": "uncited"})
                continue
            start, end, quote = (0, 32, TEXT[:32]) if roll < 0.8 else (1, 33, TEXT[:32])  # a shifted range
            citations.append({"id": f"q{c}", "document_id": "policy", "document_version": "v1",
                              "start": start, "end": end, "quote": quote})  # fmt: skip
            claims.append(
                {"id": f"c{c}", "text": "The journal is kept for 30 days.", "citation_ids": [f"q{c}"]}
            )
        labels = {
            "generator": rng.choice(["gen-a", "gen-b"]),
            "retriever": rng.choice(["bm25", 'dense "v2"']),
        }
        doc: dict[str, Any] = {"claims": claims, "citations": citations, "labels": labels}
        if rng.random() < 0.2:
            doc["gaps"] = ["not all sources were read"]
        submission = parse_document(doc, "r.json")
        report = audit(submission, resolver=CachingResolver(DoiCache(root)), snapshots=SnapshotDirectory(root),
                       corpus=CORPUS, settings=AuditSettings(offline=True))  # fmt: skip
        path = root / f"report-{n:04d}.json"
        path.write_bytes(render_json(report))
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return make_reports(1000, tmp_path_factory.mktemp("reports"))


def test_aggregates_equal_a_direct_count(reports: list[Path]) -> None:
    loaded = [json.loads(p.read_text("utf-8")) for p in reports]
    groups = aggregate(loaded)
    assert sum(g["reports"] for g in groups) == 1000
    for group in groups:
        mine = [r for r in loaded if (r["labels"].get("generator", ""), r["labels"].get("retriever", ""))
                == (group["group"]["generator"], group["group"]["retriever"])]  # fmt: skip
        claims = [c for r in mine for c in r["claims"]]
        rows = [x for r in mine for x in r["results"] if x["citation"] is not None]
        assert group["reports"] == len(mine)
        assert group["claims"] == len(claims)
        assert group["uncited_claims"] == sum(1 for c in claims if c["status"] == "unsupported")
        assert group["invalid_citations"] == sum(1 for x in rows if x["errors"])
        assert group["claims_by_status"] == dict(sorted(Counter(c["status"] for c in claims).items()))
        assert group["manual_review_reports"] == sum(
            1 for r in mine if r["status"] in {"needs_review", "partial"}
        )
        assert group["reports_by_decision"] == dict(sorted(Counter(r["decision"] for r in mine).items()))
    assert aggregate([{k: v for k, v in loaded[0].items() if k != "decision"}])[0]["reports_by_decision"] == {
        "not_recorded": 1
    }  # a report from before decisions existed


def test_stats_cli_in_every_format(reports: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "stats.json"
    assert run_cli("stats", *reports, "--format", "json", "--output", out).code == 0
    assert json.loads(out.read_text("utf-8")) == aggregate(
        [json.loads(p.read_text("utf-8")) for p in reports]
    )
    table = run_cli("stats", *reports[:50]).stdout.splitlines()
    assert table[0].split() == ["generator", "retriever", "corpus", "version", "reports", "claims", "uncited",
                                "invalid", "manual"]  # fmt: skip
    prometheus = run_cli("stats", *reports, "--format", "prometheus").stdout
    assert "# TYPE citeaudit_reports gauge" in prometheus
    assert 'retriever="dense \\"v2\\""' in prometheus  # label values escaped
    samples = [line for line in prometheus.splitlines() if line.startswith("citeaudit_reports{")]
    assert sum(int(line.rsplit(" ", 1)[1]) for line in samples) == 1000
    decided = [line for line in prometheus.splitlines() if line.startswith("citeaudit_reports_by_decision{")]
    assert sum(int(line.rsplit(" ", 1)[1]) for line in decided) == 1000


def test_prometheus_text_is_well_formed(reports: list[Path]) -> None:
    text = to_prometheus(aggregate([json.loads(p.read_text("utf-8")) for p in reports[:10]]))
    for line in text.splitlines():
        if not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            float(value)
            assert name.count("{") == 1
            assert name.endswith("}")
