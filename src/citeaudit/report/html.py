"""The HTML report: one self-contained file a person would rather read than
the JSON, at 4 claims or at 10,000.

A header with the decision and status; a claims table (sortable, one search
box, filters by status, finding code and verdict that combine, the counts on
the pills being the filters); per citation what was cited beside what the
registry, corpus or store holds with the difference marked, the quote in its
source text, and the suggested fix as the JSON to paste.

The page is built from the report dictionary alone. Python turns it into a
compact view (plain-word labels, the comparison rows, the fix), embedded as a
JSON data block; the page's one script draws the table rows as they scroll
into view, so a large report opens at once. The view is built from the
report's canonical form, so ``check --format html`` and ``render --format
html`` give the same bytes.

It never loads anything: a Content-Security-Policy forbids every request and
allows only the page's own script and style, by their hashes. Report text
reaches the page only as JSON text or through the template's escaping, and
the script writes it with ``textContent``: titles, claims and quotes show
literally, and
bidirectional controls and variation selectors are written out as ``<U+202E>``.

A verdict is badged by what it was given: ``quote verified`` (the judge read
quotes the checks found in the source) or ``judged on retrieved passages`` (the
citation gave no quote; the judge read the passages of the cited work's pinned
text that best match the claim). The two never share a badge or a word: a
passage is a judged support, never a proved one. Each passage is drawn
highlighted in as much of the text around it as the report holds (the other
passages of the same text; ``…`` where the report holds none), with a badge for
its basis (``from the abstract of q1``), its ``[start, end)``, its rank and the
text's name and short digest; when the judge found the claim supported, the
passage is offered as the quote to add, the suggested fix.

A verdict with a probability of support (the ``learned`` judge's) adds to the
page a second small script and style, and only then: in the claim's details
its probability, the three features that moved it in plain words, and the
claim's unsupported ``[start, end)`` ranges marked in its text. A page
without such a verdict is the same bytes as before.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
from collections import Counter
from functools import cache
from importlib.resources import files
from typing import Any

from jinja2 import Environment, Template

from citeaudit.normalize import show_controls
from citeaudit.report.fixes import citation_patch, passage_fixes
from citeaudit.report.json import dump_report_dict
from citeaudit.report.retrieved import BASIS_WORDS, from_words, short_digest
from citeaudit.report.spans import claim_pieces, spans_of

__all__ = [
    "FEATURE_WORDS",
    "counts_words",
    "plain_message",
    "reason_words",
    "render_html",
    "report_view",
    "review_words",
    "verdict_words",
]

_ENV = Environment(autoescape=True, keep_trailing_newline=True)
_TEMPLATES = files("citeaudit.report").joinpath("templates")
_SCRIPT = _TEMPLATES.joinpath("report.js").read_text("utf-8")
_STYLE = _TEMPLATES.joinpath("report.css").read_text("utf-8")
# Only on a page with a verdict that has a probability of support (the learned judge's).
_JUDGE_SCRIPT = _TEMPLATES.joinpath("report-judge.js").read_text("utf-8")
_JUDGE_STYLE = _TEMPLATES.joinpath("report-judge.css").read_text("utf-8")


def _visible(value: Any) -> Any:
    """The report with bidirectional controls and variation selectors written out
    (``<U+202E>``) in every string, before anything reaches the page: an override
    must not show a reversed title as the registry's."""
    if isinstance(value, str):
        return show_controls(value)
    if isinstance(value, list):
        return [_visible(v) for v in value]
    if isinstance(value, dict):
        return {k: _visible(v) for k, v in value.items()}
    return value


def _csp_hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


_SCRIPT_HASH = _csp_hash(_SCRIPT)
_STYLE_HASH = _csp_hash(_STYLE)
_JUDGE_SCRIPT_HASH = _csp_hash(_JUDGE_SCRIPT)
_JUDGE_STYLE_HASH = _csp_hash(_JUDGE_STYLE)


@cache
def _template() -> Template:
    """Compiled on first use: importing the package does not pay for it."""
    return _ENV.from_string(_TEMPLATES.joinpath("report.html.j2").read_text("utf-8"))


# Claim statuses from the most to the least urgent; the table sorts by this order.
STATUS_ORDER = (
    "invalid_reference",
    "unsupported",
    "could_not_check",
    "disputed",
    "requires_entailment_check",
)
STATUS_WORDS = {
    "invalid_reference": "invalid reference",
    "unsupported": "no citation",
    "could_not_check": "could not check",
    "disputed": "disputed",
    "requires_entailment_check": "checks passed",
}
NO_CLAIM = "no_claim"  # the status filter's value for findings that belong to no claim
MATCHED, MATCHED_WORDS = "matched_by_search", "matched by search"  # passed, found by search
# A claim read from a .bib: its text names only the entry's kind, the page shows the cited title.
_BIB_ENTRY = re.compile(r"bibliography entry \([^)]*\)")
# Colour class per report status and decision: bad, warn, good.
TONES = {
    "invalid": "bad", "needs_review": "warn", "partial": "warn", "reviewed_candidate": "good",
    "reject": "bad", "manual_review": "warn", "regenerate_or_abstain": "warn", "accept": "good",
    "errors": "bad", "could_not_check": "warn", "clean": "good",
}  # fmt: skip
REPORT_WORDS = {
    "invalid": "invalid",
    "needs_review": "needs review",
    "partial": "partial",
    "reviewed_candidate": "reviewed candidate",
    "reject": "reject",
    "manual_review": "manual review",
    "regenerate_or_abstain": "regenerate or abstain",
    "accept": "accept",
    "errors": "citation errors",
    "could_not_check": "some citations could not be checked",
    "clean": "no citation errors",
}
# Verdict classes, in filter order, with the words the table shows.
VERDICT_CLASSES = {
    "supported": "judged supported",
    "contradicted": "judged contradicted",
    "insufficient": "judged not enough evidence",
    "undecided": "judge undecided",
    "none": "not judged",
}
_VERDICT_CLASS = {"entailed": "supported", "contradicted": "contradicted", "insufficient": "insufficient",
                  "unknown": "undecided"}  # fmt: skip
_JUDGE_WORDS = {"rules": "word-coverage rules", "learned": "a learned model", "nli": "an NLI model",
                "llm": "a language model"}  # fmt: skip


def verdict_words(verdict: dict[str, Any] | None) -> tuple[str, str]:
    """The verdict's class and its plain words: ``judged supported, 0.91``, ``not judged``."""
    if verdict is None:
        return "none", VERDICT_CLASSES["none"]
    kind = _VERDICT_CLASS.get(verdict["label"], "undecided")
    words = VERDICT_CLASSES[kind]
    if verdict.get("confidence") is not None:
        words += f", {verdict['confidence']:.2f}"
    return kind, words


# The learned judge's features in plain words (its reason names three of them), each with how
# its value reads: a share (0-1), a count stored as log(1 + n), a ratio stored as its log, a yes/no
# flag, or a plain number. A name not here (a newer model) is shown as it is written.
FEATURE_WORDS: dict[str, tuple[str, str]] = {
    "claim_terms": ("content words in the claim", "count"),
    "cover_all": ("the claim's content words found anywhere in the cited text", "share"),
    "cover_all_rare": ("the same, rare words counting more", "share"),
    "cover_sentence": ("the claim's content words in its best-matching sentence", "share"),
    "cover_sentence_rare": ("the same, rare words counting more", "share"),
    "cover_window": ("the claim's content words in its best three consecutive sentences", "share"),
    "cover_window_rare": ("the same, rare words counting more", "share"),
    "cover_two": ("the claim's content words in its two best-matching sentences", "share"),
    "cover_greedy": ("the claim's content words in its three best-matching sentences", "share"),
    "cover_greedy_rare": ("the same, rare words counting more", "share"),
    "missing_greedy": ("content words those three sentences leave out", "count"),
    "pairs_greedy": ("the claim's word pairs found together in those sentences", "share"),
    "cover_anchored": ("the claim's content words in sentences that match it well", "share"),
    "missing_anchored": ("content words in no sentence that matches it well", "count"),
    "pairs_all": ("the claim's word pairs found together in some sentence", "share"),
    "pairs_window": ("the claim's word pairs found together in its best three sentences", "share"),
    "triples_window": ("the claim's three-word runs found in its best three sentences", "share"),
    "missing_all": ("content words found nowhere in the cited text", "count"),
    "missing_window": ("content words missing from its best three sentences", "count"),
    "missing_rare_max": (
        "how rare the rarest word missing from its best three sentences is "
        "(0 to (1 + log(1 + sentences)) / 4: above 1 past 20 sentences)",
        "number",
    ),
    "numbers_missing": ("numbers of the claim in no cited text", "number"),
    "has_number": ("the claim has a number", "flag"),
    "names_missing": ("the claim's names found nowhere in the cited text", "share"),
    "negation_one_sided": ("one of the claim and its best sentence is negated, the other not", "flag"),
    "absolute_added": ("the claim says always, only, all or must and no cited text does", "flag"),
    "possibility_hardened": ("the best sentence hedges (may, can, up to) and the claim does not", "flag"),
    "evidence_sentences": ("sentences in the cited text", "count"),
    "claim_to_sentence": ("the claim's length against its best sentence's", "ratio"),
    "cover_window_soft": (
        "the claim's words whose first letters start a word of its best sentences",
        "share",
    ),
    "cover_all_soft": ("the same, anywhere in the cited text", "share"),
    "cause_both": ("the claim and its best sentence both state a cause", "flag"),
    "direction_agree": ("both say the same direction of change", "flag"),
    "direction_opposed": ("one says an increase and the other a decrease", "flag"),
    "sentence_in_claim": ("the best sentence's content words that the claim has", "share"),
    "shared_sentence": ("content words the claim shares with its best sentence", "count"),
    "sentence_defines": ("the best sentence is a definition", "flag"),
    "order_flipped": ("the claim's words its best sentence has in the other order", "share"),
    "names_flipped": ("the claim's names on the other side of a word in its best sentence", "share"),
    "reported_speech": ("the best sentence tells what someone said or holds, the claim does not", "flag"),
    "antonym": ("a word of the claim has its opposite in the best sentence", "flag"),
    "name_replaced": ("a name of the claim stands where the best sentence has another name", "flag"),
    "names_reversed": ("two names of the claim are the other way round in the cited text", "flag"),
    # The sentence encoder's cosines (the ``encoder`` extra): -1 to 1, higher is closer in meaning.
    "meaning_sentence": ("closeness in meaning of the claim and its best sentence", "number"),
    "meaning_window": ("closeness in meaning of the claim and its best three sentences", "number"),
    "meaning_names": ("closeness in meaning of the claim and the sentence holding its name", "number"),
    "meaning_negation": ("closeness in meaning of the claim's negation and its best sentence", "number"),
}
# One part of a reason as the learned judge writes it: ``NAME=VALUE (+CONTRIBUTION)``.
_REASON_PART = re.compile(r"([a-z0-9_]+)=(-?\d+(?:\.\d+)?) \(([+-]\d+(?:\.\d+)?)\)")


def _feature_value(value: float, reading: str) -> str:
    if reading == "share":
        return f"{round(100 * value)}%"
    if reading == "count":
        n = math.expm1(value)
        return f"about {round(n)}" if n > 20 else str(round(n))  # the reason keeps two decimals of the log
    if reading == "ratio":
        return f"{math.exp(value):.1f} times"
    if reading == "flag":
        return "yes" if value >= 0.5 else "no"
    return f"{value:g}"


def reason_words(reason: str | None) -> list[str]:
    """A learned verdict's reason in plain words, one line per feature:
    ``content words missing from its best three sentences: 2 (against support)``.
    A part that is not of the judge's form is kept as written."""
    out: list[str] = []
    for part in filter(None, (p.strip() for p in (reason or "").split(";"))):
        m = _REASON_PART.fullmatch(part)
        if m is None:
            out.append(part)
            continue
        name, value, push = m.group(1), float(m.group(2)), float(m.group(3))
        words, reading = FEATURE_WORDS.get(name, (name.replace("_", " "), "number"))
        side = "for support" if push > 0 else "against support" if push < 0 else "no weight"
        out.append(f"{words}: {_feature_value(value, reading)} ({side})")
    return out


# A claim's review state as a reviewer gave it; the other states (invalid, unsupported,
# disputed, pending_review) come from the checks or mean that nobody has reviewed the claim.
_REVIEW_WORDS = {"supported": "reviewed: supported", "insufficient": "reviewed: not enough evidence",
                 "contradicted": "reviewed: contradicted"}  # fmt: skip


def review_words(review_status: str | None, reviewed: bool) -> str | None:
    """What the page says of a claim's review: ``reviewed: supported``, ``not reviewed``, or
    nothing where a review was given but the checks decide (the review is listed on its own)."""
    if review_status in _REVIEW_WORDS:
        return _REVIEW_WORDS[review_status]
    return None if reviewed else "not reviewed"


def _judge_words(judge: str) -> str:
    backend = judge.split("/", 1)[0]
    return _JUDGE_WORDS.get(backend, backend)


# Which cited field a finding code is about: that field's row is the one marked as differing.
_FIELD_OF = {
    "E_TITLE_MISMATCH": "title", "E_YEAR_MISMATCH": "year", "E_AUTHOR_MISMATCH": "first_author",
    "W_AUTHOR_NOT_FIRST": "first_author", "E_AUTHOR_NOT_ON_WORK": "authors", "W_AUTHOR_ORDER": "authors",
    "W_AUTHORS_TRUNCATED": "authors", "W_VENUE_MISMATCH": "container", "W_VENUE_PREPRINT_SERVER": "container",
    "E_VOLUME_MISMATCH": "volume", "E_ISSUE_MISMATCH": "issue", "E_PAGES_MISMATCH": "pages",
    "E_WORK_TYPE_MISMATCH": "type", "E_DIGEST_MISMATCH": "digest", "E_DOI_SYNTAX": "doi",
    "E_DOI_NOT_FOUND": "doi", "E_QUOTE_MISMATCH": "range", "E_RANGE_INVALID": "range",
}  # fmt: skip
_FIELD_WORDS = {"doi": "identifier", "first_author": "first author", "container": "venue",
                "document_id": "document", "document_version": "version", "source_id": "source"}  # fmt: skip
_DOI_FIELDS = (
    "doi",
    "title",
    "year",
    "first_author",
    "authors",
    "container",
    "volume",
    "issue",
    "pages",
    "type",
)


def _text(value: Any) -> str:
    """A value as a reader wants it: ``2024 (issued), 2023 (print)``, ``a; b``."""
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return "; ".join(_text(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k} {_text(v)}" for k, v in value.items())
    return str(value)


def _years(years: dict[str, Any] | None) -> str:
    if not years:
        return ""
    if len(years) == 1:
        return str(next(iter(years.values())))
    return ", ".join(f"{year} ({kind})" for kind, year in years.items())


def _best_year(years: dict[str, Any]) -> Any:
    return years["issued"] if "issued" in years else next(iter(years.values()))


def _authors(record: dict[str, Any]) -> str:
    """The record's authors as the report lists them: ``Ivanova; Petrov``, with how many more
    when the report keeps only the first of a long list."""
    authors = record.get("authors") or []
    more = (record.get("authors_total") or 0) - len(authors)
    return "; ".join(authors) + (f" and {more} more" if authors and more > 0 else "")


def _range(start: Any, end: Any) -> str:
    return f"[{start}, {end})" if start is not None and end is not None else ""


def _by_code(findings: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each code's first finding, with its suggestion (empty when none)."""
    out: dict[str, dict[str, Any]] = {}
    for f in findings:
        out.setdefault(f["code"], f.get("suggestion") or {})
    return out


def _compare(row: dict[str, Any], found: dict[str, dict[str, Any]]) -> tuple[str, list[list[Any]]]:
    """What was cited beside what the registry, corpus or store holds: [field, cited, held, differs]."""
    source, record = row.get("source") or {}, row.get("record") or {}
    kind = source.get("kind")
    differs = {_FIELD_OF[c] for c in found if c in _FIELD_OF}
    rows: list[list[Any]] = []

    def add(field: str, cited: Any, held: Any, differ: bool | None = None) -> None:
        if cited in (None, "", []) and held in (None, "", []):
            return
        flag = field in differs if differ is None else differ
        rows.append([_FIELD_WORDS.get(field, field), _text(cited), _text(held), flag])

    if kind in ("pmid", "pmcid"):  # a PubMed or PMC identifier is compared as a DOI is
        source = {**source, "doi": source.get(kind)}
    if kind in ("doi", "pmid", "pmcid"):
        held_id = record.get("doi")
        held_by_field: dict[str, Any] = {
            # The record is kept under its key (``pmid:31452104``): shown as the identifier cited.
            "doi": held_id.removeprefix(f"{kind}:") if isinstance(held_id, str) else held_id,
            "title": record.get("title"),
            "year": _years(record.get("years")),
            "type": record.get("type"),
            "first_author": record.get("first_author"),
            "authors": _authors(record),
        }
        for code, field in _FIELD_OF.items():
            suggestion = found.get(code)
            if suggestion and field in suggestion and field not in ("title", "year"):
                held_by_field[field] = suggestion[field]
        if "E_TITLE_MISMATCH" in found and found["E_TITLE_MISMATCH"].get("title"):
            held_by_field["title"] = found["E_TITLE_MISMATCH"]["title"]
        for field in _DOI_FIELDS:
            add(field, source.get(field), held_by_field.get(field))
        held_name = "registry" if record else "registry (no record was available)"
    elif kind == "corpus":
        add("document_id", source.get("document_id"), record.get("document_id"), False)
        add("document_version", source.get("document_version"), record.get("version"),
            "E_VERSION_MISMATCH" in found)  # fmt: skip
        add("title", None, record.get("title"), False)
        held_name = "corpus"
    elif kind == "store":
        ref = found.get("E_VERSION_MISMATCH") or found.get("E_DIGEST_MISMATCH") or {}
        add("source_id", source.get("source_id"), record.get("source_id"), False)
        add("revision", source.get("revision"), ref.get("revision", record.get("revision")),
            "E_VERSION_MISMATCH" in found)  # fmt: skip
        add("digest", source.get("digest"), ref.get("digest", record.get("digest")))
        add("title", None, record.get("title"), False)
        held_name = "store"
    elif kind == "url":
        add("url", source.get("url"), record.get("final_url"), False)
        add("title", source.get("title"), record.get("title"), "W_URL_TITLE_MISMATCH" in found)
        add("fingerprint of the page text (SHA-256)", None, record.get("text_sha256"), False)
        held_name = "saved copy of the page" if record else "saved copy of the page (none was saved)"
    elif kind == "work":
        # Found by search, never "resolved by identifier": the record matched, beside the reference.
        matched = record.get("matched") or {}
        held_work: dict[str, Any] = {
            "doi": record.get("doi"),
            "title": found.get("E_TITLE_MISMATCH", {}).get("title") or record.get("title"),
            "year": _years(record.get("years")),
            "type": record.get("type"),
            "first_author": record.get("first_author") or matched.get("first_author"),
            "authors": _authors(record),
        }
        for code, field in _FIELD_OF.items():
            suggestion = found.get(code)
            if suggestion and field in suggestion and field not in ("title", "year"):
                held_work[field] = suggestion[field]
        for field in _DOI_FIELDS:
            add(field, source.get(field), held_work.get(field))
        held_name = (
            f"record matched by search: {matched['index']} {matched['key']} (similarity {matched['score']})"
            if matched
            else "search (it found no match)"
        )
    elif kind == "reference":
        for field in ("title", "year", "first_author"):
            add(field, source.get(field), None, False)
        held_name = "record"
    else:
        held_name = "record"
    cited_range = row.get("range")
    if cited_range:
        right = next((s for c, s in found.items() if c in ("E_QUOTE_MISMATCH", "E_RANGE_INVALID")), {})
        add(
            "range",
            _range(cited_range["start"], cited_range["end"]),
            _range(right.get("start"), right.get("end")),
        )
    return held_name, rows


def _fix_json(fix: dict[str, Any] | None) -> str | None:
    return None if fix is None else json.dumps(fix, ensure_ascii=False)


EXCERPT_CONTEXT = 160  # characters the audit keeps on each side of a located quote (core.EXCERPT_CONTEXT)


def _quote(row: dict[str, Any], found: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """What the page shows of the quote: found in context, found after normalisation,
    the closest passage, or the text at the cited range."""
    quote = row.get("quote")
    location = row.get("location") or {}
    where = _range(location.get("start"), location.get("end"))
    if location.get("line_start"):
        lines = f"{location['line_start']}" + (
            f"–{location['line_end']}" if location.get("line_end") != location["line_start"] else ""
        )
        where += f", line {lines}"
    out: dict[str, Any] = {"cited": quote, "where": where}
    if row.get("excerpt"):
        before, after = row["excerpt"]["before"], row["excerpt"]["after"]
        # "…" only where the excerpt was cut: a side shorter than the context reaches the text's edge.
        out["excerpt"] = [before, row["excerpt"]["match"], after,
                          len(before) >= EXCERPT_CONTEXT, len(after) >= EXCERPT_CONTEXT]  # fmt: skip
    normalized = found.get("I_QUOTE_NORMALIZED")
    if normalized:
        out["normalized"] = normalized.get("differences", [])
    for code in ("E_QUOTE_NOT_FOUND", "E_QUOTE_MISMATCH", "E_RANGE_INVALID"):
        s = found.get(code)
        if s and "closest" in s:
            span = s.get("span") or {}
            out["closest"] = {"text": s["closest"], "similarity": s.get("similarity"),
                              "where": _range(span.get("start"), span.get("end"))}  # fmt: skip
            break
    mismatch = found.get("E_QUOTE_MISMATCH")
    if mismatch and "expected" in mismatch and row.get("range"):
        out["held"] = {
            "text": mismatch["expected"],
            "where": _range(row["range"]["start"], row["range"]["end"]),
        }
    if "held" in out and out.get("closest", {}).get("where") == out["held"]["where"]:
        del out["closest"]  # the closest passage is the text at the cited range: shown once
    for code in ("E_QUOTE_MISMATCH", "E_RANGE_INVALID"):
        hint = found.get(code) or {}
        if "start" in hint or "count" in hint:  # the quote is in the text, only not at the cited range
            how = "after normalisation" if hint.get("normalized_match") else "verbatim"
            where = _range(hint.get("start"), hint.get("end"))
            at = f"at {where}" if "start" in hint else f"{hint['count']} times"
            out["found_elsewhere"] = f"{how} {at}"
            break
    if quote is None and "excerpt" not in out:
        return None
    return out


# Registry names as a reader knows them; the seed's cache files are "the cached record".
_AGENCY_WORDS = {"seed-cache": "cached", "crossref": "Crossref", "datacite": "DataCite", "jalc": "JaLC",
                 "medra": "mEDRA", "kisti": "KISTI", "openalex": "OpenAlex", "dblp": "DBLP",
                 "arxiv": "arXiv", "pubmed": "PubMed", "pmc": "PMC"}  # fmt: skip
_AGENCY_RECORD = re.compile(r"\bthe (" + "|".join(map(re.escape, _AGENCY_WORDS)) + r") record\b")


def plain_message(message: str) -> str:
    """A finding's message in a reader's words: ``the title differs from the cached record's``,
    not the ``seed-cache`` record's; the quote is looked for in the saved source text, a word
    the reader knows, not in the snapshot."""
    message = _AGENCY_RECORD.sub(lambda m: f"the {_AGENCY_WORDS[m.group(1)]} record", message)
    return message.replace(" in the snapshot", " in the saved source text")


def _suggestion_words(suggestion: dict[str, Any]) -> str:
    """What a suggestion says that the comparison, quote and fix do not already show."""
    shown = {"title", "years", "first_author", "authors", "container", "volume", "issue", "pages", "start",
             "end", "closest", "span", "similarity", "expected", "version", "revision", "digest",
             "source_id", "source_text", "normalized_match", "differences"}  # fmt: skip
    parts: list[str] = []
    for key, value in suggestion.items():
        if key in shown:
            continue
        if key == "candidate" and isinstance(value, dict):
            parts.append("a registry search found " + _text({k: v for k, v in value.items() if v}))
        elif key == "occurrences":
            parts.append("occurrences " + ", ".join(_range(s.get("start"), s.get("end")) for s in value))
        else:
            parts.append(f"{key.replace('_', ' ')}: {_text(value)}")
    return "; ".join(parts)


def _finding_line(finding: dict[str, Any]) -> list[str]:
    """[severity, label, message in a reader's words, what its suggestion adds]."""
    more = _suggestion_words(finding.get("suggestion") or {})
    return [finding["severity"], finding["label"], plain_message(finding["message"]), more]


def _passage_fix(fix: dict[str, Any] | None) -> dict[str, Any] | None:
    """The passage offered as the citation's quote (``fixes.passage_fixes``), as the page shows it."""
    if fix is None:
        return None
    return {"fix": _fix_json(fix["fix"]), "from": BASIS_WORDS.get(fix["basis"], fix["basis"]),
            "where": _range(fix["start"], fix["end"])}  # fmt: skip


def _citation_view(row: dict[str, Any], passage_fix: dict[str, Any] | None = None) -> dict[str, Any]:
    findings = row["findings"]
    found = _by_code(findings)
    held_name, compare = _compare(row, found)
    source = row.get("source") or {}
    name = (
        source.get("url") or source.get("doi") or source.get("pmid") or source.get("pmcid")
        or source.get("document_id") or source.get("source_id") or source.get("title")
    )  # fmt: skip
    badge: dict[str, str] = {}
    if row.get("claim") is None:  # a finding of no claim: a warning or notice, never "passed"
        severities = {f["severity"] for f in findings}
        worst = next((w for s, w in (("error", "error"), ("warning", "warning"), ("info", "notice"))
                      if s in severities), "no findings")  # fmt: skip
        badge = {"status": NO_CLAIM, "badge": worst}
    elif row["status"] == "pass" and "I_MATCHED_BY_SEARCH" in found:
        badge = {"badge": MATCHED_WORDS}  # found by search: never worded as resolved by identifier
    return (
        {
            "id": row.get("citation"),
            "source": name,
            "doi": row["doi"] if row.get("doi") and row["doi"] != name else None,
            "status": row["status"],
            "path": row.get("input_path"),
            "held": held_name,
            "compare": compare,
            "quote": _quote(row, found),
            "fix": _fix_json(citation_patch(row)),
            "findings": [_finding_line(f) for f in findings],
        }
        | badge
        | ({"passage_fix": _passage_fix(passage_fix)} if passage_fix is not None else {})
    )


PASSAGE_CONTEXT = EXCERPT_CONTEXT  # characters of the text around a passage shown, each side, at most
_WORD_CUT = 40  # a cut context loses at most this many characters to end at a space (none in Han text)


def _known(text: dict[str, Any] | None, passages: list[dict[str, Any]]) -> list[tuple[int, int, str]]:
    """The parts of one text the report holds: its passages, where their text has their range's
    length (a passage whose controls were written out for the page is not cut by offsets)."""
    return sorted(
        (p["start"], p["end"], p["text"]) for p in passages if len(p["text"]) == p["end"] - p["start"]
    )


def _stretch(known: list[tuple[int, int, str]], a: int, b: int) -> str:
    """The text of ``[a, b)`` as far as the report holds it, `` … `` for each stretch it does not."""
    out: list[str] = []
    at = a
    for start, end, text in known:
        if end <= at or start >= b:
            continue
        if start > at:
            out.append(" … ")
            at = start
        out.append(text[at - start : min(end, b) - start])
        at = min(end, b)
    if at < b:
        out.append(" … ")
    return "".join(out)


def _in_word(left: str, right: str) -> bool:
    """Two characters side by side (either may be missing or a stretch not held) are of one word."""
    return len(left) == 1 and len(right) == 1 and not left.isspace() and not right.isspace()


def _around(passage: dict[str, Any], known: list[tuple[int, int, str]], length: int | None) -> list[Any]:
    """[before, the passage, after]: the passage in the text around it, as much as the report holds
    (``…`` where it holds nothing, nothing where the text begins or ends)."""
    start, end = passage["start"], passage["end"]
    a = max(0, start - PASSAGE_CONTEXT)
    before = _stretch(known, a, start).lstrip(" ")
    if a > 0 and not before.startswith("…"):  # cut there: inside a word, at its next space if near
        if _in_word(_stretch(known, a - 1, a), before[:1]):
            space = before.find(" ", 0, _WORD_CUT)
            before = before[space + 1 :] if space >= 0 else before
        before = "…" + before
    b = end + PASSAGE_CONTEXT if length is None else min(length, end + PASSAGE_CONTEXT)
    after = _stretch(known, end, b).rstrip(" ")
    if (length is None or b < length) and not after.endswith("…"):
        if _in_word(after[-1:], _stretch(known, b, b + 1)):
            space = after.rfind(" ", max(0, len(after) - _WORD_CUT))
            after = after[:space] if space > 0 else after
        after += "…"
    return [before, passage["text"], after]


def _text_name(name: str) -> str:
    """A text's name in a reader's words: ``saved source text of 10.1/x``, ``abstract in the
    Crossref record of 10.1/x``."""
    if name.startswith("snapshot of "):
        name = "saved source text of " + name[len("snapshot of ") :]
    return plain_message(name)


def _retrieved(verdict: dict[str, Any]) -> dict[str, Any]:
    """What the page shows of a verdict on retrieved passages: each passage (in rank order) with
    its basis badge, range, rank, the text it is from and the text around it; the texts read."""
    texts = {(t["citation"], t["sha256"]): t for t in verdict.get("texts") or []}
    passages = sorted(verdict.get("passages") or [], key=lambda p: (p["rank"], p["citation"]))
    shown = []
    for p in passages:
        text = texts.get((p["citation"], p["text_sha256"]))
        same = [q for q in passages if (q["citation"], q["text_sha256"]) == (p["citation"], p["text_sha256"])]
        length = text["length"] if text else None
        shown.append({
            "rank": p["rank"], "citation": p["citation"], "basis": p["basis"],
            "from": from_words(p["basis"], p["citation"]), "where": _range(p["start"], p["end"]),
            "length": length, "name": _text_name(text["name"]) if text else None,
            "digest": short_digest(p["text_sha256"]), "around": _around(p, _known(text, same), length),
        })  # fmt: skip
    read = [
        {
            "citation": t["citation"],
            "basis": t["basis"],
            "from": from_words(t["basis"], t["citation"]),
            "name": _text_name(t["name"]),
            "digest": short_digest(t["sha256"]),
            "length": t["length"],
        }
        for t in verdict.get("texts") or []
    ]
    return {"passages": shown, "texts": read}


def _in_paragraph(position: dict[str, Any]) -> list[Any]:
    """The claim's paragraph as the report wrote it, cut around the claim: before, the claim,
    after, and where the claim is (``line 3, column 12``)."""
    paragraph = position["paragraph"]
    text, start = paragraph["text"], paragraph["start"]
    a = max(0, min(len(text), position["start"] - start))
    b = max(a, min(len(text), position["end"] - start))
    return [text[:a], text[a:b], text[b:], f"line {position['line']}, column {position['column']}"]


def _pieces(claim: dict[str, Any]) -> list[list[Any]]:
    return [[text, marked] for text, marked in claim_pieces(claim)]


def report_view(
    report: dict[str, Any], *, pieces: list[list[list[Any]] | None] | None = None
) -> dict[str, Any]:
    """The page's data: per claim what the table shows, filters on and the detail draws.
    ``pieces``: per claim, its text cut at the verdict's unsupported ranges (``[text,
    unsupported]``), where the text the ranges count in is not ``report``'s own."""
    rows_by_claim: dict[str, list[dict[str, Any]]] = {}
    orphans: list[dict[str, Any]] = []
    for row in report["results"]:
        if row.get("claim") is None:
            orphans.append(row)
        else:
            rows_by_claim.setdefault(row["claim"], []).append(row)
    reviews: dict[str, list[list[str]]] = {}
    for r in report.get("reviews", []):
        reviews.setdefault(r["claim"], []).append([r["verdict"], r["reviewer"], r["note"]])
    bib = report.get("input_format") == "bibtex"
    claims = []
    for at, claim in enumerate(report["claims"]):
        rows = rows_by_claim.get(claim["id"], [])
        kind, words = verdict_words(claim.get("verdict"))
        codes = list(dict.fromkeys(f["code"] for row in rows for f in row["findings"]))
        verdict = claim.get("verdict")
        judged = None
        if verdict is not None:
            judged = {
                "basis": verdict.get("basis", "quote"),
                "by": _judge_words(verdict["judge"]),
                "judge": verdict["judge"],
                "signals": verdict.get("signals", []),
                "unsupported": verdict.get("unsupported", []),
            }
            if verdict.get("probability") is not None:  # a judge with a probability of support (learned)
                judged["probability"] = verdict["probability"]
                judged["reason"] = reason_words(verdict.get("reason"))
                marked = pieces[at] if pieces is not None else _pieces(claim) if spans_of(claim) else None
                if marked:
                    judged["pieces"] = marked
            if judged["basis"] == "retrieved":  # judged on passages of the cited texts, not on quotes
                judged |= _retrieved(verdict)
        fixes = {f["citation"]: f for f in passage_fixes(claim)}
        claims.append({
            "id": claim["id"], "text": claim.get("text") or "", "kind": claim.get("kind"),
            "status": claim["status"],
            "review": review_words(claim.get("review_status"), claim["id"] in reviews),
            "rationale": claim.get("rationale"),
            "verdict": kind, "verdict_words": words, "judged": judged, "codes": codes,
            "reviews": reviews.get(claim["id"], []),
            "citations": [_citation_view(row, fixes.get(row.get("citation") or "")) for row in rows],
        })  # fmt: skip
        cited = claims[-1]["citations"]
        if claim["status"] == "requires_entailment_check" and any(
            c.get("badge") == MATCHED_WORDS for c in cited
        ):
            claims[-1]["status_word"] = MATCHED_WORDS
            claims[-1]["filter_status"] = MATCHED
        title = next((r["source"].get("title") for r in rows if (r.get("source") or {}).get("title")), None)
        if bib and title and _BIB_ENTRY.fullmatch(claims[-1]["text"]):
            claims[-1]["entry"], claims[-1]["text"] = claims[-1]["text"], title
        if claim.get("position"):  # a claim read from a Markdown report: shown in its paragraph
            claims[-1]["paragraph"] = _in_paragraph(claim["position"])
    return {
        "claims": claims,
        "orphans": [_citation_view(row) for row in orphans],
        "status_words": STATUS_WORDS,
        "status_order": list(STATUS_ORDER),
        "verdict_order": list(VERDICT_CLASSES),
    }


def _pills(view: dict[str, Any]) -> dict[str, list[tuple[str, str, int]]]:
    """The filter pills: (value, words, number of claims it selects), in a fixed order."""
    claims = view["claims"]
    by_status = Counter(c.get("filter_status", c["status"]) for c in claims)
    by_verdict = Counter(c["verdict"] for c in claims)
    by_code = Counter(code for c in claims for code in c["codes"])
    orphans = view["orphans"]
    by_code.update(code for o in orphans for code in dict.fromkeys(f[1] for f in o["findings"]))
    return {
        "status": [(s, STATUS_WORDS.get(s, s), by_status[s]) for s in STATUS_ORDER if by_status[s]]
        + ([(MATCHED, MATCHED_WORDS, by_status[MATCHED])] if by_status[MATCHED] else [])
        + [(s, s, n) for s, n in sorted(by_status.items()) if s not in STATUS_WORDS and s != MATCHED]
        + ([(NO_CLAIM, "of no claim", len(orphans))] if orphans else []),
        "code": [(code, code, n) for code, n in sorted(by_code.items())],
        "verdict": [(v, w, by_verdict[v]) for v, w in VERDICT_CLASSES.items() if by_verdict[v]],
    }


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def counts_words(report: dict[str, Any]) -> str:
    """The header's counts in plain words. A claim that cites nothing has a row in the report
    (its ``E_UNCITED``) but no citation was checked for it: it is counted apart.
    ``200 claims, 9 of which cite nothing · 191 citations checked: 150 passed, 30 failed, 11 could
    not be checked``."""
    claims = len(report["claims"])
    by_status: Counter[str] = Counter()
    uncited = searched = 0
    for row in report["results"]:
        if (
            row.get("claim") is not None
            and row.get("citation") is None
            and any(f["code"] == "E_UNCITED" for f in row["findings"])
        ):
            uncited += 1
        else:
            by_status[row["status"]] += 1
            searched += row["status"] == "pass" and any(
                f["code"] == "I_MATCHED_BY_SEARCH" for f in row["findings"]
            )
    words = _plural(claims, "claim", "claims")
    if uncited:
        words += f", {uncited} of which {'cites' if uncited == 1 else 'cite'} nothing"
    checked = sum(by_status.values())
    words += f" · {_plural(checked, 'citation', 'citations')} checked"
    if checked:
        words += (
            f": {by_status['pass']} passed"
            + (f" ({searched} of them only matched by search)" if searched else "")
            + f", {by_status['fail']} failed, "
            f"{by_status['could_not_check']} could not be checked"
        )
    return words


def _data_block(view: dict[str, Any]) -> str:
    """JSON that no text inside can end: ``<``, ``>`` and ``&`` as escapes, and the two
    line separators JavaScript once treated as line ends."""
    text = json.dumps(view, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    for char, escape in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"),
                         ("\u2029", "\\u2029")):  # fmt: skip
        text = text.replace(char, escape)
    return text


def render_html(report: dict[str, Any]) -> bytes:
    # The canonical form first: a report fresh from an audit and one read back from
    # report.json differ in the order of their keys, and the page must not.
    canonical = json.loads(dump_report_dict(report))
    # The unsupported ranges count in the claim text as the judge saw it: cut it there,
    # then write out its controls (which lengthens the text).
    pieces = [_visible(_pieces(c)) if spans_of(c) else None for c in canonical["claims"]]
    report = _visible(canonical)
    view = report_view(report, pieces=pieces)
    judged = any("probability" in (c["judged"] or {}) for c in view["claims"])
    html: str = _template().render(
        report=report,
        title=report.get("title") or "Citation audit",
        tones=TONES,
        words=REPORT_WORDS,
        pills=_pills(view),
        total=len(view["claims"]),
        counts=counts_words(report),
        data=_data_block(view),
        script=_SCRIPT,
        script_hash=_SCRIPT_HASH,
        style=_STYLE,
        style_hash=_STYLE_HASH,
        judge_script=_JUDGE_SCRIPT if judged else None,
        judge_script_hash=_JUDGE_SCRIPT_HASH if judged else None,
        judge_style=_JUDGE_STYLE if judged else None,
        judge_style_hash=_JUDGE_STYLE_HASH if judged else None,
    )
    return html.encode("utf-8")
