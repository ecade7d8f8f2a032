"""Normalisation and its map back to original offsets."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from citeaudit.normalize import (
    _fold_clusters,
    _fold_words,
    _without_trailing_punctuation,
    clean_markup,
    fold_name,
    normalize,
    normalize_title,
    normalize_with_map,
)


def _find(text: str, quote: str) -> str:
    norm = normalize_with_map(text)
    needle = normalize(quote)
    at = norm.text.find(needle)
    assert at != -1
    start, end = norm.original_span(at, at + len(needle))
    return text[start:end]


def test_case_whitespace_and_quotes() -> None:
    assert _find("He said \u201cHello   World\u201d to me", "hello world") == "Hello   World"


def test_ligature_combining_marks_and_dashes() -> None:
    text = "The \ufb01nal e\u0301te\u0301 \u2014 in 2020"
    assert _find(text, "final été - in") == "\ufb01nal e\u0301te\u0301 \u2014 in"


def test_expanding_casefold() -> None:
    assert _find("Die Stra\u00dfe  ist gro\u00df.", "STRASSE IST GROSS") == "Stra\u00dfe  ist gro\u00df"


def test_newlines_and_soft_hyphens() -> None:
    assert _find("first line\nsec\u00adond line", "line second line") == "line\nsec\u00adond line"


def test_fullwidth_forms_fold_to_ascii() -> None:
    assert (
        _find("价格为\uff11\uff10\uff10元\uff0c不含税", "100元,不含税") == "\uff11\uff10\uff10元\uff0c不含税"
    )


def test_titles_lose_markup_and_entities_even_double_escaped() -> None:
    assert clean_markup("Climate &amp;lt;sup&amp;gt;14&amp;lt;/sup&amp;gt;C") == "Climate 14C"
    assert clean_markup("p &lt; 0.05 and <i>in vivo</i>") == "p < 0.05 and in vivo"
    assert (
        normalize_title("The [Ru(bpy)<sub>3</sub>]<sup>2+</sup> Luminophore.")
        == "the [ru(bpy)3]2+ luminophore"
    )
    assert normalize_title("<mml:math><mml:mi>x</mml:mi></mml:math>-ray  \n imaging") == "x-ray imaging"


def test_names_fold_diacritics_and_hyphens() -> None:
    assert fold_name("Müller\u2010Lüdenscheidt") == fold_name("Muller-Ludenscheidt")
    assert fold_name("Łukasz Øster") == "lukasz oster"


_TEXT = st.text(
    alphabet=st.sampled_from(list("abcXYZ \n\t\u00a0\"'«»\u2014\u2013-\ufb01\u00df\u0301e\u00e9\u00ad.,1")),
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(_TEXT, st.data())
def test_every_found_span_normalises_back_to_the_needle(text: str, data: st.DataObject) -> None:
    norm = normalize_with_map(text)
    if not norm.text:
        return
    i = data.draw(st.integers(0, len(norm.text) - 1))
    j = data.draw(st.integers(i + 1, len(norm.text)))
    needle = norm.text[i:j].strip()
    if not needle:
        return
    at = norm.text.find(needle)
    start, end = norm.original_span(at, at + len(needle))
    assert 0 <= start < end <= len(text)
    # The original span contains the needle once normalised.
    assert needle in normalize_with_map(text[start:end]).text


@settings(max_examples=300, deadline=None)
@given(_TEXT)
def test_plain_normal_form_equals_the_mapped_one(text: str) -> None:
    assert normalize(text) == normalize_with_map(text).text.strip()


# The pattern the title's trailing strip replaced: quadratic in a long run of dots or spaces.
_TRAILING_PATTERN = re.compile(r"[\s.;,:]+$")


@settings(max_examples=500)
@given(st.text(alphabet=st.sampled_from(list("ab .;,:\t\n\u00a0\u3000")), max_size=40))
def test_the_trailing_strip_is_the_pattern_it_replaced(text: str) -> None:
    assert _without_trailing_punctuation(text) == _TRAILING_PATTERN.sub("", text)


def test_a_title_with_a_long_run_of_dots() -> None:
    """100,000 dots before a letter: hours with the pattern, a scan now."""
    assert normalize_title("A" + "." * 100_000 + "b. ") == "a" + "." * 100_000 + "b"


_LINE = st.text(
    alphabet=st.sampled_from(
        list('abcXYZ \u00a0"«\u2014-\ufb01\u00df\u0301\u0308e\u00e9\u00ad.1\u2122\u00bd\u00b2\u1100\u1161İ')
    ),
    max_size=50,
)


@settings(max_examples=1000, deadline=None)
@given(_LINE)
def test_word_by_word_folding_gives_the_cluster_by_cluster_text(line: str) -> None:
    """A line that does not fold one-to-one is folded a word at a time, and only the words
    that need it cluster by cluster: the text is the same as folding every cluster."""
    assert _fold_words(line, 0, 0, []) == _fold_clusters(line, 0, 0, [])


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=80))
def test_the_ascii_normal_form_equals_the_mapped_one(text: str) -> None:
    assert normalize(text) == normalize_with_map(text).text.strip()
