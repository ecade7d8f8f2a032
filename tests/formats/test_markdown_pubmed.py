"""PubMed and PMC identifiers in research reports and in claims: a reference list's PubMed,
PMC and Europe PMC links and its ``PMID:`` / ``PMCID:`` labels, inline links to those pages,
and the ``pmid`` / ``pmcid`` fields of the claims JSON, each read as its own kind at its exact
place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeaudit.formats import parse_document
from citeaudit.formats.markdown_report import parse_markdown
from citeaudit.formats.reference_entries import classify_url, entry_identifiers
from citeaudit.identifiers.pubmed import PMID
from citeaudit.model import WorkSource
from tests.conftest import run_cli

# Reference-list entries as Gemini's and ChatGPT's research exports write them: a page title, the
# site, an access date and the link; and as a bibliography writes them, with a PMID label.
REPORT = (
    "# Community detection\n"
    "\n"
    "Modularity has a resolution limit [1]. Spatially constrained Louvain delineates service areas [2]. "
    "The limit was shown on real networks ([PubMed](https://pubmed.ncbi.nlm.nih.gov/17190818/)).\n"
    "\n"
    "Hyperactivity rose with additives [3], and a PMC record says so too [4].\n"
    "\n"
    "## Sources\n"
    "\n"
    "1. Resolution limit in community detection - PubMed, accessed on November 13, 2025, "
    "https://pubmed.ncbi.nlm.nih.gov/17190818/\n"
    "2. Network Optimization Approach to Delineating Health Care Service Areas: Spatially Constrained "
    "Louvain and Leiden Algorithms - PMC - NIH, accessed on November 13, 2025, "
    "https://pmc.ncbi.nlm.nih.gov/articles/PMC8386167/\n"
    "3. McCann, D., et al. (2007). Food additives and hyperactive behaviour in 3-year-old and "
    "8/9-year-old children in the community. Lancet, 370(9598), 1560-1567. PMID: 17825405\n"
    "4. [Europe PMC record](https://europepmc.org/article/MED/17825405); PMCID: PMC5122160\n"
)


def _citations(text: str) -> list[tuple[str, str, str, str, str | None, str | None]]:
    """(claim, citation, kind, identifier, cited title, where the marker is: line and column)."""
    submission = parse_markdown(text, "r.md")
    out: list[tuple[str, str, str, str, str | None, str | None]] = []
    for claim in submission.claims:
        for citation in claim.citations:
            source = citation.source
            assert isinstance(source, WorkSource)
            out.append((claim.id, citation.id, source.kind, source.identifier, source.title, citation.origin))
    return out


def test_pubmed_and_pmc_links_and_labels_are_read_as_their_kinds() -> None:
    got = _citations(REPORT)
    assert got == [
        ("c001", "1", "pmid", "17190818", None, "line 3:35"),
        ("c002", "2", "pmcid", "PMC8386167", None, "line 3:95"),
        # The inline link names the PubMed record the first entry names: the same citation.
        ("c003", "1", "pmid", "17190818", None, "line 3:138"),
        (
            "c004",
            "3",
            "pmid",
            "17825405",
            "Food additives and hyperactive behaviour in 3-year-old and 8/9-year-old children in the community",
            "line 5:35",
        ),
        # An entry naming a PMID and a PMCID is cited as both, the first by its number.
        ("c004", "4", "pmid", "17825405", None, "line 5:69"),
        ("c004", "4@pmcid", "pmcid", "PMC5122160", None, "line 5:69"),
    ]


def test_markers_name_their_entries_at_their_exact_ranges() -> None:
    submission = parse_markdown(REPORT, "r.md")
    spans = []
    for claim in submission.claims:
        assert claim.place is not None
        for m in claim.place.markers:
            assert REPORT[m.start : m.end] == m.text
            spans.append((m.text, m.start, m.citations))
    link = REPORT.index("[PubMed]")
    assert spans == [
        ("[1]", REPORT.index("[1]"), ("1",)),
        ("[2]", REPORT.index("[2]"), ("2",)),
        ("[PubMed](https://pubmed.ncbi.nlm.nih.gov/17190818/)", link, ("1",)),
        ("[3]", REPORT.index("[3]"), ("3",)),
        ("[4]", REPORT.index("[4]"), ("4", "4@pmcid")),
    ]


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("https://pubmed.ncbi.nlm.nih.gov/17190818/", "pmid"),
        ("https://www.ncbi.nlm.nih.gov/pubmed/17190818", "pmid"),
        ("https://europepmc.org/article/MED/17190818", "pmid"),
        ("https://www.ncbi.nlm.nih.gov/pmc/articles/PMC8386167/", "pmcid"),
        ("https://pmc.ncbi.nlm.nih.gov/articles/PMC8386167/", "pmcid"),
        ("https://europepmc.org/articles/PMC8386167", "pmcid"),
        ("https://pubmed.ncbi.nlm.nih.gov/?term=louvain", "url"),
        ("https://www.ncbi.nlm.nih.gov/books/NBK25501/", "url"),
    ],
)
def test_links_are_classified_by_the_page_they_name(url: str, kind: str) -> None:
    assert classify_url(url) == (kind, url)


def test_labels_glued_or_apart_and_a_bare_pmcid_are_identifiers() -> None:
    words = ["Lancet.", "2007.", "PMID:17825405", "PMCID:", "PMC5122160", "see", "PMC8386167."]
    ids = entry_identifiers(words, [])
    assert (ids.pmid, ids.pmcid) == ("PMID:17825405", "PMC5122160")
    assert ids.words == frozenset({2, 3, 4, 6})  # every identifier word, the first of a kind kept
    assert ids.kinds() == [("pmid", "PMID:17825405"), ("pmcid", "PMC5122160")]
    # A number after a label that is no identifier stays a word of the entry.
    assert entry_identifiers(["PMID:", "none"], []).kinds() == []


def test_claims_json_names_a_work_by_pmid_or_pmcid() -> None:
    data = {
        "claims": [
            {
                "id": "c1",
                "text": "Hyperactivity rose with additives.",
                "citations": [
                    {"id": "a", "pmid": "PMID: 17825405", "title": "Food additives", "year": 2007},
                    {"id": "b", "pmcid": "pmc5122160", "first_author": "Scalfani"},
                ],
            }
        ]
    }
    submission = parse_document(data, "claims.json")
    a, b = (c.source for c in submission.claims[0].citations)
    assert a == WorkSource("17825405", "Food additives", 2007, kind="pmid")
    assert b == WorkSource("PMC5122160", first_author="Scalfani", kind="pmcid")


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        (
            "pmid",
            "PMC5122160",
            "'PMC5122160' is not a PubMed identifier (expected digits: 31452104 or PMID: 31452104)",
        ),
        (
            "pmcid",
            "17825405",
            "'17825405' is not a PubMed Central identifier (expected PMC and digits: PMC6718211)",
        ),
    ],
)
def test_a_malformed_pmid_or_pmcid_is_the_citations_syntax_error_and_the_rest_is_audited(
    field: str, value: str, message: str, tmp_path: Path
) -> None:
    """As a malformed DOI is E_DOI_SYNTAX: one bad identifier does not refuse the whole answer."""
    data = {"claims": [
        {"id": "c1", "text": "t", "citations": [{"id": "a", field: value}]},
        {"id": "c2", "text": "u", "citations": []},
    ]}  # fmt: skip
    path = tmp_path / "claims.json"
    path.write_text(json.dumps(data), "utf-8")
    result = run_cli("check", path, "--offline", "--judge", "none", "--out", tmp_path / "report.json")
    assert result.code == 1, result.stderr
    report = json.loads((tmp_path / "report.json").read_text("utf-8"))
    (first, second) = report["results"]
    assert [(f["code"], f["message"], f["outcome"]) for f in first["findings"]] == [
        (f"E_{field.upper()}_SYNTAX", message, "wrong")
    ]
    assert [f["code"] for f in second["findings"]] == ["E_UNCITED"]


AGENT_REPORT = Path(__file__).parent / "markdown_pubmed" / "chewber_E102_excerpt.md"


def test_a_real_agent_reports_pubmed_sources_are_pmids() -> None:
    """The sources of a research report an agent wrote (see markdown_pubmed/README.md): each
    PubMed link is that PMID; a DOI and a URL stay what they are."""
    sources = AGENT_REPORT.read_text("utf-8").split("## Sources\n", 1)[1].splitlines()
    got = {}
    for line in sources:
        words = line.removeprefix("- ").split()
        got[words[0].strip("*[]")] = [
            (kind, PMID.normalise(value) if kind == "pmid" else value)
            for kind, value in entry_identifiers(words, []).kinds()
        ]
    assert {label: kinds for label, kinds in got.items() if any(k == "pmid" for k, _ in kinds)} == {
        "S10": [("pmid", "35484553")],
        "S11": [("pmid", "41297657")],
        "S12": [("pmid", "40968326")],
        "S13": [("pmid", "40848430")],
        "S14": [("pmid", "40638124")],
        "S15": [("pmid", "17825405")],
    }
    assert got["S2"] == [
        ("doi", "10.2903/j.efsa.2009.1331"),
        ("url", "https://api.crossref.org/works/10.2903/j.efsa.2009.1331"),
    ]
    assert all(kinds == [("url", kinds[0][1])] for label, kinds in got.items() if label in {"S1", "S3", "S9"})
