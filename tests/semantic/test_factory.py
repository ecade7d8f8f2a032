"""Judges from their specs: the table of backends, and what a spec it does not know gets."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import pytest

from citeaudit.errors import ConfigError
from citeaudit.semantic import encoder, factory
from citeaudit.semantic.base import BaseJudge
from citeaudit.semantic.cache import CachedJudge
from citeaudit.semantic.cascade import CascadeJudge
from citeaudit.semantic.factory import BACKENDS, JUDGE_SPECS, Backend, configured_judge, make_judge
from citeaudit.semantic.interface import Fragment, Judge, JudgeIdentity, Verdict
from citeaudit.semantic.rules import RulesJudge


def test_every_spec_form_is_listed_from_the_table() -> None:
    assert list(JUDGE_SPECS.values()) == [
        "rules",
        "learned[:wice|attribution|climate[-lexical|-encoder]|retrieved|lexical|encoder|MODEL.json]",
        "nli:MODEL[?OPTIONS][#LABELS]",
        "llm:MODEL@URL",
        "rules+SPEC",
        "none",
    ]
    assert [b.syntax for b in BACKENDS.values()] == list(JUDGE_SPECS.values())[:4]


@pytest.mark.parametrize("spec", ["oracle", "rules:x", "ruless", "", "none"])
def test_a_spec_no_backend_names_is_refused(spec: str) -> None:
    with pytest.raises(ConfigError) as caught:
        make_judge(spec)
    assert str(caught.value) == (
        f"unknown judge {spec!r}; expected 'rules', 'learned[:NAME|MODEL.json]', 'nli:MODEL', 'llm:MODEL@URL' "
        "or 'rules+' and one of these ('none' skips the semantic stage)"
    )


def test_configured_judges_cache_the_costly_ones(tmp_path: Path) -> None:
    assert configured_judge("none", verdict_cache=None, cache=tmp_path, offline=True) is None
    assert isinstance(configured_judge("rules", verdict_cache=None, cache=tmp_path, offline=True), RulesJudge)
    llm = configured_judge("llm:m@http://127.0.0.1:9/v1", verdict_cache=None, cache=tmp_path, offline=True)
    assert isinstance(llm, CachedJudge)
    cascade = make_judge("rules+llm:m@http://127.0.0.1:9/v1", tmp_path, offline=True)
    assert isinstance(cascade, CascadeJudge)
    with pytest.raises(ConfigError, match=r"^offline, an llm judge can only answer from a verdict cache"):
        make_judge("llm:m@http://127.0.0.1:9/v1", offline=True)


class _Echo(BaseJudge):
    """A judge that always answers one label: enough to show a backend registers by one entry."""

    PER_CLAIM = True

    def __init__(self, label: str) -> None:
        super().__init__(JudgeIdentity("echo", label, "echo-1"))
        self._label = label

    def judge(self, claim: str, fragments: Sequence[Fragment]) -> Verdict:
        return Verdict("insufficient" if self._label == "no" else "unknown", self.identity)


def test_a_new_backend_is_one_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    backends = {
        **BACKENDS,
        "echo": Backend("echo:LABEL", "echo:LABEL", lambda spec, arg, offline: _Echo(arg)),
    }
    monkeypatch.setattr(factory, "BACKENDS", backends)
    judge: Judge = make_judge("echo:no")
    assert str(judge.identity) == "echo/no/echo-1"
    assert judge.per_claim
    assert [v.label for v in judge.judge_many([("c", []), ("d", [])])] == ["insufficient", "insufficient"]
    assert isinstance(make_judge("rules+echo:no"), CascadeJudge)
    expected = (
        r"expected 'rules', 'learned\[:NAME\|MODEL\.json\]', 'nli:MODEL', 'llm:MODEL@URL', 'echo:LABEL' or"
    )
    with pytest.raises(ConfigError, match=expected):
        make_judge("oracle")


def test_a_judge_that_implements_neither_method_says_so() -> None:
    class Empty(BaseJudge):
        pass

    empty = Empty(JudgeIdentity("empty", "-", "empty-1"))
    assert not empty.per_claim
    with pytest.raises(NotImplementedError, match=r"^Empty overrides neither judge nor judge_many$"):
        empty.judge("c", [])


def test_the_learned_judge_is_cheap_and_never_cached(tmp_path: Path) -> None:
    from citeaudit.semantic.learned import LearnedJudge

    judge = configured_judge("learned", verdict_cache=None, cache=tmp_path, offline=True)
    assert isinstance(judge, LearnedJudge)
    assert judge.per_claim
    assert isinstance(make_judge("learned", tmp_path / "verdicts"), LearnedJudge)
    assert isinstance(make_judge("rules+learned", tmp_path / "verdicts"), CascadeJudge)
    with pytest.raises(ConfigError) as caught:
        make_judge("learned:")
    assert str(caught.value) == (
        "judge 'learned:': expected learned, "
        "learned:wice|attribution|climate[-lexical|-encoder]|retrieved|lexical|encoder or learned:MODEL.json"
    )


def test_the_per_domain_models_ship_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from citeaudit.semantic.learned import LearnedJudge, shipped_model_path

    digests = set()
    for name in ("wice", "attribution", "climate"):
        judge = make_judge(f"learned:{name}")
        assert isinstance(judge, LearnedJudge)
        assert judge.model.document["training"]["data"][0]["dataset"] == {
            "wice": "wice", "attribution": "attribution-bench", "climate": "climate-fever"
        }[name]  # fmt: skip
        assert len(judge.model.document["training"]["data"]) == 1  # trained on that set alone
        digests.add(judge.model.digest)
    assert len(digests) == 3
    assert make_judge("learned").identity != make_judge("learned:wice").identity
    # Each domain's model reads the encoder's features too where the encoder extra is installed; either
    # by its full name, whatever is installed (the one that reads meaning refused without the extra).
    for name in ("wice", "attribution", "climate"):
        lexical_domain = make_judge(f"learned:{name}-lexical")
        assert isinstance(lexical_domain, LearnedJudge)
        assert not lexical_domain.model.meaning
        assert (
            lexical_domain.model.digest == hashlib.sha256(shipped_model_path(name).read_bytes()).hexdigest()
        )
        chosen = make_judge(f"learned:{name}")
        assert isinstance(chosen, LearnedJudge)
        assert chosen.model.meaning == encoder.available()
        if encoder.available():
            reads_meaning = make_judge(f"learned:{name}-encoder")
            assert isinstance(reads_meaning, LearnedJudge)
            assert reads_meaning.identity == chosen.identity
            assert (
                reads_meaning.model.document["training"]["data"][0]["dataset"]
                == (lexical_domain.model.document["training"]["data"][0]["dataset"])
            )
        else:
            with pytest.raises(ConfigError) as refused:
                make_judge(f"learned:{name}-encoder")
            assert "needs the encoder extra" in str(refused.value)
    # The pooled lexical model by name, whatever extras are installed; --judge learned reads the
    # encoder's features too where the encoder extra is installed.
    lexical = make_judge("learned:lexical")
    assert isinstance(lexical, LearnedJudge)
    assert lexical.model.digest == hashlib.sha256(shipped_model_path().read_bytes()).hexdigest()
    default = make_judge("learned")
    assert isinstance(default, LearnedJudge)
    assert default.model.meaning == encoder.available()
    # A file named like a shipped model is read as a path when written as one.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "wice").write_bytes(shipped_model_path("attribution").read_bytes())
    assert make_judge("learned:./wice").identity == make_judge("learned:attribution-lexical").identity
