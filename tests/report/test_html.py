"""The HTML report's view of a report, without a browser: the same bytes from
``check`` and ``render``, plain-word verdicts, what was cited beside what the
registry or corpus holds, the fix to paste, and a data block no text can end."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from citeaudit.report.html import render_html, report_view, verdict_words
from tests.conftest import GOLDEN, run_cli
from tests.report.html_cases import RESTATED, SNAPSHOT_SENTENCE, audit_html, audit_retrieved


def _golden_report(case: str) -> dict[str, Any]:
    report: dict[str, Any] = json.loads((GOLDEN / case / "expected.json").read_text("utf-8"))
    return report


def _citation(view: dict[str, Any], claim_id: str) -> dict[str, Any]:
    claim = next(c for c in view["claims"] if c["id"] == claim_id)
    citation: dict[str, Any] = claim["citations"][0]
    return citation


def _data(html: bytes) -> dict[str, Any]:
    block = re.search(rb'<script type="application/json" id="report-data">(.*?)</script>', html, re.S)
    assert block is not None
    data: dict[str, Any] = json.loads(block.group(1))
    return data


def test_check_and_render_give_the_same_bytes(tmp_path: Path) -> None:
    work = tmp_path / "seed"
    shutil.copytree(GOLDEN / "seed000", work)
    result = run_cli("check", work / "claims.json", "--offline", "--cache", work / "cache", "--sources",
                     work / "sources", "--out", work / "report.json", "--format", "html", "--output",
                     work / "check.html")  # fmt: skip
    assert result.code == 1, result.stderr
    assert (
        run_cli("render", work / "report.json", "--format", "html", "--output", work / "render.html").code
        == 0
    )
    assert (work / "check.html").read_bytes() == (work / "render.html").read_bytes()
    mixed = audit_html(tmp_path / "mixed", 40)
    rendered = run_cli(
        "render", mixed.parent / "report.json", "--format", "html", "--output", tmp_path / "r.html"
    )
    assert rendered.code == 0
    assert mixed.read_bytes() == (tmp_path / "r.html").read_bytes()


@pytest.mark.parametrize(
    ("verdict", "expected"),
    [
        (None, ("none", "not judged")),
        ({"label": "entailed", "confidence": 0.912, "judge": "nli/x/1"}, ("supported", "judged supported, 0.91")),
        ({"label": "contradicted", "confidence": None, "judge": "llm/m/2"}, ("contradicted", "judged contradicted")),
        ({"label": "insufficient", "confidence": 0.5, "judge": "learned/m/1"},
         ("insufficient", "judged not enough evidence, 0.50")),
        ({"label": "unknown", "confidence": None, "judge": "rules/coverage<0.3/rules-1"},
         ("undecided", "judge undecided")),
    ],
)  # fmt: skip
def test_verdicts_in_plain_words(verdict: dict[str, Any] | None, expected: tuple[str, str]) -> None:
    assert verdict_words(verdict) == expected


def test_seed000_view_compares_quotes_and_fixes() -> None:
    view = report_view(_golden_report("seed000"))
    c1 = next(c for c in view["claims"] if c["id"] == "c1")
    assert (c1["verdict"], c1["verdict_words"], c1["judged"]["by"]) == ("undecided", "judge undecided",
                                                                        "word-coverage rules")  # fmt: skip
    c2 = _citation(view, "c2")
    assert c2["held"] == "registry"
    assert c2["compare"] == [
        ["identifier", "10.0000/demo.1", "10.0000/demo.1", False],
        ["title", "Demo Paper on Retrieval Grounding", "Demo Paper on Retrieval Grounding", False],
        ["year", "2023", "2024", True],
        ["first author", "Ivanova", "Ivanova", False],  # the record's authors are in the report
        ["authors", "", "Ivanova; Petrov", False],
    ]
    assert c2["fix"] == '{"year": 2024}'
    assert c2["path"] == "$.claims[1].citations[0]"
    assert c2["quote"] == {
        "cited": "привязка каждого утверждения устраняет все ошибки",
        "closest": {"text": "экспериментах привязка каждого утверждения к найденному фрагменту",
                    "similarity": 0.673, "where": "[8, 73)"},
        "where": "",
    }  # fmt: skip
    assert [f[:2] for f in c2["findings"]] == [["error", "E_YEAR_MISMATCH"], ["error", "E_QUOTE_NOT_FOUND"],
                                              ["error", "E_NUMBER_UNSUPPORTED:3"]]  # fmt: skip
    c3 = _citation(view, "c3")
    assert (c3["held"], c3["fix"], c3["status"]) == (
        "registry (no record was available)",
        None,
        "could_not_check",
    )
    c4 = next(c for c in view["claims"] if c["id"] == "c4")
    assert c4["citations"][0]["id"] is None
    assert c4["codes"] == ["E_UNCITED"]


def test_corpus_views_show_the_right_range_and_version() -> None:
    printed = _citation(report_view(_golden_report("seed003_printed_range")), "c1")
    assert printed["held"] == "corpus"
    assert ["range", "[24, 79)", "[25, 80)", True] in printed["compare"]
    assert printed["fix"] == '{"end": 80, "start": 25}'
    assert printed["quote"]["held"] == {"text": " Журнал операций хранится в течение 30 календарных дней",
                                        "where": "[24, 79)"}  # fmt: skip
    old = _citation(report_view(_golden_report("seed003_old_version")), "c1")
    assert ["version", "2025-12", "2026-01", True] in old["compare"]
    assert old["fix"] == '{"document_version": "2026-01"}'
    real = _citation(report_view(_golden_report("seed003_real_range")), "c1")
    assert real["fix"] is None
    assert real["quote"]["excerpt"] == ["Правила хранения данных. ", "Журнал операций хранится в течение 30 "
                                        "календарных дней.", " Резервные копии удаляются отдельно.", False,
                                        False]  # fmt: skip
    assert real["quote"]["where"] == "[25, 80), line 1"


def test_title_fix_is_the_registry_title_and_the_normalised_quote_shows_as_cited(tmp_path: Path) -> None:
    view = _data(audit_html(tmp_path, 8).read_bytes())
    title = _citation(view, "c00002")
    assert ["title", "Demo Paper on Retrieval Grinding", "Demo Paper on Retrieval Grounding", True] in title[
        "compare"
    ]
    assert title["fix"] == '{"title": "Demo Paper on Retrieval Grounding"}'
    normalized = _citation(view, "c00004")
    assert normalized["quote"]["normalized"] == ["letter case"]
    assert normalized["quote"]["cited"] == normalized["quote"]["excerpt"][1].upper()
    assert normalized["fix"] is None


def test_text_cannot_end_the_data_block() -> None:
    report = _golden_report("seed000")
    hostile = "</script><script>alert(1)</script><!-- & \u2028"
    report["claims"][0]["text"] = hostile
    html = render_html(report)
    block = re.search(rb'<script type="application/json" id="report-data">(.*?)</script>', html, re.S)
    assert block is not None
    assert b"<" not in block.group(1)
    assert b">" not in block.group(1)
    assert b"&" not in block.group(1)
    assert _data(html)["claims"][0]["text"] == hostile
    assert html.count(b"<script") == 2  # the data block and the page's own script


def test_excerpt_context_is_the_audits() -> None:
    from citeaudit import core
    from citeaudit.report import html

    assert html.EXCERPT_CONTEXT == core.EXCERPT_CONTEXT


def test_same_bytes_under_any_hash_seed(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    script = (
        "import json, sys; from pathlib import Path; from citeaudit.report.html import render_html; "
        "sys.stdout.buffer.write(render_html(json.loads(Path(sys.argv[1]).read_text('utf-8'))))"
    )
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        done = subprocess.run([sys.executable, "-c", script, str(GOLDEN / "seed000" / "expected.json")],
                              env=env, capture_output=True, check=True, cwd=tmp_path, timeout=120)  # fmt: skip
        outputs.add(done.stdout)
    assert outputs == {(GOLDEN / "seed000" / "expected.html").read_bytes()}


def _learned_report(text: str, spans: list[list[int]]) -> dict[str, Any]:
    report = _golden_report("seed003_real_range")
    claim = report["claims"][0]
    claim["text"] = text
    claim["verdict"] = {"confidence": None, "judge": "learned/sha256:0123456789abcdef/learned-1",
                        "label": "unknown", "relied_on": ["c1"], "signals": [],
                        "unsupported": [text[s:e] for s, e in spans], "probability": 0.5681,
                        "reason": "cover_window_soft=0.62 (+0.41); missing_window=1.39 (-0.30); "
                                  "negation_one_sided=1.00 (-0.12)",
                        "unsupported_spans": spans}  # fmt: skip
    return report


def test_a_learned_verdict_in_the_view_and_only_then_its_script() -> None:
    text = "Сервис хранит журнал операций 30 дней в облаке провайдера."
    report = _learned_report(text, [[0, 6], [40, 57]])
    html = render_html(report)
    judged = _data(html)["claims"][0]["judged"]
    assert judged["probability"] == 0.5681
    assert judged["reason"] == [
        "the claim's words whose first letters start a word of its best sentences: 62% (for support)",
        "content words missing from its best three sentences: 3 (against support)",
        "one of the claim and its best sentence is negated, the other not: yes (against support)",
    ]
    assert judged["pieces"] == [["Сервис", True], [" хранит журнал операций 30 дней в ", False],
                                ["облаке провайдера", True], [".", False]]  # fmt: skip
    assert html.count(b"<script") == 3  # the data block, the page's script and the judge's
    assert html.count(b"<style") == 2
    csp = re.search(rb'http-equiv="Content-Security-Policy" content="([^"]*)"', html)
    assert csp is not None
    assert csp.group(1).count(b"'sha256-") == 4  # two scripts and two styles, each by its hash
    # A rules verdict has no probability: no judge script, and the view has none of its keys.
    rules = render_html(_golden_report("seed003_real_range"))
    assert rules == (GOLDEN / "seed003_real_range" / "expected.html").read_bytes()
    assert rules.count(b"<script") == 2
    assert set(_data(rules)["claims"][0]["judged"]) == {"basis", "by", "judge", "signals", "unsupported"}


def test_unsupported_ranges_count_in_the_text_before_its_controls_are_written_out() -> None:
    text = "\u202eab\u202c the cloud provider keeps it."  # each control becomes <U+202E> on the page
    start = text.index("cloud provider")
    report = _learned_report(text, [[start, start + len("cloud provider")], [90, 95], [3, 2]])
    pieces = _data(render_html(report))["claims"][0]["judged"]["pieces"]
    assert pieces == [["<U+202E>ab<U+202C> the ", False], ["cloud provider", True], [" keeps it.", False]]
    # Straight from a report, without the page's writing out of controls, the ranges cut the text as is.
    assert report_view(report)["claims"][0]["judged"]["pieces"][1] == ["cloud provider", True]


def test_every_feature_of_the_learned_judge_has_plain_words() -> None:
    from citeaudit.report.html import FEATURE_WORDS, reason_words
    from citeaudit.semantic.features import FEATURES
    from citeaudit.semantic.meaning import FEATURES as MEANING

    assert list(FEATURE_WORDS) == [name for name, _ in FEATURES] + [name for name, _ in MEANING]
    assert reason_words("claim_to_sentence=0.69 (+0.05); a newer_feature=2.00 (-1.00); odd") == [
        "the claim's length against its best sentence's: 2.0 times (for support)",
        "a newer_feature=2.00 (-1.00)",
        "odd",
    ]
    assert reason_words("newer_feature=2.00 (-1.00)") == ["newer feature: 2 (against support)"]
    assert reason_words(None) == []


def test_the_record_summary_names_the_authors_and_the_first_of_them() -> None:
    from citeaudit.core import _record_summary
    from citeaudit.report.read import checked_report
    from citeaudit.resolve.interface import Author, Record

    report = _golden_report("seed000")
    record = report["results"][0]["record"]
    assert (record["authors"], record["first_author"]) == (["Ivanova", "Petrov"], "Ivanova")
    assert checked_report(report, "expected.json") is report  # the report schema takes the new fields
    # The author the record marks first, in the checks' "Family, Given"; a long list kept short.
    authors = tuple(Author(family=f"F{i}", given="G", sequence="additional") for i in range(30))
    authors = (*authors[:3], Author(family="Ivanova", given="Anna", sequence="first"), *authors[3:])
    summary = _record_summary(Record(doi="10.1/x", agency="crossref", titles=("T",), authors=authors))
    assert summary["first_author"] == "Ivanova, Anna"
    assert summary["authors"][:5] == ["F0, G", "F1, G", "F2, G", "Ivanova, Anna", "F3, G"]
    assert (len(summary["authors"]), summary["authors_total"]) == (20, 31)
    assert _record_summary(Record(doi="10.1/y", agency="crossref"))["first_author"] is None
    assert "authors_total" not in _record_summary(Record(doi="10.1/y", agency="crossref"))


def test_the_registry_column_shows_the_records_authors() -> None:
    from citeaudit.report import html

    row = _golden_report("seed000")["results"][1]
    row["record"] |= {"authors": ["Ivanova, Anna", "Petrov, P."], "authors_total": 52}
    held, rows = html._compare(row, {})
    assert held == "registry"
    assert ["first author", "Ivanova", "Ivanova", False] in rows
    assert ["authors", "", "Ivanova, Anna; Petrov, P. and 50 more", False] in rows


@pytest.mark.parametrize(
    ("message", "plain"),
    [
        ("the title differs from the seed-cache record's", "the title differs from the cached record's"),
        ("the crossref record gives no year, so the cited year was not compared",
         "the Crossref record gives no year, so the cited year was not compared"),
        ("a book is cited, but the datacite record is a dataset", "a book is cited, but the DataCite record is a dataset"),
        ("the quote does not occur in the snapshot, even after normalisation",
         "the quote does not occur in the saved source text, even after normalisation"),
        ("the quote occurs 3 times in the snapshot; the first is reported",
         "the quote occurs 3 times in the saved source text; the first is reported"),
        ("run `citeaudit snapshot FILE --doi 10.1/x`", "run `citeaudit snapshot FILE --doi 10.1/x`"),
    ],
)  # fmt: skip
def test_finding_messages_in_a_readers_words(message: str, plain: str) -> None:
    from citeaudit.report.html import plain_message

    assert plain_message(message) == plain


def test_no_internal_words_on_the_page(tmp_path: Path) -> None:
    html = audit_html(tmp_path, 16).read_bytes()
    view = _data(html)
    title = _citation(view, "c00002")
    assert ["error", "E_TITLE_MISMATCH", "the title differs from the cached record's", ""] in title[
        "findings"
    ]
    for word in (b"seed-cache", b"snapshot", b"review: ", b"pinned", b"Deterministic", b"semantic verdict"):
        assert word not in html, word


def test_a_claim_nobody_reviewed_says_so() -> None:
    from citeaudit.report.html import review_words

    view = report_view(_golden_report("seed000"))
    assert [(c["id"], c["review"]) for c in view["claims"]] == [
        ("c1", "not reviewed"), ("c2", "not reviewed"), ("c3", "not reviewed"), ("c4", "not reviewed")
    ]  # fmt: skip
    assert review_words("supported", True) == "reviewed: supported"
    assert review_words("insufficient", True) == "reviewed: not enough evidence"
    assert review_words("invalid", True) is None  # reviewed, but the checks decide: the review is listed
    assert review_words("pending_review", False) == "not reviewed"


def test_a_quote_found_at_another_range_is_marked_found() -> None:
    printed = _citation(report_view(_golden_report("seed003_printed_range")), "c1")
    assert printed["quote"]["found_elsewhere"] == "verbatim at [25, 80)"
    real = _citation(report_view(_golden_report("seed003_real_range")), "c1")
    assert "found_elsewhere" not in real["quote"]


def test_the_header_counts_claims_that_cite_nothing_apart(tmp_path: Path) -> None:
    from citeaudit.report.html import counts_words

    seed = _golden_report("seed000")
    assert counts_words(seed) == (
        "4 claims, 1 of which cites nothing · 3 citations checked: 1 passed, 1 failed, 1 could not be checked"
    )
    assert (
        '<p class="counts" id="counts">4 claims, 1 of which cites nothing · 3 citations checked: 1 passed, '
        "1 failed, 1 could not be checked · 5 errors, 0 warnings · citeaudit 0.1.0</p>"
    ).encode() in render_html(seed)
    mixed = json.loads((audit_html(tmp_path, 16).parent / "report.json").read_text("utf-8"))
    assert counts_words(mixed) == (
        "16 claims, 2 of which cite nothing · 14 citations checked: 4 passed, 8 failed, 2 could not be checked"
    )
    real = _golden_report("seed003_real_range")
    assert counts_words(real) == "1 claim · 1 citation checked: 1 passed, 0 failed, 0 could not be checked"


SEED_SNAPSHOT_SHA256 = "4a7a31a5f98a057b05cd30392bc05c241e086fb3769656dc2877f9ee23414a88"


def test_a_verdict_on_retrieved_passages_shows_each_passage_in_its_text_and_the_quote_to_add(
    tmp_path: Path,
) -> None:
    """A claim citing seed 000's work with no quote is judged on passages of the work's snapshot:
    the view badges it apart from the claim judged on its verified quote, draws each passage with
    its basis, range, rank, text name and short digest in the text around it that the report
    holds, and offers the best passage as the quote to add."""
    report_path = audit_retrieved(tmp_path / "r")
    report = json.loads(report_path.read_text("utf-8"))
    verdicts = {c["id"]: c["verdict"] for c in report["claims"]}
    assert (verdicts["r1"]["basis"], verdicts["r1"]["label"]) == ("retrieved", "entailed")
    assert verdicts["q1"]["basis"] == "quote"
    html = (tmp_path / "r" / "report.html").read_bytes()
    assert html == render_html(report)  # check and render: the same bytes
    claims = {c["id"]: c for c in _data(html)["claims"]}
    assert claims["q1"]["judged"]["basis"] == "quote"
    assert "passages" not in claims["q1"]["judged"]
    judged = claims["r1"]["judged"]
    assert judged["basis"] == "retrieved"
    first, second = judged["passages"]
    assert first == {
        "rank": 1, "citation": "r1#1", "basis": "full_text", "from": "from the full text of r1#1",
        "where": "[74, 144)", "length": 145, "name": "saved source text of 10.0000/demo.1",
        "digest": SEED_SNAPSHOT_SHA256[:12],
        # The other passage of the same text is the text before it; the newline between them and
        # the one that ends the text the report does not hold.
        "around": ["В наших экспериментах привязка каждого утверждения к найденному фрагменту … ",
                   SNAPSHOT_SENTENCE, " …"],
    }  # fmt: skip
    assert (second["rank"], second["where"]) == (2, "[0, 73)")
    assert second["around"][0] == ""  # the text begins with it
    assert second["around"][2] == " … " + SNAPSHOT_SENTENCE + " …"
    assert judged["texts"] == [{"citation": "r1#1", "basis": "full_text", "from": "from the full text of r1#1",
                                "name": "saved source text of 10.0000/demo.1", "digest": SEED_SNAPSHOT_SHA256[:12],
                                "length": 145}]  # fmt: skip
    (citation,) = claims["r1"]["citations"]
    assert citation["passage_fix"] == {"fix": json.dumps({"quote": SNAPSHOT_SENTENCE}, ensure_ascii=False),
                                       "from": "full text", "where": "[74, 144)"}  # fmt: skip
    assert "passage_fix" not in claims["q1"]["citations"][0]
    assert claims["r1"]["text"] == RESTATED


def test_the_text_around_a_passage_is_only_what_the_report_holds() -> None:
    from citeaudit.report.html import PASSAGE_CONTEXT, _around, _known

    text = "A" * 300 + "The passage." + "B" * 10 + "Another one." + "C" * 400
    start = text.index("The passage.")
    other = text.index("Another one.")
    p = {"start": start, "end": start + 12, "text": "The passage."}
    q = {"start": other, "end": other + 12, "text": "Another one."}
    known = _known(None, [p, q])
    assert _around(p, known, len(text)) == ["… ", "The passage.", " … Another one. …"]
    assert _around(q, known, len(text)) == ["… The passage. … ", "Another one.", " …"]
    assert _around(p, _known(None, [p]), None) == ["… ", "The passage.", " …"]
    # A passage whose text is not its range's length (its controls written out) is not cut by offsets.
    odd = {"start": other, "end": other + 12, "text": "<U+202E>Another one."}
    assert _around(p, _known(None, [p, odd]), len(text)) == ["… ", "The passage.", " …"]
    assert PASSAGE_CONTEXT == 160
    # Context cut at PASSAGE_CONTEXT characters inside a word ends at a space instead.
    words = " ".join(f"w{i:03d}" for i in range(100))  # word k at [5k, 5k + 4)
    known = _known(None, [{"start": 0, "end": len(words), "text": words}])
    at_spaces = {"start": 250, "end": 254, "text": "w050"}  # the context ends fall on spaces: kept whole
    assert _around(at_spaces, known, len(words)) == ["…" + words[90:250], "w050", words[254:414] + "…"]
    in_words = {"start": 252, "end": 256, "text": words[252:256]}  # context [92, 416): inside w018 and w083
    assert _around(in_words, known, len(words)) == ["…" + words[95:252], words[252:256], words[256:414] + "…"]
    # At the ends of the text: nothing before the first character, nothing after the last.
    whole = {"start": 0, "end": 5, "text": "Short"}
    assert _around(whole, _known(None, [whole]), 5) == ["", "Short", ""]


def test_a_passage_that_is_markup_is_data_and_the_page_names_no_internal_words(tmp_path: Path) -> None:
    hostile = "Модель <script>alert(1)</script> писала </script><!-- & \u2028 без ошибок."
    audit_retrieved(tmp_path / "h", hostile=hostile)
    html = (tmp_path / "h" / "report.html").read_bytes()
    claims = {c["id"]: c for c in _data(html)["claims"]}
    texts = [p["around"][1] for p in claims["h1"]["judged"]["passages"]]
    assert hostile in texts
    assert html.count(b"<script") == 3  # the data block, the page's script and the learned judge's
    assert b"alert(1)" not in html.replace(_data_block_bytes(html), b"")
    for word in (b"snapshot", b"pinned", b"seed-cache"):
        assert word not in html.replace(_data_block_bytes(html), b""), word


def _data_block_bytes(html: bytes) -> bytes:
    block = re.search(rb'<script type="application/json" id="report-data">(.*?)</script>', html, re.S)
    assert block is not None
    return block.group(1)


@pytest.mark.parametrize(
    ("basis", "badge", "fix_from"),
    [("abstract", "from the abstract of r1#1", "abstract"), ("page", "from the page of r1#1", "page"),
     ("full_text", "from the full text of r1#1", "full text")],
)  # fmt: skip
def test_each_basis_has_its_badge(basis: str, badge: str, fix_from: str) -> None:
    """The golden case's claim judged on passages, as if its text were an abstract or a page."""
    report = _golden_report("seed000_retrieved")
    r1 = next(c for c in report["claims"] if c["id"] == "r1")
    r1["verdict"]["label"] = "entailed"
    for item in r1["verdict"]["passages"] + r1["verdict"]["texts"]:
        item["basis"] = basis
    claim = next(c for c in report_view(report)["claims"] if c["id"] == "r1")
    assert [p["from"] for p in claim["judged"]["passages"]] == [badge, badge]
    assert [t["from"] for t in claim["judged"]["texts"]] == [badge]
    assert claim["citations"][0]["passage_fix"]["from"] == fix_from
    # Judged not supported: no passage is offered as the quote.
    r1["verdict"]["label"] = "insufficient"
    claim = next(c for c in report_view(report)["claims"] if c["id"] == "r1")
    assert "passage_fix" not in claim["citations"][0]


_BIB = r"""
@article{hochreiter1997,
  title = {Long Short-Term Memory},
  author = {Hochreiter, Sepp and Schmidhuber, J{\"u}rgen},
  journal = {Neural Computation},
  volume = {9},
  pages = {1735--1780},
  year = {1997}
}
@article{averyveryverylongentrykeythatmustnotwrap2021,
  title = {Peer review of citation audits},
  author = {van der Berg, Jan},
  journal = {CoRR},
  year = {2021}
}
"""


@pytest.fixture(scope="module")
def bib_html(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A real offline audit of a ``.bib`` whose first entry is matched by search in a mirror."""
    from tests.dblp_dump import sample_mirror

    work = tmp_path_factory.mktemp("bib")
    mirror = sample_mirror(work)
    (work / "refs.bib").write_text(_BIB, "utf-8")
    result = run_cli("check", work / "refs.bib", "--offline", "--judge", "none", "--mirror", mirror,
                     "--indexes", "", "--out", work / "report.json", "--format", "html", "--output",
                     work / "report.html")  # fmt: skip
    assert result.code in (0, 1), result.stderr
    return (work / "report.html").read_bytes()


def test_a_bib_row_shows_the_cited_title_and_its_kind_only_beside_it(bib_html: bytes) -> None:
    claim = next(c for c in _data(bib_html)["claims"] if c["id"] == "hochreiter1997")
    assert claim["text"] == "Long Short-Term Memory"
    assert claim["entry"] == "bibliography entry (article)"
    assert not [c for c in _data(bib_html)["claims"] if c["text"].startswith("bibliography entry")]


def test_a_citation_matched_by_search_does_not_say_checks_passed(bib_html: bytes) -> None:
    claim = next(c for c in _data(bib_html)["claims"] if c["id"] == "hochreiter1997")
    assert claim["status"] == "requires_entailment_check"
    assert claim["status_word"] == "matched by search"
    citation = claim["citations"][0]
    assert citation["status"] == "pass"
    assert citation["badge"] == "matched by search"
    assert b"2 citations checked: 2 passed (2 of them only matched by search), 0 failed" in bib_html
    assert b'data-group="status" data-value="matched_by_search"' in bib_html
    assert b'<span class="pill-word">checks passed</span>' not in bib_html


def test_a_citation_resolved_by_identifier_keeps_checks_passed() -> None:
    view = report_view(_golden_report("seed000"))
    passed = [c for c in view["claims"] if c["status"] == "requires_entailment_check"]
    assert passed
    assert all("status_word" not in c for c in passed)
    assert all("badge" not in cit for c in passed for cit in c["citations"])


def test_findings_of_no_claim_are_drawn_as_what_they_are_and_have_a_pill(tmp_path: Path) -> None:
    (tmp_path / "r.md").write_text(
        "# Notes\n\nRetention is thirty days [1]. Backups are deleted apart [1, 3.\n\n## References\n\n"
        "1. https://example.org/a\n2. https://example.org/unused\n",
        "utf-8",
    )
    result = run_cli("check", tmp_path / "r.md", "--offline", "--judge", "none", "--out",
                     tmp_path / "report.json", "--format", "html", "--output", tmp_path / "r.html")  # fmt: skip
    assert result.code in (0, 1, 3), result.stderr
    html = (tmp_path / "r.html").read_bytes()
    orphans = _data(html)["orphans"]
    unused = [o for o in orphans if any(f[1] == "W_REFERENCE_UNUSED" for f in o["findings"])]
    assert unused, orphans
    assert unused[0]["badge"] == "error"  # offline, the unused page also has no pin (E_NOT_PINNED)
    assert unused[0]["status"] == "no_claim"
    malformed = [o for o in orphans if [f[1] for f in o["findings"]] == ["W_MARKER_MALFORMED"]]
    assert [(o["status"], o["badge"]) for o in malformed] == [("no_claim", "warning")]
    assert b'data-group="status" data-value="no_claim"' in html
    assert b'data-group="code" data-value="W_MARKER_MALFORMED"' in html
