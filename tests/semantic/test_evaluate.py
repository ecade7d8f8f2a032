from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citeaudit.semantic.evaluate import metrics
from tests.conftest import run_cli, shared_data

WICE = ("semantic", "wice", "entailment_retrieval_claim", "dev.jsonl")
CLIMATE = ("semantic", "climate_fever", "climate-fever.jsonl")
ATTRIBUTION = ("semantic", "attribution_bench", "dev_all_subset_balanced.jsonl")


def test_metrics_by_hand() -> None:
    gold = ["entailed", "entailed", "insufficient", "insufficient", "contradicted"]
    pred = ["unknown", "insufficient", "insufficient", "unknown", "contradicted"]
    result = metrics(gold, pred)
    assert result["confusion"]["entailed"] == {
        "entailed": 0,
        "contradicted": 0,
        "insufficient": 1,
        "unknown": 1,
    }
    assert result["precision"] == {"entailed": None, "contradicted": 1.0, "insufficient": 0.5}
    assert result["recall"] == {"entailed": 0.0, "contradicted": 1.0, "insufficient": 0.5}
    assert result["balanced_accuracy"] == 0.5  # (0 + 1 + 0.5) / 3: abstaining counts as a miss
    assert (result["coverage"], result["pairs"]) == (0.6, 5)


@pytest.mark.parametrize(
    ("dataset", "parts", "pairs", "min_precision"),
    [
        ("wice", WICE, 349, 0.9),
        ("climate-fever", CLIMATE, 4605, 0.6),
        ("attribution-bench", ATTRIBUTION, 1198, 0.8),
    ],
)
def test_eval_on_the_real_sets(dataset: str, parts: tuple[str, ...], pairs: int, min_precision: float,
                               tmp_path: Path) -> None:  # fmt: skip
    out = tmp_path / "eval.json"
    result = run_cli("eval", "--dataset", dataset, shared_data(*parts), "--judge", "rules", "--out", out)
    assert result.code == 0, result.stderr
    data: dict[str, Any] = json.loads(out.read_text())
    assert data == json.loads(result.stdout)
    assert data["pairs"] == pairs
    assert data["precision"]["entailed"] is None  # rules never says entailed
    assert data["precision"]["insufficient"] >= min_precision
    assert sum(n for row in data["confusion"].values() for n in row.values()) == pairs
    assert set(data) >= {
        "confusion",
        "balanced_accuracy",
        "precision",
        "recall",
        "coverage",
        "pairs_per_second",
    }


@pytest.mark.parametrize(
    ("line", "judge", "message"),
    [
        ("not json", "rules", "citeaudit: error: {f}: line 1: not JSON: Expecting value\n"),
        ('{"claim": "x"}', "rules", "citeaudit: error: {f}: line 1: not a wice record (missing or malformed 'evidence')\n"),
        ('{"claim": "x", "evidence": [], "label": "maybe"}', "rules",
         "citeaudit: error: {f}: line 1: unknown label 'maybe'; expected one of not_supported, partially_supported, supported\n"),
        ("", "rules", "citeaudit: error: {f}: no wice records\n"),
        ("{}", "nli:", "citeaudit: error: judge 'nli:': expected nli:MODEL_DIR_OR_HUB_ID[?OPTIONS][#LABEL,…]\n"),
        ("{}", "llm:gpt", "citeaudit: error: judge 'llm:gpt': expected llm:MODEL@http(s)://HOST/PATH\n"),
        ("{}", "oracle", "citeaudit: error: unknown judge 'oracle'; expected 'rules', 'learned[:NAME|MODEL.json]', 'nli:MODEL', 'llm:MODEL@URL' or 'rules+' and one of these ('none' skips the semantic stage)\n"),
    ],
)  # fmt: skip
def test_eval_bad_input(line: str, judge: str, message: str, tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text(line + "\n")
    out = tmp_path / "out.json"
    result = run_cli("eval", "--dataset", "wice", path, "--judge", judge, "--out", out)
    assert (result.code, result.stderr, result.stdout) == (2, message.format(f=path), "")
    assert not out.exists()


def test_eval_through_an_llm_endpoint_with_the_verdict_cache(tmp_path: Path) -> None:
    from tests.semantic.chat_server import answer, chat_server

    data = tmp_path / "wice.jsonl"
    rows = [{"claim": "A won.", "evidence": ["A won the race."], "label": "supported"},
            {"claim": "B lost twice.", "evidence": ["B lost once."], "label": "not_supported"}]  # fmt: skip
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    cache = tmp_path / "verdicts"
    with chat_server([answer("entailed", ["page"]), answer("contradicted", ["page"])]) as server:
        first = run_cli(
            "eval", "--dataset", "wice", data, "--judge", f"llm:m@{server.url}", "--verdict-cache", cache
        )
        second = run_cli(
            "eval", "--dataset", "wice", data, "--judge", f"llm:m@{server.url}", "--verdict-cache", cache
        )
    assert (first.code, second.code, len(server.requests)) == (0, 0, 2)  # the rerun asked nothing
    a, b = json.loads(first.stdout), json.loads(second.stdout)
    assert a["confusion"] == b["confusion"]
    assert (a["confusion"]["entailed"]["entailed"], a["confusion"]["insufficient"]["contradicted"]) == (1, 1)
    assert a["judge"] == {"backend": "llm", "model": "m", "prompt_version": "llm-1"}
