"""Real cited web pages (WiCE): corpus citations with the real ranges of the
supporting sentences all pass, and each perturbation fails with its code."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from citeaudit.core import AuditSettings, audit
from citeaudit.formats import parse_document
from citeaudit.resolve.cache import CachingResolver, DoiCache
from citeaudit.sources.corpus import Corpus, Document
from citeaudit.sources.interface import normalize_newlines
from tests.conftest import read_jsonl, shared_data

CITATION_CODES = {"E_QUOTE_MISMATCH", "E_RANGE_INVALID", "E_VERSION_MISMATCH", "E_DOCUMENT_MISSING"}


@pytest.fixture(scope="module")
def wice() -> tuple[Corpus, list[dict[str, Any]]]:
    rows = read_jsonl(shared_data("semantic", "wice", "entailment_retrieval_claim", "dev.jsonl"))
    documents, cases = {}, []
    for row in rows:
        sentences = [normalize_newlines(s) for s in row["evidence"]]
        offsets, at = [], 0
        for sentence in sentences:
            offsets.append(at)
            at += len(sentence) + 1
        doc_id = row["meta"]["id"]
        documents[doc_id] = Document(doc_id, "wice-dev-1", "\n".join(sentences))
        chosen: list[int] = next((s for s in row["supporting_sentences"] if s), [])
        citations = [
            {"id": f"{doc_id}-s{i}", "document_id": doc_id, "document_version": "wice-dev-1",
             "start": offsets[i], "end": offsets[i] + len(sentences[i]), "quote": sentences[i]}
            for i in chosen if sentences[i].strip()
        ]  # fmt: skip
        if citations:
            cases.append({"claim": row["claim"], "label": row["label"], "citations": citations, "id": doc_id})
    return Corpus(documents, "wice"), cases


def _audit(corpus: Corpus, cases: list[dict[str, Any]], tmp: Any) -> Any:
    claims = [{"id": c["id"], "text": c["claim"], "citations": c["citations"]} for c in cases]
    submission = parse_document({"claims": claims}, "wice.json")
    resolver = CachingResolver(DoiCache(tmp))
    return audit(submission, resolver=resolver, snapshots=None, corpus=corpus,  # type: ignore[arg-type]
                 settings=AuditSettings(offline=True, jobs=2))  # fmt: skip


def test_real_ranges_of_real_supporting_sentences_all_pass(wice: Any, tmp_path: Any) -> None:
    corpus, cases = wice
    assert len(cases) > 250
    report = _audit(corpus, cases, tmp_path)
    codes = Counter(f.code for r in report.rows for f in r.errors if f.code in CITATION_CODES)
    assert codes == Counter()
    assert sum(1 for r in report.rows if r.location is not None) == sum(len(c["citations"]) for c in cases)


@pytest.mark.parametrize(
    ("perturbation", "code"),
    [("shift", "E_QUOTE_MISMATCH"), ("character", "E_QUOTE_MISMATCH"), ("version", "E_VERSION_MISMATCH")],
)
def test_every_perturbation_fails_with_its_code(
    wice: Any, tmp_path: Any, perturbation: str, code: str
) -> None:
    corpus, cases = wice
    changed, originals = [], {}
    for case in cases:
        first = dict(case["citations"][0])
        originals[first["id"]] = (first["start"], first["end"])
        if perturbation == "shift":
            first["start"] += 1
            first["end"] += 1
        elif perturbation == "character":
            quote = first["quote"]
            middle = len(quote) // 2
            first["quote"] = quote[:middle] + ("X" if quote[middle] != "X" else "Y") + quote[middle + 1 :]
        else:
            first["document_version"] = "wice-dev-0"
        changed.append({**case, "citations": [first]})
    report = _audit(corpus, changed, tmp_path)
    got = [next((f.code for f in r.errors if f.code in CITATION_CODES), None) for r in report.rows]
    assert got == [code] * len(changed)
    if perturbation == "shift":
        # The suggestion points back at the real range whenever the sentence is unique in its page.
        suggested = [
            (f.suggestion or {}).get("start") == originals[r.citation_id][0]
            for r in report.rows
            for f in r.errors
            if f.code == code and "start" in (f.suggestion or {})
        ]
        assert len(suggested) > 0.9 * len(changed)
        assert all(suggested)
