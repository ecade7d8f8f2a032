"""``[S12]``-style labelled markers (a short letter prefix and a number) over references whose
entries carry those labels, each marker and entry at its exact range; bracketed words that name
no entry (``[Section 2]``, ``[Table 1]``) stay text."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeaudit.formats.markdown_report import parse_markdown
from citeaudit.model import Source, WorkSource
from tests.formats.markdown_reports import marker_ranges as _markers
from tests.formats.markdown_reports import nth_index as _at

DATA = Path(__file__).parent


def _work(source: Source) -> WorkSource:
    assert isinstance(source, WorkSource)
    return source


SOURCES = (
    "\n\n## Sources\n\n"
    "- **[S1]** Smith, J. (2020). A study of growth. Journal of Things. https://example.org/s1\n"
    "- **[S2]** Jones, K. (2021). A second study. Journal of Things. https://example.org/s2\n"
    "- [S3] Lee, M. (2019). A third study. Journal of Things. https://example.org/s3\n"
    "- *[Ref 4]* Kim, D. (2018). A fourth study. Journal of Things. https://example.org/r4\n"
)


def test_labelled_markers_single_lists_and_ranges() -> None:
    text = (
        "# R\n\nGrowth was 12% in 2020 [S1]. Costs fell 4% [S1–S3]. Prices rose 2% [Ref 4] [S1, S3]."
        + SOURCES
    )
    submission = parse_markdown(text, "r.md")
    a, b, c, d = _at(text, "[S1]"), _at(text, "[S1–S3]"), _at(text, "[Ref 4]"), _at(text, "[S1, S3]")
    assert _markers(text, submission) == [
        ("[S1]", a, a + 4, ("S1",)),
        ("[S1–S3]", b, b + 7, ("S1", "S2", "S3")),
        ("[Ref 4]", c, c + 7, ("Ref4",)),
        ("[S1, S3]", d, d + 8, ("S1", "S3")),
    ]
    assert [claim.text for claim in submission.claims] == [
        "Growth was 12% in 2020.",
        "Costs fell 4%.",
        "Prices rose 2%.",
    ]
    assert [n.code for n in submission.notes] == []


@pytest.mark.parametrize("words", ["[Section 2]", "[Figure 3]", "[Table 1]", "[Step 3]", "[Q3]"])
def test_bracketed_words_naming_no_entry_stay_text(words: str) -> None:
    text = f"# R\n\nSee {words} for the 3 results [S1]." + SOURCES
    submission = parse_markdown(text, "r.md")
    at = _at(text, "[S1]")
    assert _markers(text, submission) == [("[S1]", at, at + 4, ("S1",))]
    assert submission.claims[0].text == f"See {words} for the 3 results."
    assert "E_MARKER_UNDEFINED" not in [n.code for n in submission.notes]


def test_labels_without_labelled_entries_are_text() -> None:
    text = "# R\n\nGrowth was 12% [S1] and [1].\n\n## References\n\n1. Smith, J. (2020). A study. J.\n"
    submission = parse_markdown(text, "r.md")
    at = _at(text, "[1]")
    assert _markers(text, submission) == [("[1]", at, at + 3, ("1",))]
    assert submission.claims[0].text == "Growth was 12% [S1] and."


def test_a_label_of_a_known_prefix_naming_no_entry_is_undefined() -> None:
    text = "# R\n\nGrowth was 12% [S16]." + SOURCES
    submission = parse_markdown(text, "r.md")
    undefined = [n for n in submission.notes if n.code == "E_MARKER_UNDEFINED"]
    assert [(n.message, n.origin) for n in undefined] == [
        ("the marker [S16] names 'S16', which no entry of the references defines", "line 3:16")
    ]


def test_a_label_over_a_link_definition_stays_a_link() -> None:
    text = "# R\n\nGrowth was 12% [S1].\n\n[S1]: https://example.org/one\n"
    submission = parse_markdown(text, "r.md")
    at = _at(text, "[S1]")
    assert [(m.text, m.start, m.end) for c in submission.claims if c.place for m in c.place.markers] == [
        ("[S1]", at, at + 4)
    ]
    assert _work(submission.claims[0].citations[0].source).identifier == "https://example.org/one"


def test_labelled_entries_in_a_paragraph_one_a_line() -> None:
    text = (
        "# R\n\nGrowth was 12% [R2].\n\n## References\n\n"
        "[R1] Smith, J. (2020). A study of growth. Journal of Things.\n"
        "[R2] Jones, K. (2021). A second study. Journal of Things.\n"
    )
    submission = parse_markdown(text, "r.md")
    at = _at(text, "[R2]")
    assert _markers(text, submission) == [("[R2]", at, at + 4, ("R2",))]
    assert [(n.code, n.citation_id, n.origin) for n in submission.notes] == [
        ("W_REFERENCE_UNUSED", "R1", "line 7:1")
    ]


def test_labelled_entries_in_a_table() -> None:
    text = (
        "# R\n\nGrowth was 12% [S2]. Costs fell 3% [S1].\n\n## Sources\n\n"
        "| ID | Source | Link |\n|---|---|---|\n"
        "| S1 | Smith, J. (2020). A study of growth. | https://example.org/s1 |\n"
        "| **[S2]** | Jones, K. (2021). A second study. | https://example.org/s2 |\n"
    )
    submission = parse_markdown(text, "r.md")
    a, b = _at(text, "[S2]"), _at(text, "[S1]")
    assert _markers(text, submission) == [("[S2]", a, a + 4, ("S2",)), ("[S1]", b, b + 4, ("S1",))]
    assert [_work(c.citations[0].source).identifier for c in submission.claims] == [
        "https://example.org/s2",
        "https://example.org/s1",
    ]
    assert [n.code for n in submission.notes] == []


E110 = DATA / "markdown_labels" / "chewber_E110_report.md"


def test_a_real_agent_report_cites_by_labels() -> None:
    """jmandel/chewber's E110 report (markdown_labels/README.md): 49 ``[S1]``…``[S13]`` markers,
    most of them run together (``[S3][S5]``), over 13 bold-labelled entries."""
    text = E110.read_text("utf-8")
    submission = parse_markdown(text, "E110-report.md")
    markers = _markers(text, submission)
    assert len(markers) == text.count("[S") - 13  # every marker read, none but the entries' labels left
    for shown, start, end, citations in markers:
        assert citations == (shown[1:-1],)
        assert text[start - 1] in " ]"
        assert text[end] in "\n["
    assert markers[:3] == [
        ("[S5]", 88, 92, ("S5",)),
        ("[S3]", 162, 166, ("S3",)),
        ("[S5]", 166, 170, ("S5",)),
    ]
    assert markers[-5:] == [
        ("[S9]", 5145, 5149, ("S9",)),
        ("[S10]", 5149, 5154, ("S10",)),
        ("[S11]", 5154, 5159, ("S11",)),
        ("[S12]", 5159, 5164, ("S12",)),
        ("[S13]", 5287, 5292, ("S13",)),
    ]
    entries = {c.id: c for claim in submission.claims for c in claim.citations}
    assert sorted(entries, key=lambda cid: int(cid[1:])) == [f"S{n}" for n in range(1, 14)]
    assert [
        (cid, _work(entries[cid].source).kind, _work(entries[cid].source).identifier)
        for cid in ("S7", "S9", "S13")
    ] == [
        ("S7", "pmid", "39058118"),
        ("S9", "pmid", "30280050"),
        ("S13", "pmid", "17825405"),
    ]
    assert _work(entries["S1"].source).identifier == (
        "https://docs.efsa.europa.eu/efsajournal/pub/3765/efsajournal-12-7-3765.pdf"
    )
    # "PubMed (2018), *Title*": the index is no author and the year in parentheses no PMID.
    assert (_work(entries["S9"].source).first_author, _work(entries["S9"].source).year) == (None, 2018)
    assert [n.code for n in submission.notes] == []


E102 = DATA / "markdown_pubmed" / "chewber_E102_excerpt.md"


def test_the_e102_excerpt_markers_in_parentheses() -> None:
    text = E102.read_text("utf-8")
    submission = parse_markdown(text, "E102-report.md")
    assert _markers(text, submission) == [
        ("[S12]", 324, 329, ("S12",)),
        ("[S13]", 331, 336, ("S13",)),
        ("[S14]", 338, 343, ("S14",)),
        ("[S11]", 556, 561, ("S11",)),
        ("[S15]", 798, 803, ("S15",)),
        ("[S10]", 975, 980, ("S10",)),
        ("[S4]", 1298, 1302, ("S4",)),
    ]
    assert sorted(n.citation_id or "" for n in submission.notes if n.code == "W_REFERENCE_UNUSED") == [
        "S1", "S2", "S3", "S5", "S6", "S7", "S8", "S9",
    ]  # fmt: skip
