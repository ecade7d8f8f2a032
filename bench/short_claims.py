"""Benchmark: claims of one to three words read bare and read as the answer to the question.

AttributionBench gives the question with every claim (``citeaudit.semantic.datasets.Pair`` does not
keep it, so the rows are read here). Of its dev pairs, those whose claim has one to three words as
the judges count them (``semantic/stage.py`` ``claim_words``) are judged by ``learned:lexical`` on
their references twice, through the audit's own semantic stage: the claim alone, and the claim read
with the row's question (``reading_of``, ``Evidence.label``). Each verdict against the gold label
(attributable → supported). ``python -m bench.short_claims [--record]``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from citeaudit.semantic import make_judge
from citeaudit.semantic.interface import Fragment
from citeaudit.semantic.learned import LearnedJudge
from citeaudit.semantic.stage import SHORT_CLAIM_WORDS, Evidence, claim_words, reading_of

DEV = (
    Path(__file__).resolve().parent.parent.parent
    / "shared"
    / "data"
    / "semantic"
    / "attribution_bench"
    / "dev_all_subset_balanced.jsonl"
)
JUDGE = "learned:lexical"
TITLE = "Short claims: AttributionBench dev's claims of one to three words, bare and with the question"


def _rows(path: Path = DEV) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _is_right(label: str, gold: str) -> bool | None:
    """Whether a verdict agrees with the gold label; None for an abstention (``unknown``)."""
    if label == "unknown":
        return None
    return (label == "entailed") == (gold == "attributable")


def run(quick: bool = False, path: Path = DEV) -> dict[str, Any]:
    """Every short claim of the file with its two verdicts (``quick`` changes nothing: n is tiny)."""
    judge = make_judge(JUDGE)
    assert isinstance(judge, LearnedJudge)
    forced = judge.without_abstention()  # the band off, as ``eval --no-abstain`` reads the judge
    rows = _rows(path)
    cases: list[dict[str, Any]] = []
    for row in rows:
        claim, question = str(row["claim"]), row.get("question")
        if not 1 <= claim_words(claim) <= SHORT_CLAIM_WORDS:
            continue
        fragments = tuple(Fragment(f"ref{i + 1}", str(t)) for i, t in enumerate(row["references"]))
        bare = Evidence(fragments)
        read = Evidence(fragments, reading=reading_of(claim, question if isinstance(question, str) else None))
        verdicts = {
            name: evidence.label(judge.judge(evidence.read(claim), evidence.fragments))
            for name, evidence in (("bare", bare), ("with_question", read))
        }
        band_off = {
            name: evidence.label(forced.judge(evidence.read(claim), evidence.fragments)).label
            for name, evidence in (("bare", bare), ("with_question", read))
        }
        gold = str(row["attribution_label"])
        cases.append(
            {
                "id": row.get("id"),
                "source": row.get("src_dataset"),
                "claim": claim,
                "question": question,
                "gold": gold,
                "read_with_question": read.reading is not None,
                **{
                    name: {
                        "label": v.label,
                        "probability": v.probability,
                        "right": _is_right(v.label, gold),
                        "band_off": band_off[name],
                    }
                    for name, v in verdicts.items()
                },
            }
        )
    summary = {
        name: {
            "right": sum(1 for c in cases if c[name]["right"] is True),
            "wrong": sum(1 for c in cases if c[name]["right"] is False),
            "abstained": sum(1 for c in cases if c[name]["right"] is None),
            "right_band_off": sum(1 for c in cases if _is_right(c[name]["band_off"], c["gold"])),
        }
        for name in ("bare", "with_question")
    }
    return {
        "judge": JUDGE,
        "model": str(judge.identity),  # the model file's digest: the figures are this model's
        "pairs": len(rows),
        "short_claims": len(cases),
        "with_a_question": sum(1 for c in cases if c["read_with_question"]),
        "gold": {g: sum(1 for c in cases if c["gold"] == g) for g in ("attributable", "not attributable")},
        "summary": summary,
        "cases": cases,
    }


def _cell(verdict: dict[str, Any]) -> str:
    right = {True: "right", False: "wrong", None: "abstained"}[verdict["right"]]
    return f"`{verdict['label']}` (p = {verdict['probability']}, {right})"


def markdown(result: dict[str, Any]) -> str:
    lines = [
        f"AttributionBench dev (`dev_all_subset_balanced.jsonl`, {result['pairs']:,} pairs): claims of one "
        f"to three words (`WORD_RE`, a Han run as its bigrams): **{result['short_claims']}**, "
        f"{result['with_a_question']} of them with a question. Judge `{result['judge']}` (`{result['model']}`), through the "
        "semantic stage (`python -m bench.short_claims --record`); the claim bare, and read as the answer "
        'to the row\'s question (`f"{question} {claim}"`). A verdict is right when `entailed` goes with '
        "attributable and `insufficient` with not attributable; `unknown` abstains.",
        "",
        "| id | source | claim | gold | bare | with the question |",
        "|---|---|---|---|---|---|",
    ]
    for c in result["cases"]:
        claim = str(c["claim"]).replace("|", "\\|")
        lines.append(
            f"| `{c['id']}` | {c['source']} | {claim} | {c['gold']} | {_cell(c['bare'])} "
            f"| {_cell(c['with_question'])} |"
        )
    lines.append("")
    for name, title in (("bare", "Bare"), ("with_question", "With the question")):
        s = result["summary"][name]
        lines.append(
            f"- {title}: {s['right']} right, {s['wrong']} wrong, {s['abstained']} abstained; with the band off "
            f"(`--no-abstain`) {s['right_band_off']} of {result['short_claims']} right."
        )
    cases = result["cases"]
    lower = sum(1 for c in cases if c["with_question"]["probability"] < c["bare"]["probability"])
    lines += [
        f"- The probability of support is lower read with the question for {lower} of {len(cases)}.",
        "",
        f"n = {len(cases)}: far too few to measure a judge by. None of them is a name or a number answering "
        "its question, the case the reading is for (two are reference headings cut from ExpertQA answers, one "
        "a list item), so the figures say nothing of that case either way, and no gain is claimed from them.",
    ]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    result = run()
    print(json.dumps(result, indent=2, ensure_ascii=False))
    if "--record" in argv:
        from bench.results_file import write_section

        write_section("short-claims", TITLE, markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
