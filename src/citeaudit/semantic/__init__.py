"""The semantic stage: does the cited passage support the claim?

Kept apart from the deterministic checks and labelled as such everywhere: a
judge's verdict is an opinion with an identity (backend, model, prompt
version), never a proof. ``signals`` are cheap deterministic risk markers
that route claims; ``rules`` is the offline judge built on them.
"""

from citeaudit.semantic.judge import Fragment, Judge, JudgeIdentity, Verdict, VerdictLabel, make_judge

__all__ = ["Fragment", "Judge", "JudgeIdentity", "Verdict", "VerdictLabel", "make_judge"]
