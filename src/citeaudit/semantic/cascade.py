"""``rules+BACKEND``: the rules judge first, a model only for what it leaves open.

The rules judge is cheap and, when it says ``insufficient``, usually right
(its precision per evaluation set is in bench/RESULTS.md); everything it
leaves ``unknown`` goes to the second judge in one batch. Each verdict keeps
the identity of the judge that gave it, so a report shows which one decided.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from citeaudit.model import JudgeIdentity, Verdict
from citeaudit.semantic.base import BaseJudge
from citeaudit.semantic.interface import Fragment, Judge

__all__ = ["CascadeJudge"]


class CascadeJudge(BaseJudge):
    def __init__(self, first: Judge, second: Judge) -> None:
        self._first = first
        self._second = second
        a, b = first.identity, second.identity
        super().__init__(JudgeIdentity("cascade", f"{a}+{b}", "cascade-1"))

    def judge_many(self, items: Sequence[tuple[str, Sequence[Fragment]]]) -> list[Verdict]:
        verdicts = self._first.judge_many(items)
        open_ = [i for i, v in enumerate(verdicts) if v.label == "unknown"]
        for i, verdict in zip(open_, self._second.judge_many([items[i] for i in open_]), strict=True):
            signals = tuple(dict.fromkeys(verdicts[i].signals + verdict.signals))  # what routed it, too
            verdicts[i] = replace(verdict, signals=signals)
        return verdicts
