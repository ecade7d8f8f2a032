"""Pins: what a final answer becomes (HTML through trafilatura, PDF through pypdf, the encodings
pages are sent in), what is never pinned, and a pin that is not trusted."""

from __future__ import annotations

import json
import os
from pathlib import Path

import reportlab
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas

from citeaudit.resolve.web import Hop, PageAnswer, PageFailure
from citeaudit.sources.interface import Pin, PinAnswer, digest_text
from citeaudit.sources.pins import PinDirectory, decode_page, pin_from_answer
from tests.web_server import wrap

URL = "https://news.example/budget"
AT = "2026-01-02T03:04:05Z"
RUSSIAN = (
    "Городской совет утвердил новый бюджет в размере четырёх миллионов рублей после долгих "
    "обсуждений во вторник вечером."
)


def answer(body: bytes, content_type: str, status: int = 200, **extra: object) -> PageAnswer:
    return PageAnswer(URL, URL, status, content_type, body, **extra)  # type: ignore[arg-type]


def test_an_html_page_is_pinned_with_its_main_text_titles_and_doi() -> None:
    html = wrap(
        "Budget approved",
        ["The committee approved the new budget after a long debate on Tuesday evening in the hall."],
        extra_head='<meta name="citation_title" content="The budget, approved">'
        '<meta name="citation_doi" content="10.1234/budget.5">',
    )
    hop = Hop("https://news.example/old", 301, URL)
    pin = pin_from_answer(URL, answer(html.encode(), "text/html; charset=utf-8", redirects=(hop,)), AT)
    assert isinstance(pin, Pin)
    assert pin.text is not None
    assert "The committee approved the new budget" in pin.text
    for chrome in ("Accept all cookies", "Privacy policy", "Most read", "All rights reserved"):
        assert chrome not in pin.text
    assert pin.titles == ("The budget, approved", "Budget approved", "Budget approved | Example News")
    assert pin.title == "The budget, approved"
    assert pin.citation_doi == "10.1234/budget.5"
    assert pin.text_sha256 == digest_text(pin.text)
    assert pin.redirects == (hop.to_json(),)
    assert set(pin.extractor) == {"trafilatura"}


def test_a_javascript_only_page_is_no_text_and_not_pinned() -> None:
    html = (
        '<!DOCTYPE html><html><head><title>App</title><script src="/static/app.js"></script></head>'
        '<body><div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript>'
        "</body></html>"
    )
    made = pin_from_answer(URL, answer(html.encode(), "text/html"), AT)
    assert made == PageFailure(
        "E_URL_NO_TEXT",
        f"{URL}: no text could be extracted from the page; it may need a browser to render "
        "(pin a saved copy with citeaudit snapshot --url)",
    )


def _pdf(path: Path, lines: list[str]) -> bytes:
    font = os.path.join(os.path.dirname(reportlab.__file__), "fonts", "Vera.ttf")
    pdfmetrics.registerFont(TTFont("Vera", font))
    pdf = canvas.Canvas(str(path))
    pdf.setTitle("Annual budget report")
    pdf.setFont("Vera", 10)
    y = 760
    for line in lines:
        pdf.drawString(72, y, line)
        y -= 14
    pdf.showPage()
    pdf.save()
    return path.read_bytes()


def test_a_pdf_is_pinned_through_pypdf(tmp_path: Path) -> None:
    body = _pdf(
        tmp_path / "r.pdf", ["The council approved a budget of 4.2 million", "euros for the coming year."]
    )
    pin = pin_from_answer(URL, answer(body, "application/pdf"), AT)
    assert isinstance(pin, Pin)
    assert pin.text == "The council approved a budget of 4.2 million euros for the coming year."
    assert pin.titles == ("Annual budget report",)
    assert set(pin.extractor) == {"pypdf"}


def test_windows_1251_without_a_charset_header() -> None:
    html = wrap("Бюджет утверждён", [RUSSIAN]).replace('<meta charset="utf-8">', "")
    body = html.encode("windows-1251")
    assert decode_page(body, "text/html") == html  # no header, no meta: the charset is detected
    pin = pin_from_answer(URL, answer(body, "text/html"), AT)
    assert isinstance(pin, Pin)
    assert pin.text is not None
    assert RUSSIAN in pin.text
    with_meta = wrap("Бюджет утверждён", [RUSSIAN]).replace('charset="utf-8"', 'charset="windows-1251"')
    assert decode_page(with_meta.encode("windows-1251"), "text/html") == with_meta
    assert decode_page(RUSSIAN.encode("windows-1251"), "text/html; charset=windows-1251") == RUSSIAN
    assert (
        decode_page(b"\xef\xbb\xbf" + RUSSIAN.encode(), "text/html; charset=iso-8859-1") == RUSSIAN
    )  # the BOM wins


def test_a_utf8_page_labelled_latin1_is_read_as_utf8_and_a_latin1_page_as_labelled() -> None:
    """A UTF-8 page a server labels ISO-8859-1 was pinned as mojibake ("rÃ©sumÃ©")."""
    text = "Le résumé du budget — 12 % de hausse, approuvé à l'unanimité."
    for label in ("iso-8859-1", "ISO_8859-1", "latin1", "windows-1252", "us-ascii"):
        assert decode_page(text.encode("utf-8"), f"text/html; charset={label}") == text, label
        meta = f'<meta charset="{label}"><p>{text}</p>'
        assert decode_page(meta.encode("utf-8"), "text/html") == meta, label
    latin1 = text.replace("—", "-")  # Latin-1 has no dash
    assert decode_page(latin1.encode("iso-8859-1"), "text/html; charset=iso-8859-1") == latin1
    assert decode_page(latin1.encode("cp1252"), "text/html; charset=windows-1252") == latin1
    pin = pin_from_answer(URL, answer(wrap("Budget", [text]).encode(), "text/html; charset=ISO-8859-1"), AT)
    assert isinstance(pin, Pin)
    assert pin.text is not None
    assert text in pin.text


def test_a_404_and_a_410_are_pinned_as_not_found_unless_after_a_transient_failure() -> None:
    for status in (404, 410):
        pin = pin_from_answer(URL, answer(b"gone", "text/html", status), AT)
        assert isinstance(pin, Pin)
        assert (pin.found, pin.text, pin.status) == (False, None, status)
    assert pin_from_answer(URL, answer(b"", "text/html", 404, transient="HTTP 503"), AT) == PageFailure(
        "E_URL_UNREACHABLE", "HTTP 404 after a transient failure (HTTP 503): not taken as final"
    )
    assert pin_from_answer(URL, answer(b"", "text/html", 403), AT) == PageFailure(
        "E_URL_UNREACHABLE", f"{URL} answered HTTP 403"
    )


def test_a_content_type_that_cannot_be_read() -> None:
    assert pin_from_answer(URL, answer(b"\x00\x01", "image/png"), AT) == PageFailure(
        "E_URL_UNREADABLE", f"{URL}: the content type image/png cannot be read (HTML, PDF, plain text)"
    )


def test_pins_round_trip_and_a_tampered_pin_is_not_trusted(tmp_path: Path) -> None:
    directory = PinDirectory(tmp_path)
    html = wrap("Budget", ["The committee approved the new budget after a long debate on Tuesday."])
    pin = pin_from_answer(URL, answer(html.encode(), "text/html"), AT)
    assert isinstance(pin, Pin)
    directory.write(pin)
    assert directory.lookup(URL) == PinAnswer(pin)
    record, text = directory.paths(URL)
    assert json.loads(record.read_text())["schema"] == "citeaudit-pin/1"
    text.write_text(pin.text + " And the mayor resigned.", "utf-8")  # type: ignore[operator]
    assert directory.lookup(URL) == PinAnswer(
        None,
        "E_PIN_CORRUPT",
        f"{record.name}: the pin is not trusted: its text {text.name} is not the text its digest names",
    )
    other = "https://news.example/other"
    os.replace(record, directory.paths(other)[0])
    assert directory.lookup(other) == PinAnswer(
        None,
        "E_PIN_CORRUPT",
        f"{directory.paths(other)[0].name}: the pin is not trusted: it is the pin of {URL!r}, not of {other}",
    )
    assert directory.lookup(URL) == PinAnswer(
        None, "E_NOT_PINNED", f"offline, and no pin of {URL} was found (citeaudit fetch pins it)"
    )
