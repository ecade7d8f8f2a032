"""Fuzzing each dump format the mirror imports (DBLP XML, Crossref JSON, OpenAlex and arXiv JSON
Lines) and the citations of works checked against a mirror.

A dump: the real samples of ``data/`` (and the real Crossref messages of the shared data) with
bytes edited, or with any JSON value anywhere in a record. Each file is read as ``mirror import``
reads it: every unit a record whose strings UTF-8 can write (the mirror, its index and the reports
are UTF-8) or a counted skip; a file that cannot be read at all a one-line error naming it. A work
citation: any title, first author and year, checked offline against a mirror: a report, never a
crash. The example counts are the suite's (``FUZZ_EXAMPLES`` raises them: ``make fuzz``)."""

from __future__ import annotations

import dataclasses
import gzip
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from citeaudit.mirror import MirrorError
from citeaudit.mirror.interface import MirrorRecord, Skip
from citeaudit.mirror.load import importer
from tests.conftest import SHARED_DATA, run_cli
from tests.dblp_dump import sample_mirror
from tests.formats.fuzzing import BYTE_TOKENS, fuzz_settings, json_values, mutated, replaced_nodes
from tests.mirror.dumps import DATA

_SURROGATES = ['"\\ud800"', '"a\\udfffb"', '"\\ud83d\\ude00"']  # a lone one decodes as written
_JSON_TOKENS = [*'{}[]",:', "null", "true", "-0", "1e999", "9" * 400, "[" * 300, '"\\u0000"', *_SURROGATES,
                '"title"', '"id"', '"DOI"', '"author"', '"authors_parsed"', '"authorships"', '"display_name"',
                '"abstract_inverted_index"', '"publication_year"', '"issued"', '"versions"', "\n", "\u2028"]  # fmt: skip
_XML_TOKENS = [*(t.encode() for t in ("<", ">", "&", ";", "/", '"', "=", "\n", "<!--", "]]>", "<![CDATA[",
               "&uuml;", "&nosuch;", "&#0;", "&#xD800;", "&#233;", "<title>", "</title>", "<author>", "<i>",
               "</i>", "<ee>https://doi.org/10.1/x</ee>", "<year>-1</year>", "<article key=\"a\">",
               "</article>", "<www key=\"homepages/x\">", '<!ENTITY x "y">', "<!DOCTYPE dblp SYSTEM \"x.dtd\">",
               "<" * 300)), b"\xe9", *BYTE_TOKENS]  # fmt: skip


def _lines(path: Path) -> list[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return [line.rstrip("\n") for line in fh if line.strip()]


_ARXIV = _lines(DATA / "arxiv" / "arxiv-metadata-oai-snapshot.json")
_OPENALEX = [*_lines(DATA / "openalex" / "part_000.gz"), *_lines(DATA / "openalex" / "part_001.gz")]
_DBLP = (DATA / "dblp" / "sample.xml").read_bytes()


def _crossref_items() -> list[str]:
    """A few real REST messages as the public data file's items; one minimal work without them."""
    items = ['{"DOI": "10.1/a", "title": ["A title"], "author": [{"family": "Smith", "given": "A."}]}']
    path = SHARED_DATA / "registry" / "crossref_works.jsonl"
    if path.exists():
        with path.open(encoding="utf-8") as fh:
            items += [json.dumps(json.loads(line)["message"]) for _, line in zip(range(12), fh, strict=False)]
    return items


_CROSSREF = _crossref_items()


def _read(fmt: str, target: Path) -> list[Any]:
    """Every unit of the dump, as import reads it (rows) and as records (units); a one-line
    MirrorError naming the file is an answer too."""
    module = importer(fmt)
    out: list[Any] = []
    try:
        for dump in module.files(str(target)):
            name = dump.name
            for row in module.rows(dump, 0, 1 << 20):
                assert isinstance(row, (tuple, Skip)), row
                if isinstance(row, tuple):
                    for part in row:
                        if isinstance(part, str):
                            part.encode("utf-8")  # what SQLite writes
                    out.append(row)
            for unit in module.units(dump, 0, 1 << 20):
                assert isinstance(unit, (MirrorRecord, Skip)), unit
                if isinstance(unit, MirrorRecord):  # what a report says of the work
                    json.dumps(dataclasses.asdict(unit), ensure_ascii=False, default=repr).encode("utf-8")
    except MirrorError as e:
        message = str(e)
        assert "\n" not in message, message
        assert message.startswith(f"{name}: ") or message.startswith(f"{target}: "), message
    return out


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder the examples write their dump into (each example overwrites the one before)."""
    path = tmp_path_factory.mktemp("fuzz")
    shutil.copy(DATA / "dblp" / "dblp.dtd", path / "dblp.dtd")
    (path / "cache").mkdir()  # an empty cache: offline, a missing one refuses the whole check
    return path


def test_the_seeds_import(folder: Path) -> None:
    """The fuzzers start from dumps that give records."""
    (folder / "dblp.xml").write_bytes(_DBLP)
    assert len(_read("dblp", folder / "dblp.xml")) == 4
    (folder / "arxiv.json").write_text("\n".join(_ARXIV) + "\n", "utf-8")
    assert len(_read("arxiv", folder / "arxiv.json")) == 2
    (folder / "openalex.jsonl").write_text("\n".join(_OPENALEX) + "\n", "utf-8")
    assert len(_read("openalex", folder / "openalex.jsonl")) == 2
    (folder / "crossref.json").write_text('{"items": [' + ", ".join(_CROSSREF) + "]}", "utf-8")
    assert (
        len(_read("crossref", folder / "crossref.json")) >= len(_CROSSREF) - 1
    )  # one real work has no title


@fuzz_settings(60)
@given(mutated([_DBLP], _XML_TOKENS))
def test_dblp_xml_with_bytes_edited(folder: Path, data: bytes) -> None:
    (folder / "dblp.xml").write_bytes(data)
    _read("dblp", folder / "dblp.xml")


def _json_lines(seeds: list[str]) -> st.SearchStrategy[str]:
    """Lines of a JSON Lines dump: real ones edited as text, real ones with a value replaced
    anywhere, any JSON value; in files of one to four lines."""
    line = (
        mutated(seeds, _JSON_TOKENS)
        | replaced_nodes([s.encode() for s in seeds]).map(lambda b: b.decode("utf-8", "surrogatepass"))
        | json_values().map(json.dumps)
    )
    return st.lists(line, min_size=1, max_size=4).map(lambda lines: "\n".join(lines) + "\n")


@fuzz_settings(60)
@given(_json_lines(_ARXIV))
def test_arxiv_json_lines(folder: Path, text: str) -> None:
    (folder / "arxiv.json").write_text(text, "utf-8", errors="surrogatepass")
    _read("arxiv", folder / "arxiv.json")


@fuzz_settings(60)
@given(_json_lines(_OPENALEX))
def test_openalex_json_lines(folder: Path, text: str) -> None:
    (folder / "openalex.jsonl").write_text(text, "utf-8", errors="surrogatepass")
    _read("openalex", folder / "openalex.jsonl")


@fuzz_settings(60)
@given(
    st.lists(
        mutated(_CROSSREF, _JSON_TOKENS)
        | replaced_nodes([s.encode() for s in _CROSSREF]).map(lambda b: b.decode("utf-8", "surrogatepass"))
        | json_values().map(json.dumps),
        max_size=4,
    ),
    st.booleans(),
)
def test_crossref_items_files(folder: Path, items: list[str], edit_around: bool) -> None:
    text = '{"items": [' + ", ".join(items) + "]}"
    if edit_around:  # the document around the items broken too
        text = text.replace("{", "[", 1) if len(items) % 2 else text[: len(text) // 2]
    (folder / "crossref.json").write_text(text, "utf-8", errors="surrogatepass")
    _read("crossref", folder / "crossref.json")


def test_a_lone_surrogate_in_a_dump_is_a_replacement_character(folder: Path) -> None:
    """Found by the fuzzer: a title or a name with ``\\ud800`` in a JSON dump was an internal error
    (exit 4) of every import."""
    (folder / "arxiv.json").write_text(
        '{"id": "2101.00001", "title": "Bad \\ud800 title", "authors_parsed": [["Sm\\udc00ith", "A", ""]]}\n',
        "utf-8",
    )
    (row,) = _read("arxiv", folder / "arxiv.json")
    assert row[2] == "bad title"  # the title as matched
    assert "Bad \ufffd title".encode() in row[5]  # and as stored
    (folder / "crossref.json").write_text('{"items": [{"DOI": "10.1/a", "title": ["T \\udfff"]}]}', "utf-8")
    (row,) = _read("crossref", folder / "crossref.json")
    assert "T \ufffd".encode() in row[5]


def test_an_unfinished_cdata_section_is_a_one_line_error(folder: Path) -> None:
    """Found by the fuzzer: libxml2 quotes the rest of the dump after the message of an unfinished
    CDATA section, and the error took as many lines."""
    at = _DBLP.index(b"<editor>Frank") + len(b"<editor>")
    (folder / "dblp.xml").write_bytes(_DBLP[:at] + b"<![CDATA[" + _DBLP[at:])
    result = run_cli(
        "mirror", "import", "--format", "dblp", folder / "dblp.xml", "--mirror", folder / "m.sqlite"
    )
    assert result.code == 2
    assert result.stderr == (
        f"citeaudit: error: {folder / 'dblp.xml'}: invalid XML at line 49, column 1: CData section not finished\n"
    )


def test_an_integer_of_5000_digits_in_a_crossref_work_is_read(folder: Path) -> None:
    """Found by the fuzzer: Python's int() refuses more than 4,300 digits, and such a number in a
    Crossref work was an internal error (exit 4) of the import; JSON Lines counted the line skipped."""
    (folder / "crossref.json").write_text(
        '{"items": [{"DOI": "10.1/a", "title": ["A title"], "volume": ' + "9" * 5000 + "}]}", "utf-8"
    )
    (row,) = _read("crossref", folder / "crossref.json")
    assert row[0] == "10.1/a"


def test_a_dtd_named_longer_than_a_file_name_can_be_is_looked_for_as_dblp_dtd(folder: Path) -> None:
    """Found by the fuzzer: a DOCTYPE naming a DTD of 300 characters made the look-up beside the
    dump fail (the file system refuses so long a name): an internal error of the import."""
    named = b'<!DOCTYPE dblp SYSTEM "' + b"x" * 300 + b'.dtd">'
    (folder / "dblp.xml").write_bytes(_DBLP.replace(b'<!DOCTYPE dblp SYSTEM "dblp.dtd">', named))
    assert len(_read("dblp", folder / "dblp.xml")) == 4  # read with the dblp.dtd beside it


@pytest.mark.parametrize("family", [["Smith"], 1.5])
def test_a_crossref_author_whose_family_is_not_text_is_a_counted_skip(folder: Path, family: Any) -> None:
    """Found by the fuzzer: a family name given as a list or a number was an internal error
    (exit 4) of the import."""
    work = {"DOI": "10.1/a", "title": ["A title"], "author": [{"family": family}]}
    (folder / "crossref.json").write_text(json.dumps({"items": [work]}), "utf-8")
    assert _read("crossref", folder / "crossref.json") == []
    (unit,) = importer("crossref").units(
        importer("crossref").files(str(folder / "crossref.json"))[0], 0, 1 << 20
    )
    assert unit == Skip("a work with a field not of the type Crossref gives it")


# -- work citations against a mirror ---------------------------------------------------------


@pytest.fixture(scope="module")
def mirror(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return sample_mirror(tmp_path_factory.mktemp("mirror"))


_TITLES = st.text(max_size=40) | st.sampled_from(
    ["Long Short-Term Memory", "long short term memory", '"', "*", "NEAR", "a OR b", "-x", "^", "\u0000", "9" * 300]
)  # fmt: skip


@fuzz_settings(25)
@given(
    st.lists(
        st.fixed_dictionaries(
            {"title": _TITLES},
            optional={
                "first_author": st.text(max_size=15) | st.sampled_from(["Hochreiter", '"', "*"]),
                "year": st.integers(-(2**40), 2**40)
                | st.sampled_from([0, -1, 1997, 10_000])
                | st.text(max_size=4),
                "authors": st.lists(st.text(max_size=10), max_size=3),
            },
        ),
        min_size=1,
        max_size=3,
    )
)
def test_any_work_citation_is_checked_against_a_mirror(
    folder: Path, mirror: Path, citations: list[Any]
) -> None:
    claims = folder / "claims.json"
    claims.write_text(
        json.dumps({"claims": [{"id": "c1", "text": "A claim.", "citations": citations}]}), "utf-8"
    )
    result = run_cli(
        "check", claims, "--offline", "--judge", "none", "--mirror", mirror, "--indexes", "", "--out",
        folder / "report.json", "--cache", folder / "cache",
    )  # fmt: skip
    event(f"exit {result.code}")  # how many were checked, shown by --hypothesis-show-statistics
    assert "Traceback" not in result.stderr
    if result.code == 2:  # refused as input: one line naming it
        assert result.stderr.startswith(f"citeaudit: error: {claims}: "), result.stderr
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    else:
        assert result.code in (0, 1), result.stderr  # checked: passed, or findings; never 4
