"""PubMed and PMC identifiers resolved through NCBI's E-utilities: the recorded answers read
(``tests/data/ncbi/``), then the resolver against the local registry replaying them, with 429
and 5xx faults, NCBI's rate limits enforced, and the cache pinning only final answers."""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from citeaudit.resolve.cache import CachingResolver, DoiCache
from citeaudit.resolve.http import HttpClient, RetryPolicy
from citeaudit.resolve.interface import Author, Resolution, ResolutionStatus
from citeaudit.resolve.ncbi import (
    Converted,
    abstracts_from_efetch,
    ncbi_limits,
    pmc_summaries_from_xml,
    pmids_from_idconv,
    record_from_summary,
    summaries_from_json,
)
from citeaudit.resolve.registry import Endpoints, RegistryResolver
from tests.conftest import run_cli, shared_data
from tests.registry_server import NCBI_DATA, RegistryServer

FOUND, MISSING = "pmid:27933103", "pmid:40482261"


def _recorded(name: str) -> bytes:
    return (NCBI_DATA / name).read_bytes()


# -- the recorded answers, read ----------------------------------------------------------------


def test_a_recorded_summary_is_a_record_of_title_years_authors_and_journal() -> None:
    summaries = summaries_from_json(_recorded("esummary_27933103.json"))
    assert (set(summaries.entries), summaries.missing, summaries.error) == ({"27933103"}, frozenset(), "")
    record = record_from_summary(FOUND, summaries.entries["27933103"])
    assert record.doi == FOUND
    assert record.agency == "pubmed"
    assert record.titles == (
        "Programmatic conversion of crystal structures into 3D printable files using Jmol.",
    )
    assert record.years == (("published", 2016), ("published-online", 2016))
    assert record.authors[:2] == (
        Author(family="Scalfani", given="VF", sequence="first"),
        Author(family="Williams", given="AJ", sequence="additional"),
    )
    assert len(record.authors) == 8
    assert (record.container, record.short_container) == (("Journal of cheminformatics",), ("J Cheminform",))
    assert (record.volume, record.issue, record.pages, record.type) == ("8", None, "66", "journal-article")
    assert record.relations == ()
    assert record.full_text_urls == ("https://pmc.ncbi.nlm.nih.gov/articles/PMC5122160/",)


def test_a_uid_pubmed_has_no_summary_of_is_listed_with_its_error() -> None:
    summaries = summaries_from_json(_recorded("esummary_40482261.json"))
    assert (summaries.entries, summaries.missing, summaries.error) == ({}, frozenset({"40482261"}), "")


def test_a_top_level_error_says_nothing_about_any_uid() -> None:
    summaries = summaries_from_json(_recorded("esummary_invalid_uid.json"))
    assert (summaries.entries, summaries.missing) == ({}, frozenset())
    assert summaries.error == "Invalid uid Z19565568 at position=0"


@pytest.mark.parametrize("body", [b"[]", b'{"result": {}}', b'{"header": {"type": "esummary"}}', b"<html/>"])
def test_an_answer_that_is_no_summary_is_refused(body: bytes) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 - json's and ours: the caller says "could not check"
        summaries_from_json(body)


def test_an_entry_that_is_not_the_uid_listed_says_nothing_of_it() -> None:
    """A summary kept under one uid but naming another is no answer about either."""
    entry = json.loads(_recorded("esummary_27933103.json"))["result"]["27933103"]
    body = json.dumps({"result": {"uids": ["27933104"], "27933104": entry}}).encode()
    summaries = summaries_from_json(body)
    assert (summaries.entries, summaries.missing) == ({}, frozenset())


def test_a_retracted_publication_is_marked_as_retracted() -> None:
    entry = {**json.loads(_recorded("esummary_27933103.json"))["result"]["27933103"]}
    entry["pubtype"] = ["Journal Article", "Retracted Publication"]
    record = record_from_summary(FOUND, entry)
    assert [(r.relation, r.type) for r in record.relations] == [("updated-by", "retraction")]


def test_efetch_gives_each_articles_abstract_with_its_labelled_parts() -> None:
    seen, abstracts = abstracts_from_efetch(_recorded("efetch_29963580.xml"))
    assert seen == frozenset({"29963580"})
    text = abstracts["29963580"]
    assert text.startswith("We designed and generated pulmonary imaging biomarker pipelines to facilitate")
    assert text.endswith("for point-of-care and high-throughput research.")
    assert len(text) == 1474
    seen, abstracts = abstracts_from_efetch(_recorded("efetch_pubmed4.xml"))
    assert seen == frozenset({"27797938"})  # the PMIDs of its comments and corrections are no articles
    parts = abstracts["27797938"].split("\n\n")
    assert [p.split(":", 1)[0] for p in parts] == ["OBJECTIVE", "DESIGN", "RESULTS", "CONCLUSIONS"]
    assert abstracts_from_efetch(_recorded("efetch_40482261.xml")) == (frozenset(), {})


def test_an_answer_that_is_no_pubmed_xml_is_refused() -> None:
    with pytest.raises(ET.ParseError):
        abstracts_from_efetch(b"<html><body>Down for maintenance</body></html>")


def test_the_converter_gives_the_pmid_of_a_pmcid() -> None:
    converted = pmids_from_idconv(_recorded("idconv_PMC2883744.json"))
    assert list(converted) == ["PMC2883744"]
    assert converted["PMC2883744"].pmid == "20495566"


def test_the_converters_answer_for_a_pmcid_pmc_lacks_is_that_it_does_not_know_it() -> None:
    """The recorded answer for PMC23840460: an error record, ``invalid article id``."""
    converted = pmids_from_idconv(_recorded("idconv_PMC23840460.json"))
    assert converted == {"PMC23840460": Converted(unknown=True, reason="invalid article id")}
    # The message the converter gives at its current address for an identifier it does not have.
    record = {"pmcid": "PMC1", "status": "error", "errmsg": "Identifier not found in PMC"}
    said = pmids_from_idconv(json.dumps({"records": [record]}).encode())["PMC1"]
    assert (said.pmid, said.unknown) == (None, True)


def test_a_converter_record_names_a_pmid_none_or_one_that_is_unreadable() -> None:
    records = [{"pmcid": "PMC1", "pmid": 23193287}, {"pmcid": "PMC2"}, {"pmcid": "PMC3", "pmid": "n/a"}]
    assert pmids_from_idconv(json.dumps({"records": records}).encode()) == {
        "PMC1": Converted(pmid="23193287"),
        "PMC2": Converted(reason="no PMID (the article is not in PubMed)", no_pmid=True),
        "PMC3": Converted(reason="an unreadable PMID 'n/a'"),
    }


@pytest.mark.parametrize(
    "record",
    [
        {"pmcid": "PMC2", "status": "error", "errmsg": "service temporarily unavailable"},
        {"pmcid": "PMC2", "status": "error"},
        {"pmcid": "PMC2", "errmsg": "invalid article id"},  # an error message without the error status
    ],
)
def test_an_error_record_the_converter_was_not_recorded_giving_is_no_not_registered(
    record: dict[str, str],
) -> None:
    said = pmids_from_idconv(json.dumps({"records": [record]}).encode())["PMC2"]
    assert (said.pmid, said.unknown) == (None, False)
    assert said.reason == record.get("errmsg", "an error")


def test_pmcs_own_summary_is_a_record_of_title_years_authors_and_journal() -> None:
    """esummary on db=pmc (XML, version 2.0), as recorded for uids 254085, 1 and 14900."""
    summaries = pmc_summaries_from_xml(_recorded("esummary_pmc_254085_1_14900.xml"))
    assert (set(summaries.entries), set(summaries.missing), summaries.error) == (
        {"254085", "14900"},
        {"1"},
        "",
    )
    record = record_from_summary("pmcid:PMC254085", summaries.entries["254085"])
    assert record.titles == (
        "Overproduction of polyomavirus middle T antigen in mammalian cells through the use of an adenovirus vector.",
    )
    assert record.years == (("published", 1987),)
    assert record.authors == (
        Author(family="Davidson", given="D", sequence="first"),
        Author(family="Hassell", given="JA", sequence="additional"),
    )
    assert (record.container, record.short_container) == (("Journal of Virology",), ("J Virol",))
    assert (record.volume, record.issue, record.pages, record.abstract) == ("61", "4", "1226-1239", None)


@pytest.mark.parametrize("body", [b"<eSummaryResult><ERROR>Invalid uid PMC1</ERROR></eSummaryResult>"])
def test_a_top_level_error_of_pmcs_summary_says_nothing_about_any_uid(body: bytes) -> None:
    summaries = pmc_summaries_from_xml(body)
    assert (summaries.entries, summaries.missing, summaries.error) == ({}, frozenset(), "Invalid uid PMC1")


def test_an_answer_that_is_no_pmc_summary_is_refused() -> None:
    with pytest.raises(ET.ParseError, match="the root element is html, not eSummaryResult"):
        pmc_summaries_from_xml(b"<html><body>Down for maintenance</body></html>")


# -- the resolver, against the local registry --------------------------------------------------


@pytest.fixture(scope="module")
def ncbi_server() -> Iterator[RegistryServer]:
    srv = RegistryServer(shared_data("registry")).start()
    yield srv
    srv.stop()


@pytest.fixture
def ncbi(ncbi_server: RegistryServer) -> RegistryServer:
    ncbi_server.faults.clear()
    ncbi_server.log.clear()
    ncbi_server.ncbi_queries.clear()
    ncbi_server.enforce_limits = True
    ncbi_server.pmc_only.clear()
    ncbi_server._windows.clear()  # no test starts with another's requests counted against it
    return ncbi_server


def _endpoints(server: RegistryServer) -> Endpoints:
    return Endpoints(
        crossref=f"{server.url}/crossref",
        datacite=f"{server.url}/datacite",
        doi=f"{server.url}/doi",
        arxiv=f"{server.url}/arxiv",
        ncbi=f"{server.url}/ncbi",
        ncbi_idconv=f"{server.url}/ncbi-idconv",
    )


def _resolver(server: RegistryServer, cache: Path, api_key: str = "") -> RegistryResolver:
    policy = RetryPolicy(timeout=5.0, base_delay=0.05, max_delay=0.2)
    return RegistryResolver(
        DoiCache(cache),
        mailto="tests@example.org",
        endpoints=_endpoints(server),
        client_factory=lambda: HttpClient(mailto="tests@example.org", policy=policy),
        ncbi_api_key=api_key,
    )


def _resolve(server: RegistryServer, cache: Path, *keys: str, api_key: str = "") -> dict[str, Resolution]:
    return _resolver(server, cache, api_key).resolve_many(list(keys))


def test_a_pmid_resolves_to_its_record_and_asks_politely(ncbi: RegistryServer, tmp_path: Path) -> None:
    answer = _resolve(ncbi, tmp_path, FOUND)[FOUND]
    assert answer.status is ResolutionStatus.FOUND
    assert answer.record is not None
    entry = json.loads(_recorded("esummary_27933103.json"))["result"]["27933103"]
    assert answer.record == record_from_summary(FOUND, entry)  # no abstract: efetch has no article of it
    assert ncbi.log == [("/ncbi/esummary.fcgi", 200), ("/ncbi/efetch.fcgi", 200)]
    summary, fetch = ncbi.ncbi_queries
    assert summary == {"tool": ["citeaudit"], "email": ["tests@example.org"], "db": ["pubmed"],
                       "id": ["27933103"], "retmode": ["json"]}  # fmt: skip
    assert fetch == {**summary, "retmode": ["xml"], "rettype": ["abstract"]}


def test_a_pmid_with_an_abstract_has_it_in_its_record(ncbi: RegistryServer, tmp_path: Path) -> None:
    """esummary and efetch recorded for the same PMID: the record is the summary's, the abstract
    efetch's, its labelled parts as paragraphs."""
    key = "pmid:14760269"
    answer = _resolve(ncbi, tmp_path, key)[key]
    assert answer.record is not None
    summary = json.loads(_recorded("esummary_14760269.json"))["result"]["14760269"]
    _, abstracts = abstracts_from_efetch(_recorded("efetch_14760269.xml"))
    assert answer.record == replace(record_from_summary(key, summary), abstract=abstracts["14760269"])
    assert answer.record.titles == ("Maternal age and other predictors of newborn blood pressure.",)
    assert answer.record.authors[0] == Author(family="Gillman", given="MW", sequence="first")
    parts = (answer.record.abstract or "").split("\n\n")
    assert [p.split(":", 1)[0] for p in parts] == ["OBJECTIVE", "STUDY DESIGN", "RESULTS", "CONCLUSIONS"]
    assert parts[0] == "OBJECTIVE: To investigate perinatal predictors of newborn blood pressure."


def test_a_pmid_pubmed_has_no_summary_or_article_of_is_not_registered(
    ncbi: RegistryServer, tmp_path: Path
) -> None:
    answers = _resolve(ncbi, tmp_path, FOUND, MISSING)
    assert answers[MISSING] == Resolution.not_found("pubmed")
    assert answers[FOUND].status is ResolutionStatus.FOUND
    assert [path for path, _ in ncbi.log] == ["/ncbi/esummary.fcgi", "/ncbi/efetch.fcgi"]  # one request each


def test_no_summary_while_efetch_has_the_article_is_not_trusted(ncbi: RegistryServer, tmp_path: Path) -> None:
    answer = _resolve(ncbi, tmp_path, "pmid:29963580")["pmid:29963580"]
    assert answer == Resolution.unavailable(
        "E_REGISTRY_UNAVAILABLE",
        'esummary had no summary of 29963580 while efetch has the article: not trusted as "not registered"',
    )


def test_a_pmcid_is_resolved_through_its_pmid_and_kept_under_its_own_key(
    ncbi: RegistryServer, tmp_path: Path
) -> None:
    key, unknown, unread = "pmcid:PMC5122160", "pmcid:PMC1", "pmcid:PMC2883744"
    answers = _resolve(ncbi, tmp_path, key, unknown, unread, FOUND)
    found = answers[key]
    assert found.status is ResolutionStatus.FOUND
    assert found.record is not None
    converted = answers[FOUND].record
    assert converted is not None
    assert found.record.doi == key
    assert found.record.titles == converted.titles
    assert answers[unknown] == Resolution.not_found("pmc")
    # The converter's PMID for PMC2883744 has no summary in the recorded answers: PMC knows the
    # article, so PubMed's silence is no "not registered".
    assert answers[unread] == Resolution.unavailable(
        "E_REGISTRY_UNAVAILABLE",
        'PubMed has no record of 20495566, the PMID PMC gave for it: not trusted as "not registered"',
    )
    assert ncbi.ncbi_queries[0] == {"tool": ["citeaudit"], "email": ["tests@example.org"],
                                    "ids": ["PMC1,PMC2883744,PMC5122160"], "format": ["json"],
                                    "versions": ["no"]}  # fmt: skip
    assert ncbi.ncbi_queries[1]["id"] == ["20495566,27933103"]  # one summary request for all


def test_a_pmcid_with_no_pmid_is_read_from_pmcs_own_summary(ncbi: RegistryServer, tmp_path: Path) -> None:
    """The converter's record names no PMID (an article in PMC, not in PubMed): the record is
    PMC's summary of it, kept under the PMCID; a summary PMC lacks is no "not registered"."""
    ncbi.pmc_only.update({"PMC254085", "PMC999"})
    key, lacking = "pmcid:PMC254085", "pmcid:PMC999"
    answers = _resolve(ncbi, tmp_path, key, lacking)
    entry = pmc_summaries_from_xml(_recorded("esummary_pmc_254085_1_14900.xml")).entries["254085"]
    expected = replace(
        record_from_summary(key, entry), full_text_urls=("https://pmc.ncbi.nlm.nih.gov/articles/PMC254085/",)
    )
    assert answers[key] == Resolution.found(expected)
    assert answers[lacking] == Resolution.unavailable(
        "E_REGISTRY_UNAVAILABLE",
        "PMC esummary has no summary of PMC999, whose converter record names no PMID",
    )
    assert [path for path, _ in ncbi.log] == ["/ncbi-idconv/", "/ncbi/esummary.fcgi"]
    assert ncbi.ncbi_queries[1] == {"tool": ["citeaudit"], "email": ["tests@example.org"], "db": ["pmc"],
                                    "id": ["254085,999"], "retmode": ["xml"], "version": ["2.0"]}  # fmt: skip
    ncbi.fault("esummary.fcgi", "500")
    answer = _resolve(ncbi, tmp_path, key)[key]
    assert answer == Resolution.unavailable(
        "E_REGISTRY_UNAVAILABLE", "PMC esummary: esummary answered HTTP 500"
    )


@pytest.mark.parametrize("fault", ["429", "503"])
def test_a_transient_failure_is_retried_and_then_no_not_found_is_trusted(
    ncbi: RegistryServer, tmp_path: Path, fault: str
) -> None:
    ncbi.fault("esummary.fcgi", fault)
    answers = _resolve(ncbi, tmp_path, FOUND, MISSING)
    assert answers[FOUND].status is ResolutionStatus.FOUND
    assert answers[MISSING] == Resolution.unavailable(
        "E_REGISTRY_UNAVAILABLE",
        f'PubMed had no summary of 40482261 after HTTP {fault}: not trusted as "not registered"',
    )
    assert ncbi.count(status=int(fault)) == 1


def test_a_pmcid_pmc_lacks_after_a_retried_request_is_not_trusted(
    ncbi: RegistryServer, tmp_path: Path
) -> None:
    ncbi.fault("ncbi-idconv", "503")
    answer = _resolve(ncbi, tmp_path, "pmcid:PMC1")["pmcid:PMC1"]
    assert answer == Resolution.unavailable(
        "E_REGISTRY_UNAVAILABLE",
        "the PMC ID converter said 'invalid article id' after HTTP 503: not trusted as \"not registered\"",
    )
    assert ncbi.count(status=503) == 1


def test_a_500_or_retries_exhausted_is_could_not_check_and_never_cached(
    ncbi: RegistryServer, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    ncbi.fault("esummary.fcgi", "500")
    answers = CachingResolver(DoiCache(cache), _resolver(ncbi, cache)).resolve_many([FOUND])
    assert answers[FOUND] == Resolution.unavailable(
        "E_REGISTRY_UNAVAILABLE", "PubMed esummary: esummary answered HTTP 500"
    )
    ncbi.fault("efetch.fcgi", *["503"] * 5)  # every attempt
    answers = CachingResolver(DoiCache(cache), _resolver(ncbi, cache)).resolve_many([FOUND])
    assert answers[FOUND] == Resolution.unavailable(
        "E_REGISTRY_UNAVAILABLE", "PubMed efetch: HTTP 503 after 5 attempts"
    )
    assert DoiCache(cache).dois() == []  # nothing pinned
    ncbi.fault("ncbi-idconv", "500")
    answer = _resolve(ncbi, tmp_path, "pmcid:PMC5122160")["pmcid:PMC5122160"]
    assert answer == Resolution.unavailable(
        "E_REGISTRY_UNAVAILABLE", "PMC ID converter: the PMC ID converter answered HTTP 500"
    )


def test_final_answers_are_pinned_and_read_back_offline_unchanged(
    ncbi: RegistryServer, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    ncbi.pmc_only.add("PMC14900")  # in PMC and not in PubMed: PMC's own summary is its record
    keys = [FOUND, MISSING, "pmcid:PMC5122160", "pmcid:PMC14900", "pmid:14760269"]
    online = CachingResolver(DoiCache(cache), _resolver(ncbi, cache)).resolve_many(keys)
    offline = CachingResolver(DoiCache(cache)).resolve_many(keys)
    assert offline == online
    assert DoiCache(cache).dois() == sorted(keys)
    assert offline["pmid:14760269"].record is not None
    assert offline["pmid:14760269"].record.abstract
    assert offline["pmcid:PMC14900"].record is not None
    assert offline["pmcid:PMC14900"].record.authors[0] == Author(
        family="Temesvari", given="L", sequence="first"
    )


def test_ncbi_limits_are_3_a_second_and_10_with_a_key() -> None:
    assert ncbi_limits("") == pytest.approx((2.7, 1))
    assert ncbi_limits("a-key") == pytest.approx((9.0, 3))


def test_many_pmids_stay_within_ncbi_limits(ncbi: RegistryServer, tmp_path: Path) -> None:
    keys = [f"pmid:{n}" for n in range(30_000_001, 30_000_451)]  # three requests of 200 of each kind
    started = time.monotonic()
    answers = _resolve(ncbi, tmp_path, *keys)
    took = time.monotonic() - started
    assert {a.status for a in answers.values()} == {ResolutionStatus.NOT_FOUND}
    assert ncbi.count(status=429) == 0
    assert ncbi.count(prefix="/ncbi/") == 6
    assert took >= 5 / 2.7 - 0.1  # six requests, the first at once, at 2.7 a second


def test_with_an_api_key_it_is_sent_and_never_pinned(ncbi: RegistryServer, tmp_path: Path) -> None:
    keys = [f"pmid:{n}" for n in range(30_000_001, 30_000_451)]
    started = time.monotonic()
    _resolve(ncbi, tmp_path, *keys, api_key="sEcReT-key")
    took = time.monotonic() - started
    assert ncbi.count(status=429) == 0  # the server allows 10 a second to a request with a key
    assert {q["api_key"][0] for q in ncbi.ncbi_queries} == {"sEcReT-key"}
    assert took < 5 / 2.7  # faster than the 3 a second without one
    cache = tmp_path / "cache"
    CachingResolver(DoiCache(cache), _resolver(ncbi, cache, api_key="sEcReT-key")).resolve_many(
        [FOUND, MISSING]
    )
    assert not any("sEcReT" in p.read_text("utf-8") for p in cache.rglob("*") if p.is_file())


def test_a_client_over_the_limit_is_refused_by_the_server(ncbi: RegistryServer) -> None:
    """The server holds a client to NCBI's 3 a second (so the tests above measure something)."""
    import httpx

    async def burst() -> list[int]:
        async with httpx.AsyncClient() as client:
            answers = await asyncio.gather(
                *(client.get(f"{ncbi.url}/ncbi/esummary.fcgi", params={"id": "1"}) for _ in range(6))
            )
        return sorted(a.status_code for a in answers)

    assert asyncio.run(burst()).count(429) >= 3


# -- fetch, then check offline ------------------------------------------------------------------


REPORT = (
    "# Crystal structures\n\n"
    "Jmol turns crystal structures into files a 3D printer reads [1]. An invented study says so too [2].\n\n"
    "## References\n\n"
    '1. Scalfani VF, Williams AJ, et al. (2016). "Programmatic conversion of crystal structures into 3D '
    'printable files using Jmol." J Cheminform 8:66. https://pubmed.ncbi.nlm.nih.gov/27933103/\n'
    "2. Nobody A. (2025). PMID: 40482261\n"  # no title: nothing for an online search to suggest
)


def test_fetch_then_offline_check_gives_the_same_report(
    ncbi: RegistryServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in _endpoints(ncbi).__dict__.items():
        monkeypatch.setenv(f"CITEAUDIT_{name.upper()}_URL", value)
    monkeypatch.delenv("NCBI_API_KEY", raising=False)
    path, cache = tmp_path / "report.md", tmp_path / "cache"
    path.write_text(REPORT, encoding="utf-8")
    fetched = run_cli("fetch", path, "--cache", cache, "--mailto", "tests@example.org")
    assert (fetched.code, fetched.stdout) == (
        0,
        f"dois=2 found=1 not_found=1 could_not_check=0 cache={cache}\n",
    )
    online = run_cli("check", path, "--cache", cache, "--out", tmp_path / "online.json")
    offline = run_cli("check", path, "--cache", cache, "--offline", "--out", tmp_path / "offline.json")
    assert online.code == offline.code == 1
    assert (tmp_path / "online.json").read_bytes() == (tmp_path / "offline.json").read_bytes()
    report: dict[str, Any] = json.loads((tmp_path / "offline.json").read_text("utf-8"))
    rows = [
        (r["citation"], r["doi"], r["source"]["kind"], r["status"], r["errors"]) for r in report["results"]
    ]
    assert rows == [
        ("1", "pmid:27933103", "pmid", "pass", []),
        ("2", "pmid:40482261", "pmid", "fail", ["E_DOI_NOT_FOUND"]),
    ]
    assert report["results"][0]["record"]["agency"] == "pubmed"
    # The cited PubMed page is read as its PMID only: never fetched, so a record with no abstract
    # leaves the quote-less claim citing it with no text to be judged on.
    assert {path for path, _ in ncbi.log} == {"/ncbi/esummary.fcgi", "/ncbi/efetch.fcgi"}
    assert [(c["id"], c["verdict"]) for c in report["claims"]] == [("c001", None), ("c002", None)]
    rendered = run_cli("render", tmp_path / "offline.json", "--format", "md")
    assert "PMID: 27933103; cited title: Programmatic conversion" in rendered.stdout
    page = run_cli("render", tmp_path / "offline.json", "--format", "html")
    assert '["identifier","27933103","27933103",false]' in page.stdout  # cited beside held, as cited


def test_a_claims_json_citing_pmids_is_checked_like_a_doi(
    ncbi: RegistryServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in _endpoints(ncbi).__dict__.items():
        monkeypatch.setenv(f"CITEAUDIT_{name.upper()}_URL", value)
    monkeypatch.delenv("NCBI_API_KEY", raising=False)
    title = "Programmatic conversion of crystal structures into 3D printable files using Jmol"
    claims = {"claims": [
        {"id": "c1", "text": "Jmol makes printable files.", "citations": [
            {"id": "a", "pmid": "PMID: 27933103", "title": title, "year": 2016, "first_author": "Scalfani"},
            {"id": "b", "pmid": "27933103", "title": "Printing crystals", "year": 2015, "first_author": "Scalfani"},
            {"id": "c", "pmcid": "PMC5122160", "first_author": "Bara", "container": "Journal of cheminformatics"},
            {"id": "d", "pmcid": "PMC254085", "year": 1987, "first_author": "Davidson", "container": "J Virol",
             "title": "Overproduction of polyomavirus middle T antigen in mammalian cells through the use of an "
                      "adenovirus vector"},
        ]},
    ]}  # fmt: skip
    ncbi.pmc_only.add("PMC254085")  # in PMC and not in PubMed: checked against PMC's own summary
    path, cache = tmp_path / "claims.json", tmp_path / "cache"
    path.write_text(json.dumps(claims), encoding="utf-8")
    assert run_cli("fetch", path, "--cache", cache).code == 0
    checked = run_cli("check", path, "--cache", cache, "--offline", "--out", tmp_path / "r.json")
    assert checked.code == 1
    rows = json.loads((tmp_path / "r.json").read_text("utf-8"))["results"]
    got = {r["citation"]: (r["doi"], r["errors"], r["warnings"]) for r in rows}
    assert got == {
        "a": ("pmid:27933103", [], []),
        "b": ("pmid:27933103", ["E_TITLE_MISMATCH", "E_YEAR_MISMATCH"], []),
        "c": ("pmcid:PMC5122160", [], ["W_AUTHOR_NOT_FIRST"]),
        "d": ("pmcid:PMC254085", [], []),
    }


def test_a_quote_less_claim_citing_a_pmid_is_read_against_its_abstract(
    ncbi: RegistryServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The abstract efetch gave, pinned with the record, is the text the claim is judged on."""
    for name, value in _endpoints(ncbi).__dict__.items():
        monkeypatch.setenv(f"CITEAUDIT_{name.upper()}_URL", value)
    monkeypatch.delenv("NCBI_API_KEY", raising=False)
    _, abstracts = abstracts_from_efetch(_recorded("efetch_14760269.xml"))
    abstract = abstracts["14760269"]
    claim = "For each 5-year increase in maternal age, newborn systolic blood pressure was 0.8 mm Hg higher."
    claims = {"claims": [{"id": "c1", "text": claim, "citations": [{"id": "a", "pmid": "PMID: 14760269"}]}]}
    path, cache = tmp_path / "claims.json", tmp_path / "cache"
    path.write_text(json.dumps(claims), encoding="utf-8")
    assert run_cli("fetch", path, "--cache", cache).code == 0
    assert run_cli("check", path, "--cache", cache, "--offline", "--out", tmp_path / "r.json").code in (0, 1)
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    (row,) = report["results"]
    assert (row["doi"], row["status"], row["record"]["agency"]) == ("pmid:14760269", "pass", "pubmed")
    verdict = report["claims"][0]["verdict"]
    assert verdict["basis"] == "retrieved"
    digest = hashlib.sha256(abstract.encode("utf-8")).hexdigest()
    assert verdict["texts"] == [{"basis": "abstract", "citation": "a", "length": len(abstract),
                                 "name": "abstract in the pubmed record of pmid:14760269", "sha256": digest}]  # fmt: skip
    for passage in verdict["passages"]:
        assert abstract[passage["start"] : passage["end"]] == passage["text"]
        assert (passage["basis"], passage["text_sha256"]) == ("abstract", digest)
    # The sentence the claim restates is the best passage of the abstract.
    assert verdict["passages"][0]["text"] == (
        "A multivariate model showed that for each 5-year increase in maternal age, newborn systolic "
        "blood pressure was 0.8 mm Hg higher (95% CI, 0.2, 1.4)."
    )
