"""Verdicts cached by a hash of (claim, fragments, judge identity): a rerun is
free and gives the same verdicts. ``unknown`` verdicts caused by an
unavailable backend are not cached, so a rerun asks again."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from citeaudit.resolve.cache import atomic_write
from citeaudit.semantic.judge import Fragment, Judge, JudgeIdentity, Verdict

__all__ = ["CachedJudge", "verdict_key"]


def verdict_key(claim: str, fragments: Sequence[Fragment], identity: JudgeIdentity) -> str:
    blob = json.dumps(
        {
            "claim": claim,
            "fragments": [[f.citation_id, f.text] for f in fragments],
            "judge": asdict(identity),
        },
        ensure_ascii=False,
        sort_keys=True,
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class CachedJudge:
    def __init__(self, inner: Judge, directory: Path) -> None:
        self._inner = inner
        self._directory = directory

    @property
    def identity(self) -> JudgeIdentity:
        return self._inner.identity

    def _path(self, key: str) -> Path:
        return self._directory / key[:2] / f"{key}.json"

    def judge(self, claim: str, fragments: Sequence[Fragment]) -> Verdict:
        path = self._path(verdict_key(claim, fragments, self.identity))
        if path.exists():
            data = json.loads(path.read_text("utf-8"))
            return Verdict(
                data["label"],
                self.identity,
                tuple(data["relied_on"]),
                tuple(data["unsupported"]),
                data["confidence"],
                tuple(data["signals"]),
            )
        verdict = self._inner.judge(claim, fragments)
        if not any(s.startswith("J_") for s in verdict.signals):
            record = {k: v for k, v in asdict(verdict).items() if k != "judge"}
            atomic_write(path, json.dumps(record, ensure_ascii=False, sort_keys=True).encode("utf-8"))
        return verdict
