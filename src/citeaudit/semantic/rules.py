"""The ``rules`` judge: offline, deterministic, signals plus lexical coverage.

It can only ever find a claim *not* shown by its fragments; it never says
``entailed``, because word overlap cannot show that a passage supports a
claim ("X causes Y" and "X does not cause Y" share every content word).
Where nothing is wrong that words can see, it says ``unknown`` and leaves the
claim to a stronger judge or a person.
"""

from __future__ import annotations

from collections.abc import Sequence

from citeaudit.semantic.base import BaseJudge
from citeaudit.semantic.interface import Fragment, JudgeIdentity, Verdict
from citeaudit.semantic.signals import analyse

__all__ = ["RulesJudge"]


class RulesJudge(BaseJudge):
    """Signals route; only missing numbers and low coverage decide ``insufficient``.

    The 0.3 coverage floor was chosen on the dev sets of WiCE, CLIMATE-FEVER
    and AttributionBench (0.2–0.5 tried; see bench/RESULTS.md)."""

    PER_CLAIM = True

    def __init__(self, min_coverage: float = 0.3) -> None:
        super().__init__(JudgeIdentity("rules", f"coverage<{min_coverage:g}", "rules-1"))
        self._min_coverage = min_coverage

    def judge(self, claim: str, fragments: Sequence[Fragment]) -> Verdict:
        report = analyse(claim, fragments)
        codes = report.codes
        if not fragments:
            return Verdict("insufficient", self._identity, signals=("S_NO_FRAGMENT",))
        low = report.coverage < self._min_coverage
        if low or "S_NUMBER_ABSENT" in codes:
            missing = [s.detail for s in report.signals if s.code == "S_NUMBER_ABSENT"]
            unsupported = tuple(missing) + (report.uncovered if low else ())
            return Verdict("insufficient", self._identity, report.relied_on, unsupported, signals=codes)
        return Verdict("unknown", self._identity, report.relied_on, report.uncovered, signals=codes)
