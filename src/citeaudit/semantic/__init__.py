"""The semantic stage: does the cited passage support the claim?

Kept apart from the deterministic checks and labelled as such everywhere: a
judge's verdict is an opinion with an identity (backend, model, prompt
version), never a proof. ``signals`` are cheap deterministic risk markers
that route claims; ``rules`` is the offline judge built on them. The interface
is ``interface.py``, the backends share ``base.py``, and ``factory.py`` builds
a judge from its spec (one entry per backend in its ``BACKENDS`` table).
"""

from citeaudit.semantic.factory import make_judge
from citeaudit.semantic.interface import Fragment, Judge, JudgeIdentity, Verdict, VerdictLabel

__all__ = ["Fragment", "Judge", "JudgeIdentity", "Verdict", "VerdictLabel", "make_judge"]
