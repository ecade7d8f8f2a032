"""Snapshots from real documents: a PDF made here with running headers,
hyphenation and ligatures, and an HTML page with navigation and scripts."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import reportlab
from hypothesis import given, settings
from hypothesis import strategies as st
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas

from citeaudit.errors import SourceError
from citeaudit.sources.extract import _HYPHENATED_RE, clean_pdf_pages, extract_file
from tests.conftest import run_cli

PAGES = [
    [
        "The ﬁrst experi-",
        "ment showed a signiﬁcant effect on retrieval",
        "grounding in all",
        "twelve trials.",
    ],
    ["A second run conﬁrmed the", "ﬁndings with a well-", "calibrated model; a well-calibrated", "ﬂow."],
    ["Errors fell from 18 to 7 per hundred", "answers after grounding."],
]


def _make_pdf(path: Path) -> None:
    font = os.path.join(os.path.dirname(reportlab.__file__), "fonts", "Vera.ttf")
    pdfmetrics.registerFont(TTFont("Vera", font))
    pdf = canvas.Canvas(str(path))
    for number, lines in enumerate(PAGES, 1):
        pdf.setFont("Vera", 10)
        pdf.drawString(72, 800, "Journal of Citation Studies · Vol. 3")  # running header
        y = 740
        for line in lines:
            pdf.drawString(72, y, line)
            y -= 14
        pdf.drawString(290, 40, f"— {number} —")  # page number as footer
        pdf.showPage()
    pdf.save()


def test_pdf_extraction_repairs_what_breaks_quotes(tmp_path: Path) -> None:
    path = tmp_path / "paper.pdf"
    _make_pdf(path)
    text = extract_file(path)
    assert "Journal of Citation Studies" not in text
    assert "— 2 —" not in text
    assert "\ufb01" not in text
    assert "\ufb02" not in text
    for quote in (
        "The first experiment showed a significant effect on retrieval grounding in all twelve trials.",
        "A second run confirmed the findings with a well-calibrated model; a well-calibrated flow.",
        "Errors fell from 18 to 7 per hundred answers after grounding.",
    ):
        assert quote in text, text


def test_sources_add_pdf_then_locate(tmp_path: Path) -> None:
    path = tmp_path / "paper.pdf"
    _make_pdf(path)
    store = str(tmp_path / "s.db")
    scope = ("--store", store, "--scope", "lab/me")
    assert run_cli("sources", "add", path, "--id", "paper", *scope).code == 0
    located = run_cli("locate", "paper", "significant effect on retrieval grounding", *scope)
    assert located.code == 0, located.stderr


def test_snapshot_command_writes_the_doi_snapshot(tmp_path: Path) -> None:
    path = tmp_path / "paper.pdf"
    _make_pdf(path)
    result = run_cli(
        "snapshot", path, "--doi", "https://doi.org/10.0000/DEMO.9", "--sources", tmp_path / "src"
    )
    assert result.code == 0, result.stderr
    (written,) = (p for p in (tmp_path / "src").iterdir() if p.name != "MANIFEST.json")
    assert written.name.startswith("10.0000_demo.9-")
    assert written.suffix == ".txt"
    assert "twelve trials" in written.read_text("utf-8")
    assert result.stdout.endswith(" status=created\n")


def test_running_headers_need_to_repeat() -> None:
    text = clean_pdf_pages(["Only once here\nbody one", "Another top\nbody two"])
    assert "Only once here" in text
    assert "Another top" in text


def test_hyphen_before_a_capital_or_digit_stays() -> None:
    assert clean_pdf_pages(["Covid-\n19 spread", "x"]).startswith("Covid- 19")


HTML = """<!doctype html><html><head><title>Retention</title>
<script>var tracking = "do not index me";</script><style>body{color:red}</style></head>
<body><nav><a href="/">Home</a> | <a href="/about">About us</a> | <a href="/login">Log in</a></nav>
<header><p>Site banner: subscribe to our newsletter</p></header>
<main><article><h1>Retention policy</h1>
<p>The operations journal is kept for thirty calendar days. Backups are deleted separately,
on a schedule that the storage team publishes every quarter.</p>
<p>Access to the journal is limited to the security team and is itself logged.</p>
</article></main><footer><p>Copyright 2026 Example Corp. All rights reserved.</p></footer></body></html>"""


def test_html_extraction_keeps_the_main_text_only(tmp_path: Path) -> None:
    path = tmp_path / "policy.html"
    path.write_text(HTML, "utf-8")
    text = extract_file(path)
    assert "The operations journal is kept for thirty calendar days." in text
    assert "Access to the journal is limited to the security team" in text
    for noise in ("tracking", "color:red", "Log in", "newsletter", "All rights reserved"):
        assert noise not in text


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("x.docx", b"", "unsupported file type .docx"),
        ("x.txt", b"\xff\xfe", "not valid UTF-8 (byte 0xff at offset 0)"),
        ("x.pdf", b"not a pdf", "cannot read the PDF"),
        ("x.html", b"<html><body><script>1</script></body></html>", "no main text found in the HTML"),
    ],
)
def test_bad_documents_are_clear_errors(tmp_path: Path, name: str, content: bytes, message: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(SourceError, match=message.replace("(", r"\(").replace(")", r"\)")):
        extract_file(path)


def test_a_pdf_pypdf_cannot_decode_is_an_input_error(tmp_path: Path) -> None:
    """An unknown stream filter made pypdf raise NotImplementedError: exit 4 before."""
    _make_pdf(tmp_path / "good.pdf")
    data = (tmp_path / "good.pdf").read_bytes()
    assert b"/ASCII85Decode" in data
    (tmp_path / "bad.pdf").write_bytes(data.replace(b"/ASCII85Decode", b"/ASCII85DecJde"))
    result = run_cli("snapshot", tmp_path / "bad.pdf", "--doi", "10.1000/x", "--sources", tmp_path / "s")
    assert (result.code, result.stderr) == (
        2,
        f"citeaudit: error: {tmp_path / 'bad.pdf'}: cannot read the PDF: Unsupported filter /ASCII85DecJde\n",
    )
    assert not (tmp_path / "s").exists()


def test_what_pypdf_repairs_is_not_printed(tmp_path: Path) -> None:
    """A PDF with a damaged cross-reference still yields its text; pypdf's own warnings
    about the repair reached stderr before (checked in a real process)."""
    _make_pdf(tmp_path / "good.pdf")
    data = (tmp_path / "good.pdf").read_bytes()
    (tmp_path / "cut.pdf").write_bytes(data[: len(data) // 2] + data[len(data) // 2 + 40 :])
    argv = [sys.executable, "-m", "citeaudit", "snapshot", str(tmp_path / "cut.pdf"), "--doi", "10.1000/x",
            "--sources", str(tmp_path / "s")]  # fmt: skip
    result = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=120)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.startswith(f"snapshot={tmp_path / 's'}/10.1000_x-")


_HYPHENATED_PATTERN = re.compile(r"([^\W\d_]+)([-\u00ad\u2010])\n([a-zà-ÿа-яё][^\W\d_]*)")


@settings(max_examples=1000)
@given(st.text(alphabet=st.sampled_from(list("ab1 -\u00ad\n\u2010Яя_")), max_size=24))
def test_hyphenated_words_are_found_as_the_unanchored_pattern_found_them(text: str) -> None:
    """Matches start only where a word starts, which the leftmost match did anyway."""
    old = [(m.span(), m.groups()) for m in _HYPHENATED_PATTERN.finditer(text)]
    assert [(m.span(), m.groups()) for m in _HYPHENATED_RE.finditer(text)] == old


def test_a_long_run_of_letters_without_a_hyphen() -> None:
    """40,000 letters on a line took 36 s when every position of the run was tried."""
    page = "x" * 100_000 + "\nexperi-\nment"
    assert clean_pdf_pages([page]) == "x" * 100_000 + " experiment"


def test_snapshot_never_replaces_a_different_text_unasked(tmp_path: Path) -> None:
    """Audits read these files: the same text is left alone, another is refused without --replace,
    and a seed-named snapshot counts as the DOI's current one."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "10.0000_demo.9.txt").write_text("The seed's own snapshot of the work.", "utf-8")
    page = tmp_path / "page.txt"
    page.write_text("The seed's own snapshot of the work.", "utf-8")
    args: list[str | Path] = ["snapshot", page, "--doi", "10.0000/demo.9", "--sources", src]
    assert run_cli(*args).stdout.endswith("characters=36 status=unchanged\n")
    page.write_text("Another text altogether.", "utf-8")
    refused = run_cli(*args)
    assert (refused.code, refused.stderr) == (
        2,
        f"citeaudit: error: 10.0000/demo.9 already has a different snapshot in {src} (36 characters, "
        "this one 24); give --replace to put this one in its place\n",
    )
    assert sorted(p.name for p in src.iterdir()) == ["10.0000_demo.9.txt"]  # nothing written
    replaced = run_cli(*args, "--replace")
    assert replaced.stdout.endswith("characters=24 status=replaced\n")
    written = next(p for p in src.iterdir() if p.name != "10.0000_demo.9.txt")
    assert written.read_text("utf-8") == "Another text altogether."


def test_a_document_over_the_limit_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _make_pdf(tmp_path / "paper.pdf")
    size = (tmp_path / "paper.pdf").stat().st_size
    with pytest.raises(SourceError) as caught:
        extract_file(tmp_path / "paper.pdf", max_bytes=1000)
    assert str(caught.value) == (
        f"{tmp_path / 'paper.pdf'}: {size} bytes, over the document limit of 1000 (max_document_bytes)"
    )
    monkeypatch.setenv("CITEAUDIT_MAX_DOCUMENT_BYTES", "1000")
    result = run_cli("sources", "add", tmp_path / "paper.pdf", "--id", "paper", "--store", tmp_path / "s.db",
                     "--scope", "a/b")  # fmt: skip
    assert (result.code, result.stderr) == (2, f"citeaudit: error: {caught.value}\n")
