"""Real answers of LLM systems with ``[n]`` markers (the ExpertQA rows of AttributionBench, in
the shared test data): every marker read at its exact range and nothing else read as one (a
power such as ``T²`` is no superscript citation), and the sentences the dataset's annotators
took as claims found as claims."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from citeaudit.formats.markdown_report import parse_markdown

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "semantic" / "attribution_bench"
ROWS = DATA / "dev_all_subset_balanced.jsonl"
MARKER = re.compile(r"\[\d+(?:\s*,\s*\d+)*\]")

pytestmark = pytest.mark.skipif(not ROWS.exists(), reason="the shared AttributionBench data is not here")


def _reports() -> list[tuple[str, str, list[str]]]:
    """Each distinct ExpertQA answer with a numbered list of its sources appended, and the
    annotated claim sentences of it."""
    by_answer: dict[str, list[str]] = {}
    for line in ROWS.read_text("utf-8").splitlines():
        row = json.loads(line)
        answer = row["response"] or ""
        if row["src_dataset"] != "ExpertQA" or not MARKER.search(answer):
            continue
        by_answer.setdefault(answer, []).append((row["claim_raw_string"] or "").strip())
    out = []
    for answer, claims in by_answer.items():
        numbers = sorted({int(n) for m in MARKER.findall(answer) for n in re.findall(r"\d+", m)})
        sources = "".join(f"{n}. https://example.org/source/{n}\n" for n in numbers)
        out.append((answer, answer.rstrip() + "\n\n## References\n\n" + sources, claims))
    return out


@pytest.mark.timeout(300)
def test_every_marker_of_real_answers_is_read_at_its_range_and_nothing_else() -> None:
    reports = _reports()
    assert len(reports) == 139
    written = read = 0
    for answer, text, _ in reports:
        submission = parse_markdown(text, "answer.md")
        expected = [(m.group(), m.start()) for m in MARKER.finditer(answer)]
        got = []
        for claim in submission.claims:
            assert claim.place is not None
            got += [(m.text, m.start) for m in claim.place.markers]
            for m in claim.place.markers:
                assert text[m.start : m.end] == m.text
                assert m.citations
        assert sorted(got, key=lambda g: g[1]) == expected
        assert not [n for n in submission.notes if n.code == "E_MARKER_UNDEFINED"]
        written += len(expected)
        read += len(got)
    assert (written, read) == (872, 872)


@pytest.mark.timeout(300)
def test_the_annotated_claim_sentences_are_claims() -> None:
    found = total = 0
    for _, text, claims in _reports():
        submission = parse_markdown(text, "answer.md")
        spans = {text[c.place.start : c.place.end] for c in submission.claims if c.place is not None}
        for claim in claims:
            if MARKER.search(claim) and claim in text:
                total += 1
                found += claim in spans
    # 453 of 470: the rest are annotators' claims that run over a heading or a list (two blocks).
    assert total == 470
    assert found >= 450
