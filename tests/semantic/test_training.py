"""``citeaudit judge train``: deterministic bytes, the cross-validated figures,
bad input, and reviews as labels (review → train → a reviewed claim's twin
gets another verdict)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from citeaudit.semantic import encoder
from tests.conftest import ROOT, run_cli, shared_data

pytest.importorskip("scipy", reason="judge train needs the train extra (NumPy, SciPy)")

ATTRIBUTION = ("semantic", "attribution_bench", "dev_all_subset_balanced.jsonl")


@pytest.fixture(scope="module")
def small_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first 300 rows of AttributionBench dev (both labels), as the public file writes them."""
    lines = shared_data(*ATTRIBUTION).read_text("utf-8").splitlines()[:300]
    path = tmp_path_factory.mktemp("data") / "ab300.jsonl"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def _train(data: Path, out: Path, seed: str, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    command = [
        sys.executable,
        "-m",
        "citeaudit",
        "judge",
        "train",
        f"attribution-bench={data}",
        "--out",
        str(out),
        *extra,
    ]
    return subprocess.run(
        command, capture_output=True, text=True, env=env, cwd=ROOT, check=False, timeout=300
    )


@pytest.mark.timeout(600)  # three trainings in subprocesses, each bounded at 300 s
def test_training_twice_gives_the_same_bytes_under_any_hash_seed(small_set: Path, tmp_path: Path) -> None:
    runs = [_train(small_set, tmp_path / f"m{seed}.json", seed) for seed in ("0", "1", "4242")]
    assert [r.returncode for r in runs] == [0, 0, 0], runs[0].stderr
    first = (tmp_path / "m0.json").read_bytes()
    assert (tmp_path / "m1.json").read_bytes() == first
    assert (tmp_path / "m4242.json").read_bytes() == first
    printed = {
        r.stdout.replace(f"m{seed}.json", "m.json") for r, seed in zip(runs, ("0", "1", "4242"), strict=True)
    }
    assert len(printed) == 1
    doc = json.loads(first)
    assert doc["training"]["data"] == [
        {"bytes": small_set.stat().st_size, "dataset": "attribution-bench", "file": "ab300.jsonl",
         "pairs": 300, "sha256": doc["training"]["data"][0]["sha256"]}
    ]  # fmt: skip
    assert set(doc["cross_validation"]) == {"all", "attribution-bench"}
    assert b"NaN" not in first
    assert str(tmp_path) not in first.decode()


def test_train_prints_the_cross_validated_figures_and_the_model_works(
    small_set: Path, tmp_path: Path
) -> None:
    out = tmp_path / "m.json"
    result = run_cli("judge", "train", small_set, "--dataset", "attribution-bench", "--out", out,
                     "--target-precision", "0.75")  # fmt: skip
    assert result.code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == (
        "cross-validated on pairs not trained on (5 folds, nested; target precision 0.75, entailed 0.85):"
    )
    assert lines[2].split()[:2] == ["all", "300"]
    assert lines[-1].startswith(f"model={out} sha256=")
    evaluated = run_cli("eval", "--dataset", "attribution-bench", small_set, "--judge", f"learned:{out}",
                        "--no-abstain")  # fmt: skip
    data: dict[str, Any] = json.loads(evaluated.stdout)
    assert data["coverage"] == 1.0  # no abstention
    assert data["judge"]["prompt_version"] == "learned-8-no-abstain"
    assert [row["pairs"] for row in data["calibration"]]
    assert sum(r["pairs"] for r in data["calibration"]) == 300


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "citeaudit: error: nothing to train on: give labelled FILEs or --from-reviews\n"),
        (["x.jsonl"], "citeaudit: error: x.jsonl: give --dataset NAME or write the file as NAME=FILE\n"),
        (["--target-precision", "1.2"], "citeaudit: error: usage: argument --target-precision: expected a "
         "number from 0.5 up to (not including) 1, got '1.2' (see 'citeaudit judge train --help')\n"),
        (["--scope", "a/b"], "citeaudit: error: --scope and --reports go with --from-reviews\n"),
        (["--from-reviews", "s.db"], "citeaudit: error: --from-reviews needs --scope TENANT/USER\n"),
    ],
)  # fmt: skip
def test_bad_training_input_is_exit_2(args: list[str], message: str, tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    result = run_cli("judge", "train", *args, "--out", "m.json")
    assert (result.code, result.stderr) == (2, message)
    assert not (tmp_path / "m.json").exists()


def test_labelled_jsonl_lines_are_checked(tmp_path: Path) -> None:
    data = tmp_path / "pairs.jsonl"
    data.write_text('{"claim": "A", "fragments": ["B"], "label": "supported", "status": "ok"}\n', "utf-8")
    result = run_cli("judge", "train", f"labelled={data}", "--out", tmp_path / "m.json")
    assert (result.code, result.stderr) == (
        2,
        f"citeaudit: error: {data}: line 1: unknown field 'status'; expected id, claim, fragments, label\n",
    )
    data.write_text('{"claim": "A", "fragments": ["B"], "label": "maybe"}\n', "utf-8")
    result = run_cli("judge", "train", f"labelled={data}", "--out", tmp_path / "m.json")
    assert result.stderr == (
        f"citeaudit: error: {data}: line 1: unknown label 'maybe'; expected one of contradicted, insufficient, "
        "supported\n"
    )
    data.write_text('{"claim": "A", "fragments": ["B"], "label": "supported"}\n' * 30, "utf-8")
    result = run_cli("judge", "train", f"labelled={data}", "--out", tmp_path / "m.json")
    assert (
        result.stderr
        == "citeaudit: error: judge train: the pairs must include both supported and unsupported ones\n"
    )


# --- reviews teach the judge ------------------------------------------------------------------------

_TOWNS = ["Arden", "Belmont", "Corwen", "Dunmore", "Elgin", "Fenwick", "Garvan", "Holt", "Ilkley", "Jarrow",
          "Kendal", "Lydney", "Morley", "Nairn", "Oakham", "Penrith", "Quorn", "Ripon", "Selby", "Thirsk",
          "Ulverston", "Ventnor", "Wetherby", "Yarm", "Alnwick", "Brora", "Crieff", "Dornoch", "Eyemouth",
          "Forres", "Girvan", "Hawick", "Irvine", "Jedburgh", "Keswick", "Lanark"]  # fmt: skip
_PLANS = ["housing", "transport", "harbour", "library", "school", "flood", "market", "park", "water"]
_AREAS = ["northern", "eastern", "western", "southern", "central", "riverside", "upland", "coastal"]


def _case(i: int) -> tuple[str, str, str]:
    """A quote, a claim it supports, and one it does not (the plan was approved, not rejected)."""
    town, plan, area = _TOWNS[i % len(_TOWNS)], _PLANS[i % len(_PLANS)], _AREAS[i % len(_AREAS)]
    quote = f"The {town} council approved the new {plan} plan for the {area} district after a public hearing."
    supported = f"The {town} council approved the {plan} plan for the {area} district after a hearing."
    unsupported = (
        f"The {town} council rejected the {plan} plan for the {area} district after fierce protests."
    )
    return quote, supported, unsupported


def _submission(cases: list[tuple[str, str]], tmp_path: Path, name: str) -> tuple[Path, Path]:
    documents = {f"d{i}": {"version": "v1", "text": quote} for i, (quote, _) in enumerate(cases)}
    response = {
        "answer": " ".join(claim for _, claim in cases),
        "claims": [{"id": f"c{i}", "text": claim, "citation_ids": [f"q{i}"]} for i, (_, claim) in enumerate(cases)],
        "citations": [{"id": f"q{i}", "document_id": f"d{i}", "document_version": "v1", "start": 0,
                       "end": len(quote), "quote": quote} for i, (quote, _) in enumerate(cases)],
    }  # fmt: skip
    corpus, claims = tmp_path / f"{name}-documents.json", tmp_path / f"{name}.json"
    corpus.write_text(json.dumps(documents), "utf-8")
    claims.write_text(json.dumps(response), "utf-8")
    return claims, corpus


def _verdicts(claims: Path, corpus: Path, judge: str, out: Path) -> list[str]:
    result = run_cli("check", claims, "--corpus", corpus, "--offline", "--judge", judge, "--out", out)
    assert result.code == 0, result.stderr
    return [c["verdict"]["label"] for c in json.loads(out.read_text("utf-8"))["claims"]]


def test_reviews_become_labels_and_change_a_twins_verdict(tmp_path: Path) -> None:
    reviewed = []
    for i in range(30):
        quote, yes, no = _case(i)
        reviewed += [(quote, yes), (quote, no)]
    claims, corpus = _submission(reviewed, tmp_path, "reviewed")
    report = tmp_path / "report.json"
    _verdicts(claims, corpus, "learned", report)
    store: list[str | Path] = ["--store", tmp_path / "store.db", "--scope", "acme/alice"]
    for i in range(len(reviewed)):
        verdict = "supported" if i % 2 == 0 else "insufficient"
        recorded = run_cli("review", report, "--claim", f"c{i}", "--verdict", verdict, "--note", "read the minutes",
                           "--reviewer", "alice", *store)  # fmt: skip
        assert recorded.code == 0, recorded.stderr
    model = tmp_path / "ours.json"
    trained = run_cli("judge", "train", "--from-reviews", tmp_path / "store.db", "--scope", "acme/alice",
                      "--reports", report, "--out", model)  # fmt: skip
    assert trained.code == 0, trained.stderr
    record = json.loads(model.read_text("utf-8"))["training"]["data"]
    assert [(r["dataset"], r["pairs"], r["reports"]) for r in record] == [("reviews", 60, 1)]

    twins = []
    for i in range(30, 36):  # councils, plans and districts in combinations never reviewed
        quote, yes, no = _case(i)
        twins += [(quote, yes), (quote, no)]
    claims, corpus = _submission(twins, tmp_path, "twins")
    before = _verdicts(claims, corpus, "learned", tmp_path / "before.json")
    after = _verdicts(claims, corpus, f"learned:{model}", tmp_path / "after.json")
    assert after == ["entailed", "insufficient"] * 6
    assert before != after


@pytest.mark.skipif(not encoder.available(), reason="the encoder extra is not installed")
@pytest.mark.timeout(600)  # two trainings in subprocesses, each bounded at 300 s
def test_a_model_reading_the_encoder_is_the_same_bytes_twice(tmp_path: Path) -> None:
    lines = shared_data(*ATTRIBUTION).read_text("utf-8").splitlines()[:100]
    data = tmp_path / "ab100.jsonl"
    data.write_text("\n".join(lines) + "\n", "utf-8")
    runs = [_train(data, tmp_path / f"m{seed}.json", seed, "--encoder") for seed in ("0", "4242")]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr
    first = (tmp_path / "m0.json").read_bytes()
    assert (tmp_path / "m4242.json").read_bytes() == first
    doc = json.loads(first)
    assert (doc["feature_set"], doc["training"]["encoder"]) == ("lexical-5+minilm-1", "all-MiniLM-L6-v2")
    assert doc["features"][-4:] == ["meaning_sentence", "meaning_window", "meaning_names", "meaning_negation"]
    judged = run_cli(
        "eval", "--dataset", "attribution-bench", data, "--judge", f"learned:{tmp_path / 'm0.json'}"
    )
    assert judged.code == 0, judged.stderr
    assert json.loads(judged.stdout)["pairs"] == 100


def test_a_feature_left_out_must_be_one_of_the_set() -> None:
    from citeaudit.errors import ConfigError
    from citeaudit.semantic.training import train_model

    with pytest.raises(ConfigError) as raised:
        train_model([], without=["meaning_window"])
    assert str(raised.value) == "judge train: no feature 'meaning_window' in feature set 'lexical-5'"
