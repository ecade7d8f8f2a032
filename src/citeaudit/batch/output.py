"""The output directory of a batch run, and how a run resumes into it.

    DIR/manifest.json          inputs (name, size, SHA-256, lines) and settings of the run
    DIR/reports/part-NNNNN.jsonl   one compact {"id", "labels", "report"} line per answer
    DIR/parts/part-NNNNN.json  per part: its rejections and counts (written after the part)
    DIR/rejected.jsonl         every input line that is not a valid answer, in input order
    DIR/summary.json           totals and the ``stats`` groups of the whole run

Parts are cut from the input order (part k holds records k*P … k*P+P-1), each is
written atomically, and a part counts as done only when its state file exists and
names the size of its part file. A rerun computes the parts that are not done; the
last two files are rebuilt from the part states, so they never hold anything twice.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from citeaudit.batch.parts import PartResult, compact, worst_exit_code
from citeaudit.errors import ConfigError, InputError
from citeaudit.report.read import checked_report
from citeaudit.report.stats import Tally
from citeaudit.util.atomic import atomic_write
from citeaudit.util.jsonload import DEFAULT_MAX_BYTES, load_json_bytes

__all__ = ["MANIFEST_VERSION", "BatchDir", "batch_reports"]

MANIFEST_VERSION = 1
_OWN = ("manifest.json", "reports", "parts", "rejected.jsonl", "summary.json", ".lock")


def _dump(value: Any) -> bytes:
    return (json.dumps(value, ensure_ascii=False, sort_keys=True, indent=2) + "\n").encode("utf-8")


class BatchDir:
    def __init__(self, root: Path, width: int) -> None:
        self.root = root
        self.width = width
        self._lock_fd: int | None = None

    # -- opening -------------------------------------------------------------------

    @classmethod
    def open(cls, root: Path, manifest: dict[str, Any], width: int, fresh: bool) -> BatchDir:
        """Create DIR, or reuse it for the same run; a different run is refused unless ``fresh``."""
        path = root / "manifest.json"
        if root.exists() and not root.is_dir():
            raise ConfigError(f"{root}: exists and is not a directory")
        entries = sorted(p.name for p in root.iterdir() if p.name != ".lock") if root.is_dir() else []
        if entries and not path.is_file():
            raise ConfigError(
                f"{root}: not empty and not a batch output directory (no manifest.json); "
                "give an empty or new directory"
            )
        same = path.is_file() and path.read_bytes() == _dump(manifest)
        if path.is_file() and not same and not fresh:
            raise ConfigError(
                f"{root}: holds a batch run of other {_difference(path.read_bytes(), manifest)}; "
                "give --fresh to replace it, or another --out"
            )
        root.mkdir(parents=True, exist_ok=True)
        box = cls(root, width)
        box._lock()
        try:
            if fresh:
                for name in _OWN[:-1]:
                    target = root / name
                    if target.is_dir():
                        shutil.rmtree(target)
                    elif target.exists():
                        target.unlink()
            (root / "reports").mkdir(exist_ok=True)
            (root / "parts").mkdir(exist_ok=True)
            for folder in (root, root / "reports", root / "parts"):
                for stale in folder.glob(".tmp-*"):  # a write the last run was killed in
                    stale.unlink(missing_ok=True)
            if not path.is_file() or path.read_bytes() != _dump(manifest):
                atomic_write(path, _dump(manifest))
        except BaseException:
            box.close()
            raise
        return box

    def _lock(self) -> None:
        """One run at a time per DIR: a POSIX lock on ``DIR/.lock`` (not inherited by forked
        workers, released when the driver ends however it ends)."""
        try:
            import fcntl
        except ImportError:  # not on every platform
            return
        fd = os.open(self.root / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise ConfigError(f"{self.root}: another batch run is writing to it") from None
        self._lock_fd = fd

    def close(self) -> None:
        fd = getattr(self, "_lock_fd", None)
        if fd is not None:
            os.close(fd)
            self._lock_fd = None

    # -- parts ---------------------------------------------------------------------

    def part_name(self, index: int) -> str:
        return f"part-{index:0{self.width}d}"

    def report_path(self, index: int) -> Path:
        return self.root / "reports" / f"{self.part_name(index)}.jsonl"

    def state_path(self, index: int) -> Path:
        return self.root / "parts" / f"{self.part_name(index)}.json"

    def is_done(self, index: int) -> bool:
        state = self.state_path(index)
        if not state.is_file():
            return False
        try:
            recorded = json.loads(state.read_bytes())["reports_bytes"]
            return bool(self.report_path(index).stat().st_size == recorded)
        except (OSError, ValueError, KeyError, TypeError):
            return False  # a damaged state: the part is computed again

    def write(self, result: PartResult) -> None:
        """The part file first, then its state: a part without a state is recomputed."""
        atomic_write(self.report_path(result.index), result.reports)
        atomic_write(self.state_path(result.index), _dump(result.state))

    # -- the end of a run ----------------------------------------------------------

    def states(self, parts: int) -> Iterator[dict[str, Any]]:
        for index in range(parts):
            path = self.state_path(index)
            try:
                data = load_json_bytes(path.read_bytes(), str(path))
            except OSError as e:
                raise ConfigError(f"{path}: cannot read: {e.strerror}") from None
            if not isinstance(data, dict):
                raise InputError(str(path), "$", "expected an object")
            yield data

    def finish(self, parts: int, fail_on: str) -> dict[str, Any]:
        """Write rejected.jsonl and summary.json from the part states; return the summary."""
        tally = Tally()
        codes: Counter[str] = Counter()
        results: Counter[str] = Counter()
        exits: Counter[int] = Counter()
        answers = rejected = 0
        target = self.root / "rejected.jsonl"
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=self.root)
        try:
            with os.fdopen(fd, "wb") as fh:
                for state in self.states(parts):
                    for line in state["rejected"]:
                        fh.write(compact(line) + b"\n")
                    rejected += len(state["rejected"])
                    answers += int(state["answers"])
                    tally.merge(Tally.from_json(state["tally"]))
                    codes.update(state["findings_by_code"])
                    results.update(state["results_by_status"])
                    exits.update({int(k): int(v) for k, v in state["exit_codes"].items()})
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        groups = tally.groups()
        totals: dict[str, Counter[str]] = {
            "claims_by_status": Counter(),
            "reports_by_decision": Counter(),
            "reports_by_status": Counter(),
        }
        for group in groups:
            for name, counter in totals.items():
                counter.update(group[name])
        summary = {
            "answers": answers,
            "exit_code": worst_exit_code(list(exits)),
            "exit_codes": {str(k): v for k, v in sorted(exits.items())},
            "fail_on": fail_on,
            "groups": groups,
            "lines": answers + rejected,
            "parts": parts,
            "rejected": rejected,
            "totals": {
                **{name: dict(sorted(c.items())) for name, c in totals.items()},
                "claims": sum(g["claims"] for g in groups),
                "citations": sum(g["citations"] for g in groups),
                "findings_by_code": dict(sorted(codes.items())),
                "results_by_status": dict(sorted(results.items())),
            },
        }
        atomic_write(self.root / "summary.json", _dump(summary))
        return summary


def _difference(old: bytes, manifest: dict[str, Any]) -> str:
    try:
        previous = json.loads(old)
    except ValueError:
        return "inputs or settings (its manifest.json is not readable)"
    if not isinstance(previous, dict):
        return "inputs or settings"
    changed = sorted(k for k in set(previous) | set(manifest) if previous.get(k) != manifest.get(k))
    if "inputs" in changed:
        return "inputs"
    settings_old, settings_new = previous.get("settings") or {}, manifest.get("settings") or {}
    names = sorted(
        k for k in set(settings_old) | set(settings_new) if settings_old.get(k) != settings_new.get(k)
    )
    if names:
        return "settings (" + ", ".join(names) + ")"
    return "settings (" + ", ".join(changed) + ")"


_LINE_KEYS = {"id", "labels", "report"}


def batch_reports(
    root: Path, max_bytes: int = 2 * DEFAULT_MAX_BYTES
) -> Iterator[tuple[dict[str, str], dict[str, Any]]]:
    """Every report of a batch output directory, in part order, with its envelope's labels;
    each line is read back as untrusted input (bounded, its report's shape checked)."""
    if not (root / "manifest.json").is_file() or not (root / "reports").is_dir():
        raise InputError(str(root), "", "not an output directory of citeaudit batch (no manifest.json)")
    for path in sorted((root / "reports").glob("part-*.jsonl")):
        with path.open("rb") as fh:
            number = 0
            while raw := fh.readline(max_bytes + 1):
                number += 1
                name = f"{path}:{number}"
                if len(raw) > max_bytes:
                    raise InputError(name, "", f"line over the limit of {max_bytes} bytes")
                data = load_json_bytes(raw, name, 64)
                if not isinstance(data, dict) or set(data) != _LINE_KEYS:
                    raise InputError(name, "$", "expected an object with id, labels and report")
                labels = data["labels"]
                if not isinstance(labels, dict) or not all(isinstance(v, str) for v in labels.values()):
                    raise InputError(name, "$.labels", "expected an object of strings")
                yield labels, checked_report(data["report"], name, ["report"])
