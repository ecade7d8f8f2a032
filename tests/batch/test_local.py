"""``citeaudit batch`` on the local engine: each report is what ``check`` writes for its
answer, bad lines are rejected with check's message, the DIR does not depend on the
number of workers, and a run resumes, refuses another run's DIR and reads back in stats."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from citeaudit.batch.parts import answer_exit_code
from citeaudit.cli.check import exit_code
from tests.batch.workload import (
    BAD_LINES,
    Workload,
    audited_bytes,
    canonical,
    check_report,
    compact,
    line_id,
    make_workload,
    part_lines,
    tree,
)
from tests.conftest import GOLDEN, ROOT, run_cli


def _batch(w_jsonl: Path, out: Path, *args: str | Path) -> tuple[int, str, str]:
    result = run_cli("batch", w_jsonl, "--out", out, *args)
    return result.code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def workload(tmp_path_factory: pytest.TempPathFactory) -> Workload:
    return make_workload(tmp_path_factory.mktemp("batch"))


@pytest.fixture(scope="module")
def reference(workload: Workload, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ref") / "out"
    code, stdout, stderr = _batch(
        workload.jsonl, out, "--offline", "--cache", workload.cache, "--sources", workload.sources,
        "--part-size", "7",
    )  # fmt: skip
    assert code == 2, stderr  # some lines are rejected: the worst answer's code
    assert stdout.startswith("answers=46 rejected=11 parts=9 computed=9 out=")
    return out


def test_every_report_is_the_one_check_writes(workload: Workload, reference: Path, tmp_path: Path) -> None:
    lines = part_lines(reference)
    good = [line for line in workload.lines if line not in BAD_LINES]
    assert [entry["id"] for entry in lines] == [line_id(line) for line in good]
    for entry, line in zip(lines, good, strict=True):
        code, report, stderr = check_report(
            audited_bytes(line),
            tmp_path,
            "--offline",
            "--cache",
            workload.cache,
            "--sources",
            workload.sources,
        )
        assert report is not None, stderr
        assert compact(entry["report"]) == compact(report)
        assert code == exit_code_of(report)
    # The bytes of the part line hold check's report exactly, in compact JSON.
    first = (reference / "reports" / "part-00000.jsonl").read_bytes().split(b"\n")[0]
    _, report, _ = check_report(workload.lines[0], tmp_path, "--offline", "--cache", workload.cache,
                                "--sources", workload.sources)  # fmt: skip
    assert b'"report":' + compact(report).encode("utf-8") + b"}" in first


def exit_code_of(report: dict[str, Any]) -> int:
    return answer_exit_code(report, "error")


@pytest.mark.parametrize("case", sorted(p.parent.name for p in GOLDEN.glob("*/case.json")))
def test_golden_cases_give_check_s_reports(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / case
    shutil.copytree(GOLDEN / case, folder)
    monkeypatch.chdir(folder)
    spec = json.loads((folder / "case.json").read_text("utf-8"))
    claims_file, options = spec["args"][1], spec["args"][2:]
    line = json.dumps(json.loads((folder / claims_file).read_text("utf-8")), ensure_ascii=False).encode()
    Path("answers.jsonl").write_bytes(line + b"\n")
    code, _, stderr = _batch(Path("answers.jsonl"), Path("out"), *options)
    assert code == spec["exit"], stderr
    (entry,) = part_lines(Path("out"))
    checked_code, report, _ = check_report(line, tmp_path / "check", *options)
    assert checked_code == spec["exit"]
    assert report is not None
    assert compact(entry["report"]) == compact(report)
    # And the golden report itself, but for the digest of the bytes read (one line, not the file).
    expected = json.loads((folder / "expected.json").read_text("utf-8"))
    assert expected["input_sha256"] != report["input_sha256"]
    assert {**expected, "input_sha256": None} == {**entry["report"], "input_sha256": None}


def test_bad_lines_are_rejected_with_check_s_message(
    workload: Workload, reference: Path, tmp_path: Path
) -> None:
    rejected = [json.loads(line) for line in (reference / "rejected.jsonl").open("rb")]
    numbers = [i + 1 for i, line in enumerate(workload.lines) if line in BAD_LINES]
    assert [r["line"] for r in rejected] == numbers
    assert len(rejected) == len(BAD_LINES)
    for entry in rejected:
        line = workload.lines[entry["line"] - 1]
        assert entry["input"] == str(workload.jsonl)
        where = f"{workload.jsonl}:{entry['line']}"
        document = None
        with contextlib.suppress(ValueError):
            document = json.loads(line)
        if isinstance(document, dict) and isinstance(document.get("answer"), dict):
            continue  # an envelope's own fields: checked below
        code, _, stderr = check_report(line, tmp_path, "--offline", "--cache", str(workload.cache))
        assert code == 2
        assert (
            stderr
            == f"citeaudit: error: {tmp_path / 'answer.json'}: " + entry["error"][len(where) + 2 :] + "\n"
        )
    # An envelope's own fields, and check's message for the answer inside one.
    errors = {r["line"]: r["error"] for r in rejected}
    assert (
        errors[numbers[7]] == f"{workload.jsonl}:{numbers[7]}: $.id: expected a non-empty string, got integer"
    )
    assert errors[numbers[8]] == (
        f"{workload.jsonl}:{numbers[8]}: $.label: unknown field (an envelope has id, answer, labels)"
    )
    inner = canonical({"claims": [{"id": "c1", "text": "t", "kind": "opinion"}]})
    code, _, stderr = check_report(inner, tmp_path)
    where = f"{workload.jsonl}:{numbers[9]}"
    assert (
        stderr
        == f"citeaudit: error: {tmp_path / 'answer.json'}: " + errors[numbers[9]][len(where) + 2 :] + "\n"
    )
    assert [r["id"] for r in rejected if r["line"] in numbers[7:10]] == [None, "e1", "e2"]


def test_an_oversize_line_is_rejected_and_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    w = make_workload(tmp_path / "w", count=3, bad=False)
    monkeypatch.setenv("CITEAUDIT_MAX_INPUT_BYTES", "4096")
    huge = b'{"claims": [{"id": "c1", "text": "' + b"x" * 10_000 + b'"}]}'
    lines = w.jsonl.read_bytes().split(b"\n")
    w.jsonl.write_bytes(b"\n".join([lines[0], huge, *lines[1:]]))
    code, _, _ = _batch(w.jsonl, tmp_path / "out", "--offline", "--cache", w.cache, "--sources", w.sources)
    assert code == 2
    (rejected,) = [json.loads(line) for line in (tmp_path / "out" / "rejected.jsonl").open("rb")]
    assert rejected == {
        "error": f"{w.jsonl}:2: input is {len(huge)} bytes, over the limit of 4096",
        "id": None,
        "input": str(w.jsonl),
        "line": 2,
    }
    checked, _, stderr = check_report(huge, tmp_path / "check")
    assert checked == 2
    assert stderr.endswith(f"input is {len(huge)} bytes, over the limit of 4096\n")
    assert len(part_lines(tmp_path / "out")) == 5


def test_two_workers_write_the_same_bytes(workload: Workload, reference: Path, tmp_path: Path) -> None:
    code, _, stderr = _batch(
        workload.jsonl, tmp_path / "out", "--offline", "--cache", workload.cache, "--sources", workload.sources,
        "--part-size", "7", "--workers", "2",
    )  # fmt: skip
    assert code == 2, stderr
    assert tree(tmp_path / "out") == tree(reference)


def test_summary_and_stats_agree_with_the_reports(
    workload: Workload, reference: Path, tmp_path: Path
) -> None:
    summary = json.loads((reference / "summary.json").read_text("utf-8"))
    lines = part_lines(reference)
    assert (summary["answers"], summary["rejected"], summary["lines"]) == (46, 11, 57)
    decisions: dict[str, int] = {}
    for entry in lines:
        decisions[entry["report"]["decision"]] = decisions.get(entry["report"]["decision"], 0) + 1
    assert summary["totals"]["reports_by_decision"] == dict(sorted(decisions.items()))
    codes: dict[str, int] = {}
    for entry in lines:
        for code, n in entry["report"]["summary"]["by_code"].items():
            codes[code] = codes.get(code, 0) + n
    assert summary["totals"]["findings_by_code"] == dict(sorted(codes.items()))
    assert {g["group"]["generator"] for g in summary["groups"]} == {"", "g0", "g1", "seed"}
    assert summary["exit_code"] == 2
    assert summary["exit_codes"] == {"1": 46 - summary["exit_codes"].get("0", 0) - summary["exit_codes"].get("3", 0),
                                     **{k: v for k, v in summary["exit_codes"].items() if k != "1"}}  # fmt: skip
    result = run_cli("stats", reference, "--format", "json")
    assert result.code == 0
    assert json.loads(result.stdout) == summary["groups"]


def test_a_part_left_half_written_is_computed_again(
    workload: Workload, reference: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    shutil.copytree(reference, out)
    (out / "parts" / "part-00003.json").unlink()  # killed between the part and its state
    (out / "reports" / "part-00005.jsonl").write_bytes(b'{"id": "half')  # a part torn by hand
    (out / "summary.json").unlink()
    code, stdout, _ = _batch(
        workload.jsonl, out, "--offline", "--cache", workload.cache, "--sources", workload.sources,
        "--part-size", "7",
    )  # fmt: skip
    assert code == 2
    assert "computed=2 " in stdout
    assert tree(out) == tree(reference)


def test_another_run_into_the_same_dir_is_refused_unless_fresh(
    workload: Workload, reference: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    shutil.copytree(reference, out)
    base = ["--offline", "--cache", str(workload.cache), "--sources", str(workload.sources)]
    code, _, stderr = _batch(
        workload.jsonl, out, *base, "--part-size", "7", "--severity", "E_TITLE_MISMATCH=warning"
    )
    assert code == 2
    assert stderr == (
        f"citeaudit: error: {out}: holds a batch run of other settings (severity); "
        "give --fresh to replace it, or another --out\n"
    )
    other = tmp_path / "other.jsonl"
    other.write_bytes(workload.jsonl.read_bytes()[:-1] + b" \n")
    code, _, stderr = _batch(other, out, *base, "--part-size", "7")
    assert code == 2
    assert stderr == (
        f"citeaudit: error: {out}: holds a batch run of other inputs; give --fresh to replace it, or another --out\n"
    )
    code, _, _ = _batch(workload.jsonl, out, *base, "--part-size", "3", "--fresh")
    assert code == 2
    code, _, _ = _batch(workload.jsonl, out, *base, "--part-size", "7", "--fresh")
    assert code == 2
    assert tree(out) == tree(reference)
    stranger = tmp_path / "stranger"
    stranger.mkdir()
    (stranger / "notes.txt").write_text("mine")
    code, _, stderr = _batch(workload.jsonl, stranger, *base, "--fresh")
    assert code == 2
    assert "not empty and not a batch output directory" in stderr
    assert (stranger / "notes.txt").read_text() == "mine"


def test_a_finished_run_run_again_computes_nothing(
    workload: Workload, reference: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    shutil.copytree(reference, out)
    code, stdout, _ = _batch(
        workload.jsonl, out, "--offline", "--cache", workload.cache, "--sources", workload.sources,
        "--part-size", "7",
    )  # fmt: skip
    assert (code, "computed=0 " in stdout) == (2, True)
    assert tree(out) == tree(reference)


def test_exit_code_follows_the_worst_answer(tmp_path: Path) -> None:
    w = make_workload(tmp_path / "w", count=6, bad=False)
    base = ["--offline", "--cache", str(w.cache), "--sources", str(w.sources)]
    clean = tmp_path / "clean.jsonl"
    clean.write_bytes(w.lines[3] + b"\n")  # one careful citation of a recorded work
    code, _, _ = _batch(clean, tmp_path / "o1", *base, "--judge", "none")
    assert code == 0
    code, _, _ = _batch(w.jsonl, tmp_path / "o2", *base)
    assert code == 1
    unchecked = tmp_path / "unchecked.jsonl"
    unchecked.write_bytes(w.lines[3] + b"\n")
    code, _, _ = _batch(unchecked, tmp_path / "o3", "--offline", "--cache", str(tmp_path / "empty"))
    assert code == 3
    code, _, _ = _batch(clean, tmp_path / "o4", *base, "--fail-on", "decision")
    assert code == 6  # the rules judge leaves the claim unknown: manual review, as check says
    checked, _, _ = check_report(w.lines[3], tmp_path / "c", *base, "--fail-on", "decision")
    assert checked == 6


def test_exit_code_of_a_report_is_check_s(workload: Workload, reference: Path) -> None:
    from citeaudit.batch.wiring import WorkerSpec, build_worker
    from citeaudit.config import Config
    from citeaudit.formats import parse_bytes
    from citeaudit.report.json import report_to_dict

    config = Config(cache=workload.cache, sources=workload.sources, offline=True)
    auditor = build_worker(WorkerSpec(config))
    for line in workload.lines:
        if line in BAD_LINES:
            continue
        report = auditor(parse_bytes(audited_bytes(line), "x"))
        for fail_on in ("error", "decision"):
            assert answer_exit_code(report_to_dict(report), fail_on) == exit_code(report, fail_on)


def test_the_driver_killed_with_sigkill_is_finished_by_a_rerun(tmp_path: Path) -> None:
    # Big enough (57 parts) that the run is still going when the second part lands: the module's
    # 46 answers can be done before the driver is killed.
    workload = make_workload(tmp_path / "big", count=400)
    options = ["--offline", "--cache", str(workload.cache), "--sources", str(workload.sources),
               "--part-size", "7"]  # fmt: skip
    reference = tmp_path / "reference"
    assert _batch(workload.jsonl, reference, *options)[0] == 2
    parts = len(list((reference / "parts").glob("part-*.json")))
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "citeaudit", "batch", str(workload.jsonl), "--out", str(out), *options,
            "--workers", "2"]  # fmt: skip
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if len(list((out / "parts").glob("part-*.json"))) >= 2:
            break
        time.sleep(0.005)
    assert proc.poll() is None, "the batch ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(30)
    done = len(list((out / "parts").glob("part-*.json")))
    assert done >= 1
    # Its worker processes (forked: the same command line) end too, rather than wait forever.
    deadline = time.monotonic() + 10
    while _processes_writing_to(out) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _processes_writing_to(out) == []
    code, stdout, _ = _batch(workload.jsonl, out, *options)
    assert code == 2
    assert f"computed={parts - done} " in stdout
    assert tree(out) == tree(reference)


def _processes_writing_to(out: Path) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if str(out).encode() in cmdline and b"batch" in cmdline:
                found.append(int(entry.name))
    return found


def test_one_run_at_a_time_holds_a_dir(workload: Workload, reference: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    shutil.copytree(reference, out)
    holder = subprocess.Popen(  # another driver, holding DIR's lock as a run does
        [sys.executable, "-c", "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT); "
         "fcntl.lockf(fd, fcntl.LOCK_EX); print('locked', flush=True); sys.stdin.read()", str(out / ".lock")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
    )  # fmt: skip
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == b"locked\n"
        code, _, stderr = _batch(workload.jsonl, out, "--offline", "--cache", workload.cache, "--sources",
                                 workload.sources, "--part-size", "7")  # fmt: skip
        assert code == 2
        assert stderr == f"citeaudit: error: {out}: another batch run is writing to it\n"
    finally:
        holder.communicate(b"")
    code, _, _ = _batch(workload.jsonl, out, "--offline", "--cache", workload.cache, "--sources",
                        workload.sources, "--part-size", "7")  # fmt: skip
    assert code == 2
    assert tree(out) == tree(reference)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_a_progress_line(workload: Workload, tmp_path: Path) -> None:
    from citeaudit.batch import BatchOptions, WorkerSpec, run_batch
    from citeaudit.config import Config

    spec = WorkerSpec(Config(cache=workload.cache, sources=workload.sources, offline=True))
    stderr = _Terminal()
    outcome = run_batch(BatchOptions((workload.jsonl,), tmp_path / "out", spec, part_size=7), stderr)
    assert outcome.computed == 9
    shown = stderr.getvalue()
    assert shown.startswith("\rbatch: ")
    assert re.search(r"\rbatch: \d+/57 answers, \d+/s, ETA \d+m\d\ds  ", shown)
    assert shown.endswith("\n")
    piped = io.StringIO()
    run_batch(BatchOptions((workload.jsonl,), tmp_path / "out2", spec, part_size=7), piped)
    assert piped.getvalue() == ""


def test_stats_reads_a_batch_dir_as_untrusted_input(
    workload: Workload, reference: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    shutil.copytree(reference, out)
    part = out / "reports" / "part-00001.jsonl"
    lines = part.read_bytes().split(b"\n")
    entry = json.loads(lines[2])
    entry["report"]["decision"] = "approved"
    lines[2] = compact(entry).encode("utf-8")
    part.write_bytes(b"\n".join(lines))
    result = run_cli("stats", out)
    assert result.code == 2
    assert result.stderr == (
        f"citeaudit: error: {part}:3: $.report.decision: expected 'reject', 'manual_review', "
        "'regenerate_or_abstain' or 'accept', got 'approved'\n"
    )
    result = run_cli("stats", tmp_path)
    assert result.code == 2
    assert (
        result.stderr
        == f"citeaudit: error: {tmp_path}: not an output directory of citeaudit batch (no manifest.json)\n"
    )
