"""The learned judge: its model file (JSON only, checked), its verdicts, its
place in an audit, and its speed against the rules judge."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from citeaudit.semantic import meaning
from citeaudit.semantic.datasets import load_pairs
from citeaudit.semantic.factory import default_model, make_judge
from citeaudit.semantic.features import FEATURE_SET, FEATURES, featurize
from citeaudit.semantic.interface import Fragment
from citeaudit.semantic.learned import LearnedJudge, shipped_model_path
from tests.conftest import GOLDEN, ROOT, run_cli, shared_data

WICE = ("semantic", "wice", "entailment_retrieval_claim", "dev.jsonl")


def _shipped() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(shipped_model_path().read_text("utf-8"))
    return data


def test_the_shipped_model_is_json_of_this_feature_set() -> None:
    doc = _shipped()
    assert (doc["format"], doc["version"], doc["feature_set"]) == ("citeaudit-learned-judge", 1, FEATURE_SET)
    assert doc["features"] == [name for name, _ in FEATURES]
    assert len(doc["weights"]) == len(FEATURES)
    assert {r["dataset"] for r in doc["training"]["data"]} == {"wice", "climate-fever", "attribution-bench"}
    assert all(len(r["sha256"]) == 64 and "/" not in r["file"] for r in doc["training"]["data"])
    assert shipped_model_path().stat().st_size < 64 * 1024  # small enough to read in a diff


def test_judge_identity_names_the_model_digest() -> None:
    judge = make_judge("learned")
    assert isinstance(judge, LearnedJudge)
    assert str(judge.identity) == f"learned/sha256:{judge.model.digest[:16]}/learned-8"
    same = make_judge(f"learned:{shipped_model_path(default_model())}")
    assert same.identity == judge.identity  # the same bytes are the same judge, wherever the file is


_CLAIM = "The survey found that 40 percent of the town's wells were contaminated with arsenic in 2019."
_SOURCE = (
    "A county survey published in 2020 sampled every well in the town. "
    "It found that 40 percent of the wells were contaminated with arsenic in 2019, most of them shallow. "
    "The county has since funded a filtration programme."
)


def test_a_verdict_carries_probability_reason_and_unsupported_spans() -> None:
    judge = make_judge("learned")
    supported = judge.judge(_CLAIM, [Fragment("q1", _SOURCE)])
    assert supported.probability is not None
    assert 0.0 <= supported.probability <= 1.0
    assert supported.reason is not None
    assert supported.reason.count("; ") == 2  # the three features that moved it most
    other = "The survey found that the wells of the coastal villages were polluted by fertiliser runoff."
    unsupported = judge.judge(other, [Fragment("q1", _SOURCE)])
    assert unsupported.probability is not None
    assert unsupported.probability < supported.probability
    assert unsupported.label in ("insufficient", "unknown")
    spans = unsupported.unsupported_spans
    words = [other[s:e] for s, e in spans]
    assert words == list(unsupported.unsupported)
    assert words == ["coastal villages were polluted by fertiliser runoff"]  # stop words between join them
    assert not any("survey" in w or "wells" in w for w in words)  # those the source has
    assert judge.judge(other, []).label == "insufficient"
    assert judge.judge(other, [Fragment("q1", _SOURCE)]) == unsupported  # deterministic


def test_it_never_says_contradicted_on_a_real_set() -> None:
    pairs = load_pairs("wice", shared_data(*WICE))[:60]
    verdicts = make_judge("learned").judge_many([(p.claim, p.fragments) for p in pairs])
    assert {v.label for v in verdicts} <= {"entailed", "insufficient", "unknown"}
    assert all(v.probability is not None for v in verdicts)


def _model_error(tmp_path: Path, data: bytes) -> tuple[int, str]:
    model = tmp_path / "model.json"
    model.write_bytes(data)
    case = tmp_path / "case"
    shutil.copytree(GOLDEN / "seed003_real_range", case)
    result = run_cli("check", case / "response.json", "--corpus", case / "documents.json", "--offline",
                     "--judge", f"learned:{model}", "--out", case / "report.json")  # fmt: skip
    assert not (case / "report.json").exists() or result.code != 2
    return result.code, result.stderr


def test_a_truncated_model_is_exit_2_naming_the_file(tmp_path: Path) -> None:
    data = shipped_model_path().read_bytes()
    code, err = _model_error(tmp_path, data[: len(data) // 2])
    assert code == 2
    assert err.startswith(f"citeaudit: error: {tmp_path / 'model.json'}: not a usable learned-judge model: ")
    assert "not valid JSON (damaged or truncated?)" in err
    assert err.count("\n") == 1


def test_a_model_of_another_version_is_exit_2(tmp_path: Path) -> None:
    doc = _shipped()
    doc["version"] = 2
    code, err = _model_error(tmp_path, json.dumps(doc).encode())
    assert (code, err) == (
        2,
        f"citeaudit: error: {tmp_path / 'model.json'}: not a usable learned-judge model: version 2 is not "
        "supported (this citeaudit reads version 1)\n",
    )


class _Boom:
    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.touch, (Path("pickle-ran"),))


def test_a_pickle_is_exit_2_and_never_loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, err = _model_error(tmp_path, pickle.dumps({"format": _Boom()}))
    assert (code, err) == (
        2,
        f"citeaudit: error: {tmp_path / 'model.json'}: not a usable learned-judge model: it is a pickle; "
        "model files are JSON, never code, and it was not loaded\n",
    )
    assert not (tmp_path / "pickle-ran").exists()


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda d: d.pop("weights"), f"'weights' must be a list of {len(FEATURES)} numbers"),
        (lambda d: d["mean"].__setitem__(0, "x"), "'mean' must hold only finite numbers"),
        (lambda d: d["scale"].__setitem__(3, 0), "'scale' must be positive"),
        (lambda d: d.__setitem__("feature_set", "lexical-0"),
         f"feature set 'lexical-0' is not one of this citeaudit's ({FEATURE_SET!r} or '{FEATURE_SET}+minilm-1')"),
        (lambda d: d["weights"].__setitem__(d["features"].index("cover_window"), -0.5),
         "the weight of 'cover_window' runs against what the feature means (models are trained with each "
         "weight's sign fixed by its feature's meaning)"),
        (lambda d: d["thresholds"].__setitem__("insufficient", 0.9),
         "thresholds must satisfy 0 <= insufficient <= entailed <= 1"),
        (lambda d: d.__setitem__("format", "sklearn"), "its 'format' is not 'citeaudit-learned-judge'"),
    ],
)  # fmt: skip
def test_a_damaged_model_is_exit_2_with_the_problem(tmp_path: Path, change: Any, problem: str) -> None:
    doc = _shipped()
    change(doc)
    code, err = _model_error(tmp_path, json.dumps(doc).encode())
    prefix = f"citeaudit: error: {tmp_path / 'model.json'}: not a usable learned-judge model: "
    assert (code, err) == (2, prefix + problem + "\n")


def test_a_missing_model_file_is_exit_2(tmp_path: Path) -> None:
    result = run_cli(
        "eval", "--dataset", "labelled", tmp_path / "none.jsonl", "--judge", f"learned:{tmp_path}/m.json"
    )
    assert result.code == 2
    assert result.stderr == (
        f"citeaudit: error: {tmp_path}/m.json: cannot read the model file: No such file or directory\n"
    )


def test_the_judge_never_sees_a_claim_that_failed_a_check(tmp_path: Path) -> None:
    case = tmp_path / "case"
    shutil.copytree(GOLDEN / "seed003_printed_range", case)  # the quote's range is off by one
    result = run_cli("check", case / "response.json", "--corpus", case / "documents.json", "--offline",
                     "--judge", "learned", "--out", case / "report.json")  # fmt: skip
    report = json.loads((case / "report.json").read_text("utf-8"))
    assert result.code == 1
    assert [c["verdict"] for c in report["claims"]] == [None]
    assert report["settings"]["judge"].startswith("learned/sha256:")


def test_a_learned_report_renders_its_spans_in_every_format(tmp_path: Path) -> None:
    case = tmp_path / "case"
    shutil.copytree(GOLDEN / "seed003_real_range", case)
    response = json.loads((case / "response.json").read_text("utf-8"))
    response["claims"][0]["text"] = "Сервис хранит журнал операций 30 дней в облаке провайдера."
    (case / "response.json").write_text(json.dumps(response, ensure_ascii=False), "utf-8")
    report_path = case / "report.json"
    run_cli("check", case / "response.json", "--corpus", case / "documents.json", "--offline",
            "--judge", "learned", "--out", report_path)  # fmt: skip
    verdict = json.loads(report_path.read_text("utf-8"))["claims"][0]["verdict"]
    text = response["claims"][0]["text"]
    shown = [text[s:e] for s, e in verdict["unsupported_spans"]]
    assert "облаке провайдера" in shown
    expected = {
        "md": "Unsupported by its fragments: ",
        "sarif": '"unsupportedSpans"',
        "junit": 'name="citeaudit.unsupported.c1"',
        "html": '["облаке провайдера",true]',  # a piece of the claim text the page marks (report-judge.js)
    }
    for fmt, needle in expected.items():
        out = tmp_path / f"r.{fmt}"
        assert run_cli("render", report_path, "--format", fmt, "--output", out).code == 0
        assert needle in out.read_text("utf-8"), fmt


def test_inference_imports_no_training_library() -> None:
    code = (
        "import sys; from citeaudit.semantic.factory import make_judge; from citeaudit.semantic.interface import Fragment; "
        "v = make_judge('learned:lexical').judge('Wells were contaminated.', [Fragment('q', 'The wells were contaminated.')]); "
        "print(sorted(m for m in ('sklearn', 'numpy', 'scipy', 'torch') if m in sys.modules), v.label)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT, timeout=120
    )
    assert out.stdout.split()[0] == "[]"


def test_features_are_the_same_under_reordered_fragments_only_where_they_should_be() -> None:
    a, b = Fragment("q1", _SOURCE), Fragment("q2", "The filtration programme began in 2021.")
    first, second = featurize(_CLAIM, [a, b]), featurize(_CLAIM, [b, a])
    assert first.values == second.values  # the order of the citations does not change what they say


def test_every_feature_is_defined_in_the_judges_guide() -> None:
    guide = (ROOT / "docs" / "guides" / "judges.md").read_text("utf-8")
    for name, definition in (*FEATURES, *meaning.FEATURES):
        assert f"| `{name}` | {definition} |" in guide, name


def test_no_abstain_needs_a_judge_with_a_probability(tmp_path: Path) -> None:
    data = tmp_path / "pairs.jsonl"
    data.write_text(
        '{"claim": "The wells were contaminated.", "fragments": ["The wells were contaminated."], '
        '"label": "supported"}\n',
        "utf-8",
    )
    result = run_cli("eval", "--dataset", "labelled", data, "--judge", "rules", "--no-abstain")
    assert (result.code, result.stderr) == (
        2,
        "citeaudit: error: --no-abstain needs a judge with a probability of support (learned), not 'rules'\n",
    )
    forced = json.loads(
        run_cli("eval", "--dataset", "labelled", data, "--judge", "learned", "--no-abstain").stdout
    )
    assert forced["coverage"] == 1.0
    assert forced["calibration"][-1]["pairs"] + sum(r["pairs"] for r in forced["calibration"][:-1]) == 1


def test_a_learned_report_is_the_same_bytes_under_any_hash_seed(tmp_path: Path) -> None:
    case = tmp_path / "case"
    shutil.copytree(GOLDEN / "seed003_real_range", case)
    outputs = []
    for seed in ("0", "7", "31337"):
        out = tmp_path / f"r{seed}.json"
        command = [sys.executable, "-m", "citeaudit", "check", str(case / "response.json"), "--corpus",
                   str(case / "documents.json"), "--offline", "--judge", "learned", "--out", str(out)]  # fmt: skip
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run(command, capture_output=True, env=env, cwd=ROOT, check=True, timeout=120)
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1] == outputs[2]
    assert b'"probability"' in outputs[0]
