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

A claim of one to three words ("Paris", "1969", "Ada Lovelace") says nothing by itself: it is the
answer to a question. When the answer gives its question, such a claim is read with it — the
judge reads ``f"{question} {claim}"``, its passages are ranked against that, so the passage must
name the claim in answer to the question — and the verdict's signals begin with
``S_READ_WITH_QUESTION`` (its unsupported spans are mapped back onto the claim's own text).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from citeaudit.model import Citation, Passage, TextRead, Verdict
from citeaudit.semantic.interface import Fragment, Judge
from citeaudit.sources.cited import CitedText

__all__ = [
    "ABSTRACT_ONLY",
    "READ_WITH_QUESTION",
    "SHORT_CLAIM_WORDS",
    "Cited",
    "Evidence",
    "Reading",
    "as_retrieved",
    "claim_words",
    "evidence_of",
    "fragment_of",
    "judge_claims",
    "reading_of",
]

# Said of a claim not found in the abstracts it was judged on: the work itself may say it.
ABSTRACT_ONLY = "the abstract does not state this; the full text was not read"


# The first signal of a verdict on a claim read as the answer to the answer's question: every
# report shows a verdict's signals, whatever the judge (a reason only a learned judge's).
READ_WITH_QUESTION = "S_READ_WITH_QUESTION"
SHORT_CLAIM_WORDS = 3  # a claim of at most this many words is read with the question


def claim_words(text: str) -> int:
    """The words of a claim as the judges count them: ``WORD_RE``'s words, a run of Han characters
    as its character bigrams (``法国的首都是巴黎`` is seven, ``巴黎`` one)."""
    # read here, not at import: the stage is imported at start-up, and `check --judge none` never
    # judges a claim (tests/cli/test_startup.py holds it to what it uses)
    from citeaudit.semantic.signals import HAN_RE, WORD_RE

    count = 0
    for word in WORD_RE.findall(text):
        count += max(1, len(word) - 1) if word[0] >= "\u3400" and HAN_RE.fullmatch(word) else 1
    return count


@dataclass(frozen=True, slots=True)
class Reading:
    """A short claim read with the question its answer answers: the judge reads ``text``, the
    question, a space and the claim, so the claim starts at ``offset``."""

    question: str
    claim: str

    @property
    def text(self) -> str:
        return f"{self.question} {self.claim}"

    @property
    def offset(self) -> int:
        return len(self.question) + 1

    def verdict(self, verdict: Verdict) -> Verdict:
        """The judge's verdict on ``text`` as a verdict on the claim: its first signal says it was
        read with the question, and what it found unsupported is kept only where it is the claim's
        own (a span of the question is dropped, one across both is cut to the claim)."""
        start, end = self.offset, self.offset + len(self.claim)
        spans: list[tuple[int, int]] = []
        for a, b in verdict.unsupported_spans:
            a, b = max(a, start) - start, min(b, end) - start
            if a < b and (a, b) not in spans:
                spans.append((a, b))
        if verdict.unsupported_spans:  # the parts are the spans' text (``learned``)
            parts = tuple(self.claim[a:b] for a, b in spans)
        else:  # parts named by their words (``rules``, ``llm``): those the claim has
            folded = self.claim.casefold()
            parts = tuple(p for p in verdict.unsupported if p.strip() and p.casefold() in folded)
        signals = (READ_WITH_QUESTION, *(s for s in verdict.signals if s != READ_WITH_QUESTION))
        return replace(verdict, unsupported=parts, unsupported_spans=tuple(spans), signals=signals)


def reading_of(claim: str, question: str | None) -> Reading | None:
    """The claim read with its answer's question when it has one to three words
    (``SHORT_CLAIM_WORDS``) and the question has a word; None: the claim is read as it is."""
    if question is None or not 1 <= claim_words(claim) <= SHORT_CLAIM_WORDS:
        return None
    from citeaudit.semantic.signals import WORD_RE

    if not WORD_RE.search(question):
        return None
    return Reading(question.strip(), claim)


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
    reading: Reading | None = None  # a short claim read with the question (None: the claim as it is)

    @property
    def retrieved(self) -> bool:
        return bool(self.passages)

    def read(self, claim: str) -> str:
        """What the judge reads for ``claim``: the claim, or the question and the claim."""
        return claim if self.reading is None else self.reading.text

    def label(self, verdict: Verdict) -> Verdict:
        """The judge's verdict with the basis, the passages and the texts it was given (and, for
        a claim read with the question, as a verdict on the claim itself)."""
        if self.retrieved:
            reason = verdict.reason
            if self.abstract_only and verdict.label == "insufficient":
                reason = ABSTRACT_ONLY if not reason else f"{ABSTRACT_ONLY}; {reason}"
            verdict = replace(
                verdict, basis="retrieved", passages=self.passages, texts=self.texts, reason=reason
            )
        return verdict if self.reading is None else self.reading.verdict(verdict)


def evidence_of(
    claim: str, cited: Sequence[Cited], k: int | None = None, question: str | None = None
) -> Evidence | None:
    """The quotes of the claim's citations and, for those with no quote, the ``k`` best
    passages of the texts of the works they cite (``DEFAULT_PASSAGES``); None when there is
    nothing to read. A short claim whose answer gives a ``question`` is read with it
    (``reading_of``), its passages ranked against both."""
    reading = reading_of(claim, question)
    fragments = [f for c in cited if (f := fragment_of(c.citation_id, c.citation)) is not None]
    unquoted = [c for c in cited if c.text is not None and fragment_of(c.citation_id, c.citation) is None]
    if not unquoted:
        return Evidence(tuple(fragments), reading=reading) if fragments else None
    # Imported here: an audit whose citations all quote never ranks a passage.
    from citeaudit.semantic.passages import DEFAULT_PASSAGES, rank_passages

    read: dict[str, tuple[CitedText, tuple[int, ...]]] = {}
    for c in unquoted:
        assert c.text is not None
        read.setdefault(c.citation_id, (c.text, _years(c.citation)))
    ranked = claim if reading is None else reading.text
    passages = rank_passages(ranked, [(cid, text) for cid, (text, _) in read.items()], k or DEFAULT_PASSAGES)
    fragments += [Fragment(p.citation_id, p.text, read[p.citation_id][1], retrieved=True) for p in passages]
    texts = tuple(text.read_by(cid) for cid, (text, _) in read.items())
    abstract_only = all(not text.complete for text, _ in read.values())
    return Evidence(tuple(fragments), passages, texts, abstract_only, reading)


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
    items = [(claims[i][1].read(claims[i][0]), list(claims[i][1].fragments)) for i in claim_ids]
    verdicts = judge.judge_many(items)
    return {i: claims[i][1].label(v) for i, v in zip(claim_ids, verdicts, strict=True)}
