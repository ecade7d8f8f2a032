"""Citation markers as people and models write them, each at its exact range: author–year with
surname particles, parenthesised dates that are no markers, bare and Unicode superscript
numbers over a numbered list, ``[^1,^2]``, ``【1】``, ``[1†source]``, and the entry a marker
that names none likely means."""

from __future__ import annotations

import pytest

from citeaudit.formats.markdown_report import parse_markdown
from tests.formats.markdown_reports import marker_ranges as _markers
from tests.formats.markdown_reports import nth_index as _at

NUMBERED = (
    "\n\n## References\n\n"
    "1. van der Maaten, L., & Hinton, G. (2008). Visualizing data using t-SNE. JMLR.\n"
    "2. De la Torre, F., & Black, M. J. (2003). A framework for robust subspace learning. IJCV.\n"
    "3. Smith, J. (2020). Something else entirely. Journal of Things.\n"
)


def test_author_year_with_particles_narrative_and_parenthetical() -> None:
    text = (
        "# R\n\nThe method of van der Maaten and Hinton (2008) was refined (de la Torre & Black, 2003; "
        "Smith, 2020, p. 5)." + NUMBERED
    )
    submission = parse_markdown(text, "r.md")
    a, b = _at(text, "(2008)"), _at(text, "(de la")
    assert _markers(text, submission) == [
        ("(2008)", a, a + 6, ("1",)),
        ("(de la Torre & Black, 2003; Smith, 2020, p. 5)", b, b + 46, ("2", "3")),
    ]
    assert submission.claims[0].text == "The method of van der Maaten and Hinton was refined."
    assert [n.code for n in submission.notes] == []


@pytest.mark.parametrize(
    "sentence",
    [
        "Nagengast and Yotov (January 2025) found that trade fell [3].",
        "The bill passed the House (September 2025) and the Senate [3].",
        "Revenue grew in the quarter (Q3 2024) by a third [3].",
        "As noted in the guidance (Section 4.2) and since (2019) it holds [3].",
    ],
)
def test_dates_years_and_section_numbers_are_never_markers(sentence: str) -> None:
    text = "# R\n\n" + sentence + NUMBERED
    submission = parse_markdown(text, "r.md")
    at = _at(text, "[3]")
    assert _markers(text, submission) == [("[3]", at, at + 3, ("3",))]
    assert submission.claims[0].text == sentence.removesuffix(" [3].") + "."
    assert not [n for n in submission.notes if n.code == "E_MARKER_UNDEFINED"]


def test_superscript_numbers_over_a_numbered_list() -> None:
    # Gemini's export: the number glued to the full stop; a word processor's Unicode superscripts.
    text = (
        "# R\n\nTemplates are rendered with handlebars.1 Growth reached 42%.² Costs fell,³˒¹ then rose."
        + NUMBERED
    )
    submission = parse_markdown(text, "r.md")
    one, two, three = _at(text, "handlebars.1") + 11, _at(text, "²"), _at(text, "³˒¹")
    assert _markers(text, submission) == [
        ("1", one, one + 1, ("1",)),
        ("²", two, two + 1, ("2",)),
        ("³˒¹", three, three + 3, ("3", "1")),
    ]
    assert [c.text for c in submission.claims] == [
        "Templates are rendered with handlebars.",
        "Growth reached 42%.",
        "Costs fell, then rose.",
    ]
    assert [n.code for n in submission.notes] == []


def test_superscript_numbers_without_a_numbered_list_are_text() -> None:
    text = (
        "# R\n\nTemplates use handlebars.1 Growth reached 42%.² See [^a].\n\n[^a]: Smith, J. (2020). T. J.\n"
    )
    submission = parse_markdown(text, "r.md")
    at = _at(text, "[^a]")
    assert _markers(text, submission) == [("[^a]", at, at + 4, ("^a",))]
    assert "handlebars.1 Growth" in submission.claims[0].text


def test_bracket_variants_of_chat_exports() -> None:
    text = "# R\n\nFirst [^1,^2] then 【3】 and [2†source] and 【1†source】 and [1-3]." + NUMBERED
    submission = parse_markdown(text, "r.md")
    got = _markers(text, submission)
    assert got == [
        ("[^1,^2]", _at(text, "[^1"), _at(text, "[^1") + 7, ("1", "2")),
        ("【3】", _at(text, "【3"), _at(text, "【3") + 3, ("3",)),
        ("[2†source]", _at(text, "[2†"), _at(text, "[2†") + 10, ("2",)),
        ("【1†source】", _at(text, "【1"), _at(text, "【1") + 10, ("1",)),
        ("[1-3]", _at(text, "[1-3]"), _at(text, "[1-3]") + 5, ("1", "2", "3")),
    ]
    assert submission.claims[0].text == "First then and and and."


def test_a_marker_naming_no_entry_suggests_the_likely_one() -> None:
    text = (
        "# R\n\nA claim (Smith, 2021) and (Smiht, 2020) and [^7] here [^1].\n\n"
        "[^1]: Jones, K. (2019). Other. J.\n\n## References\n\n"
        "1. Smith, J. (2020). Something else entirely. Journal of Things.\n"
        "7. Lee, K. (2018). A seventh work. Journal.\n"
    )
    submission = parse_markdown(text, "r.md")
    messages = [n.message for n in submission.notes if n.code == "E_MARKER_UNDEFINED"]
    assert messages == [
        "the marker (Smith, 2021) names 'Smith 2021', which no entry of the references defines; "
        "did you mean [1] (line 9:4)?",
        "the marker (Smiht, 2020) names 'Smiht 2020', which no entry of the references defines; "
        "did you mean [1] (line 9:4)?",
        "the marker [^7] names '^7', which no entry of the references defines; did you mean [7] (line 10:4)?",
    ]


def test_a_label_in_another_case_is_suggested_not_linked() -> None:
    text = "# R\n\nAttention replaced recurrence [S1].\n\n## Sources\n\n[s1] Vaswani, A. (2017). Attention Is All You Need.\n"
    submission = parse_markdown(text, "r.md")
    messages = [n.message for n in submission.notes if n.code == "E_MARKER_UNDEFINED"]
    assert messages == [
        "the marker [S1] names 'S1', which no entry of the references defines; did you mean [s1] (line 7:1)?"
    ]


SECTION = """# Report on Chains (2025)

## Growth (2024) [1]

Interoperability grew 40% in 2024 [1]. Bridges lost $2 billion [2]. Adoption doubled [3].

**Citations:**

1. [CoinLaw - Blockchain Interoperability Statistics 2025](https://coinlaw.io/blockchain-interoperability-statistics/)
2. [Chainalysis report](https://www.chainalysis.com/blog/bridges?utm_source=x)
3. https://coinlaw.io/blockchain-interoperability-statistics

*This report is current as of July 18, 2025.*

## Источники

- Smith, J. (2020). Something. Journal.

### 参考文献

Note: all sources were accessed in July 2025.
"""


def test_a_bold_label_opens_a_references_section_and_notes_are_no_entries() -> None:
    submission = parse_markdown(SECTION, "r.md")
    # The heading carries a marker and a year: a heading is never a claim.
    assert [(c.id, c.text, c.origin) for c in submission.claims] == [
        ("c001", "Interoperability grew 40% in 2024.", "line 5:1"),
        ("c002", "Bridges lost $2 billion.", "line 5:40"),
        ("c003", "Adoption doubled.", "line 5:69"),
    ]
    sources = [
        (c.id, c.source.kind, getattr(c.source, "title", None), c.origin)
        for c in submission.claims[0].citations
    ]
    assert sources == [
        ("1", "url", "CoinLaw - Blockchain Interoperability Statistics 2025", "line 5:35"),
    ]
    assert [c.id for c in submission.citations] == ["smith2020"]  # the Russian heading's entry
    assert [(n.code, n.origin, n.message) for n in submission.notes] == [
        (
            "W_REFERENCE_DUPLICATE",
            "line 11:4",
            "[3] names the same work as [1] (line 9:4): url https://coinlaw.io/blockchain-interoperability-statistics",
        ),
        (
            "W_REFERENCE_UNUSED",
            "line 17:3",
            "the entry at line 17:3 is never cited: no marker of the report names it",
        ),
        ("W_REFERENCES_EMPTY", "line 19:1", "the references heading has no entries under it"),
    ]


def test_a_checkable_sentence_without_a_marker_in_a_citing_paragraph_is_an_uncited_claim() -> None:
    text = (
        "# R\n\n"
        "Revenue grew 42% in 2024. The model outperforms every baseline. It is widely used [3].\n"
        "Code such as `x = 5` is no statement. A marker never closed [3, 4.\n\n"
        "A paragraph with 17 numbers and no marker at all is not audited.\n" + NUMBERED
    )
    submission = parse_markdown(text, "r.md")
    got = []
    for c in submission.claims:
        assert c.place is not None
        got.append(
            (
                c.text,
                c.place.start,
                c.place.end,
                [m.text for m in c.place.markers],
                [x.id for x in c.citations],
            )
        )
    first, second = _at(text, "Revenue"), _at(text, "The model")
    assert got == [
        ("Revenue grew 42% in 2024.", first, first + 25, [], []),
        ("The model outperforms every baseline.", second, second + 37, [], []),
        ("It is widely used.", _at(text, "It is"), _at(text, "[3].") + 4, ["[3]"], ["3"]),
    ]


def test_a_gemini_export_numbers_after_emphasis_and_quotes() -> None:
    # As Gemini's "Works cited" exports write them: the number after the closing ** or quote.
    text = (
        '# R\n\nThe goal is to **remove ambiguity**.3  \nA model must be a **"polyglot"**.1 It adapts.\n\n'
        "#### **Works cited**\n\n"
        "1. Prompt engineering \\- Wikipedia, accessed on October 5, 2025, "
        "[https://en.wikipedia.org/wiki/Prompt\\_engineering](https://en.wikipedia.org/wiki/Prompt_engineering)  \n"
        "2. Unused entry \\- Example, accessed on October 5, 2025, [https://example.org/](https://example.org/)  \n"
        "3. What Is Prompt Engineering? | IBM, accessed on October 5, 2025, "
        "[https://www.ibm.com/think/topics/prompt-engineering](https://www.ibm.com/think/topics/prompt-engineering)\n"
    )
    submission = parse_markdown(text, "r.md")
    three, one = _at(text, "**.3") + 3, _at(text, "**.1") + 3
    assert _markers(text, submission) == [("3", three, three + 1, ("3",)), ("1", one, one + 1, ("1",))]
    assert [(c.text, [x.source.kind for x in c.citations]) for c in submission.claims] == [
        ("The goal is to remove ambiguity.", ["url"]),
        ('A model must be a "polyglot".', ["url"]),
    ]
    assert [(n.code, n.origin) for n in submission.notes] == [("W_REFERENCE_UNUSED", "line 9:4")]


@pytest.mark.parametrize(
    "sentence",
    [
        "See Fig.3 and Table.2 for the 42 cases.",
        "Python 3.12 and v1.2 ship in 2025.5 builds.",
        "The U.S.2 million figure, e.g.3 ones, vs.2 others, etc.1 stay text.",
        "A torus T², the group Z², 10² cells and 5 km² of land are powers.",
    ],
)
def test_numbers_after_abbreviations_and_numbers_are_no_superscripts(sentence: str) -> None:
    text = "# R\n\n" + sentence + " Cited [3]." + NUMBERED
    submission = parse_markdown(text, "r.md")
    at = _at(text, "[3]")
    assert _markers(text, submission) == [("[3]", at, at + 3, ("3",))]
    # The sentence with numbers and no marker of its own is an uncited claim, read whole.
    assert [c.text for c in submission.claims] == [sentence, "Cited."]


def test_identifiers_inside_links_are_read_as_their_kinds() -> None:
    entries = [
        ("https://link.springer.com/chapter/10.1007/978-3-030-58452-8_13", "doi"),
        ("https://www.emerald.com/insight/content/doi/10.1108/JD-01-2020-0001/full/html", "doi"),
        ("https://journals.sagepub.com/doi/abs/10.1177/0956797620904450", "doi"),
        ("https://dx.doi.org/10.1002/ece3.2314", "doi"),
        ("https://arxiv.org/abs/1706.03762", "arxiv"),
        ("https://arxiv.org/pdf/2503.18970v2.pdf", "arxiv"),
        ("https://arxiv.org/html/2505.12028v1", "arxiv"),
        ("https://pubmed.ncbi.nlm.nih.gov/31452104/", "pmid"),
    ]
    text = "# R\n\nCited " + " ".join(f"[{n}]" for n in range(1, len(entries) + 1)) + ".\n\n## Sources\n\n"
    text += "".join(
        f"{n}. Title {n}, accessed on October 5, 2025, [{u}]({u})\n" for n, (u, _) in enumerate(entries, 1)
    )
    submission = parse_markdown(text, "r.md")
    got = [
        (c.id, c.source.kind, getattr(c.source, "identifier", None)) for c in submission.claims[0].citations
    ]
    assert got == [
        ("1", "doi", entries[0][0]),
        ("2", "doi", entries[1][0]),
        ("3", "doi", entries[2][0]),
        ("4", "doi", entries[3][0]),
        ("5", "arxiv", "10.48550/arxiv.1706.03762"),  # an arXiv id is read as its DOI, less its version
        ("6", "arxiv", "10.48550/arxiv.2503.18970"),
        ("7", "arxiv", "10.48550/arxiv.2505.12028"),
        (
            "8",
            "pmid",
            "31452104",
        ),  # a PubMed link is read as its PMID (tests/formats/test_markdown_pubmed.py)
    ]


def test_a_superscript_number_naming_no_entry_is_text_not_an_error() -> None:
    text = "# R\n\nCosts rose sharply.12 Then growth reached 40%.2" + NUMBERED
    submission = parse_markdown(text, "r.md")
    at = _at(text, "40%.2") + 4
    assert _markers(text, submission) == [("2", at, at + 1, ("2",))]
    assert [n.code for n in submission.notes if n.code == "E_MARKER_UNDEFINED"] == []


CHAPTERS = """# Book

## Chapter 1

Attention works [1]. Recurrence too [2].

### References

1. Vaswani, A. (2017). Attention is all you need. NeurIPS.
2. Hochreiter, S. (1997). Long short-term memory. Neural Computation.

## Chapter 2

Trees grow [1].

### References

1. Oak, T. (2001). On trees. Forestry.
1. Oak, T. (2002). Twice in one list. Forestry.
"""


def test_each_chapter_has_its_own_references() -> None:
    submission = parse_markdown(CHAPTERS, "r.md")
    got = [
        (c.text, [(x.id, getattr(x.source, "title", None)) for x in c.citations]) for c in submission.claims
    ]
    assert got == [
        ("Attention works.", [("1", "Attention is all you need")]),
        ("Recurrence too.", [("2", "Long short-term memory")]),
        ("Trees grow.", [("1-2", "On trees")]),  # chapter 2's entry 1, not chapter 1's
    ]
    assert [(n.code, n.origin, n.message) for n in submission.notes] == [
        (
            "W_LABEL_DUPLICATE",
            "line 19:4",
            "[1] is defined again (line 19:4); markers name the first definition (line 18:4)",
        )
    ]
