"""Verdicts cached by a hash of (claim, fragments, judge identity): a rerun is
free and gives the same verdicts. ``unknown`` verdicts caused by an
unavailable backend are not cached, so a rerun asks again. Offline, only
cached verdicts are used and a miss is ``unknown`` (``J_NOT_CACHED``)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from citeaudit.semantic.interface import VERDICTS, Fragment, Judge, JudgeIdentity, Verdict
from citeaudit.util.atomic import atomic_write

__all__ = ["CachedJudge", "verdict_key"]


def verdict_key(claim: str, fragments: Sequence[Fragment], identity: JudgeIdentity) -> str:
    blob = json.dumps(
        {
            "claim": claim,
            "fragments": [[f.citation_id, f.text, *([list(f.years)] if f.years else [])] for f in fragments],
            "judge": asdict(identity),
        },
        ensure_ascii=False,
        sort_keys=True,
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class CachedJudge:
    def __init__(self, inner: Judge, directory: Path, *, offline: bool = False) -> None:
        self._inner = inner
        self._directory = directory
        self._offline = offline  # cached verdicts only: a miss is unknown, the backend is never asked

    @property
    def per_claim(self) -> bool:
        return False

    @property
    def identity(self) -> JudgeIdentity:
        return self._inner.identity

    def _path(self, key: str) -> Path:
        return self._directory / key[:2] / f"{key}.json"

    def _load(self, path: Path) -> Verdict | None:
        """The cached verdict; None for a miss or an entry that is not a valid verdict
        (never trusted: the claim is judged again and the entry rewritten)."""
        try:
            data = json.loads(path.read_bytes().decode("utf-8"))
            verdict = Verdict(
                data["label"],
                self.identity,
                tuple(str(x) for x in data["relied_on"]),
                tuple(str(x) for x in data["unsupported"]),
                None if data["confidence"] is None else float(data["confidence"]),
                tuple(str(x) for x in data["signals"]),
                None if data.get("probability") is None else float(data["probability"]),
                None if data.get("reason") is None else str(data["reason"]),
                tuple((int(a), int(b)) for a, b in data.get("unsupported_spans", ())),
            )
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
            return None
        return verdict if verdict.label in VERDICTS else None

    def _store(self, path: Path, verdict: Verdict) -> None:
        if not any(s.startswith("J_") for s in verdict.signals):  # the backend failed: ask again next time
            record = {k: v for k, v in asdict(verdict).items() if k != "judge"}
            atomic_write(path, json.dumps(record, ensure_ascii=False, sort_keys=True).encode("utf-8"))

    def judge(self, claim: str, fragments: Sequence[Fragment]) -> Verdict:
        return self.judge_many([(claim, fragments)])[0]

    def judge_many(self, items: Sequence[tuple[str, Sequence[Fragment]]]) -> list[Verdict]:
        """Cached verdicts from disk; the misses go to the backend in one batch."""
        paths = [self._path(verdict_key(claim, fragments, self.identity)) for claim, fragments in items]
        found = [self._load(path) for path in paths]
        missing = [i for i, verdict in enumerate(found) if verdict is None]
        if self._offline:
            fresh = [Verdict("unknown", self.identity, signals=("J_NOT_CACHED",)) for _ in missing]
        else:
            fresh = self._inner.judge_many([items[i] for i in missing]) if missing else []
        for i, verdict in zip(missing, fresh, strict=True):
            self._store(paths[i], verdict)
            found[i] = verdict
        return [v for v in found if v is not None]
