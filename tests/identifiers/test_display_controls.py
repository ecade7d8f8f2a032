"""Issue 28: a DOI with a display control (U+202E shows ``10.1000/cba`` for ``10.1000/\\u202eabc``)
gets the W_DISPLAY_CONTROLS a title gets, naming the character, never echoing it."""

from __future__ import annotations

import json
from pathlib import Path

from citeaudit import api
from citeaudit.checks.codes import FindingMaker
from citeaudit.checks.metadata import check_identifier_controls
from citeaudit.normalize import show_controls

MAKE = FindingMaker()
DOI = "10.1000/\u202eabc"


def test_a_doi_with_a_display_control_is_a_warning_that_names_it() -> None:
    (finding,) = check_identifier_controls("doi", DOI, MAKE)
    assert finding.code == "W_DISPLAY_CONTROLS"
    assert finding.message == "the cited doi holds U+202E, which change how it displays"
    assert "\u202e" not in finding.message
    assert finding.suggestion == {"characters": ["U+202E"]}
    assert show_controls(DOI) == "10.1000/<U+202E>abc"  # how the human formats show the DOI
    assert check_identifier_controls("doi", "10.1000/abc", MAKE) == []


def test_the_audit_warns_of_a_doi_with_a_display_control(tmp_path: Path) -> None:
    claims = {"claims": [{"id": "c1", "text": "t", "citations": [{"doi": DOI}]}]}
    (tmp_path / "cache").mkdir()  # an empty cache: a missing one is refused offline
    found = api.audit(
        claims, cache=tmp_path / "cache", sources=tmp_path / "sources", offline=True, judge=None
    )
    report = json.loads(api.render(found))
    codes = [f["code"] for f in report["results"][0]["findings"]]
    assert "W_DISPLAY_CONTROLS" in codes


def test_an_identifier_that_is_not_valid_is_warned_of_its_display_control_too(tmp_path: Path) -> None:
    claims = {"claims": [{"id": "c1", "text": "t", "citations": [{"doi": "\u202e10.1000/abc"}]}]}
    (tmp_path / "cache").mkdir()
    found = api.audit(
        claims, cache=tmp_path / "cache", sources=tmp_path / "sources", offline=True, judge=None
    )
    report = json.loads(api.render(found))
    findings = {f["code"]: f["message"] for f in report["results"][0]["findings"]}
    assert set(findings) >= {"W_DISPLAY_CONTROLS", "E_DOI_SYNTAX"}
    assert "\u202e" not in "".join(findings.values())
