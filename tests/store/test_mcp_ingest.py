"""Ingesting sources through a real stdio MCP document server (written with the
SDK in tests/store/doc_server.py): the happy path, a server that returns the
wrong file, an error result, an oversize answer, a binary answer, one that hangs;
and seed 002's MCP scenario end to end."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import run_cli

SERVER = Path(__file__).with_name("doc_server.py")
TEXTS = {
    "plan_a.md": "# 人工测试资料\n方案 A 支持离线整理。\n",
    "plan_b.md": "# 人工测试资料\n方案 B 需要联网检索。\n",
}


@pytest.fixture
def docs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = tmp_path / "docs"
    root.mkdir()
    for name, text in TEXTS.items():
        (root / name).write_text(text, "utf-8")
    monkeypatch.setenv("DOCS_ROOT", str(root))
    monkeypatch.setenv("DOC_SERVER_PIDFILE", str(tmp_path / "server.pid"))
    store = ("--store", str(tmp_path / "s.db"), "--scope", "teaching/reader")
    for source_id, name in (("plan_a", "plan_a.md"), ("plan_b", "plan_b.md")):
        registered = run_cli("sources", "register", "--id", source_id, "--title", f"方案 {source_id[-1].upper()} 教学说明",
                             "--locator", f"fixture:{source_id}", "--kind", "fixture", "--filename", name, *store)  # fmt: skip
        assert registered.code == 0, registered.stderr
    yield tmp_path
    # Whatever a failing test leaves running ends here, never outliving the test.
    for name in ("server.pid", "server.pid.child"):
        if (tmp_path / name).exists():
            pid = int((tmp_path / name).read_text())
            for kill in (os.killpg, os.kill):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    kill(pid, signal.SIGKILL)


def _read(docs: Path, source_id: str, filename: str, *extra: str) -> object:
    return run_cli("sources", "add", "--id", source_id, "--mcp", f"{sys.executable} {SERVER}", "--tool", "read_document",
                   "--arg", f"filename={filename}", "--store", str(docs / "s.db"), "--scope", "teaching/reader", *extra)  # fmt: skip


def _revisions(docs: Path, source_id: str) -> int:
    shown = run_cli("sources", "show", source_id, "--store", str(docs / "s.db"), "--scope", "teaching/reader")
    return int(json.loads(shown.stdout)["revisions"])


def _process_ended(docs: Path, pidfile: str = "server.pid") -> bool:
    pid = int((docs / pidfile).read_text())
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def test_a_read_becomes_a_revision(docs: Path) -> None:
    result = _read(docs, "plan_a", "plan_a.md")
    assert result.code == 0, result.stderr  # type: ignore[attr-defined]
    assert json.loads(result.stdout)["revision"] == 1  # type: ignore[attr-defined]
    assert _process_ended(docs)


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("wrong_file", "the server returned 'other.md', not the mapped 'plan_a.md'"),
        (
            "error",
            "the read ended in an error: Error executing tool read_document: permission denied for plan_a.md",
        ),
        ("oversize", "over the limit of 4194304"),
        ("binary", "the content type 'application/octet-stream' is not text"),
        ("hang", "the document server did not answer within 2 s"),
        ("stubborn", "the document server did not answer within 2 s"),
    ],
)
def test_a_bad_read_stores_nothing(
    docs: Path, monkeypatch: pytest.MonkeyPatch, mode: str, message: str
) -> None:
    monkeypatch.setenv("DOC_SERVER_MODE", mode)
    hangs = mode in ("hang", "stubborn")
    started = time.monotonic()
    result = _read(docs, "plan_a", "plan_a.md", "--timeout", "2" if hangs else "20")
    elapsed = time.monotonic() - started
    assert result.code == 2  # type: ignore[attr-defined]
    assert message in result.stderr  # type: ignore[attr-defined]
    if hangs:
        # The 2 s read, the server's start-up and a kill of its process group: never a wait on the server.
        assert elapsed < 9, elapsed
    assert _revisions(docs, "plan_a") == 0
    assert _process_ended(docs)
    if mode == "stubborn":  # the child that held the server's stdout went with its process group
        assert _process_ended(docs, "server.pid.child")


def test_only_registered_sources_and_their_mapped_files(docs: Path) -> None:
    unregistered = _read(docs, "plan_c", "plan_a.md")
    assert "source 'plan_c' is not registered in scope teaching/reader" in unregistered.stderr  # type: ignore[attr-defined]
    other_file = _read(docs, "plan_a", "plan_b.md")
    assert "the host maps 'plan_a' to 'plan_a.md'; the read asks for 'plan_b.md'" in other_file.stderr  # type: ignore[attr-defined]


def test_seed_002_mcp_scenario_end_to_end(docs: Path) -> None:
    store = ("--store", str(docs / "s.db"), "--scope", "teaching/reader")
    for source_id, name in (("plan_a", "plan_a.md"), ("plan_b", "plan_b.md")):
        assert _read(docs, source_id, name).code == 0  # type: ignore[attr-defined]
    a = json.loads(run_cli("locate", "plan_a", "方案 A 支持离线整理。", "--id", "citation_a", *store).stdout)
    b = json.loads(run_cli("locate", "plan_b", "方案 B 需要联网检索。", "--id", "citation_b", *store).stdout)

    def cite(c: dict[str, object]) -> dict[str, object]:
        return {"citation_id": c["id"], "ref": {k: c[k] for k in ("source_id", "revision", "digest")},
                "start": c["start"], "end": c["end"], "quote": c["quote"]}  # fmt: skip

    report = {
        "title": "方案资料的教学核对报告",
        "claims": [
            {"claim_id": "claim_a", "text": "教学说明称方案 A 支持离线整理。", "kind": "fact", "citations": [cite(a)]},
            {"claim_id": "claim_b", "text": "教学说明称方案 B 需要联网检索。", "kind": "fact", "citations": [cite(b)]},
            {"claim_id": "choice", "text": "若当前任务不能联网,可先核查方案 A。", "kind": "inference",
             "rationale": "离线整理说明支持这一候选方向,但没有验证其他前提。", "citations": [cite(a)]},
        ],
        "gaps": ["缺少功能验证和实际使用条件,不能据此宣布某方案整体更优。"],
    }  # fmt: skip
    path = docs / "candidate.json"
    path.write_text(json.dumps(report, ensure_ascii=False), "utf-8")
    checked = run_cli(
        "check",
        path,
        "--offline",
        "--out",
        docs / "r.json",
        "--format",
        "md",
        "--output",
        docs / "r.md",
        *store,
    )
    assert checked.code == 0, checked.stderr
    artifact = (docs / "r.md").read_text("utf-8")
    assert "Status: `partial`" in artifact
    assert "Locator: fixture:plan\\_a; kind: fixture" in artifact
    assert "> 方案 A 支持离线整理。" in artifact
    history = json.loads(run_cli("history", "--format", "json", *store).stdout)
    assert [r["status"] for r in history] == ["partial"]
