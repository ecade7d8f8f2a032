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

__all__ = ["KINDS", "audit_html", "mixed_claims"]

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
