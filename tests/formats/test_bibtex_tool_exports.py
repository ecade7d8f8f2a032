"""BibTeX exactly as Zotero (plain, Better BibTeX, Better BibLaTeX), Mendeley Desktop and Google
Scholar export it (tests/formats/bibtex_exports/README.md says where each file came from): what each
entry reads as, its fields, its kind of work and its identifier, and a check against DBLP's form."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeaudit.formats import load_submission
from citeaudit.model import WorkSource
from tests.conftest import run_cli
from tests.dblp_dump import dblp_record, write_dblp

EXPORTS = Path(__file__).parent / "bibtex_exports"


def _sources(name: str) -> dict[str, WorkSource]:
    submission = load_submission(EXPORTS / name)
    assert submission.notes == ()
    out = {}
    for claim in submission.claims:
        (citation,) = claim.citations
        assert isinstance(citation.source, WorkSource), claim.id
        out[claim.id] = citation.source
    return out


def _read(source: WorkSource) -> tuple[object, ...]:
    return (source.kind, source.identifier, source.type, source.container, source.year)


# -- Zotero with Better BibTeX ------------------------------------------------------------------


def test_better_bibtex_preprints_are_their_arxiv_dois_and_their_report_number_no_issue() -> None:
    sources = _sources("zotero_better_bibtex.bib")
    assert list(sources) == [
        "courbariauxBinarizedNeuralNetworks2016a",
        "umurogluFINNFrameworkFast2017",
        "umurogluStreamlinedDeploymentQuantized2018",
    ]
    bnn = sources["courbariauxBinarizedNeuralNetworks2016a"]
    # @misc, publisher arXiv, number = {arXiv:1602.02830}: the DOI names it, the number is no issue.
    assert _read(bnn) == ("doi", "10.48550/arXiv.1602.02830", None, None, 2016)  # ``year = 2016``, bare
    assert bnn.issue is None
    assert bnn.title == (
        "Binarized Neural Networks: Training Deep Neural Networks with Weights and Activations "
        "Constrained to +1 or -1"
    )  # Better BibTeX's double braces around each capitalised run, gone
    assert bnn.authors == ("Courbariaux, Matthieu", "Hubara, Itay", "Soudry, Daniel", "El-Yaniv, Ran",
                           "Bengio, Yoshua")  # fmt: skip
    finn = sources["umurogluFINNFrameworkFast2017"]
    assert _read(finn) == (
        "doi",
        "10.1145/3020078.3021744",
        "proceedings-article",
        "Proceedings of the 2017 ACM/SIGDA International Symposium on Field-Programmable Gate Arrays",
        2017,
    )
    assert (finn.title, finn.pages, finn.issue) == (
        "FINN: A Framework for Fast, Scalable Binarized Neural Network Inference",
        "65–74",
        None,
    )
    streamlined = sources["umurogluStreamlinedDeploymentQuantized2018"]
    assert _read(streamlined) == ("doi", "10.48550/arXiv.1709.04060", None, None, 2018)
    assert streamlined.issue is None


def test_zotero_journal_arxiv_with_its_categories_is_the_preprint_its_eprint_names() -> None:
    sources = _sources("zotero_2020.bib")
    adhikari = sources["adhikari_co-evolving_2018"]
    # journal = {arXiv:1803.10314 [cs]}, eprint = {1803.10314}, eprinttype = {arxiv}
    assert _read(adhikari) == ("arxiv", "10.48550/arXiv.1803.10314", "journal-article", "arXiv:1803.10314 [cs]",
                               2018)  # fmt: skip
    assert sources["schrittwieser_mastering_2019"].identifier == "10.48550/arXiv.1911.08265"
    assert sources["silver_mastering_2017"].identifier == "10.48550/arXiv.1712.01815"
    world = sources["ha_world_2018"]
    # A DOI beside the eprint (Zenodo's copy of World Models) is the entry's identifier.
    assert (world.kind, world.identifier) == ("doi", "10.5281/zenodo.1207631")
    assert world.authors == ("Ha, David", "Schmidhuber, Jürgen")  # J{\"u}rgen


# -- Mendeley Desktop --------------------------------------------------------------------------


def test_mendeley_entries_read_as_the_tool_wrote_them() -> None:
    sources = _sources("mendeley.bib")
    assert len(sources) == 16
    survey = sources["Nguyen-Tuong2011"]
    assert _read(survey) == (
        "doi",
        "10.1007/s10339-011-0404-1",
        "journal-article",
        "Cognitive processing",
        2011,
    )
    assert (survey.title, survey.volume, survey.issue, survey.pages) == (
        "Model learning for robot control: a survey.",
        "12",
        "4",
        "319–40",  # Mendeley's abbreviated page range, read as 319–340 by the pages check
    )
    pnas = sources["Gilbert2002"]
    assert (pnas.identifier, pnas.volume, pnas.pages) == ("10.1073/pnas.072079499", "99 Suppl 3", "7197–8")
    # A web page Mendeley exports as @misc with no year: found by search on its title and author.
    wiki = sources["Wikipedia"]
    assert (wiki.kind, wiki.title, wiki.year, wiki.authors) == (
        "work",
        "Agent-based model",
        None,
        ("Wikipedia",),
    )
    book = sources["Sterling2009"]
    assert (book.kind, book.type, book.year) == ("work", "book", 2009)


def test_an_arxiv_address_in_url_is_not_the_identifier_of_a_journal_paper() -> None:
    """Mendeley's ``url = {http://arxiv.org/pdf/cs/9401101v1}`` for a JAIR article: where the paper
    was read, not what is cited; the entry is found by search on its metadata."""
    nilsson = _sources("mendeley.bib")["Nilsson1994"]
    assert _read(nilsson) == (
        "work",
        "teleo reactive programs for agent control|nilsson|1994",
        "journal-article",
        "Journal of Artificial Intelligence Research",
        1994,
    )


# -- Google Scholar ------------------------------------------------------------------------------


def test_google_scholars_arxiv_preprint_journal_is_the_arxiv_id() -> None:
    sources = _sources("google_scholar.bib")
    # journal={arXiv preprint arXiv:1908.08962v2 }: the version and the space are no part of the id.
    assert _read(sources["turc2019"]) == ("arxiv", "10.48550/arXiv.1908.08962", "journal-article",
                                          "arXiv preprint arXiv:1908.08962v2", 2019)  # fmt: skip
    bert = sources["devlin2018bert"]
    assert _read(bert) == ("arxiv", "10.48550/arXiv.1810.04805", "journal-article", "arXiv preprint arXiv:1810.04805",
                           2018)  # fmt: skip
    assert bert.authors == ("Devlin, Jacob", "Chang, Ming-Wei", "Lee, Kenton", "Toutanova, Kristina")


# -- identifiers as the tools write them ---------------------------------------------------------


def _one(tmp_path: Path, body: str) -> WorkSource:
    path = tmp_path / "refs.bib"
    path.write_text(body, "utf-8")
    (claim,) = load_submission(path).claims
    source = claim.citations[0].source
    assert isinstance(source, WorkSource)
    return source


@pytest.mark.parametrize(
    ("doi", "expected"),
    [
        ("10.1007/978-3-540-89689-0{\\_}23", "10.1007/978-3-540-89689-0_23"),  # Mendeley's escape
        ("10.1007/978-3-540-89689-0\\_23", "10.1007/978-3-540-89689-0_23"),
        ("10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-0", None),  # nothing to unescape
        ("10.1000/a\\%20b", "10.1000/a%20b"),
    ],
)
def test_a_doi_with_latex_escapes_is_the_doi_they_stand_for(
    tmp_path: Path, doi: str, expected: str | None
) -> None:
    source = _one(
        tmp_path, f"@inproceedings{{k, title={{Measuring Vector Fields}}, year={{2008}}, doi={{{doi}}}}}\n"
    )
    assert (source.kind, source.identifier) == ("doi", expected or doi)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        # Mendeley's url of a Scientific Data paper (BU-DiSC/mendeley-library, library.bib, Johnson2016)
        ("http://dx.doi.org/10.1038/sdata.2016.35", ("doi", "10.1038/sdata.2016.35")),
        ("https://doi.org/10.1145/2882903.2882939", ("doi", "10.1145/2882903.2882939")),
        ("http://doi.acm.org/10.1145/329.318578", ("doi", "10.1145/329.318578")),
        ("https://dl.acm.org/doi/10.1145/3020078.3021744", ("doi", "10.1145/3020078.3021744")),
        ("http://dl.acm.org/citation.cfm?id=1807167.1807186", ("work", None)),  # no identifier in it
        (
            "https://link.springer.com/chapter/10.1007/978-3-540-89689-0_23",
            ("doi", "10.1007/978-3-540-89689-0_23"),
        ),
        ("https://link.springer.com/book/10.1007/978-3-540-89689-0", ("work", None)),  # the volume's page
        ("https://dl.acm.org/doi/book/10.1145/3447404", ("work", None)),
        ("http://arxiv.org/abs/1509.06461", ("work", None)),  # where a journal paper was read
    ],
)
def test_a_url_that_names_a_doi_is_the_identifier(
    tmp_path: Path, url: str, expected: tuple[str, str | None]
) -> None:
    source = _one(
        tmp_path,
        "@article{k, title={Scalable SQL and NoSQL data stores}, author={Cattell, Rick},\n"
        f"  journal={{ACM SIGMOD Record}}, year={{2011}}, url={{{url}}}}}\n",
    )
    assert source.kind == expected[0]
    if expected[1] is not None:
        assert source.identifier == expected[1]


@pytest.mark.parametrize("journal", ["", "journal={arXiv}, ", "journal={CoRR}, "])
def test_an_arxiv_url_of_an_entry_with_no_other_venue_is_the_arxiv_id(tmp_path: Path, journal: str) -> None:
    source = _one(
        tmp_path,
        "@article{k, title={Deep Reinforcement Learning with Double Q-learning}, author={van Hasselt, Hado},\n"
        f"  {journal}year={{2015}}, url={{http://arxiv.org/abs/1509.06461}}}}\n",
    )
    assert (source.kind, source.identifier) == ("arxiv", "10.48550/arXiv.1509.06461")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("note", "arXiv: 1312.5602"),  # Zotero's note of an arXiv item
        ("journal", "arXiv preprint arXiv:1312.5602"),  # Google Scholar
        ("journal", "arXiv:1312.5602 [cs]"),  # Zotero
        ("journal", "ArXiv e-prints arXiv:1312.5602"),
    ],
)
def test_an_arxiv_id_named_in_the_venue_or_note_is_the_identifier(
    tmp_path: Path, field: str, value: str
) -> None:
    source = _one(tmp_path, f"@article{{k, title={{Playing Atari with Deep Reinforcement Learning}}, year={{2013}}, "
                            f"{field}={{{value}}}}}\n")  # fmt: skip
    assert (source.kind, source.identifier) == ("arxiv", "10.48550/arXiv.1312.5602")


@pytest.mark.parametrize(
    "journal", ["arXiv", "ArXiv", "arXiv preprint", "Journal of arXiv:1312.5602 Studies"]
)
def test_an_arxiv_venue_without_an_id_is_searched(tmp_path: Path, journal: str) -> None:
    source = _one(tmp_path, f"@article{{k, title={{Playing Atari with Deep Reinforcement Learning}}, "
                            f"author={{Mnih, Volodymyr}}, year={{2013}}, journal={{{journal}}}}}\n")  # fmt: skip
    assert source.kind == "work"


# -- checked against a mirror in DBLP's form -----------------------------------------------------


def test_google_scholar_zotero_and_better_biblatex_entries_checked_against_dblp(here: Path) -> None:
    """scholar_zotero_biblatex.bib: Google Scholar's ``@article`` of a NeurIPS paper in ``Advances in
    neural information processing systems``, Zotero's entry of an ICLR paper with its arXiv address
    as ``url``, and a Better BibLaTeX ``@book`` with ``date`` for its year."""
    vaswani = (
        "Ashish Vaswani and Noam Shazeer and Niki Parmar and Jakob Uszkoreit and Llion Jones and "
        "Aidan N. Gomez and Lukasz Kaiser and Illia Polosukhin"
    )
    records = [  # as DBLP lists the papers: the proceedings records and their CoRR copies
        dblp_record("inproceedings", "conf/nips/VaswaniSPUJGKP17",
                    {"title": "Attention is All you Need.", "author": vaswani, "year": "2017", "booktitle": "NIPS",
                     "pages": "5998-6008"}),
        dblp_record("article", "journals/corr/VaswaniSPUJGKP17",
                    {"title": "Attention Is All You Need.", "author": vaswani, "year": "2017", "journal": "CoRR",
                     "volume": "abs/1706.03762", "doi": "10.48550/arXiv.1706.03762"}),
        dblp_record("inproceedings", "conf/iclr/FrankleC19",
                    {"title": "The Lottery Ticket Hypothesis: Finding Sparse, Trainable Neural Networks.",
                     "author": "Jonathan Frankle and Michael Carbin", "year": "2019", "booktitle": "ICLR"}),
        dblp_record("article", "journals/corr/abs-1803-03635",
                    {"title": "The Lottery Ticket Hypothesis: Finding Sparse, Trainable Neural Networks.",
                     "author": "Jonathan Frankle and Michael Carbin", "year": "2018", "journal": "CoRR",
                     "volume": "abs/1803.03635", "doi": "10.48550/arXiv.1803.03635"}),
    ]  # fmt: skip
    dump = write_dblp(here / "dblp.xml.gz", records)
    assert run_cli("mirror", "import", "--format", "dblp", dump, "--mirror", here / "m.sqlite").code == 0
    bib = here / "refs.bib"
    bib.write_text((EXPORTS / "scholar_zotero_biblatex.bib").read_text("utf-8"), "utf-8")
    result = run_cli("check", bib, "--offline", "--judge", "none", "--mirror", here / "m.sqlite",
                     "--indexes", "", "--out", "report.json")  # fmt: skip
    assert result.code in (1, 3), result.stderr  # the book is in no index here
    rows = {r["claim"]: r for r in json.loads(Path("report.json").read_text("utf-8"))["results"]}
    attention = rows["vaswani2017attention"]
    assert attention["errors"] == []  # not E_WORK_TYPE_MISMATCH: Google Scholar's @article of a NIPS paper
    assert "I_MATCHED_BY_SEARCH" in [f["code"] for f in attention["findings"]]
    lottery = rows["Frankle_Carbin_2019"]
    assert lottery["errors"] == []
    assert "I_MATCHED_BY_SEARCH" in [f["code"] for f in lottery["findings"]]
    assert rows["fredrieke_davidwarland_ea-1999-SpikesExploringNeural"]["errors"] == ["E_WORK_NOT_FOUND"]


def test_better_biblatex_date_is_the_year() -> None:
    sources = _sources("scholar_zotero_biblatex.bib")
    spikes = sources["fredrieke_davidwarland_ea-1999-SpikesExploringNeural"]
    assert (spikes.kind, spikes.type, spikes.year, spikes.title) == (
        "work",
        "book",
        1999,
        "Spikes: Exploring the Neural Code",
    )
    assert spikes.authors == ("Fred Rieke", "David Warland", "Rob de Ruyter van Steveninck", "William Bialek")
    scholar = sources["vaswani2017attention"]
    assert (scholar.kind, scholar.type, scholar.container, scholar.volume) == (
        "work",
        "journal-article",
        "Advances in neural information processing systems",
        "30",
    )
    assert scholar.authors[6] == "Kaiser, Łukasz"  # {\L}ukasz
    # Zotero's plain export: the arXiv address in url beside journal = {ICLR} is where it was read.
    assert sources["Frankle_Carbin_2019"].kind == "work"


@pytest.mark.parametrize(("date", "year"), [("1999", 1999), ("2019-05-06", 2019), ("2019-05", 2019),
                                           ("2019/2020", 2019), ("circa 1999", None), ("", None)])  # fmt: skip
def test_a_biblatex_date_gives_the_year(tmp_path: Path, date: str, year: int | None) -> None:
    source = _one(tmp_path, f"@book{{k, title={{Spikes}}, author={{Rieke, Fred}}, date={{{date}}}}}\n")
    assert source.year == year
