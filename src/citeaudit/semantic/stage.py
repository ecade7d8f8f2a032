"""The semantic stage inside an audit: which claims a judge sees, and with which evidence.

Only claims that passed every deterministic check are judged (a judge's verdict must never
hide a deterministic error). A claim whose citations all quote is judged on those quotes,
exactly as they were verified in the source (basis ``quote``). A citation with no quote is
read in the pinned text of the work it cites — its snapshot, corpus document or store
revision (``full_text``), its page (``page``) or its abstract (``abstract``), named by
``sources/cited`` — and the judge is given the passages of those texts that best match the
claim (``semantic/passages.py``), with the quotes of the claim's other citations (basis
``retrieved``). A verdict on retrieved passages is a judged support, never a proved one: the
verdict names the texts read and the passages with their ranges. A claim with neither a
quote nor a text read gets no verdict.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from citeaudit.model import Citation, Passage, TextRead, Verdict
from citeaudit.semantic.interface import Fragment, Judge
from citeaudit.sources.cited import CitedText

__all__ = ["ABSTRACT_ONLY", "Cited", "Evidence", "as_retrieved", "evidence_of", "fragment_of", "judge_claims"]

# Said of a claim not found in the abstracts it was judged on: the work itself may say it.
ABSTRACT_ONLY = "the abstract does not state this; the full text was not read"


@dataclass(frozen=True, slots=True)
class Cited:
    """One verified citation of a claim: its id, the citation, and the pinned text of the work
    it cites when it gives no quote (None when there is none, or it quotes)."""

    citation_id: str
    citation: Citation
    text: CitedText | None = None


def fragment_of(citation_id: str | None, citation: Citation | None) -> Fragment | None:
    """What a judge sees of one verified citation: its quote, if it has one."""
    if citation is None or not citation.quote or not citation.quote.strip():
        return None
    return Fragment(citation_id or citation.id, citation.quote, _years(citation))


def _years(citation: Citation) -> tuple[int, ...]:
    year = citation.source.cited_year
    return (year,) if year is not None else ()  # the cited work's year: a claim may name it unquoted


@dataclass(frozen=True, slots=True)
class Evidence:
    """What the judge reads for one claim, and what the verdict will say it read."""

    fragments: tuple[Fragment, ...]
    passages: tuple[Passage, ...] = ()
    texts: tuple[TextRead, ...] = ()
    abstract_only: bool = False  # every text read for a quote-less citation is an abstract

    @property
    def retrieved(self) -> bool:
        return bool(self.passages)

    def label(self, verdict: Verdict) -> Verdict:
        """The judge's verdict with the basis, the passages and the texts it was given."""
        if not self.retrieved:
            return verdict
        reason = verdict.reason
        if self.abstract_only and verdict.label == "insufficient":
            reason = ABSTRACT_ONLY if not reason else f"{ABSTRACT_ONLY}; {reason}"
        return replace(verdict, basis="retrieved", passages=self.passages, texts=self.texts, reason=reason)


def evidence_of(claim: str, cited: Sequence[Cited], k: int | None = None) -> Evidence | None:
    """The quotes of the claim's citations and, for those with no quote, the ``k`` best
    passages of the texts of the works they cite (``DEFAULT_PASSAGES``); None when there is
    nothing to read."""
    fragments = [f for c in cited if (f := fragment_of(c.citation_id, c.citation)) is not None]
    unquoted = [c for c in cited if c.text is not None and fragment_of(c.citation_id, c.citation) is None]
    if not unquoted:
        return Evidence(tuple(fragments)) if fragments else None
    # Imported here: an audit whose citations all quote never ranks a passage.
    from citeaudit.semantic.passages import DEFAULT_PASSAGES, rank_passages

    read: dict[str, tuple[CitedText, tuple[int, ...]]] = {}
    for c in unquoted:
        assert c.text is not None
        read.setdefault(c.citation_id, (c.text, _years(c.citation)))
    passages = rank_passages(claim, [(cid, text) for cid, (text, _) in read.items()], k or DEFAULT_PASSAGES)
    fragments += [Fragment(p.citation_id, p.text, read[p.citation_id][1], retrieved=True) for p in passages]
    texts = tuple(text.read_by(cid) for cid, (text, _) in read.items())
    abstract_only = all(not text.complete for text, _ in read.values())
    return Evidence(tuple(fragments), passages, texts, abstract_only)


def as_retrieved(claim: str, fragments: Sequence[Fragment], k: int) -> tuple[Fragment, ...]:
    """The fragments as an audit gives them to the judge when the citations quote nothing: each
    fragment taken as the whole text of a cited work, and the ``k`` best passages of them all
    (marked retrieved). ``judge train --passages`` trains on pairs read this way."""
    from citeaudit.semantic.passages import rank_passages
    from citeaudit.sources.cited import Basis

    texts = [
        (f.citation_id, CitedText(Basis.PAGE, f.citation_id, f.text)) for f in fragments if f.text.strip()
    ]
    years = {f.citation_id: f.years for f in fragments}
    return tuple(
        Fragment(p.citation_id, p.text, years.get(p.citation_id, ()), retrieved=True)
        for p in rank_passages(claim, texts, k)
    )


def judge_claims(judge: Judge, claims: Mapping[str, tuple[str, Evidence]]) -> dict[str, Verdict]:
    """One verdict per claim with evidence, all asked of the judge in one batch (``nli``
    batches them, ``llm`` asks its server for each), in the order of the claim ids."""
    claim_ids = sorted(claims)
    items = [(claims[i][0], list(claims[i][1].fragments)) for i in claim_ids]
    verdicts = judge.judge_many(items)
    return {i: claims[i][1].label(v) for i, v in zip(claim_ids, verdicts, strict=True)}
