"""The nli judge end to end on tiny models the tests build and save: loading,
label mapping by the model's own names, chunking, batching."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeaudit.errors import ConfigError
from citeaudit.semantic.factory import make_judge
from citeaudit.semantic.interface import Fragment
from citeaudit.semantic.nli import NliJudge, combine, label_mapping
from tests.semantic.tiny_nli import build_tiny_nli

THREE = {0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"}
SENTENCE = "The trial found the drug reduced risk by 20 percent in patients."


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("nli")
    return {
        "random": build_tiny_nli(root / "random", THREE),
        "always_contradiction": build_tiny_nli(
            root / "contra", {0: "entailment", 1: "neutral", 2: "contradiction"}, force=2
        ),
        "always_supports": build_tiny_nli(
            root / "supports", {0: "REFUTES", 1: "SUPPORTS", 2: "NOT_ENOUGH_INFO"}, force=1
        ),
        "two_class": build_tiny_nli(root / "two", {0: "entailment", 1: "not_entailment"}, force=1),
        "opaque": build_tiny_nli(root / "opaque", {0: "LABEL_0", 1: "LABEL_1"}, force=1),
    }


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        ({0: "entailment", 1: "neutral", 2: "contradiction"}, ["entailed", "insufficient", "contradicted"]),
        ({0: "CONTRADICTION", 1: "Neutral", 2: "Entailment"}, ["contradicted", "insufficient", "entailed"]),
        ({0: "SUPPORTS", 1: "REFUTES", 2: "NOT ENOUGH INFO"}, ["entailed", "contradicted", "insufficient"]),
        ({0: "entailment", 1: "not_entailment"}, ["entailed", "insufficient"]),
        ({0: "not-attributable", 1: "attributable"}, ["insufficient", "entailed"]),
    ],
)
def test_labels_are_mapped_by_the_models_own_names(names: dict[int, str], expected: list[str]) -> None:
    assert list(label_mapping(names).values()) == expected


def test_opaque_labels_need_an_explicit_mapping() -> None:
    with pytest.raises(ConfigError) as caught:
        label_mapping({0: "LABEL_0", 1: "LABEL_1"})
    assert str(caught.value) == (
        "the model's label 'LABEL_0' says nothing about entailment (labels: LABEL_0, LABEL_1); "
        "give the mapping in the spec, e.g. nli:MODEL#insufficient,entailed"
    )
    assert label_mapping({0: "LABEL_0", 1: "LABEL_1"}, ("insufficient", "entailed")) == {
        0: "insufficient",
        1: "entailed",
    }
    with pytest.raises(ConfigError, match="names 3 verdicts; the model has 2 outputs"):
        label_mapping({0: "LABEL_0", 1: "LABEL_1"}, ("insufficient", "entailed", "contradicted"))
    with pytest.raises(ConfigError, match="'unknown' is not entailed, contradicted or insufficient"):
        label_mapping({0: "LABEL_0", 1: "LABEL_1"}, ("unknown", "entailed"))
    with pytest.raises(ConfigError, match="no entailment label"):
        label_mapping({0: "neutral", 1: "contradiction"})


def test_the_head_decides_through_the_real_loading_path(models: dict[str, Path]) -> None:
    fragments = [Fragment("q1", SENTENCE), Fragment("q2", "Water levels rose.")]
    contra = make_judge(f"nli:{models['always_contradiction']}").judge("the drug reduced risk", fragments)
    assert (contra.label, contra.relied_on) == ("contradicted", ("q1", "q2"))
    assert contra.confidence == pytest.approx(1.0, abs=1e-3)
    supports = make_judge(f"nli:{models['always_supports']}").judge("the drug reduced risk", fragments)
    assert (supports.label, supports.relied_on) == ("entailed", ("q1", "q2"))
    assert make_judge(f"nli:{models['two_class']}").judge("x", fragments).label == "insufficient"
    opaque = make_judge(f"nli:{models['opaque']}#insufficient,entailed").judge("x", fragments)
    assert opaque.label == "entailed"
    assert supports.judge.backend == "nli"
    assert supports.judge.model.startswith("supports@")


def test_unloadable_models_are_config_errors(tmp_path: Path, models: dict[str, Path]) -> None:
    with pytest.raises(ConfigError, match=r"cannot load NLI model '.*missing'"):
        NliJudge(str(tmp_path / "missing"))
    with pytest.raises(ConfigError, match="says nothing about entailment"):
        make_judge(f"nli:{models['opaque']}")
    with pytest.raises(ConfigError, match="expected nli:MODEL_DIR_OR_HUB_ID"):
        make_judge("nli:")


def test_spec_options_choose_batch_and_device_not_answers(models: dict[str, Path]) -> None:
    fragments = [Fragment("q1", SENTENCE * 3), Fragment("q2", "Sea level rose.")]
    items = [(f"the drug reduced risk by {n} percent", fragments) for n in range(5)]
    plain = make_judge(f"nli:{models['random']}")
    tuned = make_judge(f"nli:{models['random']}?batch=2&device=cpu")
    assert tuned.identity == plain.identity  # cached verdicts stay valid across batch sizes and devices
    assert [v.label for v in tuned.judge_many(items)] == [v.label for v in plain.judge_many(items)]
    mapped = make_judge(f"nli:{models['opaque']}?batch=4#insufficient,entailed")  # options before labels
    assert mapped.judge("x", fragments) == make_judge(f"nli:{models['opaque']}#insufficient,entailed").judge(
        "x", fragments
    )


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("batch=0", "batch must be a positive integer, got '0'"),
        ("batch=many", "batch must be a positive integer, got 'many'"),
        ("batch=²", "batch must be a positive integer, got '²'"),
        ("beam=4", "unknown nli option 'beam=4'; expected batch=N or device=D"),
        ("device=", "unknown nli option 'device='; expected batch=N or device=D"),
    ],
)
def test_bad_spec_options_are_config_errors(models: dict[str, Path], query: str, message: str) -> None:
    spec = f"nli:{models['random']}?{query}"
    with pytest.raises(ConfigError) as caught:
        make_judge(spec)
    assert str(caught.value) == f"judge {spec!r}: {message}"


def test_a_device_that_is_not_there_is_a_config_error(models: dict[str, Path]) -> None:
    with pytest.raises(ConfigError, match=r"cannot run NLI model '.*' on device 'nonsense'"):
        make_judge(f"nli:{models['random']}?device=nonsense")


def test_new_weights_change_the_identity(tmp_path: Path) -> None:
    first = NliJudge(str(build_tiny_nli(tmp_path / "m", THREE, seed=1))).identity
    second = NliJudge(str(build_tiny_nli(tmp_path / "m", THREE, seed=2))).identity
    assert first != second  # cached verdicts of the old weights are never reused


def test_long_evidence_is_chunked_to_the_window(models: dict[str, Path]) -> None:
    judge = NliJudge(str(models["random"]))
    tokenizer = judge._tokenizer
    claim = "the drug reduced risk by 20 percent"
    fragments = [Fragment("q1", " ".join([SENTENCE] * 12)), Fragment("q2", "Sea level rose. " * 10)]
    chunks = judge.chunks(0, claim, fragments)
    assert len(chunks) > 3
    for chunk in chunks:
        assert len(tokenizer(chunk.premise, claim)["input_ids"]) <= 64
    assert chunks[0].citation_ids == ("q1",)
    assert chunks[-1].citation_ids == ("q2",)
    joined = " ".join(c.premise for c in chunks)
    assert joined.count("reduced risk") == 12
    assert joined.count("Sea level rose.") == 10
    assert len(judge.chunks(0, claim, [Fragment("q1", SENTENCE)])) == 1


def test_chunk_results_combine_without_averaging() -> None:
    assert combine(
        [("insufficient", 0.9, ("a",)), ("entailed", 0.6, ("b",)), ("contradicted", 0.99, ("c",))]
    ) == (
        "entailed",
        0.6,
        ("b",),
    )
    assert combine([("insufficient", 0.9, ("a",)), ("contradicted", 0.7, ("c",))]) == (
        "contradicted",
        0.7,
        ("c",),
    )
    assert combine([("insufficient", 0.8, ("a",)), ("insufficient", 0.9, ("b",))]) == (
        "insufficient",
        0.9,
        (),
    )
    assert combine([]) == ("insufficient", 0.0, ())


def test_batching_changes_speed_not_answers(models: dict[str, Path]) -> None:
    items = [
        (
            f"the drug reduced risk by {n} percent",
            [Fragment("q1", SENTENCE * (1 + n % 4)), Fragment("q2", "Sea level rose.")],
        )
        for n in range(12)
    ]
    one = NliJudge(str(models["random"]), batch_size=1).judge_many(items)
    many = NliJudge(str(models["random"]), batch_size=8).judge_many(items)
    assert [v.label for v in one] == [v.label for v in many]
    for a, b in zip(one, many, strict=True):
        assert a.confidence == pytest.approx(b.confidence, abs=1e-3)
    assert [v.label for v in many] == [NliJudge(str(models["random"])).judge(c, f).label for c, f in items]


def test_offline_never_downloads_a_model() -> None:
    with pytest.raises(ConfigError, match=r"cannot load NLI model 'example-org/no-such-nli-model'") as caught:
        make_judge("nli:example-org/no-such-nli-model", offline=True)
    assert str(caught.value) == (
        "cannot load NLI model 'example-org/no-such-nli-model': no such directory, and not in the local "
        "model cache (offline: nothing is downloaded)"
    )


def test_rules_then_nli_asks_the_model_only_what_rules_leave_open(
    models: dict[str, Path], tmp_path: Path
) -> None:
    judge = make_judge(f"rules+nli:{models['always_supports']}", tmp_path / "verdicts")
    quote = "The trial found the drug reduced risk by 20 percent in patients."
    items = [
        ("The trial found the drug reduced risk by 20 percent.", [Fragment("q1", quote)]),  # rules: unknown
        ("The drug reduced risk by 90 percent.", [Fragment("q2", quote)]),  # rules: 90 is missing
    ]
    first, second = judge.judge_many(items)
    assert (first.label, first.judge.backend) == ("entailed", "nli")
    assert (second.label, second.judge.backend, second.unsupported[0]) == ("insufficient", "rules", "90")
    assert judge.identity.backend == "cascade"
    assert judge.identity.model.startswith("rules/coverage<0.3/rules-1+nli/supports@")
    assert len(list((tmp_path / "verdicts").rglob("*.json"))) == 1  # only the model's verdict is cached
