"""BibTeX input: real and fabricated entries from HALLMARK parse, and each
entry is audited by its DOI, its arXiv id, or reported as uncheckable."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeaudit.errors import InputError
from citeaudit.formats import load_submission
from citeaudit.formats.bibtex import _LATEX_RE, _UNESCAPED_RE, _authors, _decoder, _plain, _text
from citeaudit.model import ReferenceSource, WorkSource
from tests.conftest import read_jsonl, run_cli, shared_data


def _bib(row: dict[str, Any]) -> str:
    if row.get("raw_bibtex"):
        return str(row["raw_bibtex"])
    fields = ",\n".join(f"  {k} = {{{v}}}" for k, v in row["fields"].items())
    return f"@{row['bibtex_type']}{{{row['bibtex_key']},\n{fields}\n}}\n"


def _balanced(row: dict[str, Any]) -> bool:
    return all(str(v).count("{") == str(v).count("}") for v in row["fields"].values())


@pytest.fixture(scope="module")
def hallmark_rows() -> list[dict[str, Any]]:
    rows = read_jsonl(shared_data("references", "hallmark", "dev_public.jsonl"))
    seen: set[str] = set()
    unique = []
    for row in rows:
        if row["bibtex_key"] not in seen:
            seen.add(row["bibtex_key"])
            unique.append(row)
    return unique


@pytest.fixture(scope="module")
def hallmark(hallmark_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The entries whose fields are well-formed BibTeX (a few real ones have unbalanced braces)."""
    return [r for r in hallmark_rows if _balanced(r)]


def test_a_real_entry_with_unbalanced_braces_is_a_clear_error(
    hallmark_rows: list[dict[str, Any]], tmp_path: Path
) -> None:
    broken = [r for r in hallmark_rows if not _balanced(r)]
    assert 0 < len(broken) < 0.05 * len(hallmark_rows)
    path = tmp_path / "broken.bib"
    path.write_text(_bib(broken[0]), "utf-8")
    with pytest.raises(InputError) as caught:
        load_submission(path)
    assert caught.value.diagnostics().startswith(f"{path}: line 1: ")


def test_every_hallmark_entry_parses(hallmark: list[dict[str, Any]], tmp_path: Path) -> None:
    path = tmp_path / "hallmark.bib"
    path.write_text("\n".join(_bib(r) for r in hallmark), "utf-8")
    submission = load_submission(path)
    assert submission.format == "bibtex"
    assert [c.id for c in submission.claims] == [r["bibtex_key"] for r in hallmark]
    kinds = Counter(c.citations[0].source.kind for c in submission.claims)
    with_doi = sum(1 for r in hallmark if r["fields"].get("doi"))
    assert kinds["doi"] == with_doi
    # Every entry without an identifier has a title: a work found by search, none left unsearchable.
    assert kinds["work"] == len(hallmark) - kinds["doi"] - kinds["arxiv"]
    assert kinds["reference"] == 0


def test_audit_offline_says_what_it_can(hallmark: list[dict[str, Any]], tmp_path: Path) -> None:
    path = tmp_path / "hallmark.bib"
    path.write_text("\n".join(_bib(r) for r in hallmark), "utf-8")
    out = tmp_path / "report.json"
    (tmp_path / "cache").mkdir()  # an empty cache: a missing one is refused offline
    result = run_cli("check", path, "--offline", "--cache", tmp_path / "cache", "--out", out)
    assert result.code in (1, 3)
    report = json.loads(out.read_text("utf-8"))
    codes = Counter(code for r in report["results"] for code in r["errors"])
    assert set(codes) <= {"E_NOT_CACHED", "E_DOI_SYNTAX"}  # DOIs and searches alike: nothing pinned
    assert codes["E_NOT_CACHED"] == sum(
        1 for r in report["results"] if r["source"]["kind"] in ("doi", "work")
    )


def test_fields_are_mapped(tmp_path: Path) -> None:
    path = tmp_path / "refs.bib"
    path.write_text(
        "@article{lee2022, title={Structured {F}ourier Attention}, author={Lee, Yoonwoo and Kang, J. and others},"
        " year={2022}, doi={10.1002/ece3.2314}, journal={Ecology and Evolution}}\n"
        "@misc{preprint, title={Red-Teaming}, eprint={2310.01362v2}, archivePrefix={arXiv}}\n"
        "@book{nobody, title={A Book Without Identifiers}, author={Smith, A.}, year={1999}}\n"
        "@misc{untitled, author={Smith, A.}, year={1999}}\n",
        "utf-8",
    )
    first, second, third, fourth = (c.citations[0].source for c in load_submission(path).claims)
    assert first == WorkSource("10.1002/ece3.2314", "Structured Fourier Attention", 2022, "Lee, Yoonwoo",
                              ("Lee, Yoonwoo", "Kang, J.", "others"), "Ecology and Evolution",
                              type="journal-article")  # fmt: skip
    assert isinstance(second, WorkSource)
    assert (second.kind, second.identifier) == ("arxiv", "10.48550/arXiv.2310.01362")
    assert third == WorkSource("a book without identifiers|smith|1999", "A Book Without Identifiers", 1999,
                              "Smith, A.", ("Smith, A.",), type="book", kind="work")  # fmt: skip
    assert fourth == ReferenceSource(None, 1999, "Smith, A.")  # nothing to search by


def test_pubmed_fields_and_links_are_the_work_s_identifier(tmp_path: Path) -> None:
    """``pmid`` / ``pmcid`` fields as PubMed exporters and Better BibTeX write them, and a PubMed or
    PMC page as the ``url``; a DOI, where there is one, stays the identifier."""
    path = tmp_path / "refs.bib"
    path.write_text(
        "@article{Doi2020, author={Doi, Mitsuharu and Hirata, Nobuhiro}, title={Remimazolam versus midazolam"
        " for procedural sedation}, journal={Anesthesiology}, year={2020}, pmid={30217674}}\n"
        "@article{b, title={An article in PMC}, author={Roe, J.}, year={2019}, pmcid={pmc6718211}}\n"
        "@article{c, title={Read on PubMed}, author={Roe, J.}, year={2016},"
        " url={https://pubmed.ncbi.nlm.nih.gov/27933103/}}\n"
        "@article{d, title={Read in PMC}, author={Roe, J.}, year={2019},"
        " url={https://www.ncbi.nlm.nih.gov/pmc/articles/PMC6718211/}}\n"
        "@article{e, title={Both}, author={Roe, J.}, year={2020}, doi={10.1097/ALN.0000000000002435},"
        " pmid={30217674}}\n"
        "@article{f, title={Not a PMID}, author={Roe, J.}, year={2020}, pmid={n/a}}\n",
        "utf-8",
    )
    sources = [c.citations[0].source for c in load_submission(path).claims]
    assert all(isinstance(s, WorkSource) for s in sources)
    assert [(s.kind, s.identifier) for s in sources if isinstance(s, WorkSource)] == [
        ("pmid", "30217674"),
        ("pmcid", "PMC6718211"),
        ("pmid", "27933103"),
        ("pmcid", "PMC6718211"),
        ("doi", "10.1097/ALN.0000000000002435"),
        ("work", "not a pmid|roe|2020"),  # an unreadable pmid: found by search, never a wrong id
    ]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "@article{a, title={unclosed\n",
            "line 1: Unexpectedly reached end of file (the block starting '@article{a, title={unclosed\\n')",
        ),
        ("% only a comment\n", "no BibTeX entries found"),
    ],
)
def test_bad_bibtex_is_an_input_error(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "bad.bib"
    path.write_text(text, "utf-8")
    with pytest.raises(InputError) as caught:
        load_submission(path)
    assert caught.value.diagnostics().startswith(f"{path}: {problem}")


def test_bad_bibtex_on_the_command_line_is_one_line_on_stderr(tmp_path: Path) -> None:
    """In a real process: the parser's own log lines stayed on stderr beside the error before."""
    path = tmp_path / "bad.bib"
    path.write_text(
        "@article{k1,\n  title = {Demo},\n  year = {2024},\n}\n@article{k2 title = {X}}\n", "utf-8"
    )
    out = tmp_path / "r.json"
    argv = [sys.executable, "-m", "citeaudit", "check", str(path), "--offline", "--out", str(out)]
    result = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=120)
    assert (result.returncode, result.stderr) == (
        2,
        f"citeaudit: error: {path}: line 5: Expected comma after entry key, but found = "
        "(the block starting '@article{k2 title =')\n",
    )
    assert not out.exists()


def test_hallmark_author_and_venue_entries_say_what_they_can_offline(
    hallmark: list[dict[str, Any]], tmp_path: Path
) -> None:
    """Entries HALLMARK labels as wrong authors or venue: they parse with all their authors and
    their venue; offline, with nothing cached, a DOI and a search alike could not be checked."""
    kinds = {"swapped_authors", "partial_author_list", "placeholder_authors", "wrong_venue", "nonexistent_venue",
             "preprint_as_published"}  # fmt: skip
    rows = [r for r in hallmark if r.get("hallucination_type") in kinds]
    assert len(rows) > 150
    path = tmp_path / "authors_venues.bib"
    path.write_text("\n".join(_bib(r) for r in rows), "utf-8")
    submission = load_submission(path)
    for claim, row in zip(submission.claims, rows, strict=True):
        source = claim.citations[0].source
        named = [n for n in re.split(r"\s+and\s+", row["fields"].get("author", "")) if n.strip()]
        if isinstance(source, WorkSource):
            assert len(source.authors) == len(named)
            assert source.container == (row["fields"].get("journal") or row["fields"].get("booktitle"))
    out = tmp_path / "report.json"
    (tmp_path / "cache").mkdir()  # an empty cache: a missing one is refused offline
    result = run_cli("check", path, "--offline", "--cache", tmp_path / "cache", "--out", out)
    assert result.code == 3
    codes = Counter(code for r in json.loads(out.read_text("utf-8"))["results"] for code in r["errors"])
    assert set(codes) == {"E_NOT_CACHED"}


@settings(max_examples=500)
@given(st.text(alphabet=st.sampled_from(list("AB and{} \t\n")), max_size=30))
def test_authors_split_as_the_pattern_did(value: str) -> None:
    """ "\\s+and\\s+" was quadratic in a long run of spaces; the split is the same."""
    old = [_plain(n) for n in re.split(r"\s+and\s+", value) if n.strip()]
    assert list(_authors(value)) == [n for n in old if n.lower() not in {"others", "et al."}]


def test_a_long_run_of_spaces_in_an_author_field() -> None:
    assert _authors("Smith, A." + " " * 100_000 + "and Jones, B.") == ("Smith, A.", "Jones, B.")


def _sources(tmp_path: Path, text: str) -> dict[str, Any]:
    path = tmp_path / "refs.bib"
    path.write_text(text, "utf-8")
    return {c.id: c.citations[0].source for c in load_submission(path).claims}


@pytest.mark.parametrize(
    ("latex", "unicode"),
    [
        (r"Heged{\H u}s", "Hegedűs"),
        (r"Erd{\H o}s", "Erdős"),
        (r"Schr\"odinger", "Schrödinger"),
        (r"{\AA}str{\"o}m", "Åström"),
        (r"S{\o}ndergaard", "Søndergaard"),
        (r"Rei{\ss}", "Reiß"),
        (r"Tom\'{a}\v{s} Mikolov", "Tomáš Mikolov"),
        (r"{\L}ukasz Kaiser", "Łukasz Kaiser"),
        (r"Fran\c{c}ois", "François"),
    ],
)
def test_latex_accents_in_names_are_decoded(tmp_path: Path, latex: str, unicode: str) -> None:
    sources = _sources(tmp_path, f"@article{{k, author={{{latex} and Smith, J.}}, doi={{10.1/k}}}}\n")
    assert sources["k"].authors == (unicode, "Smith, J.")
    assert sources["k"].first_author == unicode


def test_latex_in_titles_venues_and_pages(tmp_path: Path) -> None:
    sources = _sources(
        tmp_path,
        r"@article{k, title={Min{\H o}s{\'e}g and {GPT}-4: 100\% of {R\&D}, 50% of R&D}, "
        r"journal={Journal of Physics A: Mathematical and General \& Theoretical}, pages={12--19},"
        r" doi={10.1/k_x}}" + "\n",
    )
    source = sources["k"]
    assert source.title == "Minőség and GPT-4: 100% of R&D, 50% of R&D"
    assert source.container == "Journal of Physics A: Mathematical and General & Theoretical"
    assert source.pages == "12–19"
    assert source.identifier == "10.1/k_x"  # identifiers are not read as LaTeX


def test_braces_nested_past_the_decoder_keep_only_the_braces_out(tmp_path: Path) -> None:
    deep = "{" * 2000 + "Deep Title" + "}" * 2000
    assert _sources(tmp_path, f"@article{{k, title={{{deep}}}, doi={{10.1/k}}}}\n")["k"].title == "Deep Title"


def test_string_macros_and_concatenation(tmp_path: Path) -> None:
    sources = _sources(
        tmp_path,
        '@string{neurips = "Advances in Neural Information Processing Systems"}\n'
        "@STRING{NeurIPS33 = neurips # { 33}}\n"
        '@inproceedings{a, title = "Attention" # " is " # {All You Need}, booktitle = NEURIPS33,'
        " year = 2017, doi = {10.1/a}}\n"
        '@article{b, title = "Quoted" # "Parts", journal = neurips, month = jan, doi = {10.1/b}}\n'
        "@article{c, title = {A # in braces}, journal = undefinedmacro # { X}, doi = {10.1/c}}\n",
    )
    assert (sources["a"].title, sources["a"].container) == (
        "Attention is All You Need",
        "Advances in Neural Information Processing Systems 33",
    )
    assert (sources["b"].title, sources["b"].container) == (
        "QuotedParts",
        "Advances in Neural Information Processing Systems",
    )
    assert (sources["c"].title, sources["c"].container) == ("A # in braces", "undefinedmacro X")


def test_crossref_children_inherit_and_the_parent_is_not_audited(tmp_path: Path) -> None:
    sources = _sources(
        tmp_path,
        "@inproceedings{paper, author = {Smith, J.}, title = {A Paper}, crossref = {ICML2023},"
        " doi = {10.1/paper}, pages = {1--9}}\n"
        "@inproceedings{other, author = {Jones, K.}, title = {Another}, crossref = {icml2023},"
        " booktitle = {Proc. ICML}, doi = {10.1/other}}\n"
        "@inproceedings{orphan, title = {No Parent}, crossref = {missing}, doi = {10.1/orphan}}\n"
        "@proceedings{ICML2023, title = {Proceedings of the 40th International Conference on Machine"
        " Learning}, year = 2023, volume = {202}, publisher = {PMLR}, doi = {10.5555/volume}}\n",
    )
    assert set(sources) == {"paper", "other", "orphan"}
    paper = sources["paper"]
    assert (paper.identifier, paper.title, paper.year, paper.volume, paper.pages) == (
        "10.1/paper",
        "A Paper",
        2023,
        "202",
        "1–9",
    )
    assert paper.container == "Proceedings of the 40th International Conference on Machine Learning"
    assert sources["other"].container == "Proc. ICML"  # its own booktitle wins
    assert (sources["orphan"].year, sources["orphan"].container) == (None, None)


@settings(max_examples=500)
@given(st.text(alphabet=st.sampled_from(list("Ab {}-'`!?.,:%&#\"é\t")), max_size=30))
def test_text_without_latex_takes_the_fast_path_to_the_same_text(value: str) -> None:
    """Only braces to decode: the text is what pylatexenc would make of it."""
    if _LATEX_RE.search(value) is None:
        decoded = _decoder().latex_to_text(_UNESCAPED_RE.sub(r"\\\g<0>", value))
        assert _text(value) == " ".join(decoded.split())


# -- BibTeX as the tools export it ---------------------------------------------------------


def test_a_duplicate_key_is_a_warning_and_the_rest_is_checked(tmp_path: Path) -> None:
    path = tmp_path / "refs.bib"
    path.write_text(
        "@article{a, title={First}, year={2020}}\n@article{a, title={Second}, year={2021}}\n"
        "@article{b, title={Third}, year={2022}}\n",
        "utf-8",
    )
    submission = load_submission(path)
    assert [c.id for c in submission.claims] == ["a", "b"]
    assert [c.citations[0].source.title for c in submission.claims] == ["First", "Third"]  # type: ignore[union-attr]
    (note,) = submission.notes
    assert (note.code, note.origin, note.claim_id) == ("W_REFERENCE_DUPLICATE", "line 2", None)
    assert (
        note.message == "the entry key 'a' is used again; the first entry (line 1) is checked, not this one"
    )


def test_an_author_listed_twice_is_one_author(tmp_path: Path) -> None:
    path = tmp_path / "refs.bib"
    path.write_text(
        "@article{k, title={A Title}, author={Sun, Liyang and Abraham, Sarah and Sun, Liyang}, year={2021}}\n",
        "utf-8",
    )
    (claim,) = load_submission(path).claims
    assert claim.citations[0].source.authors == ("Sun, Liyang", "Abraham, Sarah")  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "eprint",
    [
        "http://arxiv.org/abs/1312.6114v10",
        "https://arxiv.org/abs/1312.6114",
        "https://arxiv.org/pdf/1312.6114v3.pdf",
    ],
)
def test_an_eprint_given_as_its_address_is_the_arxiv_id(tmp_path: Path, eprint: str) -> None:
    path = tmp_path / "refs.bib"
    path.write_text(
        "@misc{kingma, title={Auto-Encoding Variational Bayes}, author={Kingma, Diederik P. and Welling, Max},\n"
        f"  year={{2013}}, eprint={{{eprint}}}, eprinttype={{arXiv}}}}\n",
        "utf-8",
    )
    (claim,) = load_submission(path).claims
    source = claim.citations[0].source
    assert isinstance(source, WorkSource)
    assert (source.kind, source.identifier) == ("arxiv", "10.48550/arXiv.1312.6114")
