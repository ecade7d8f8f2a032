"""Research reports in Markdown (``markdown-report``): claims and markers at their exact ranges,
references as citations, the findings of a report's structure, never a traceback.

The reports of ``markdown/`` are written in each marker style (numeric, ranges, footnotes, inline
links, reference links, author–year parenthetical and narrative) and reference style (IEEE, APA,
ACM, Chicago, link definitions), with malformed ones; each has ``NAME.expected.json``, what the
parser reads from it (``UPDATE_GOLDEN=1`` rewrites them: read the diff before you commit it)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeaudit.errors import InputError
from citeaudit.formats import InputFormat, load_submission, submission_from_bytes
from citeaudit.formats.markdown_report import looks_like_report, parse_markdown
from citeaudit.formats.reference_entries import entry_fields
from citeaudit.formats.sentences import sentence_spans
from citeaudit.model import Submission, WorkSource
from tests.formats.markdown_reports import long_report

CASES = Path(__file__).parent / "markdown"
REPORTS = sorted(CASES.glob("*.md"))


def _text(path: Path) -> str:
    return path.read_bytes().decode("utf-8-sig").replace("\r\n", "\n")


def _line_col(text: str, offset: int) -> tuple[int, int]:
    before = text[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


def describe(submission: Submission) -> dict[str, Any]:
    def source(c: Any) -> dict[str, Any]:
        s = c.source
        out = {"kind": s.kind, "identifier": getattr(s, "identifier", None), "quote": c.quote}
        if isinstance(s, WorkSource):
            out |= {
                k: v for k, v in (("title", s.title), ("year", s.year), ("first_author", s.first_author)) if v
            }
        return {"id": c.id, "origin": c.origin, **out}

    claims = []
    for c in submission.claims:
        assert c.place is not None
        claims.append({
            "id": c.id, "text": c.text, "origin": c.origin,
            "range": [c.place.start, c.place.end], "lines": [c.place.line, c.place.column, c.place.end_line, c.place.end_column],
            "markers": [[m.text, m.start, m.end, m.line, m.column, list(m.labels), list(m.citations)] for m in c.place.markers],
            "citations": [source(x) for x in c.citations],
        })  # fmt: skip
    return {
        "title": submission.title,
        "claims": claims,
        "listed": [source(x) for x in submission.citations],
        "notes": [[n.code, n.claim_id, n.citation_id, n.origin, n.message] for n in submission.notes],
    }


@pytest.mark.parametrize("path", REPORTS, ids=[p.stem for p in REPORTS])
def test_each_report_reads_as_expected(path: Path) -> None:
    submission = load_submission(path)
    assert submission.format == "markdown-report"
    got = describe(submission)
    expected = path.with_suffix(".expected.json")
    if os.environ.get("UPDATE_GOLDEN"):
        expected.write_text(json.dumps(got, ensure_ascii=False, indent=1) + "\n", "utf-8")
    assert got == json.loads(expected.read_text("utf-8"))


@pytest.mark.parametrize("path", REPORTS, ids=[p.stem for p in REPORTS])
def test_every_claim_and_marker_is_at_its_exact_range(path: Path) -> None:
    text = _text(path)
    submission = load_submission(path)
    for claim in submission.claims:
        place = claim.place
        assert place is not None
        written = text[place.start : place.end]
        assert (place.line, place.column) == _line_col(text, place.start)
        last_line, last_column = _line_col(text, place.end - 1)
        assert (place.end_line, place.end_column) == (last_line, last_column + 1)
        assert claim.origin == f"line {place.line}:{place.column}"
        assert place.paragraph.start <= place.start < place.end <= place.paragraph.end
        assert text[place.paragraph.start : place.paragraph.end] == place.paragraph_text
        for marker in place.markers:
            assert text[marker.start : marker.end] == marker.text
            assert (marker.line, marker.column) == _line_col(text, marker.start)
            assert marker.text in written


def test_the_exact_ranges_of_one_report_by_hand() -> None:
    text = _text(CASES / "ieee.md")
    submission = parse_markdown(text, "ieee.md")
    sentence = "Long short-term memory addressed vanishing gradients [2], [3]."
    claim = submission.claims[1]
    start = text.index(sentence)
    assert (claim.id, claim.text) == ("c002", "Long short-term memory addressed vanishing gradients.")
    assert claim.place is not None
    assert (claim.place.start, claim.place.end) == (start, start + len(sentence))
    assert (claim.place.line, claim.place.column) == (3, 64)
    assert [(m.text, m.start, m.labels) for m in claim.place.markers] == [
        ("[2]", text.index("[2], [3]"), ("2",)),
        ("[3]", text.index("[3]."), ("3",)),
    ]
    ranges = submission.claims[3]
    assert ranges.place is not None
    assert ranges.place.markers[0].labels == ("1", "3", "4", "5")  # [1, 3–5]
    dashed = submission.claims[2]
    assert dashed.place is not None
    assert [m.labels for m in dashed.place.markers] == [("4",), ("5",)]  # [4]–[5]
    assert [c.id for c in dashed.citations] == ["4", "5"]


def test_citations_of_each_kind_from_the_references() -> None:
    ieee = parse_markdown(_text(CASES / "ieee.md"), "ieee.md")
    kinds = {
        c.id: (c.source.kind, getattr(c.source, "identifier", None))
        for cl in ieee.claims
        for c in cl.citations
    }
    assert kinds == {
        "1": ("work", "attention is all you need|vaswani|2017"),
        "2": ("doi", "10.1162/neco.1997.9.8.1735"),
        "3": ("work", "learning long term dependencies with gradient descent is difficult|bengio|1994"),
        "4": ("url", "https://aclanthology.org/N19-1423"),
        "5": ("doi", "10.1038/nature14539"),
    }
    links = parse_markdown(_text(CASES / "linkdefs.md"), "linkdefs.md")
    named = {c.id: c.source.kind for cl in links.claims for c in cl.citations}
    assert named == {"1": "doi", "2": "arxiv", "data": "url"}


def test_an_entry_with_a_doi_and_a_url_is_checked_as_both() -> None:
    text = '# R\n\nA claim [1].\n\n## References\n\n[1] A. Author, "A title of a work," 2020, doi: 10.1000/xyz123. https://example.org/paper\n'
    claim = parse_markdown(text, "r.md").claims[0]
    assert [(c.id, c.source.kind) for c in claim.citations] == [("1", "doi"), ("1@url", "url")]
    assert claim.place is not None
    assert claim.place.markers[0].citations == ("1", "1@url")


def test_a_quote_goes_to_the_one_reference_it_is_attributed_to() -> None:
    text = (
        '# R\n\nThey wrote "the model reaches a new state of the art" [1] while others disagree [2]. '
        "Short “scare” quotes are no quote [1]. "
        "Both “this quote is shared by two sources” [1, 2].\n\n"
        "## References\n\n1. https://example.org/one\n2. https://example.org/two\n"
    )
    claims = parse_markdown(text, "r.md").claims
    assert [(c.id, c.quote) for c in claims[0].citations] == [
        ("1", "the model reaches a new state of the art"),
        ("2", None),
    ]
    assert [c.quote for c in claims[1].citations] == [None]
    assert [c.quote for c in claims[2].citations] == [None, None]


@pytest.mark.parametrize(
    ("entry", "fields"),
    [
        ("Vaswani, A., Shazeer, N., & Polosukhin, I. (2017). Attention is all you need. In NeurIPS (pp. 5998–6008).",
         ("Vaswani, A.", 2017, "Attention is all you need", True)),
        ('A. Vaswani et al., "Attention is all you need," in Proc. NeurIPS, 2017, pp. 5998–6008.',
         ("A. Vaswani", 2017, "Attention is all you need", True)),
        ("Ashish Vaswani, Noam Shazeer, and Illia Polosukhin. 2017. Attention is All you Need. In NeurIPS 30. 5998–6008.",
         ("Ashish Vaswani", 2017, "Attention is All you Need", True)),
        ("Vaswani, Ashish, Noam Shazeer, and Illia Polosukhin. 2017. “Attention Is All You Need.” In NeurIPS 30.",
         ("Vaswani, Ashish", 2017, "Attention Is All You Need", True)),
        ("Goodfellow, Ian, Yoshua Bengio, and Aaron Courville. 2016. Deep Learning. Cambridge, MA: MIT Press.",
         ("Goodfellow, Ian", 2016, "Deep Learning", True)),
        ('S. Hochreiter and J. Schmidhuber, "Long short-term memory," Neural Comput., vol. 9, 1997.',
         ("S. Hochreiter", 1997, "Long short-term memory", True)),
        ("van der Berg, J., & Smith, J. (2021). Peer review of citation audits. CoRR.",
         ("van der Berg, J.", 2021, "Peer review of citation audits", True)),
        ("Norman, K. E. A., Chamberlain, S., & Boettiger, C. (2020). taxadb: A high-performance local taxonomic "
         "database interface. *Methods in Ecology and Evolution*. https://doi.org/10.1111/2041-210x.13440",
         ("Norman, K. E. A.", 2020, "taxadb: A high-performance local taxonomic database interface", True)),
    ],
    ids=["apa", "ieee", "acm", "chicago", "chicago-book", "ieee-and", "particle", "apa-lower-case-title"],
)  # fmt: skip
def test_first_author_year_and_title_of_a_free_text_entry(entry: str, fields: tuple[Any, ...]) -> None:
    got = entry_fields(entry)
    assert (got.first_author, got.year, got.title, got.confident) == fields


def test_sentences_do_not_end_at_abbreviations_initials_or_inside_code() -> None:
    text = "Smith et al. showed it, e.g. in Fig. 2. J. R. Smith agreed. See `a. B` now. Next one."
    spans = sentence_spans(text, [(text.index("`"), text.index("` now") + 1)], [])
    assert [text[a:b] for a, b in spans] == [
        "Smith et al. showed it, e.g. in Fig. 2.",
        "J. R. Smith agreed.",
        "See `a. B` now.",
        "Next one.",
    ]


@pytest.mark.parametrize("style", ["ieee", "apa"])
def test_a_500_claim_report_generated_deterministically(style: str) -> None:
    text = long_report(500, style)
    assert text == long_report(500, style)
    submission = parse_markdown(text, "long.md")
    assert [c.id for c in submission.claims] == [f"c{n:03d}" for n in range(1, 501)]
    assert not submission.notes
    for n, claim in enumerate(submission.claims, 1):
        assert claim.place is not None
        written = text[claim.place.start : claim.place.end]
        assert written.startswith(f"Study {n} ")
        assert written.endswith((").", "].", f"| row {n - 1}"))
        # A table row reads "header: cell; header: cell".
        assert claim.text.startswith((f"Study {n} ", f"Claim: Study {n} "))
        assert "[" not in claim.text
        assert "(" not in claim.text
        for marker in claim.place.markers:
            assert text[marker.start : marker.end] == marker.text
            assert marker.citations
    assert sum(len(c.place.markers) for c in submission.claims if c.place) == 500


def test_markers_in_code_and_html_are_text() -> None:
    text = "# R\n\nProse `[1]` here.\n\n```\nfenced [1]\n```\n\n    indented [1]\n\n<p>html [1]</p>\n\n## References\n\n1. https://example.org/a\n"
    submission = parse_markdown(text, "r.md")
    assert submission.claims == ()
    assert [n.code for n in submission.notes] == ["W_REFERENCE_UNUSED"]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("Plain prose.\n", "no citation markers and no references: nothing to audit"),
        (
            "# Nothing cited\n\nProse.\n\n## References\n",
            "no citation markers and no references: nothing to audit",
        ),
    ],
)
def test_a_report_with_nothing_to_audit_is_an_input_error(text: str, problem: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_markdown(text, "r.md")
    assert caught.value.diagnostics() == f"r.md: {problem}"


def test_bytes_that_are_not_utf8_are_an_input_error() -> None:
    with pytest.raises(InputError) as caught:
        submission_from_bytes(b"# R\n\nA [1] \xff\n", "r.md", input_format=InputFormat.MARKDOWN_REPORT)
    assert caught.value.diagnostics() == "r.md: not valid UTF-8: byte 0xff at offset 11"


def test_detection_by_suffix_by_content_and_forced(tmp_path: Path) -> None:
    body = _text(CASES / "ieee.md")
    assert looks_like_report(body)
    assert not looks_like_report('{"claims": []}\n# References\n')
    assert submission_from_bytes(body.encode(), "<stdin>").format == "markdown-report"
    plain = tmp_path / "report.txt"
    plain.write_text("A claim [1].\n\n1. https://example.org/a\n", "utf-8")  # no heading: JSON, refused
    with pytest.raises(InputError):
        load_submission(plain)
    forced = load_submission(plain, input_format=InputFormat.MARKDOWN_REPORT)
    assert forced.format == "markdown-report"
    assert [n.code for n in forced.notes] == ["E_MARKER_UNDEFINED"]


_PIECES = [
    "[1]", "[1, 3]", "[2–4]", "[^a]", "[^a]: def https://x.org\n", "(Smith, 2020)", "Smith et al. (2020)", "`[1]`",
    "```\n[1]\n```\n", "\n", "\n\n", "# References\n", "## Sources\n", "- ", "1. ", "> ", "| a | b |\n|---|---|\n| [1] | x |\n",
    "<div>[1]</div>\n", "    [1]\n", "Text. ", "More text, ", '"quoted words are here now" ', "“curly quoted words here now” ",
    '[1] A. B, "T t," 2017.\n', "doi:10.1000/xyz ", "https://example.org/p ", "[link](https://e.org)", '[1]: https://e.org "t"\n',
    "\t", "\r\n", "[", "]", "(", ")", "[^", "*em*", "**", "\\[1\\]", "&amp;", "<https://a.b>", "[1](x)", "[x][1]", "===\n",
    "---\n", "é", "。", "\x00", "[1, 3.", "[5–2]",
]  # fmt: skip


@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=40))
def test_any_report_reads_or_is_an_input_error_and_markers_are_exact(pieces: list[str]) -> None:
    raw = "".join(pieces)
    text = raw.replace("\r\n", "\n").replace("\r", "\n").replace("\0", "\ufffd")
    try:
        submission = parse_markdown(raw, "r.md")
    except InputError:
        return
    for claim in submission.claims:
        assert claim.place is not None
        assert 0 <= claim.place.start < claim.place.end <= len(text)
        for marker in claim.place.markers:
            assert text[marker.start : marker.end] == marker.text


def test_the_structure_codes_are_in_the_catalogue() -> None:
    from citeaudit.checks.codes import CATALOGUE
    from citeaudit.formats.markdown_report import STRUCTURE_CODES

    assert {c: CATALOGUE[c].severity.value for c in STRUCTURE_CODES} == {
        "E_MARKER_UNDEFINED": "error",
        "W_MARKER_MALFORMED": "warning",
        "W_REFERENCE_UNUSED": "warning",
        "W_REFERENCE_DUPLICATE": "warning",
        "W_LABEL_DUPLICATE": "warning",
        "W_REFERENCES_EMPTY": "warning",
    }
