"""Every format's real samples imported and searched; DBLP's entities, homonyms, markup and full stops."""

from __future__ import annotations

import gzip
import json
import sqlite3
from dataclasses import replace
from pathlib import Path

from citeaudit.mirror import SqliteStore, import_dump, open_mirror
from citeaudit.mirror.interface import MirrorRecord
from citeaudit.mirror.load import importer
from citeaudit.resolve.abstracts import abstract_from_inverted_index, plain_abstract
from citeaudit.resolve.indexes.interface import Candidate, WorkQuery
from citeaudit.resolve.interface import Author
from tests.conftest import ROOT, read_jsonl, shared_data
from tests.mirror.dumps import DATA


def _import(mirror: Path, fmt: str, *paths: Path) -> None:
    store = SqliteStore(mirror)
    try:
        import_dump(store, fmt, list(paths))
    finally:
        store.close()


def _units(fmt: str, path: Path) -> dict[str, MirrorRecord]:
    module = importer(fmt)
    out = {}
    for dump in module.files(str(path)):
        for unit in module.units(dump, 0, 1 << 20):
            if isinstance(unit, MirrorRecord):
                out[unit.key] = unit
    return out


def _best(mirror: Path, query: WorkQuery) -> Candidate:
    answer = open_mirror(mirror).search_many([query])[query.key]
    assert answer.answered, answer.reason
    return answer.candidates[0]


def test_dblp_real_records(tmp_path: Path) -> None:
    records = _units("dblp", DATA / "dblp" / "sample.xml")
    assert sorted(records) == [
        "conf/hpcasia/2019", "conf/pfe/2001", "journals/cacm/Szalay08", "journals/corr/OrchardY16a"
    ]  # fmt: skip
    pfe = records["conf/pfe/2001"].record
    assert pfe.type == "proceedings"
    assert pfe.container == ("PFE",)
    assert pfe.volume == "2290"
    assert pfe.doi == "10.1007/3-540-47833-7"
    assert pfe.years == (("issued", 2002),)
    assert pfe.authors == ()  # editors are not authors
    places = records["journals/corr/OrchardY16a"]
    assert places.record.titles[0].endswith("8th April 2016")  # DBLP's final full stop dropped
    assert places.record.doi == "10.4204/eptcs.211"
    assert places.arxiv == "1606.05403"
    cacm = records["journals/cacm/Szalay08"].record
    assert cacm.titles == ("Jim Gray, astronomer",)
    assert cacm.doi == ""
    assert cacm.authors == (Author(family="Szalay", given="Alexander S."),)
    assert (cacm.type, cacm.container, cacm.volume, cacm.issue, cacm.pages, cacm.agency) == (
        "journal-article", ("Commun. ACM",), "51", "11", "58-65", "dblp"
    )  # fmt: skip
    _import(tmp_path / "m.sqlite", "dblp", DATA / "dblp" / "sample.xml")
    best = _best(tmp_path / "m.sqlite", WorkQuery("Jim Gray astronomer", "Szalay", 2008))
    assert (best.index, best.key) == ("mirror:dblp", "journals/cacm/Szalay08")


def test_dblp_entities_homonyms_markup_and_full_stops(tmp_path: Path) -> None:
    (tmp_path / "dblp.dtd").write_bytes((DATA / "dblp" / "dblp.dtd").read_bytes())
    xml = """<?xml version="1.0" encoding="ISO-8859-1"?>
<!DOCTYPE dblp SYSTEM "dblp.dtd">
<dblp>
<article mdate="2021-02-03" key="journals/x/MullerL21">
<author>J&ouml;rg M&uuml;ller 0001</author>
<author>Frank van der Linden 0002</author>
<author>John Smith Jr.</author>
<author>Wei Wang 0001</author>
<title><i>In vivo</i> CO<sub>2</sub> sensing with <tt>SENSE</tt>: what&apos;s next?</title>
<journal>IEEE Trans. Sens.</journal>
<year>2021</year>
<ee>https://doi.org/10.1109/TSENS.2021.ABC</ee>
</article>
<inproceedings mdate="2017-05-20" key="conf/nips/VaswaniSPUJGKP17">
<author>Ashish Vaswani</author>
<title>Attention is All you Need.</title>
<booktitle>NIPS</booktitle>
<year>2017</year>
</inproceedings>
<www mdate="2020-01-01" key="homepages/w/WeiWang1"><author>Wei Wang 0001</author><title>Home Page</title></www>
<article mdate="2020-01-01" key="journals/x/Untitled"><author>Nobody</author><year>2020</year></article>
</dblp>
"""
    (tmp_path / "dblp.xml").write_bytes(xml.encode("iso-8859-1"))
    with gzip.open(tmp_path / "dblp.xml.gz", "wb") as out:
        out.write(xml.encode("iso-8859-1"))
    records = _units("dblp", tmp_path / "dblp.xml.gz")
    assert sorted(records) == ["conf/nips/VaswaniSPUJGKP17", "journals/x/MullerL21"]
    r = records["journals/x/MullerL21"].record
    assert r.titles == ("In vivo CO2 sensing with SENSE: what's next?",)
    assert r.authors == (
        Author(family="Müller", given="Jörg"),
        Author(family="van der Linden", given="Frank"),
        Author(family="Smith Jr.", given="John"),
        Author(family="Wang", given="Wei"),
    )
    assert r.doi == "10.1109/tsens.2021.abc"
    assert r.type == "journal-article"
    assert records["conf/nips/VaswaniSPUJGKP17"].record.titles == ("Attention is All you Need",)
    assert records["conf/nips/VaswaniSPUJGKP17"].record.container == ("NIPS",)
    _import(tmp_path / "m.sqlite", "dblp", tmp_path / "dblp.xml.gz")
    best = _best(tmp_path / "m.sqlite", WorkQuery("In vivo CO2 sensing with SENSE", "Muller", 2021))
    assert best.key == "journals/x/MullerL21"


def test_crossref_real_messages(tmp_path: Path) -> None:
    rows = read_jsonl(shared_data("registry", "crossref_works.jsonl"))
    messages = [row["message"] for row in rows]
    folder = tmp_path / "crossref"
    folder.mkdir()
    for k in range(0, len(messages), 200):  # the public data file's form: many {"items": [...]} files
        with gzip.open(folder / f"{k // 200}.json.gz", "wt", encoding="utf-8") as out:
            json.dump({"items": messages[k : k + 200]}, out)
    _import(tmp_path / "m.sqlite", "crossref", folder)
    from citeaudit.resolve.crossref import record_from_message

    titled = {m["DOI"].lower(): m for m in messages if record_from_message(m).titles}
    store = SqliteStore(tmp_path / "m.sqlite")
    assert store.counts() == {"crossref": len(titled)}
    skipped = {s.name.rsplit("/", 1)[1]: dict(s.skipped) for s in store.sources()}
    store.close()
    assert sum(n for s in skipped.values() for n in s.values()) == len(messages) - len(titled)
    doi, message = sorted(titled.items())[0]
    best = _best(tmp_path / "m.sqlite", WorkQuery(message["title"][0]))
    assert best.index == "mirror:crossref"
    assert best.key == doi
    assert replace(best.record, abstract=None) == replace(record_from_message(message), abstract=None)
    # Every abstract of the dump is kept, as plain text, and returned on the candidate.
    with_abstract = {d: m for d, m in titled.items() if m.get("abstract")}
    assert len(with_abstract) > 100
    kept = _units("crossref", folder)
    for d, m in with_abstract.items():
        assert kept[d].record.abstract == plain_abstract(m["abstract"]), d
        assert "jats:" not in (kept[d].record.abstract or "")
    doi, message = sorted(with_abstract.items())[0]
    best = _best(tmp_path / "m.sqlite", WorkQuery(message["title"][0]))
    assert best.key == doi
    assert best.record.abstract == plain_abstract(message["abstract"])


def test_openalex_real_work_both_forms(tmp_path: Path) -> None:
    records = _units("openalex", DATA / "openalex")
    work = records["W2741809807"]
    r = work.record
    assert r.titles == (
        "The state of OA: a large-scale analysis of the prevalence and impact of Open Access articles",
    )
    assert r.doi == "10.7717/peerj.4375"
    assert r.years == (("issued", 2018),)
    assert r.container == ("PeerJ",)
    assert r.authors[0] == Author(family="Piwowar", given="Heather A.")
    assert len(r.authors) == 9
    assert r.type == "journal-article"
    assert work.date == "2024-01-02"
    _import(tmp_path / "m.sqlite", "openalex", DATA / "openalex")
    best = _best(
        tmp_path / "m.sqlite", WorkQuery("The state of OA: a large scale analysis of open access", "Piwowar")
    )
    assert (best.index, best.key, best.record.pages) == ("mirror:openalex", "W2741809807", "e4375")
    assert best.record.abstract is None  # these two lines leave the abstract out


def test_openalex_abstract_from_its_inverted_index(tmp_path: Path) -> None:
    # The same work as the API answers it, with its abstract_inverted_index, as a snapshot line.
    answer = json.loads(
        (ROOT / "tests/resolve/indexes/data/openalex_works_state_of_oa.json").read_text("utf-8")
    )
    (work,) = answer["results"]
    path = tmp_path / "part_000.gz"
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.write(json.dumps(work) + "\n")
    (record,) = (u.record for u in _units("openalex", path).values())
    assert record.abstract == abstract_from_inverted_index(work["abstract_inverted_index"])
    assert record.abstract is not None
    assert record.abstract.startswith(
        "Despite growing interest in Open Access (OA) to scholarly literature, there is an unmet need"
    )
    _import(tmp_path / "m.sqlite", "openalex", path)
    best = _best(tmp_path / "m.sqlite", WorkQuery(work["display_name"], "Piwowar", 2018))
    assert best.record.abstract == record.abstract


def test_arxiv_real_snapshot_lines(tmp_path: Path) -> None:
    path = DATA / "arxiv" / "arxiv-metadata-oai-snapshot.json"
    records = _units("arxiv", path)
    lemire = records["2101.11408"]
    assert lemire.record.titles == ("Number Parsing at a Gigabyte per Second",)
    assert lemire.record.doi == "10.48550/arxiv.2101.11408"
    assert lemire.arxiv == "2101.11408"
    assert lemire.record.years == (("issued", 2021),)
    assert lemire.record.type == "posted-content"
    assert lemire.record.relations[0].doi == "10.1002/spe.2984"
    balazs = records["0704.0001"].record
    assert balazs.authors[0] == Author(family="Balázs", given="C.")  # TeX accent decoded
    assert balazs.titles == (
        "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies",
    )
    assert balazs.abstract == (
        "A fully differential calculation in perturbative quantum chromodynamics is presented for the "
        "production of massive photon pairs at hadron colliders."
    )  # the snapshot's line breaks and indentation as spaces
    _import(tmp_path / "m.sqlite", "arxiv", path)
    best = _best(tmp_path / "m.sqlite", WorkQuery("Number parsing at a gigabyte per second", "Lemire", 2021))
    assert (best.index, best.key, best.arxiv) == ("mirror:arxiv", "2101.11408", "2101.11408")
    assert best.record.abstract == lemire.record.abstract
    assert (best.record.abstract or "").startswith("With disks and networks providing gigabytes per second")


def test_a_mirror_written_before_abstracts_were_kept_reads_them_as_none(tmp_path: Path) -> None:
    mirror = tmp_path / "m.sqlite"
    _import(mirror, "arxiv", DATA / "arxiv" / "arxiv-metadata-oai-snapshot.json")
    with sqlite3.connect(mirror) as conn:  # the records as an earlier import wrote them: no abstract
        for rowid, data in conn.execute("SELECT id, data FROM records").fetchall():
            old = json.loads(data)
            assert "abstract" in old
            del old["abstract"]
            conn.execute("UPDATE records SET data = ? WHERE id = ?", (json.dumps(old).encode(), rowid))
    best = _best(mirror, WorkQuery("Number parsing at a gigabyte per second", "Lemire", 2021))
    assert best.key == "2101.11408"
    assert best.record.abstract is None


def test_a_crossref_title_is_found_with_its_subtitle(tmp_path: Path) -> None:
    rows = read_jsonl(shared_data("registry", "crossref_works.jsonl"))
    (message,) = [r["message"] for r in rows if r["message"].get("DOI") == "10.1145/3448016.3452841"]
    assert message["subtitle"] == ["Overcoming the Time/Space Trade-Off in Filter Design"]  # kept apart
    path = tmp_path / "0.json.gz"
    with gzip.open(path, "wt", encoding="utf-8") as out:
        json.dump({"items": [r["message"] for r in rows]}, out)
    _import(tmp_path / "m.sqlite", "crossref", path)
    for cited in (
        "Vector Quotient Filters: Overcoming the Time/Space Trade-Off in Filter Design",
        "Vector quotient filters - overcoming the time/space trade-off in filter design",
        "Vector Quotient Filters",
    ):
        best = _best(tmp_path / "m.sqlite", WorkQuery(cited, "Pandey", 2021))
        assert best.key == "10.1145/3448016.3452841", cited


def test_a_short_title_of_common_words_is_found_by_its_author_and_year(tmp_path: Path) -> None:
    from tests.dblp_dump import dblp_record, write_dblp

    others = [
        dblp_record("inproceedings", f"conf/x/B{i}", {"title": f"BERT probing study number {i}",
                    "author": f"Author{i} Person and Someone Else", "year": str(2019 + i % 3), "booktitle": "ACL"})
        for i in range(400)
    ]  # fmt: skip
    bert = dblp_record(
        "inproceedings",
        "conf/naacl/DevlinCLT19",
        {"title": "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding",
         "author": "Jacob Devlin and Ming-Wei Chang and Kenton Lee and Kristina Toutanova", "year": "2019",
         "booktitle": "NAACL-HLT (1)"},
    )  # fmt: skip
    dump = write_dblp(tmp_path / "dblp.xml.gz", [*others, bert])
    _import(tmp_path / "m.sqlite", "dblp", dump)
    best = _best(tmp_path / "m.sqlite", WorkQuery("BERT", "Devlin", 2019))
    assert best.key == "conf/naacl/DevlinCLT19"


def test_dblp_informal_records_are_preprint_copies(tmp_path: Path) -> None:
    from tests.dblp_dump import write_dblp

    informal = (
        '<article publtype="informal" mdate="2021-06-23" key="journals/corr/abs-2106-11959">\n'
        "<author>Yury Gorishniy</author>\n<author>Ivan Rubachev</author>\n"
        "<title>Revisiting Deep Learning Models for Tabular Data.</title>\n<journal>CoRR</journal>\n"
        "<volume>abs/2106.11959</volume>\n<year>2021</year>\n"
        '<ee type="oa">https://arxiv.org/abs/2106.11959</ee>\n</article>'
    )
    proceedings = (
        '<inproceedings mdate="2022-01-01" key="conf/nips/GorishniyRKB21">\n'
        "<author>Yury Gorishniy</author>\n<author>Ivan Rubachev</author>\n"
        "<title>Revisiting Deep Learning Models for Tabular Data.</title>\n<pages>18932-18943</pages>\n"
        "<year>2021</year>\n<booktitle>NeurIPS</booktitle>\n</inproceedings>"
    )
    eprint = (  # IACR's ePrint archive: informal, not CoRR
        '<article publtype="informal" mdate="2023-01-01" key="journals/iacr/BonehS23">\n'
        "<author>Dan Boneh</author>\n<title>A Graduate Course in Applied Cryptography.</title>\n"
        "<journal>IACR Cryptol. ePrint Arch.</journal>\n<pages>1</pages>\n<year>2023</year>\n</article>"
    )
    dump = write_dblp(tmp_path / "dblp.xml.gz", [informal, proceedings, eprint])
    records = _units("dblp", dump)
    assert records["journals/iacr/BonehS23"].record.type == "posted-content"
    assert records["journals/corr/abs-2106-11959"].record.type == "posted-content"
    assert records["journals/corr/abs-2106-11959"].arxiv == "2106.11959"
    assert records["conf/nips/GorishniyRKB21"].record.type == "proceedings-article"
