"""The learned judge's vetoes: a claim that a reader would catch as wrong (negated, a name its source
does not have, two names the wrong way round, a number changed) is never ``entailed``, whatever words
it shares with its source, and an answer made only of such claims is never accepted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citeaudit.semantic import features
from citeaudit.semantic.datasets import Pair, load_pairs
from citeaudit.semantic.factory import make_judge
from citeaudit.semantic.features import featurize, name_runs
from citeaudit.semantic.interface import Fragment
from citeaudit.semantic.learned import VETOES, LearnedJudge
from citeaudit.semantic.probes import EDITS, edit_claim, probe
from tests.conftest import run_cli, shared_data

_DOCUMENT = (
    "Harbour works report. The council has approved the new bridge over the Tamar River. "
    "Alice Moreau defeated Jonas Berg in the final of the design competition. "
    "The winning design was drawn by Maria Lopez of Plymouth. "
    "Construction will cost 42 million pounds and take three years."
)
# Each claim quotes its source verbatim; the claim's own words are wrong.
_WRONG = {
    "c1": ("The council has not approved the new bridge over the Tamar River.",
           "The council has approved the new bridge over the Tamar River."),
    "c2": ("Jonas Berg defeated Alice Moreau in the final of the design competition.",
           "Alice Moreau defeated Jonas Berg in the final of the design competition."),
    "c3": ("In the final of the design competition, Jonas Berg defeated Alice Moreau.",
           "Alice Moreau defeated Jonas Berg in the final of the design competition."),
    "c4": ("The winning design was drawn by Peter Novak of Plymouth.",
           "The winning design was drawn by Maria Lopez of Plymouth."),
}  # fmt: skip
_RIGHT = {
    "c1": "The council has approved the new bridge over the Tamar River.",
    "c2": "Alice Moreau defeated Jonas Berg in the final of the design competition.",
    "c3": "In the final of the design competition, Alice Moreau defeated Jonas Berg.",
    "c4": "The winning design was drawn by Maria Lopez of Plymouth.",
}


def _case(tmp_path: Path, claims: dict[str, tuple[str, str]]) -> tuple[Path, Path]:
    citations: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    for n, (claim_id, (text, quote)) in enumerate(claims.items(), start=1):
        start = _DOCUMENT.index(quote)
        citations.append({"id": f"q{n}", "document_id": "harbour", "document_version": "2026-03",
                          "start": start, "end": start + len(quote), "quote": quote})  # fmt: skip
        rows.append({"id": claim_id, "text": text, "citation_ids": [f"q{n}"]})
    response = {"answer": " ".join(str(r["text"]) for r in rows), "claims": rows, "citations": citations}
    documents = {"harbour": {"version": "2026-03", "text": _DOCUMENT}}
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "response.json").write_text(json.dumps(response), "utf-8")
    (tmp_path / "documents.json").write_text(json.dumps(documents), "utf-8")
    return tmp_path / "response.json", tmp_path / "documents.json"


def _check(tmp_path: Path, claims: dict[str, tuple[str, str]]) -> tuple[int, str, dict[str, Any]]:
    response, documents = _case(tmp_path, claims)
    out = tmp_path / "report.json"
    result = run_cli("check", response, "--corpus", documents, "--offline", "--judge", "learned",
                     "--fail-on", "decision", "--out", out)  # fmt: skip
    return result.code, result.stderr, json.loads(out.read_text("utf-8"))


def test_an_answer_made_only_of_wrong_claims_is_never_accepted(tmp_path: Path) -> None:
    code, stderr, report = _check(tmp_path / "wrong", _WRONG)
    verdicts = {c["id"]: c["verdict"] for c in report["claims"]}
    assert all(c["findings"] == [] for c in report["claims"] if "findings" in c)  # every quote is verbatim
    assert set(verdicts) == set(_WRONG)
    assert all(v is not None for v in verdicts.values())
    assert report["decision"] != "accept"
    assert "decision=accept" not in stderr
    assert code != 0  # --fail-on decision: a decision other than accept fails the run
    assert not any(v["label"] == "entailed" for v in verdicts.values())
    expected = {"c1": "S_NEGATION_ONE_SIDED", "c2": "S_NAMES_REVERSED", "c3": "S_NAMES_REVERSED",
                "c4": "S_NAME_ABSENT"}  # fmt: skip
    for claim_id, code_name in expected.items():
        verdict = verdicts[claim_id]
        assert code_name in verdict["signals"], claim_id
        assert f"veto {code_name} (" in verdict["reason"], claim_id  # the report names the veto


def test_the_same_answer_told_right_is_accepted(tmp_path: Path) -> None:
    """The contrast that makes the test above mean something: the same words, the right way round."""
    code, _, report = _check(tmp_path / "right", {k: (v, _WRONG[k][1]) for k, v in _RIGHT.items()})
    assert [c["verdict"]["label"] for c in report["claims"]] == ["entailed"] * 4
    assert all(not c["verdict"]["signals"] for c in report["claims"])
    assert report["decision"] == "accept"
    assert code == 0


def test_without_vetoes_the_model_alone_would_say_entailed() -> None:
    """Each wrong claim gets past the probability: only the veto stops it."""
    judge = make_judge("learned")
    assert isinstance(judge, LearnedJudge)
    bare = judge.without_vetoes()
    for claim_id, (text, quote) in _WRONG.items():
        # A name replaced, two names swapped: the probability alone already keeps them out of entailed
        # (the names_reversed feature); the negation gets past it.
        if claim_id == "c1":
            assert bare.judge(text, [Fragment("q", quote)]).label == "entailed", text
        assert judge.judge(text, [Fragment("q", quote)]).label in ("unknown", "insufficient"), text


@pytest.mark.parametrize(
    ("claim", "fragment", "veto"),
    [
        ("The wells were not contaminated with arsenic in 2019.",
         "The wells were contaminated with arsenic in 2019.", "S_NEGATION_ONE_SIDED"),
        ("In 2019 the wells had no arsenic and were not tested again.",
         "In 2019 the wells had no arsenic and were tested again.", "S_NEGATION_ADDED"),
        ("The wells were contaminated with arsenic in 2018.",
         "The wells were contaminated with arsenic in 2019.", "S_NUMBER_ABSENT"),
        ("In the town, Mayor Tom Brown closed the contaminated wells in 2019.",
         "In the town, Mayor Jane Smith closed the contaminated wells in 2019.", "S_NAME_ABSENT"),
        ("In the town, Smith was beaten by Jones at the well.",
         "In the town, Jones was beaten by Smith at the well.", "S_NAMES_REVERSED"),
        ("Coastal villages polluted groundwater with fertiliser runoff from farms.",
         "The wells were contaminated with arsenic in 2019.", "S_LOW_COVERAGE"),
    ],
)  # fmt: skip
def test_each_veto_is_named_and_the_verdict_is_never_entailed(claim: str, fragment: str, veto: str) -> None:
    judge = make_judge("learned")
    verdict = judge.judge(claim, [Fragment("q", fragment)])
    assert veto in verdict.signals
    assert verdict.label in ("unknown", "insufficient")
    assert verdict.reason is not None
    assert f"veto {veto} (" in verdict.reason
    assert veto in VETOES


def test_names_told_the_other_way_round_in_the_passive_are_no_veto() -> None:
    found = featurize(
        "In the town, Jones was beaten by Smith.", [Fragment("q", "In the town, Smith beat Jones.")]
    )
    assert found.names_reversed == ()
    swapped = featurize(
        "In the town, Smith was beaten by Jones.", [Fragment("q", "In the town, Smith beat Jones.")]
    )
    assert swapped.names_reversed == (("Smith", "Jones"),)
    come_by = "While all of Young's wins have come by knockout, Kedzie has never been stopped."
    assert featurize("Later, Young faced Kedzie.", [Fragment("q", come_by)]).names_reversed == ()
    assert featurize("Later, Kedzie faced Young.", [Fragment("q", come_by)]).names_reversed == (
        ("Kedzie", "Young"),
    )


def test_a_name_is_a_run_of_capitals_that_does_not_start_a_sentence() -> None:
    runs = name_runs("Obama met John McCain. Then Biden's team won in New York; The Guardian said so.")
    assert [(r.text, r.first) for r in runs] == [
        ("Obama", True), ("John McCain", False), ("Biden's", False), ("New York", False), ("Guardian", False)
    ]  # fmt: skip
    found = featurize("In 2020, Obama met John McCain.", [Fragment("q", "McCain, John, met Obama in 2020.")])
    assert found.names_absent == ()  # every word of the name is in one fragment
    assert featurize(
        "In 2020, Obama met John McCain.", [Fragment("q", "Obama met McCain in 2020.")]
    ).names_absent == ("John McCain",)  # one word of a name missing is the name missing
    other = [Fragment("q", "Obama met officials in 2020."), Fragment("r", "John McCain spoke.")]
    assert featurize("In 2020, Obama met John McCain.", other).names_absent == ()


def test_every_verdict_shows_its_signals_and_unsupported_words() -> None:
    judge = make_judge("learned")
    source = "A county survey found that 40 percent of the wells were contaminated with arsenic in 2019."
    verdict = judge.judge(
        "The survey found that 40 percent of the wells were contaminated.", [Fragment("q", source)]
    )
    assert verdict.label == "entailed"
    with_extra = judge.judge(
        "The county survey found that 40 percent of the shallow wells were contaminated with arsenic in 2019.",
        [Fragment("q", source)],
    )
    assert with_extra.label == "entailed"
    assert with_extra.unsupported == ("shallow",)  # shown on an entailed verdict too


@pytest.mark.parametrize(
    "spec", ["learned", "learned:lexical", "learned:wice", "learned:attribution", "learned:climate"]
)
def test_a_reason_never_reads_backwards(spec: str) -> None:
    """Every shipped weight goes the way its feature's meaning does (coverage never pulls against
    support), so every feature a reason names reads right: its contribution has its meaning's sign."""
    from citeaudit.semantic import features, meaning

    DIRECTIONS = {**features.DIRECTIONS, **meaning.DIRECTIONS}

    judge = make_judge(spec)
    assert isinstance(judge, LearnedJudge)
    weights = dict(zip(judge.model.features, judge.model.weights, strict=True))
    assert not {n for n, w in weights.items() if DIRECTIONS[n] * w < 0}
    assert any(DIRECTIONS[n] > 0 and w > 0 for n, w in weights.items())
    assert any(DIRECTIONS[n] < 0 and w < 0 for n, w in weights.items())
    pairs = load_pairs("wice", shared_data("semantic", "wice", "entailment_retrieval_claim", "dev.jsonl"))[
        :40
    ]
    model = judge.model
    encodings = meaning.Encodings()
    for pair in pairs:
        found = featurize(pair.claim, pair.fragments)
        values = found.values
        if model.meaning:  # the encoder's features after the lexical ones (learned:encoder)
            values += meaning.values(found, encodings, model.weighted)
        _, parts = model.score(values)
        for name, x, mean, part in zip(model.features, values, model.mean, parts, strict=True):
            if DIRECTIONS[name] and part:  # above its mean a "for" feature pushes for support
                assert (part > 0) == ((x > mean) == (DIRECTIONS[name] > 0)), name
        reason = judge.judge(pair.claim, pair.fragments).reason
        assert reason is not None
        named = [part.split("=")[0] for part in reason.split("; ") if "=" in part]
        assert len(named) == 3
        assert all(parts[model.features.index(name)] != 0 for name in named)


def _pairs() -> list[Pair]:
    return [
        Pair("p1", "The council has approved the new bridge over the Tamar River.",
             (Fragment("q", _DOCUMENT),), "entailed"),
        Pair("p2", "Alice Moreau defeated Jonas Berg in the final of the design competition.",
             (Fragment("q", _DOCUMENT),), "entailed"),
        Pair("p3", "Construction will cost 42 million pounds.", (Fragment("q", _DOCUMENT),), "entailed"),
        Pair("p4", "The winning design was drawn by Maria Lopez of Plymouth.",
             (Fragment("q", _DOCUMENT),), "entailed"),
        # against its one sentence, the negated claim gets past the probability alone
        Pair("p5", _RIGHT["c1"], (Fragment("q", _RIGHT["c1"]),), "entailed"),
    ]  # fmt: skip


def test_probe_edits_make_each_claim_wrong_and_leave_the_rest() -> None:
    evidence = _DOCUMENT
    claim = "Alice Moreau defeated Jonas Berg in the final, which will cost 42 million pounds."
    pool = ["Peter Novak", "Maria Lopez"]
    assert edit_claim("not", "Alice Moreau defeated Jonas Berg.", evidence) is None  # no auxiliary
    assert edit_claim("not", claim, evidence) == (
        "Alice Moreau defeated Jonas Berg in the final, which will not cost 42 million pounds."
    )
    assert edit_claim("not", "The council has approved it.", evidence) == "The council has not approved it."
    assert (
        edit_claim("never", "The council has approved it.", evidence) == "The council has never approved it."
    )
    assert edit_claim("names_swapped", claim, evidence) == (
        "Jonas Berg defeated Alice Moreau in the final, which will cost 42 million pounds."
    )
    replaced = edit_claim("name_replaced", claim, evidence, pool)
    assert replaced is not None
    assert "Peter Novak" in replaced
    assert edit_claim("number_changed", claim, evidence) == (
        "Alice Moreau defeated Jonas Berg in the final, which will cost 43 million pounds."
    )
    assert (
        edit_claim(
            "names_swapped", "UBI (Universal Basic Income) helps.", "UBI means Universal Basic Income."
        )
        is None
    )
    with pytest.raises(ValueError, match="unknown probe edit"):
        edit_claim("shuffle", claim, evidence)


def test_probes_count_what_survives_with_and_without_vetoes() -> None:
    judge = make_judge("learned")
    assert isinstance(judge, LearnedJudge)
    pairs = _pairs()
    with_vetoes, without = probe(judge, pairs), probe(judge.without_vetoes(), pairs)
    assert set(with_vetoes) == set(EDITS)
    for edit in EDITS:
        row = with_vetoes[edit]
        assert row["entailed_after"] <= row["entailed_before"] <= row["applied"]
        assert row["entailed_after"] == 0, edit
    assert sum(r["entailed_after"] for r in without.values()) > 0  # the model alone lets some through


def test_eval_probes_from_the_cli(tmp_path: Path) -> None:
    data = tmp_path / "pairs.jsonl"
    data.write_text(
        "".join(
            json.dumps({"claim": p.claim, "fragments": [_DOCUMENT], "label": "supported"}) + "\n"
            for p in _pairs()
        ),
        "utf-8",
    )
    result = run_cli("eval", "--dataset", "labelled", data, "--judge", "learned", "--probes")
    assert result.code == 0, result.stderr
    out = json.loads(result.stdout)
    assert set(out["probes"]) == set(EDITS) == set(out["probes_without_vetoes"])
    assert out["probes"]["not"]["entailed_before"] >= 1
    assert out["probes"]["not"]["survival"] == 0.0
    plain = json.loads(run_cli("eval", "--dataset", "labelled", data, "--judge", "learned").stdout)
    assert "probes" not in plain


def test_an_answer_of_one_claim_with_two_names_swapped_is_not_accepted(tmp_path: Path) -> None:
    """One claim, its quote verbatim, the two people the other way round: never accept, and the run
    fails with --fail-on decision."""
    code, stderr, report = _check(tmp_path / "one", {"c2": _WRONG["c2"]})
    (claim,) = report["claims"]
    assert claim["verdict"]["label"] != "entailed"
    assert "S_NAMES_REVERSED" in claim["verdict"]["signals"]
    # the veto is in the report as data, with what raised it, as the reason names it
    vetoes = claim["verdict"]["vetoes"]
    assert any(veto.startswith("S_NAMES_REVERSED (") for veto in vetoes)
    assert all(f"veto {veto}: never entailed" in claim["verdict"]["reason"] for veto in vetoes)
    assert report["decision"] != "accept"
    assert "decision=accept" not in stderr
    assert code != 0


def _signals(claim: str, evidence: str) -> tuple[str, ...]:
    return featurize(claim, [Fragment("q", evidence)]).signals


@pytest.mark.parametrize(
    ("claim", "evidence", "absent"),
    [
        # spelled out by the claim itself, right before it (Schwartz and Hearst's test)
        ("Cardiomegaly is measured by the cardiothoracic ratio (CTR) on a chest X-ray.",
         "Cardiomegaly is measured by the cardiothoracic ratio on a chest X-ray.", ()),
        ("It has two interrupt-on-change (IOC) pins for the encoder.",
         "It has two interrupt-on-change pins for the encoder.", ()),
        ("They must have a valid Mexico Tourist Card (MS) at the border.",
         "They must have a valid Mexico Tourist Card at the border.", ("MS",)),
        # spelled out by the evidence's capitals, or written there with dots
        ("The agency NASA launched the probe in 2019.",
         "The National Aeronautics and Space Administration launched the probe in 2019.", ()),
        ("The agency ESA launched the probe in 2019.",
         "The National Aeronautics and Space Administration launched the probe in 2019.", ("ESA",)),
        ("Soccer is less popular than other sports in the US.",
         "Soccer is less popular than other sports in the U.S. today.", ()),
        ("Soccer is less popular than other sports in the UK.",
         "Soccer is less popular than other sports in the U.S. today.", ("UK",)),
        # one letter glued to punctuation is no name alone; a letter standing alone is one
        ("Then the U.N. panel said the series M*A*S*H aired on CBS.", "The panel said the series aired on CBS.", ()),
        ("Then the panel moved N into the hothouse.", "Then the panel moved Earth into the hothouse.", ("N",)),
    ],
)  # fmt: skip
def test_an_acronym_the_reader_can_spell_out_is_no_name_missing(
    claim: str, evidence: str, absent: tuple[str, ...]
) -> None:
    found = featurize(claim, [Fragment("q", evidence)])
    assert found.names_absent == absent
    assert ("S_NAME_ABSENT" in found.signals) == bool(absent)


@pytest.mark.parametrize(
    ("claim", "evidence", "vetoed"),
    [
        ("Maintaining a healthy work-life balance is important for health.",
         "Maintaining a healthy work-life balance is not only important for health, but also for work.", False),
        # a negation elsewhere in a long sentence denies nothing the claim says
        ("Hearing loss affects one to three neonates for every 1,000 births.",
         "We do not endorse other products or services; hearing loss affects one to three neonates for every "
         "1,000 births.", False),
        ("The home team did not win the cup final.", "The home team won the cup final.", True),
        ("The home team won the cup final.", "The home team did not win the cup final.", True),
        ("The home team won the cup final.", "The home team never won the cup final.", True),
    ],
)  # fmt: skip
def test_a_negation_counts_where_it_denies_what_the_claim_says(
    claim: str, evidence: str, vetoed: bool
) -> None:
    assert ("S_NEGATION_ONE_SIDED" in _signals(claim, evidence)) == vetoed


def test_an_antonym_is_read_in_the_window_and_where_the_claim_repeats_the_word() -> None:
    # the claim's word is in no fragment, its antonym in the sentence after the best one
    window = featurize(
        "The home team lost the cup final at Wembley in May.",
        [Fragment("q", "The home team played the cup final at Wembley in May. They won it.")],
    )
    assert window.antonyms == (("lost", "won"),)
    assert "S_ANTONYM" in window.signals
    # the claim has the sentence's word elsewhere too ("West"), but its own "east" is in no fragment
    repeated = featurize(
        "The east Virginia banking law was amended by the West Virginia Credit Act.",
        [Fragment("q", "The West Virginia banking law was amended by the West Virginia Credit Act.")],
    )
    assert "S_ANTONYM" in repeated.signals
    # the word is in the fragments: the claim says what the sentence after says, no antonym
    kept = featurize(
        "The home team won the cup final at Wembley in May.",
        [Fragment("q", "The home team played the cup final at Wembley in May. They won it, not lost it.")],
    )
    assert kept.antonyms == ()


def test_two_names_swapped_where_one_is_also_elsewhere_are_reversed() -> None:
    evidence = (
        "The West Virginia banking industry is governed by Senate Bill 344, and Senate Bill 563 amends "
        "the West Virginia Credit Act."
    )
    swapped = featurize(
        "The Senate Bill banking industry is governed by West Virginia 344, and Senate Bill 563 amends "
        "the West Virginia Credit Act.",
        [Fragment("q", evidence)],
    )
    assert "S_NAMES_REVERSED" in swapped.signals
    assert featurize(evidence, [Fragment("q", evidence)]).names_reversed == ()


def test_the_swap_probe_swaps_names_not_a_first_word_nor_items_of_one_list() -> None:
    # "Blood" is capitalised for starting the sentence: with one name left there is nothing to swap
    assert (
        edit_claim("names_swapped", "Blood is red in Europe today.", "Blood is red in Europe today.") is None
    )
    listed = "It was trialled in Brazil, Canada and the Netherlands."
    assert edit_claim("names_swapped", listed, listed) is None  # a list told in another order says the same
    assert edit_claim(
        "names_swapped", "Alice Moreau defeated Jonas Berg.", "Alice Moreau defeated Jonas Berg."
    ) == ("Jonas Berg defeated Alice Moreau.")


def test_a_short_answer_read_with_its_question_is_no_reversal() -> None:
    # the semantic stage reads a claim of one to three words as "{question} {claim}"
    read = "Who defeated Jonas Berg? Alice Moreau"
    found = featurize(read, [Fragment("q", "Alice Moreau defeated Jonas Berg in the final.")])
    assert found.names_reversed == ()
    assert make_judge("learned:lexical").judge(
        read, [Fragment("q", "Alice Moreau defeated Jonas Berg.")]
    ).label == ("entailed")


def test_a_denial_the_claim_shares_with_another_sentence_of_the_window_is_no_veto() -> None:
    # the passage's sentence is split at the semicolon: the best one is the half without "not"
    evidence = (
        "Injection wells take the wastewater. It is not the fracking process itself that causes these "
        "earthquakes; it is the rapid injection of fluid during wastewater disposal that pumps brine deep "
        "into the earth each year."
    )
    told = _signals(
        "It is not the fracking process itself that causes these earthquakes; it is the rapid injection "
        "of fluid during wastewater disposal that pumps brine deep into the earth each year.",
        evidence,
    )
    assert "S_NEGATION_ONE_SIDED" not in told
    assert "S_NEGATION_ADDED" not in told
    # the window denies something else: the claim's own denial is still one-sided
    assert "S_NEGATION_ONE_SIDED" in _signals(
        "The rapid injection of fluid during wastewater disposal does not cause these earthquakes.",
        "Injection wells do not take the fracking fluid. The rapid injection of fluid during wastewater "
        "disposal causes these earthquakes.",
    )


def test_a_number_is_no_place_a_name_was_taken_from() -> None:
    # "2016" follows both Team GB (in the claim) and Rio (in the evidence): no sign one was put for the other
    right = featurize(
        "Mark England was Chef de Mission of Team GB at the 2016 Olympics.",
        [Fragment("q", "Mark England was named Team GB's Chef de Mission for the Rio 2016 Olympic Games.")],
    )
    assert right.names_replaced == ()
    # the name beside the same word is still one taken from elsewhere
    wrong = featurize(
        "The winning design was drawn by Alice Moreau of Plymouth.",
        [Fragment("q", "Alice Moreau won the cup. The winning design was drawn by Maria Lopez of Plymouth.")],
    )
    assert wrong.names_replaced == (("Alice Moreau", "Maria Lopez"),)


@pytest.mark.parametrize(
    ("evidence", "absent"),
    [
        ("In its advisory opinion on nuclear weapons (ICJ) the Court found their use generally contrary to "
         "international law.", ()),
        ("In its advisory opinion on nuclear weapons the International Court found their use generally "
         "contrary to international law.", ("Justice",)),
    ],
)  # fmt: skip
def test_a_word_of_an_expansion_is_found_where_the_evidence_has_its_acronym(
    evidence: str, absent: tuple[str, ...]
) -> None:
    found = featurize(
        "The International Court of Justice (ICJ) found the use of nuclear weapons generally contrary to "
        "international law.",
        [Fragment("q", evidence)],
    )
    assert found.names_absent == absent


def test_a_full_stop_with_no_space_after_it_starts_a_sentence_and_a_hyphen_joins_a_name() -> None:
    runs = name_runs("It helps address unhealthy patterns.Both sides agree in Paris.")
    assert [(run.text, run.first) for run in runs] == [("Both", True), ("Paris", False)]
    # capitalised words joined by a hyphen are one name; a spaced dash parts two
    assert [run.text for run in name_runs('It staged "Sixty-Six Books" - Paris saw it.')] == [
        "Sixty-Six Books",
        "Paris",
    ]
    # after a capital or within a word's name it is no full stop
    assert [(run.text, run.first) for run in name_runs("It is in the U.K.Army and on Node.Js now")] == [
        ("U", False),
        ("K", False),
        ("Army", False),
        ("Node", False),
        ("Js", False),
    ]


def test_the_passage_name_probe_never_puts_a_names_acronym_for_it() -> None:
    evidence = "They need a tourist card (or FMM - Forma Migratoria Múltiple) upon arrival at Cancun Airport."
    edited = edit_claim("name_from_passage", "They need a tourist card (FMM) upon arrival.", evidence)
    assert edited == "They need a tourist card (Cancun Airport) upon arrival."


def test_a_claim_telling_two_names_in_both_orders_reverses_neither() -> None:
    evidence = (
        "The House was meant to be the most democratic of the institutions. The Senate was designed by "
        "the framers as an elite body that would act as a check on the House."
    )
    both = featurize(
        "The House was designed to be democratic, while the Senate was intended to act as a check on the House.",
        [Fragment("q", evidence)],
    )
    assert both.names_reversed == ()
    # told in one order only, the other way round from the evidence: a reversal
    one = featurize(
        "The House was designed by the framers as an elite body that would act as a check on the Senate.",
        [Fragment("q", evidence)],
    )
    assert one.names_reversed == (("House", "Senate"),)


@pytest.mark.parametrize(
    ("claim", "absent"),
    [
        ("It was later villainized in the film Madagascar 3: Europe's Most Wanted.", ()),  # one letter away
        # two letters away is another name
        ("It was later villainized in the film Madagascar 3: Europa's Most Wanted.", ("Europa's Most Wanted",)),
        ("It was later villainized in the film Madagascar 3: Asia's Most Wanted.", ("Asia's Most Wanted",)),
        # a short word one letter away is another name
        ("It was later villainized in the film Madagascar 3: Euro's Most Wanted.", ("Euro's Most Wanted",)),
    ],
)  # fmt: skip
def test_a_long_name_word_misspelt_by_one_letter_in_the_source_is_found(
    claim: str, absent: tuple[str, ...]
) -> None:
    evidence = "It was later villainized in the 2012 film Madagascar 3: Euroupe's Most Wanted."
    assert featurize(claim, [Fragment("q", evidence)]).names_absent == absent


def test_a_name_put_where_the_passage_has_another_of_the_claims_names_on_both_sides_is_replaced() -> None:
    evidence = (
        "Norway agreed to the plan. The council linked the funding of schools for Danes to a tax paid by "
        "Danes themselves."
    )
    wrong = featurize(
        "The council linked the funding of schools for Danes to a tax paid by Norway themselves.",
        [Fragment("q", evidence)],
    )
    assert wrong.names_replaced == (("Norway", "Danes"),)
    right = "The council linked the funding of schools for Danes to a tax paid by Danes themselves."
    assert featurize(right, [Fragment("q", evidence)]).names_replaced == ()


def test_a_name_after_a_copula_stands_where_the_passage_has_a_name_before_it() -> None:
    evidence = (
        "When the Romans took over Europe, Germania was the Latin term for the land of the Teutonic tribes. "
        "Bohemia lay to the east."
    )
    claim = "When the Romans took over Europe, the Latin term for the land of the Teutonic tribes was {}."
    assert featurize(claim.format("Bohemia"), [Fragment("q", evidence)]).names_replaced == (
        ("Bohemia", "Germania"),
    )
    assert featurize(claim.format("Germania"), [Fragment("q", evidence)]).names_replaced == ()


def test_a_claim_dropping_an_item_of_a_list_puts_no_name_in_anothers_place() -> None:
    evidence = "The chain runs stores in the United States, Canada, Puerto Rico and the Virgin Islands."
    dropped = featurize(
        "The chain runs stores in Canada, Puerto Rico and the Virgin Islands.", [Fragment("q", evidence)]
    )
    assert dropped.names_replaced == ()
    # a name from outside the list, put where a listed one stands, is still one taken from elsewhere
    other = featurize(
        "The chain runs stores in Toronto, Puerto Rico and the Virgin Islands.",
        [Fragment("q", evidence + " Its head office is in Toronto.")],
    )
    assert other.names_replaced == (("Toronto", "United States"),)


def test_both_sides_denying_different_things_is_a_one_sided_negation() -> None:
    evidence = (
        "It is not the fracking process itself that usually causes these earthquakes; it is the rapid "
        "injection of fluid during wastewater disposal."
    )
    turned = featurize(
        "It is the fracking process itself that usually causes these earthquakes, not the rapid injection "
        "of fluid during wastewater disposal.",
        [Fragment("q", evidence)],
    )
    assert "S_NEGATION_ONE_SIDED" in turned.signals
    told = featurize(
        "It is not the fracking process itself that usually causes these earthquakes; it is the rapid "
        "injection of fluid during wastewater disposal.",
        [Fragment("q", evidence)],
    )
    assert "S_NEGATION_ONE_SIDED" not in told.signals


def test_a_word_capitalised_only_for_starting_the_claim_is_no_part_of_the_name() -> None:
    passage = [
        Fragment(
            "q", "In the 2018 mayoral election, Helen Park defeated incumbent Robert Quinn by 4,200 votes."
        )
    ]
    swapped = "Incumbent Robert Quinn defeated Helen Park in the 2018 mayoral election."
    assert featurize(swapped, passage).names_reversed == (("Robert Quinn", "Helen Park"),)
    assert make_judge("learned").judge(swapped, passage).label != "entailed"
    right = "Helen Park defeated incumbent Robert Quinn in the 2018 mayoral election."
    assert featurize(right, passage).names_reversed == ()


def test_a_number_only_inside_a_numbered_marker_is_no_number_absent() -> None:
    """A claims JSON keeps its answer's markers in the claim's text: "[2]" is no number it states."""
    passage = [Fragment("q", "The Harlow Bridge opened to traffic in 1998.")]
    marked = featurize("The Harlow Bridge opened to traffic in 1998 [2].", passage)
    assert "S_NUMBER_ABSENT" not in marked.signals
    assert marked.numbers_absent == ()
    # a number the claim states is read even where a marker has it too
    stated = featurize("The Harlow Bridge opened to traffic in 1998 with 2 lanes [2].", passage)
    assert [m.text for m in stated.numbers_absent] == ["2"]
    assert "S_NUMBER_ABSENT" in featurize("The Harlow Bridge opened to traffic in 1999 [2].", passage).signals


def test_a_month_or_a_day_is_no_name_told_the_other_way_round(monkeypatch: pytest.MonkeyPatch) -> None:
    # A page dated before it names the country: "January … Canada" is no reversal of "Canada … January".
    claim = "Giantsopoulos returned to Canada and signed with the club on January 23, 2019."
    evidence = (
        "January 23, 2019 - the club is pleased to welcome Giantsopoulos, who returned to Canada this winter."
    )
    assert featurize(claim, [Fragment("q", evidence)]).names_reversed == ()
    monkeypatch.setattr(features, "DATE_WORDS", frozenset())  # read as names, they were reversed
    assert featurize(claim, [Fragment("q", evidence)]).names_reversed == (
        ("Giantsopoulos", "January"),
        ("Canada", "January"),
    )


def test_the_name_probes_take_no_month_or_day_for_a_name() -> None:
    claim = "In November 2015 he finished first in the championship in Bilbao, winning the title."
    evidence = (
        "In November 2015 he finished first in the championship in Bilbao, winning the title in December."
    )
    assert edit_claim("names_swapped", claim, evidence) is None  # "In Bilbao 2015 … in November" is no swap
    assert edit_claim("name_from_passage", "He won the title in Bilbao.", evidence) is None  # only December


def test_a_name_that_ends_a_clause_after_the_claims_name_is_not_in_its_place() -> None:
    claim = "The Harlow Bridge opened to traffic in 1998."
    for evidence in (
        "The Harlow Bridge, which spans the River Tane, opened to traffic in 1998.",
        "The Harlow Bridge (over the River Tane) opened to traffic in 1998.",
    ):
        assert featurize(claim, [Fragment("q", evidence)]).names_replaced == ()
    # the name ending the clause put where the name it opens after stands is in that name's place; a
    # claim naming it elsewhere (not opening the claim) is not
    clause = [Fragment("q", "The Harlow Bridge, which spans the River Tane, opened to traffic in 1998.")]
    assert featurize("The River Tane opened to traffic in 1998.", clause).names_replaced == (
        ("River Tane", "Harlow Bridge"),
    )
    for right in (
        "The bridge over the River Tane opened to traffic in 1998.",
        "It was built on the River Tane and opened to traffic in 1998.",
    ):
        assert featurize(right, clause).names_replaced == ()
    # a name that ends no clause opened after the claim's is still in its place
    other = "The Harlow Bridge spans the River Tane. The Millbrook Viaduct opened to traffic in 1998."
    assert featurize(claim, [Fragment("q", other)]).names_replaced == (
        ("Harlow Bridge", "Millbrook Viaduct"),
    )


@pytest.mark.parametrize(
    ("claim", "evidence", "replaced"),
    [
        ("Clara Voss moved to Lisbon in June 1987.",
         "The Orchard Museum (founded by Clara Voss in 1962) moved to Lisbon in June 1987.",
         ("Clara Voss", "Orchard Museum")),
        ("Daniel Marsh won the regional election on 14 May 2015.",
         "Elena Marsh, whose brother Daniel Marsh ran the Corrington Gazette, won the regional election on 14 May 2015.",
         ("Daniel Marsh", "Elena Marsh")),
        ("Anna Lindqvist had lost to Santini in Geneva.",
         "Riedel, who was coached by Anna Lindqvist, had lost to Santini in Geneva.",
         ("Anna Lindqvist", "Riedel")),
        ("The poet Colm Darragh published her first book with Harbour Press in 1958.",
         "The novelist Iris Fenwick, whose mentor was the poet Colm Darragh, published her first book with Harbour Press in 1958.",
         ("Colm Darragh", "Iris Fenwick")),
    ],
)  # fmt: skip
def test_a_name_from_a_clause_put_as_the_subject_is_in_its_heads_place(
    claim: str, evidence: str, replaced: tuple[str, str]
) -> None:
    assert featurize(claim, [Fragment("q", evidence)]).names_replaced == (replaced,)


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("The Orchard Museum moved to Lisbon in June 1987.",
         "The Orchard Museum (founded by Clara Voss in 1962) moved to Lisbon in June 1987."),
        ("Elena Marsh won the regional election on 14 May 2015.",
         "Elena Marsh, whose brother Daniel Marsh ran the Corrington Gazette, won the regional election on 14 May 2015."),
        ("The Harlow Bridge opened to traffic in Dunmore in 1998.",
         "The Harlow Bridge, which was designed by Margaret Ellery, opened to traffic in Dunmore in 1998."),
        ("Freedom of Information (FOI) requests were ignored.",
         "Freedom of Information (FOI) requests were ignored by the unit."),
        ("On 9 August 2008, Tomas Riedel beat Marco Santini in the final.",
         "On 9 August 2008, Tomas Riedel of the Halden Rowing Club beat Marco Santini in the final."),
    ],
)  # fmt: skip
def test_the_head_of_a_clause_and_a_clause_the_claim_tells_too_are_in_their_place(
    claim: str, evidence: str
) -> None:
    # the passive of a clause ("founded by Clara Voss") turns no order round either
    found = featurize(claim, [Fragment("q", evidence)])
    assert (found.names_replaced, found.names_reversed) == ((), ())
