"""The manifest's own rules (util/manifest.py): its bytes are those of the standard library's
``json.dumps(…, ensure_ascii=False, sort_keys=True, indent=2)`` whoever writes them, and a writer
that skips parsing the file it wrote itself never loses a line someone else wrote since."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from citeaudit.util.manifest import MANIFEST_NAME, MANIFEST_SCHEMA, Manifest, digest, encode

# Any path a directory entry can have as text (no lone surrogate: it cannot be written as UTF-8).
_paths = st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=40)


@given(st.dictionaries(_paths, st.binary(max_size=8).map(digest), max_size=30))
def test_encode_writes_the_bytes_of_json_dumps(files: dict[str, str]) -> None:
    body = {"files": files, "schema": MANIFEST_SCHEMA}
    expected = (json.dumps(body, ensure_ascii=False, sort_keys=True, indent=2) + "\n").encode("utf-8")
    assert encode(files) == expected


def test_encode_of_every_character_matches_json_dumps() -> None:
    # one path per 64 code points, every code point but the surrogates: escapes and order alike
    points = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    files = {
        "".join(map(chr, points[i : i + 64])): digest(bytes([i % 256])) for i in range(0, len(points), 64)
    }
    body = {"files": files, "schema": MANIFEST_SCHEMA}
    assert encode(files) == (json.dumps(body, ensure_ascii=False, sort_keys=True, indent=2) + "\n").encode()


def test_a_writer_keeps_the_lines_another_writer_added_since(tmp_path: Path) -> None:
    first, second = Manifest(tmp_path), Manifest(tmp_path)
    first.record({"a.json": b"a"})
    second.record({"b.json": b"b"})
    first.record({"c.json": b"c"})
    assert Manifest(tmp_path).files() == {
        "a.json": digest(b"a"),
        "b.json": digest(b"b"),
        "c.json": digest(b"c"),
    }


def test_a_writer_keeps_an_edit_of_the_same_size_made_by_hand(tmp_path: Path) -> None:
    manifest = Manifest(tmp_path)
    manifest.record({"a.json": b"a"})
    path = tmp_path / MANIFEST_NAME
    edited = path.read_bytes().replace(digest(b"a").encode(), digest(b"z").encode())
    assert len(edited) == path.stat().st_size
    path.write_bytes(edited)  # the same inode and size: only its bytes tell
    manifest.record({"b.json": b"b"})
    assert Manifest(tmp_path).files() == {"a.json": digest(b"z"), "b.json": digest(b"b")}
