"""What every judge backend repeats: its identity, whether it runs claim by claim, and one of
``judge`` / ``judge_many`` in terms of the other. A backend subclasses :class:`BaseJudge`, sets
``per_claim`` and overrides the one of the two that it does natively."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from citeaudit.model import JudgeIdentity, Verdict
from citeaudit.semantic.interface import Fragment

__all__ = ["BaseJudge"]


class BaseJudge:
    #: True for a cheap, stateless, local judge (asked claim by claim inside the audit's worker
    #: processes); False for one that batches or waits on a server (it gets one list).
    PER_CLAIM: ClassVar[bool] = False

    def __init__(self, identity: JudgeIdentity) -> None:
        self._identity = identity

    @property
    def identity(self) -> JudgeIdentity:
        return self._identity

    @property
    def per_claim(self) -> bool:
        return self.PER_CLAIM

    def judge(self, claim: str, fragments: Sequence[Fragment]) -> Verdict:
        """One claim, as a batch of one (a backend that judges one at a time overrides this)."""
        return self.judge_many([(claim, fragments)])[0]

    def judge_many(self, items: Sequence[tuple[str, Sequence[Fragment]]]) -> list[Verdict]:
        """Claim by claim (a backend that batches overrides this)."""
        if type(self).judge is BaseJudge.judge:
            raise NotImplementedError(f"{type(self).__name__} overrides neither judge nor judge_many")
        return [self.judge(claim, fragments) for claim, fragments in items]
