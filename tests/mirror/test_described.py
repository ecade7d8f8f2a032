"""How a report names a mirror's dump files: never by the folder they were imported from."""

from __future__ import annotations

import pytest

from citeaudit.mirror.sqlite import dump_file_name


@pytest.mark.parametrize(
    ("stored", "named"),
    [
        ("/data/dumps/dblp-2026-11-01.xml.gz", "dblp-2026-11-01.xml.gz"),
        ("/data/arxiv.tar:arxiv/part_000.jsonl", "arxiv.tar:arxiv/part_000.jsonl"),
        ("/srv/a:b/openalex.tar.gz:data/works/updated_date=2026-11-01/part_000.gz",
         "openalex.tar.gz:data/works/updated_date=2026-11-01/part_000.gz"),
        ("/data/crossref.tgz:0.jsonl.gz", "crossref.tgz:0.jsonl.gz"),
        ("relative/crossref.jsonl", "crossref.jsonl"),
    ],
)  # fmt: skip
def test_a_dump_file_is_named_by_its_own_name(stored: str, named: str) -> None:
    assert dump_file_name(stored) == named
