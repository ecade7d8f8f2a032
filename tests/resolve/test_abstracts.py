"""Abstracts as plain text, from the forms the registries give them in (real Crossref JATS)."""

from __future__ import annotations

from citeaudit.resolve.abstracts import MAX_ABSTRACT_CHARS, abstract_from_inverted_index, plain_abstract
from tests.conftest import read_jsonl, shared_data


def test_jats_paragraphs_become_text_and_a_lone_label_is_dropped() -> None:
    jats = (
        "<jats:title>Abstract</jats:title><jats:p>We study <jats:italic>X</jats:italic> in 12 sites.</jats:p>"
        "<jats:p>It &amp; Y   differ.</jats:p>"
    )
    assert plain_abstract(jats) == "We study X in 12 sites.\n\nIt & Y differ."


def test_plain_strings_keep_their_paragraphs_and_nothing_is_none() -> None:
    assert plain_abstract("First  part.\n\nSecond &lt;part&gt;.") == "First part.\n\nSecond <part>."
    assert plain_abstract("  ") is None
    assert plain_abstract(None) is None
    assert plain_abstract(["not", "a", "string"]) is None
    assert plain_abstract("<jats:p> </jats:p>") is None
    assert len(plain_abstract("word " * 50_000) or "") <= MAX_ABSTRACT_CHARS


def test_every_recorded_crossref_abstract_reads_as_text_without_markup() -> None:
    rows = [r["message"] for r in read_jsonl(shared_data("registry", "crossref_works.jsonl"))]
    abstracts = [plain_abstract(m["abstract"]) for m in rows if "abstract" in m]
    assert len(abstracts) > 100
    assert all(a and "<jats:" not in a and "</" not in a for a in abstracts)


def test_an_inverted_index_is_the_text_it_was_made_from() -> None:
    index = {"Deep": [0], "learning": [1, 4], "beats": [2], "shallow": [3], ".": [5]}
    assert abstract_from_inverted_index(index) == "Deep learning beats shallow learning ."
    # A position two words claim keeps the word that sorts first, whatever the order given.
    assert abstract_from_inverted_index({"b": [0], "a": [0], "c": [1]}) == "a c"
    assert abstract_from_inverted_index({}) is None
    assert abstract_from_inverted_index({"x": "0"}) is None
    assert abstract_from_inverted_index({"x": [True, -1]}) is None
    assert abstract_from_inverted_index("text") is None


def test_html_escaped_inside_jats_is_read_too() -> None:
    jats = "<jats:p>&lt;p&gt;Profil &lt;em&gt;guardian&lt;/em&gt; dan 3 &amp;lt; 4.&lt;/p&gt;</jats:p>"
    assert plain_abstract(jats) == "Profil guardian dan 3 < 4."
