"""Batch inputs made of real answers: seed 000's example and careful or perturbed citations
of the recorded Crossref records (../shared/data), as bare answers and in envelopes, with
bad lines among them; and helpers to run ``check`` on one answer and to compare DIRs."""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citeaudit.resolve.cache import DoiCache
from citeaudit.resolve.crossref import record_from_message
from citeaudit.resolve.interface import Resolution
from tests.conftest import GOLDEN, read_jsonl, run_cli, shared_data
from tests.test_registry_real import careful_citation, perturbations

SEED000 = GOLDEN / "seed000"

# Lines that are not valid answers, each one of check's input errors.
BAD_LINES = [
    b"not json",
    b'{"claims": []}',
    b'{"claims": [{"id": "c1", "text": "t", "citations": [{"doi": "10.1/x", "year": "2024"}]}]}',
    b'{"claims": [{"id": "c1", "text": "t", "status": "supported"}]}',
    b'{"claims": [{"id": "c1", "id": "c2", "text": "t"}]}',
    b'{"claims": [{"id": "c1", "text": "t", "citations": [{"doi": "10.1/x", "year": NaN}]}]}',
    b'{"claims": [{"id": "c1", "text": "\xff"}]}',
    b'{"id": 7, "answer": {"claims": [{"id": "c1", "text": "t"}]}}',
    b'{"id": "e1", "answer": {"claims": [{"id": "c1", "text": "t"}]}, "label": {}}',
    b'{"id": "e2", "answer": {"claims": [{"id": "c1", "text": "t", "kind": "opinion"}]}}',
    b"[" * 40 + b"]" * 40,
]


@dataclass(frozen=True)
class Workload:
    root: Path
    jsonl: Path
    cache: Path
    sources: Path
    lines: list[bytes]


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def canonical(answer: dict[str, Any]) -> bytes:
    """How an envelope's answer is audited (the Python API's serialisation of a dict)."""
    return json.dumps(answer, ensure_ascii=False, sort_keys=True).encode("utf-8")


def _real_answers(count: int) -> list[dict[str, Any]]:
    rows = read_jsonl(shared_data("registry", "crossref_works.jsonl"))
    records = [record_from_message(r["message"]) for r in rows if not r["partial_select"]]
    answers = []
    for i in range(count):
        claims = []
        for j in range(1 + i % 5):  # 1–5 citations per answer
            record = records[(i * 5 + j) % len(records)]
            citation = careful_citation(record, i + j)
            variants = list(perturbations(record, citation).values())
            if (i + j) % 3 == 0 and variants:
                citation = variants[(i + j) % len(variants)][0]
            text = f"The cited work reports finding {'abcde'[j]} of this answer."
            claims.append({"id": f"c{j}", "text": text, "citations": [citation]})
        answers.append({"claims": claims})
    return answers


def real_cache(root: Path) -> Path:
    """Seed 000's cache plus every full recorded Crossref record (and a 404 per perturbed DOI)."""
    cache = root / "cache"
    shutil.copytree(SEED000 / "cache", cache)
    doi_cache = DoiCache(cache)
    for row in read_jsonl(shared_data("registry", "crossref_works.jsonl")):
        if row["partial_select"]:
            continue
        record = record_from_message(row["message"])
        doi_cache.put(record.doi, Resolution.found(record))
        doi_cache.put(record.doi + "-not-registered", Resolution.not_found())
    return cache


def make_workload(root: Path, count: int = 44, bad: bool = True, cache: bool = True) -> Workload:
    """``count`` real answers (every third in an envelope with labels), seed 000's example
    first, bare and in an envelope, and the bad lines spread among them."""
    root.mkdir(parents=True, exist_ok=True)
    seed = json.loads((SEED000 / "claims.json").read_text("utf-8"))
    lines = [
        json.dumps(seed, ensure_ascii=False).encode("utf-8"),
        compact({"answer": seed, "id": "seed000", "labels": {"generator": "seed"}}).encode("utf-8"),
    ]
    for i, answer in enumerate(_real_answers(count)):
        if i % 3 == 0:
            envelope = {"answer": answer, "id": f"a{i:04d}", "labels": {"generator": f"g{i % 2}"}}
            lines.append(json.dumps(envelope, ensure_ascii=False).encode("utf-8"))
        else:
            lines.append(json.dumps(answer, ensure_ascii=False).encode("utf-8"))
        if bad and i % 4 == 1 and i // 4 < len(BAD_LINES):
            lines.append(BAD_LINES[i // 4])
    jsonl = root / "answers.jsonl"
    jsonl.write_bytes(b"\n".join(lines) + b"\n")
    cache_dir = real_cache(root) if cache else root / "cache"
    shutil.copytree(SEED000 / "sources", root / "sources")
    return Workload(root, jsonl, cache_dir, root / "sources", lines)


def audited_bytes(line: bytes) -> bytes:
    """The bytes a line is audited as: the line itself, or an envelope's canonical answer."""
    document = json.loads(line)
    if isinstance(document, dict) and isinstance(document.get("answer"), dict):
        return canonical(document["answer"])
    return line


def line_id(line: bytes) -> str:
    document = json.loads(line)
    if isinstance(document, dict) and isinstance(document.get("answer"), dict):
        return str(document.get("id") or hashlib.sha256(canonical(document["answer"])).hexdigest())
    return hashlib.sha256(line).hexdigest()


def check_report(data: bytes, tmp: Path, *args: str | Path) -> tuple[int, dict[str, Any] | None, str]:
    """``check`` on a file holding ``data``: its exit code, its report and its stderr."""
    tmp.mkdir(parents=True, exist_ok=True)
    claims, out = tmp / "answer.json", tmp / "report.json"
    claims.write_bytes(data)
    out.unlink(missing_ok=True)
    result = run_cli("check", claims, "--out", out, *args)
    report = json.loads(out.read_bytes()) if out.exists() else None
    return result.code, report, result.stderr


def part_lines(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for p in sorted((out / "reports").glob("part-*.jsonl")) for line in p.open("rb")]


def tree(out: Path) -> dict[str, bytes]:
    """Every file of a DIR by relative path, with its bytes."""
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
