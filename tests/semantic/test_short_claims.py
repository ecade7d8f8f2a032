"""A claim of one to three words read as the answer to the answer's question: the judge reads the
question and the claim together, the verdict says so (``S_READ_WITH_QUESTION``) and points only into
the claim, and every
other claim (and every answer without a question) is judged exactly as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citeaudit.model import Citation, CorpusSource, JudgeIdentity, Verdict
from citeaudit.semantic.factory import make_judge
from citeaudit.semantic.interface import Fragment
from citeaudit.semantic.stage import (
    READ_WITH_QUESTION,
    Cited,
    Evidence,
    Reading,
    claim_words,
    evidence_of,
    reading_of,
)
from citeaudit.sources.cited import Basis, CitedText
from tests.conftest import run_cli

QUESTION = "What is the capital of France?"
ANSWERS = "Paris is the capital and largest city of France."  # names the claim in answer to the question
ELSEWHERE = "Paris Hilton visited Berlin last year."  # names it, with none of the question's words
LONG = "Paris is the capital and largest city of France."
DOCUMENT = f"Atlas of Europe. {ANSWERS} {ELSEWHERE} The Seine flows through the city."
IDENTITY = JudgeIdentity("test", "m", "1")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Paris", 1),
        ("Ada Lovelace", 2),
        ("in 1969", 2),
        ("References[9]:", 2),
        ("• Identifying possible causes", 3),
        ("The capital of France is Paris.", 6),
        ("巴黎", 1),  # a Han run is its character bigrams, as the judges read it
        ("法国的首都是巴黎", 7),
        ("", 0),
        ("—", 0),
    ],
)
def test_words_are_counted_as_the_judges_count_them(text: str, words: int) -> None:
    assert claim_words(text) == words


def test_only_a_short_claim_with_a_question_is_read_with_it() -> None:
    assert reading_of("Paris", QUESTION) == Reading(QUESTION, "Paris")
    assert reading_of("Paris", f"  {QUESTION}\n") == Reading(QUESTION, "Paris")
    assert reading_of("Paris", QUESTION).text == f"{QUESTION} Paris"  # type: ignore[union-attr]
    assert reading_of("Ada Lovelace wrote it", QUESTION) is None  # four words: a claim of its own
    assert reading_of("Paris", None) is None
    assert reading_of("Paris", " ?\n") is None  # a question with no word asks nothing
    assert reading_of("", QUESTION) is None


def test_the_verdict_points_only_into_the_claim_and_says_how_it_was_read() -> None:
    reading = Reading("Who wrote it?", "Ada Lovelace")  # the claim is [14, 26) of the text read
    assert reading.text[reading.offset :] == "Ada Lovelace"
    judged = Verdict(
        "insufficient",
        IDENTITY,
        unsupported=("Who wrote", "it? Ada", "Lovelace"),
        unsupported_spans=((0, 9), (10, 17), (18, 26)),
        signals=("S_LOW_COVERAGE",),
        reason="coverage=0.20 (-1.00)",
    )
    verdict = reading.verdict(judged)
    assert verdict.unsupported_spans == ((0, 3), (4, 12))  # the question's span dropped, the one across cut
    assert verdict.unsupported == ("Ada", "Lovelace")
    assert verdict.signals == ("S_READ_WITH_QUESTION", "S_LOW_COVERAGE")
    assert verdict.reason == "coverage=0.20 (-1.00)"  # the judge's own words, as it gave them
    # A judge that names parts by their words (rules, llm): those the claim has are kept.
    named = reading.verdict(Verdict("insufficient", IDENTITY, unsupported=("wrote", "lovelace")))
    assert (named.unsupported, named.unsupported_spans, named.signals) == (
        ("lovelace",),
        (),
        (READ_WITH_QUESTION,),
    )


def _cited(quote: str) -> Cited:
    start = DOCUMENT.index(quote)
    source = CorpusSource("atlas", "v1")
    return Cited("q1", Citation("q1", source, quote, start, start + len(quote)))


def _judged(claim: str, quote: str, question: str | None) -> Verdict:
    evidence = evidence_of(claim, [_cited(quote)], question=question)
    assert evidence is not None
    return evidence.label(make_judge("learned:lexical").judge(evidence.read(claim), evidence.fragments))


def test_a_name_given_in_answer_to_the_question_is_not_insufficient() -> None:
    verdict = _judged("Paris", ANSWERS, QUESTION)
    assert verdict.label != "insufficient"
    assert verdict.signals[0] == READ_WITH_QUESTION
    assert all(0 <= a < b <= len("Paris") for a, b in verdict.unsupported_spans)


def test_a_name_given_elsewhere_without_the_question_is_not_entailed() -> None:
    verdict = _judged("Paris", ELSEWHERE, QUESTION)
    assert verdict.label != "entailed"
    assert verdict.signals[0] == READ_WITH_QUESTION
    assert all(0 <= a < b <= len("Paris") for a, b in verdict.unsupported_spans)
    bare = _judged("Paris", ELSEWHERE, None)
    assert bare.probability is not None
    assert verdict.probability is not None
    assert verdict.probability < bare.probability  # the bare name finds itself; the answer does not


def test_a_long_claim_and_an_answer_without_a_question_are_judged_as_before() -> None:
    judge = make_judge("learned:lexical")
    fragments = [Fragment("q1", ANSWERS)]
    assert _judged(LONG, ANSWERS, QUESTION) == judge.judge(LONG, fragments)
    assert _judged("Paris", ANSWERS, None) == judge.judge("Paris", fragments)
    evidence = evidence_of(LONG, [_cited(ANSWERS)], question=QUESTION)
    assert evidence == Evidence((Fragment("q1", ANSWERS),))


def test_the_passages_of_a_short_claim_are_ranked_with_the_question() -> None:
    text = (
        "Paris Hilton visited Berlin last year with friends. Paris was busy that week.\n"
        "Paris is the capital and largest city of France. The Seine flows through it."
    )
    cited = Cited("c1", Citation("c1", CorpusSource("atlas", "v1")), CitedText(Basis.PAGE, "page", text))
    bare = evidence_of("Paris", [cited], k=1)
    asked = evidence_of("Paris", [cited], k=1, question=QUESTION)
    assert bare is not None
    assert asked is not None
    assert [p.text for p in bare.passages] == ["Paris was busy that week."]
    assert [p.text for p in asked.passages] == [ANSWERS]
    verdict = asked.label(Verdict("unknown", IDENTITY, reason="r", unsupported_spans=((0, 31),)))
    assert (verdict.basis, verdict.passages, verdict.signals) == (
        "retrieved",
        asked.passages,
        (READ_WITH_QUESTION,),
    )
    assert verdict.unsupported_spans == ()


def _answer(question: str | None) -> dict[str, Any]:
    def cite(n: int, quote: str) -> dict[str, Any]:
        start = DOCUMENT.index(quote)
        return {"id": f"q{n}", "document_id": "atlas", "document_version": "v1", "start": start,
                "end": start + len(quote), "quote": quote}  # fmt: skip

    answer: dict[str, Any] = {
        "answer": "Paris.",
        "claims": [
            {"id": "c1", "text": "Paris", "citation_ids": ["q1"]},
            {"id": "c2", "text": "Paris", "citation_ids": ["q2"]},
            {"id": "c3", "text": LONG, "citation_ids": ["q1"]},
        ],
        "citations": [cite(1, ANSWERS), cite(2, ELSEWHERE)],
    }
    return answer if question is None else {"question": question, **answer}


def _check(tmp_path: Path, question: str | None) -> dict[str, Any]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    claims, corpus, out = tmp_path / "claims.json", tmp_path / "corpus.json", tmp_path / "report.json"
    claims.write_text(json.dumps(_answer(question)), "utf-8")
    corpus.write_text(json.dumps({"atlas": {"version": "v1", "text": DOCUMENT}}), "utf-8")
    result = run_cli(
        "check", claims, "--corpus", corpus, "--offline", "--judge", "learned:lexical", "--out", out
    )
    assert result.code == 0, result.stderr
    report: dict[str, Any] = json.loads(out.read_text("utf-8"))
    return {c["id"]: c["verdict"] for c in report["claims"]}


def test_check_reads_a_short_claim_with_the_question(tmp_path: Path) -> None:
    asked, bare = _check(tmp_path / "asked", QUESTION), _check(tmp_path / "bare", None)
    assert asked["c1"]["label"] != "insufficient"
    assert asked["c2"]["label"] != "entailed"
    for claim in ("c1", "c2"):
        assert asked[claim]["signals"][0] == "S_READ_WITH_QUESTION"
        assert "S_READ_WITH_QUESTION" not in bare[claim]["signals"]
        assert all(0 <= a < b <= len("Paris") for a, b in asked[claim]["unsupported_spans"])
    assert asked["c2"]["probability"] < bare["c2"]["probability"]
    assert asked["c3"] == bare["c3"]  # the long claim: the same verdict, byte for byte
    assert "S_READ_WITH_QUESTION" not in asked["c3"]["signals"]
