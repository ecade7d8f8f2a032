"""Reports of any size for the HTML tests and the benchmark: real offline audits
of claims against seed 000's cache and snapshot and a one-document corpus.

Every eighth claim is of one kind: a passing quote, a wrong year, a changed
title word, a quote not in the snapshot, a quote in capitals (it matches only
after normalisation), no citation, a DOI that is not cached, and a corpus
citation whose range is one character off.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from tests.conftest import GOLDEN, run_cli

__all__ = [
    "KINDS",
    "RESTATED",
    "SNAPSHOT_SENTENCE",
    "audit_html",
    "audit_retrieved",
    "mixed_claims",
    "retrieved_claims",
]

LINE_1 = "В наших экспериментах привязка каждого утверждения к найденному фрагменту"
DOCUMENT = (
    "Правила хранения данных. Журнал операций хранится в течение 30 календарных дней. "
    "Резервные копии удаляются отдельно."
)
KINDS = ("pass", "year", "title", "not_found", "normalized", "uncited", "not_cached", "range")
_DEMO = {"doi": "10.0000/demo.1", "title": "Demo Paper on Retrieval Grounding", "year": 2024,
         "first_author": "Ivanova"}  # fmt: skip


def _tag(k: int) -> str:
    """The claim's number in letters: a claim's text holds no number the quote lacks."""
    return "".join("abcdefghij"[int(d)] for d in str(k))


def mixed_claims(n: int) -> dict[str, Any]:
    claims: list[dict[str, Any]] = []
    for k in range(n):
        kind = KINDS[k % len(KINDS)]
        text = f"Привязка к фрагментам помогает, case {_tag(k)}."
        citation: dict[str, Any]
        if kind == "pass":
            citation = _DEMO | {"quote": LINE_1}
        elif kind == "year":
            citation = _DEMO | {"year": 2023, "quote": LINE_1}
        elif kind == "title":
            citation = _DEMO | {"title": "Demo Paper on Retrieval Grinding", "quote": LINE_1}
        elif kind == "not_found":
            citation = _DEMO | {"quote": "привязка каждого утверждения устраняет все ошибки модели"}
        elif kind == "normalized":
            citation = _DEMO | {"quote": LINE_1.upper()}
        elif kind == "not_cached":
            citation = {"doi": f"10.0000/other.{k}", "title": "Other", "year": 2024, "first_author": "Sidorov",
                        "quote": "аналогичный эффект наблюдался и в нашей выборке"}  # fmt: skip
        elif kind == "range":
            text = f"Сервис хранит журнал операций 30 дней, case {_tag(k)}."
            citation = {"document_id": "retention-policy", "document_version": "2026-01", "start": 24, "end": 79,
                        "quote": "Журнал операций хранится в течение 30 календарных дней."}  # fmt: skip
        else:
            claims.append({"id": f"c{k:05d}", "text": text, "citations": []})
            continue
        claims.append({"id": f"c{k:05d}", "text": text, "citations": [citation]})
    return {"claims": claims}


def audit_html(root: Path, n: int) -> Path:
    """Audit ``n`` mixed claims offline; the HTML report (report.json beside it)."""
    root.mkdir(parents=True, exist_ok=True)
    for name in ("cache", "sources"):
        shutil.copytree(GOLDEN / "seed000" / name, root / name, dirs_exist_ok=True)
    (root / "claims.json").write_text(json.dumps(mixed_claims(n), ensure_ascii=False), "utf-8")
    document = {"retention-policy": {"version": "2026-01", "text": DOCUMENT}}
    (root / "documents.json").write_text(json.dumps(document, ensure_ascii=False), "utf-8")
    out = root / "report.html"
    result = run_cli("check", root / "claims.json", "--offline", "--cache", root / "cache", "--sources",
                     root / "sources", "--corpus", root / "documents.json", "--out", root / "report.json",
                     "--format", "html", "--output", out)  # fmt: skip
    assert result.code == 1, result.stderr
    return out


# A sentence of seed 000's snapshot, restated, and cited with no quote: judged on passages of the
# snapshot (basis retrieved); the same claim with the quote: judged on the verified quote.
RESTATED = (
    "Привязка к найденному фрагменту снизила число неподтверждённых утверждений с 18 до 7 на сотню ответов."
)
SNAPSHOT_SENTENCE = "снизила число неподтверждённых утверждений с 18 до 7 на сотню ответов."


def retrieved_claims(hostile: str | None = None) -> dict[str, Any]:
    """Claims citing seed 000's work: ``r1`` with no quote, ``q1`` with the quote; with ``hostile``
    (a line added to the snapshot), ``h1`` restates that line with no quote."""
    claims: list[dict[str, Any]] = [
        {"id": "q1", "text": RESTATED, "citations": [_DEMO | {"quote": SNAPSHOT_SENTENCE[:-1]}]},
        {"id": "r1", "text": RESTATED, "citations": [dict(_DEMO)]},
    ]
    if hostile is not None:
        claims.append({"id": "h1", "text": hostile, "citations": [dict(_DEMO)]})
    return {"claims": claims}


def audit_retrieved(root: Path, *, hostile: str | None = None, judge: str = "learned") -> Path:
    """Audit ``retrieved_claims`` offline against seed 000's cache and snapshot (``hostile`` appended
    to the snapshot as a line of its own); report.json (the HTML report beside it, report.html)."""
    root.mkdir(parents=True, exist_ok=True)
    for name in ("cache", "sources"):
        shutil.copytree(GOLDEN / "seed000" / name, root / name, dirs_exist_ok=True)
    if hostile is not None:
        snapshot = root / "sources" / "10.0000_demo.1.txt"
        snapshot.write_text(snapshot.read_text("utf-8") + hostile + "\n", "utf-8")
    (root / "claims.json").write_text(json.dumps(retrieved_claims(hostile), ensure_ascii=False), "utf-8")
    result = run_cli("check", root / "claims.json", "--offline", "--cache", root / "cache", "--sources",
                     root / "sources", "--judge", judge, "--out", root / "report.json", "--format", "html",
                     "--output", root / "report.html")  # fmt: skip
    assert result.code == 0, result.stdout + result.stderr
    return root / "report.json"
