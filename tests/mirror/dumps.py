"""Dumps generated deterministically in the real forms (the samples in ``data/`` are the model):
DBLP's ``dblp.xml.gz`` (ISO-8859-1, named entities from the DTD beside it, homonym numbers,
inline markup, final full stops, DOIs in ``<ee>``), Crossref's ``{"items": [...]}`` files, and
JSON Lines of OpenAlex and arXiv. Used by the tests and by ``bench/mirror_bench.py``."""

from __future__ import annotations

import gzip
import json
import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["DATA", "Work", "works", "write_crossref", "write_dblp"]

DATA = Path(__file__).resolve().parent / "data"

_SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "zi", "pe", "sa", "do", "ri", "gu", "fe", "ba", "xo"]
# Names as DBLP writes them: entities for the letters outside ASCII.
_FAMILIES = ["M&uuml;ller", "Garc&iacute;a", "Nov&aacute;k", "Sch&ouml;n", "Fran&ccedil;ois", "van der Berg",
             "de la Cruz", "Smith Jr.", "Wang", "Li", "Chen", "Kim", "Okafor", "Rossi", "Ivanova", "Dubois"]  # fmt: skip
_GIVEN = [
    "Wei",
    "Ana",
    "J&ouml;rg",
    "Ren&eacute;",
    "Li",
    "Maria",
    "John",
    "Yuki",
    "Ola",
    "Pierre",
    "S&oslash;ren",
]


class Work:
    """One generated work: what every format's writer writes it as."""

    def __init__(self, i: int, rng: random.Random, vocabulary: list[str]) -> None:
        self.i = i
        n = rng.randint(4, 11)
        # Zipf-like (log-uniform ranks): a few words are in many titles, most in few, as in real titles.
        words = [vocabulary[int(len(vocabulary) ** rng.random()) - 1] for _ in range(n)]
        self.words = words
        self.markup = rng.random() < 0.03
        self.authors = [
            (rng.choice(_GIVEN), rng.choice(["", "Ka", "Ro", "Ni", "Sen"]) + rng.choice(_FAMILIES).lower(),
             f" {rng.randint(1, 9):04d}" if rng.random() < 0.05 else "")
            for _ in range(rng.randint(1, 6))
        ]  # fmt: skip
        self.year = rng.randint(1990, 2024)
        self.kind = "inproceedings" if rng.random() < 0.6 else "article"
        self.venue = rng.choice(["NeurIPS", "ICML", "ACL", "CVPR", "J. Mach. Learn. Res.", "Commun. ACM"])
        self.doi = f"10.{1000 + i % 9000}/gen.{i}" if rng.random() < 0.7 else ""
        self.pages = f"{i % 900 + 1}-{i % 900 + 12}"

    @property
    def title(self) -> str:
        return " ".join(self.words).capitalize()

    def dblp_xml(self) -> str:
        title = self.title
        if self.markup:
            first, _, rest = title.partition(" ")
            title = f"<i>{first}</i><sub>2</sub> {rest}"
        authors = "".join(f"<author>{g} {f}{h}</author>\n" for g, f, h in self.authors)
        ee = f"<ee>https://doi.org/{self.doi}</ee>\n" if self.doi else ""
        container = f"<booktitle>{self.venue}</booktitle>" if self.kind == "inproceedings" else (
            f"<journal>{self.venue}</journal>\n<volume>{self.i % 40 + 1}</volume>")  # fmt: skip
        return (
            f'<{self.kind} mdate="2023-{self.i % 12 + 1:02d}-{self.i % 28 + 1:02d}" key="conf/gen/W{self.i}">\n'
            f"{authors}<title>{title}.</title>\n<pages>{self.pages}</pages>\n<year>{self.year}</year>\n"
            f"{container}\n{ee}<url>db/conf/gen/gen{self.year}.html#W{self.i}</url>\n</{self.kind}>\n"
        )

    def crossref(self) -> dict[str, Any]:
        import html

        return {
            "DOI": self.doi or f"10.9999/gen.{self.i}",
            "title": [self.title],
            "author": [
                {
                    "given": html.unescape(g),
                    "family": html.unescape(f),
                    "sequence": "first" if k == 0 else "additional",
                }
                for k, (g, f, _) in enumerate(self.authors)
            ],
            "container-title": [self.venue],
            "issued": {"date-parts": [[self.year, self.i % 12 + 1]]},
            "published-print": {"date-parts": [[self.year]]},
            "type": "proceedings-article" if self.kind == "inproceedings" else "journal-article",
            "volume": str(self.i % 40 + 1),
            "page": self.pages,
            "publisher": "Generated",
            "indexed": {
                "date-parts": [[2024, 1, 2]],
                "date-time": "2024-01-02T03:04:05Z",
                "timestamp": 1704164645000,
            },
            "reference-count": 0,
            "source": "Crossref",
        }


def works(n: int, seed: int = 26, start: int = 0) -> Iterator[Work]:
    rng = random.Random(seed)
    vocabulary = sorted({a + b + c + d for a in _SYLLABLES for b in _SYLLABLES for c in _SYLLABLES
                         for d in [*_SYLLABLES, ""]})  # fmt: skip
    rng.shuffle(vocabulary)
    for i in range(start + n):
        w = Work(i, rng, vocabulary)
        if i >= start:
            yield w


def write_dblp(folder: Path, n: int, *, seed: int = 26, www_every: int = 20, untitled: int = 0) -> Path:
    """``folder/dblp.xml.gz`` with ``n`` works (plus a ``<www>`` home page every ``www_every``
    and ``untitled`` records without a title), and the DTD beside it."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(DATA / "dblp" / "dblp.dtd", folder / "dblp.dtd")
    path = folder / "dblp.xml.gz"
    with gzip.open(path, "wt", encoding="iso-8859-1", compresslevel=1) as out:
        out.write('<?xml version="1.0" encoding="ISO-8859-1"?>\n<!DOCTYPE dblp SYSTEM "dblp.dtd">\n<dblp>\n')
        for w in works(n, seed):
            out.write(w.dblp_xml())
            if www_every and w.i % www_every == 0:
                out.write(f'<www mdate="2020-01-01" key="homepages/gen/{w.i}">\n<author>Someone {w.i}</author>\n'
                          "<title>Home Page</title>\n</www>\n")  # fmt: skip
        for k in range(untitled):
            out.write(f'<article mdate="2020-01-01" key="journals/gen/untitled{k}">\n<author>Nobody</author>\n'
                      "<year>2020</year>\n</article>\n")  # fmt: skip
        out.write("</dblp>\n")
    return path


def write_crossref(folder: Path, n: int, *, per_file: int = 5000, seed: int = 26) -> list[Path]:
    """Crossref's public data file: ``folder/0.json.gz``, ``1.json.gz`` … of ``per_file`` works."""
    folder.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    batch: list[dict[str, Any]] = []
    for w in works(n, seed):
        batch.append(w.crossref())
        if len(batch) == per_file or w.i == n - 1:
            path = folder / f"{len(paths)}.json.gz"
            with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as out:
                json.dump({"items": batch}, out, ensure_ascii=False)
            paths.append(path)
            batch = []
    return paths
