"""Each online index against the local server: the request it sends, the candidates it reads from
the real sample answers, and every transient failure read as "could not be asked"."""

from __future__ import annotations

import pytest

from citeaudit.resolve.indexes.interface import WorkQuery
from citeaudit.resolve.indexes.online import IndexEndpoints
from tests.resolve.indexes.conftest import MAILTO, Indexes
from tests.resolve.indexes.replay import DATA, IndexServer

ATTENTION = WorkQuery("Attention Is All You Need!", "A. Vaswani", 2017)
ATTENTION_WORDS = "attention is all you need"


def test_crossref_request_and_candidates(indexes: Indexes, server: IndexServer) -> None:
    answer = indexes.make("crossref").search_many([ATTENTION], limit=5)[ATTENTION.key]
    (_, params, agent) = server.log[0]
    assert params == {
        "query.bibliographic": "attention is all you need vaswani 2017",
        "rows": "5",
        "mailto": MAILTO,
    }
    assert f"mailto:{MAILTO}" in agent
    assert answer.answered
    assert [c.key for c in answer.candidates] == [
        "10.1093/obo/9780199830060-0238",
        "10.1093/obo/9780199830060-0023",
    ]
    first = answer.candidates[1]
    assert first.index == "crossref"
    assert first.record.agency == "crossref"
    assert first.record.titles == ("Chemical Ecology",)
    assert first.record.type == "reference-entry"
    assert first.record.abstract is not None  # Crossref's <p>…</p> as plain text
    assert first.record.abstract.startswith("“Ours is a world of sights and sounds. We live by our eyes")
    assert "<" not in first.record.abstract


def test_crossref_posted_content_and_authors(indexes: Indexes, server: IndexServer) -> None:
    server.serve("crossref", "the forecast trap boettiger", "crossref_works_query_author_boettiger.json")
    query = WorkQuery("The forecast trap", "Boettiger")
    answer = indexes.make("crossref").search_many([query])[query.key]
    assert len(answer.candidates) == 5
    top = answer.candidates[0]
    assert top.record.abstract is not None  # JATS: the "Abstract" title dropped, the paragraphs kept
    assert top.record.abstract.startswith("Encouraged by decision makers’ appetite for future information")
    assert (top.key, top.record.titles, top.record.year_values) == (
        "10.1111/ele.14024",
        ("The forecast trap",),
        (2022,),
    )
    assert top.record.authors[0].family == "Boettiger"
    assert answer.candidates[3].record.type == "posted-content"


def test_dblp_request_and_candidates(indexes: Indexes, server: IndexServer) -> None:
    answer = indexes.make("dblp").search_many([ATTENTION], limit=7)[ATTENTION.key]
    # The title's words only: a wrong author or year must not hide the work it misattributes.
    assert server.log[0][1] == {"q": "attention is all you need", "format": "json", "h": "7"}
    assert len(answer.candidates) == 6
    first = answer.candidates[0]
    assert first.index == "dblp"
    assert first.key == "conf/specom/BasovBN14"
    # DBLP's full stop dropped, its HTML entity read.
    assert first.record.titles == (
        "Human Resources Management in Conditions of Operators' Psychophysiological State Changes",
    )
    assert first.record.type == "proceedings-article"
    assert first.record.short_container == ("SPECOM",)
    assert first.record.doi == "10.1007/978-3-319-11581-8_32"
    assert first.record.pages == "259-267"
    assert first.record.years == (("issued", 2014),)
    assert first.arxiv is None
    assert [(a.given, a.family, a.sequence) for a in first.record.authors][:2] == [
        ("Oleg", "Basov", "first"),
        ("Angelina", "Basova", "additional"),
    ]
    journal = answer.candidates[4]
    assert (journal.record.type, journal.record.volume, journal.record.issue) == (
        "journal-article",
        "36",
        "4",
    )
    assert journal.record.doi == "10.4149/cai_2017_4_908"  # DBLP upper-cases DOIs
    names = [(a.given, a.family) for a in answer.candidates[5].record.authors]
    assert ("Alexey", "Karpov") in names
    assert ("Milos", "Zelezný") in names


def test_dblp_single_author_is_a_dict(indexes: Indexes, server: IndexServer) -> None:
    query = WorkQuery("A Test Cost Reduction Method")
    server.serve("dblp", "a test cost reduction method", "dblp_publ_test_single_author.json")
    (only,) = indexes.make("dblp").search_many([query])[query.key].candidates
    assert [(a.given, a.family) for a in only.record.authors] == [("Tsuyoshi", "Shinogi")]
    assert only.record.short_container == ("Asian Test Symposium",)


def test_dblp_corr_preprint(indexes: Indexes, server: IndexServer) -> None:
    query = WorkQuery("Transformers are Inherently Succinct")
    server.serve("dblp", "transformers are inherently succinct", "dblp_publ_corr_preprint.json")
    (only,) = indexes.make("dblp").search_many([query])[query.key].candidates
    assert (only.key, only.arxiv, only.record.type) == (
        "journals/corr/abs-2510-19315",
        "2510.19315",
        "posted-content",
    )
    assert only.record.doi == "10.48550/arxiv.2510.19315"
    assert only.record.authors == ()


def test_arxiv_request_and_candidates(indexes: Indexes, server: IndexServer) -> None:
    answer = indexes.make("arxiv").search_many([ATTENTION], limit=4)[ATTENTION.key]
    assert server.log[0][1] == {
        "search_query": 'ti:"attention is all you need"',
        "start": "0",
        "max_results": "4",
    }
    assert [c.key for c in answer.candidates] == ["2111.13282", "1904.00724", "2303.15533", "2003.08047"]
    first = answer.candidates[0]
    assert first.arxiv == "2111.13282"
    assert first.record.doi == "10.48550/arxiv.2111.13282"
    assert first.record.titles == (
        "Generative Adversarial Networks and Adversarial Autoencoders: Tutorial and Survey",
    )
    assert first.record.type == "posted-content"
    assert first.record.authors[0].family == "Ghojogh"
    assert first.record.abstract is not None  # the entry's <summary>, its line breaks as spaces
    assert first.record.abstract.startswith(
        "This is a tutorial and survey paper on Generative Adversarial Network (GAN), adversarial "
        "autoencoders, and their variants. We start"
    )
    every = indexes.make("arxiv").search_many([ATTENTION], limit=10)[ATTENTION.key].candidates
    assert "1701.06264" in [c.key for c in every]  # "v6" is no part of the key


def test_openalex_request_and_candidates(indexes: Indexes, server: IndexServer) -> None:
    answer = indexes.make("openalex").search_many([ATTENTION], limit=3)[ATTENTION.key]
    assert server.log[0][1] == {
        "filter": "title.search:attention is all you need",
        "per-page": "3",
        "mailto": MAILTO,
    }
    (work,) = answer.candidates
    assert (work.index, work.key, work.arxiv) == ("openalex", "W2741809807", None)
    record = work.record
    assert record.doi == "10.7717/peerj.4375"
    assert record.container == ("PeerJ",)
    assert record.titles[0].startswith("The state of OA")
    assert record.years == (("issued", 2018),)
    assert (record.volume, record.pages) == ("6", "e4375")
    assert record.type == "journal-article"  # the source's Crossref type, not OpenAlex's "book-chapter"
    assert (record.authors[0].family, record.authors[0].sequence) == ("Piwowar", "first")
    assert record.abstract is not None  # the text of its abstract_inverted_index
    assert record.abstract.startswith(
        "Despite growing interest in Open Access (OA) to scholarly literature, there is an unmet need"
    )


def test_an_empty_answer_is_an_answer(indexes: Indexes, server: IndexServer) -> None:
    server.serve("openalex", "title.search:attention is all you need", "openalex_works_empty.json")
    answer = indexes.make("openalex").search_many([ATTENTION])[ATTENTION.key]
    assert answer.answered
    assert answer.candidates == ()


def test_one_request_per_normalised_query(indexes: Indexes, server: IndexServer) -> None:
    spellings = [ATTENTION, WorkQuery("attention is all you need", "Vaswani", 2017)]
    answers = indexes.make("dblp").search_many(spellings)
    assert list(answers) == [ATTENTION.key]
    assert server.count() == 1


@pytest.mark.parametrize("name", ["crossref", "dblp", "openalex", "arxiv"])
def test_503_then_answer(indexes: Indexes, server: IndexServer, name: str) -> None:
    server.fault(name, "503")
    answer = indexes.make(name).search_many([ATTENTION])[ATTENTION.key]
    assert answer.answered
    assert answer.candidates
    assert server.count() == 2


def test_429_retry_after_is_honoured(indexes: Indexes, server: IndexServer) -> None:
    server.fault("dblp", "429")
    index = indexes.make("dblp")
    answer = index.search_many([ATTENTION])[ATTENTION.key]
    assert answer.answered
    assert server.count() == 2
    assert index.last_stats["throttled"] == 1
    assert max(indexes.slept) >= 1.0


@pytest.mark.parametrize(
    ("name", "faults", "reason"),
    [
        ("dblp", ["503", "503", "503"], "DBLP: HTTP 503 after 3 attempts"),
        ("crossref", ["429", "429", "429"], "Crossref: HTTP 429 after 3 attempts"),
        ("openalex", ["500"], "OpenAlex answered HTTP 500"),
        ("dblp", ["slow", "slow", "slow"], "DBLP: timed out after 0.5 s after 3 attempts"),
        (
            "dblp",
            ["truncate", "truncate", "truncate"],
            "DBLP: the answer was not complete JSON after 3 attempts",
        ),
        ("openalex", ["html", "html", "html"], "OpenAlex: the answer was not complete JSON after 3 attempts"),
    ],
)
def test_transient_failures_could_not_ask(
    indexes: Indexes, server: IndexServer, name: str, faults: list[str], reason: str
) -> None:
    server.fault(name, *faults)
    answer = indexes.make(name).search_many([ATTENTION])[ATTENTION.key]
    assert (answer.answered, answer.code, answer.reason) == (False, "E_REGISTRY_UNAVAILABLE", reason)
    assert answer.candidates == ()


@pytest.mark.parametrize("fault", ["truncate", "html"])
def test_arxiv_unreadable_feed_could_not_ask(indexes: Indexes, server: IndexServer, fault: str) -> None:
    server.fault("arxiv", fault)
    answer = indexes.make("arxiv").search_many([ATTENTION])[ATTENTION.key]
    assert answer.code == "E_REGISTRY_UNAVAILABLE"
    assert answer.reason.startswith("arXiv sent an answer that could not be read")


def test_arxiv_empty_page_of_a_nonempty_search_is_no_answer(indexes: Indexes, server: IndexServer) -> None:
    text = (DATA / "arxiv_query_all_gan.xml").read_text("utf-8")
    emptied = text[: text.index("  <entry>")] + "</feed>\n"  # the real feed, its entries taken out
    server.answers["arxiv"][f'ti:"{ATTENTION_WORDS}"'] = emptied.encode()
    answer = indexes.make("arxiv").search_many([ATTENTION])[ATTENTION.key]
    assert (answer.code, answer.reason) == (
        "E_REGISTRY_UNAVAILABLE",
        "arXiv sent an answer that could not be read: an empty page of 10468 results",
    )


def test_endpoints_from_environment() -> None:
    env = {
        "CITEAUDIT_DBLP_URL": "http://127.0.0.1:9/dblp/",
        "CITEAUDIT_OPENALEX_URL": "http://127.0.0.1:9/oa",
    }
    endpoints = IndexEndpoints.from_environment(env)
    assert endpoints == IndexEndpoints(
        crossref="https://api.crossref.org",
        dblp="http://127.0.0.1:9/dblp",
        arxiv="https://export.arxiv.org/api",
        openalex="http://127.0.0.1:9/oa",
    )
