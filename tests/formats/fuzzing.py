"""What the input fuzzers share: the property, the bounds, the seeds and their mutations.

The property: a parser given any input either returns a submission whose every string UTF-8 can
write, or raises :class:`~citeaudit.errors.InputError` whose message is one printable line naming
the input. Any other exception fails the test with the input that raised it.

The bounds: a fixed number of examples per test (``FUZZ_EXAMPLES`` sets another for
every fuzz test: ``make fuzz`` runs 10,000), a deadline per example (a parse that takes
seconds on a few kilobytes is a hang in waiting), and ``derandomize`` with no example database, so
that every run on every machine tries the same inputs. All the fuzz tests together take a few
seconds; the examples they found are kept as exact cases in ``test_fuzz_regressions.py``.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any, TypeVar

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from citeaudit.errors import InputError
from citeaudit.model import Submission
from tests.conftest import GOLDEN, ROOT

__all__ = [
    "BIBTEX_SEEDS",
    "BIBTEX_TOKENS",
    "BYTE_TOKENS",
    "EXAMPLES_ENV",
    "JSON_SEEDS",
    "JSON_TOKENS",
    "MARKDOWN_SEEDS",
    "MARKDOWN_TOKENS",
    "bibtex_entries",
    "fuzz_settings",
    "json_values",
    "mutated",
    "parses_or_refuses",
    "replaced_nodes",
]

T = TypeVar("T", str, bytes)
X = TypeVar("X")


#: The number of examples every fuzz test runs instead of its own (``make fuzz``).
EXAMPLES_ENV = "FUZZ_EXAMPLES"


def fuzz_settings(examples: int) -> settings:
    """``examples`` inputs per test (or ``$FUZZ_EXAMPLES``), the same ones on every run."""
    return settings(
        max_examples=int(os.environ.get(EXAMPLES_ENV) or examples),
        deadline=timedelta(seconds=3),  # a loaded two-core machine, warm: each example takes milliseconds
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def parses_or_refuses(parse: Callable[[X], Submission], data: X, name: str) -> Submission | None:
    """Parse ``data``: a submission UTF-8 can write, or None after an InputError with a one-line
    printable message naming ``name``. Anything else propagates."""
    try:
        submission = parse(data)
    except InputError as e:
        message = e.diagnostics()
        assert message.startswith(f"{name}: "), message
        assert len(message.splitlines()) == 1, message
        assert message.isprintable(), ascii(message)
        return None
    assert isinstance(submission, Submission)
    # Everything after the parse (the digest, the report, every output format) is UTF-8.
    assert submission.digest
    json.dumps(dataclasses.asdict(submission), ensure_ascii=False, default=repr).encode("utf-8")
    return submission


# -- seeds: the real examples of the repository ---------------------------------------------

_SEED_002 = {
    "title": "Отчёт",
    "claims": [
        {
            "claim_id": "a",
            "text": "Сервис хранит журнал 30 дней.",
            "kind": "fact",
            "citations": [
                {
                    "citation_id": "r1",
                    "ref": {"source_id": "policy", "revision": 1, "digest": "a" * 64},
                    "start": 0,
                    "end": 10,
                    "quote": "журнал хранится",
                }
            ],
        },
        {
            "claim_id": "b",
            "text": "Значит, месяц.",
            "kind": "inference",
            "rationale": "30 дней",
            "citations": [],
        },
    ],
    "conflicts": [{"claim_ids": ["a", "b"], "reason": "r"}],
    "gaps": ["g"],
}
_NATIVE = {
    "title": "t",
    "claims": [
        {
            "id": "c1",
            "text": "x",
            "kind": "fact",
            "citations": [
                {"doi": "10.1162/neco.1997.9.8.1735", "title": "Long Short-Term Memory", "year": 1997,
                 "authors": ["Hochreiter, S."], "volume": 9, "quote": "a novel recurrent network architecture"},
                {"arxiv": "1706.03762v5", "first_author": "Vaswani", "title": "Attention"},
                {"url": "https://example.org/page", "title": "Page", "accessed": "2024-01-01", "quote": "q" * 40},
                {"title": "A work found by search", "year": 2020, "first_author": "Smith"},
                {"source_id": "s", "revision": 2, "digest": "b" * 64, "start": 1, "end": 5, "quote": "text"},
                {"document_id": "d", "document_version": "v1", "start": 0, "end": 3, "quote": "abc"},
            ],
        }
    ],
    "labels": {"team": "a"},
    "gaps": [],
}  # fmt: skip

JSON_SEEDS: list[bytes] = [
    *(p.read_bytes() for p in sorted((ROOT / "examples").glob("*/claims.json"))),
    *(p.read_bytes() for p in sorted(GOLDEN.glob("*/response.json"))),
    json.dumps(_SEED_002, ensure_ascii=False).encode("utf-8"),
    json.dumps(_NATIVE).encode("utf-8"),
]

BIBTEX_SEEDS: list[str] = [
    *(p.read_text("utf-8") for p in sorted((ROOT / "examples").glob("**/*.bib"))),
    "@article{k, title={T}, doi={10.1/x}, year={2020}, author={Smith, A. and Jones, B. and others}}",
    "@misc{a, eprint={1706.03762}, archiveprefix={arXiv}, title={Attention}}",
    '@string{acl = "Proceedings of ACL"}\n@inproceedings{k, booktitle = acl # { 2020}, month = jan, '
    'title = "Q{\\"u}ery " # {{GPT}--4}, year = 2020}',
    "@proceedings{p, title={Parent}, year={1999}}\n@inproceedings{c, crossref={p}, title={Child}}",
    "@article{k, title=}",
    "@{,=}",
    '% comment\n@comment{x}\n@preamble{"\\newcommand{\\x}{y}"}\n@article{k, title = {100% R&D}}',
]

MARKDOWN_SEEDS: list[str] = [
    *(p.read_text("utf-8") for p in sorted((ROOT / "tests" / "formats" / "markdown").glob("*.md"))),
    *(p.read_text("utf-8") for p in sorted((ROOT / "examples").glob("*/*.md"))),
]

# -- what mutations insert: each format's syntax, and what parsers choke on -----------------

_NASTY = [
    "\x00", "\x1b[31m", "\x0b", "\x1c", "\x85", "\u2028", "\u202e", "\ufeff", "\ufffd", "\u00a0", "²", "٣",
    "\U0001f600", "e\u0301", "9" * 5000, "-" + "9" * 30, "1e999",
]  # fmt: skip
BIBTEX_TOKENS = [
    *list('@{}=,"#%\\~$ \n\t'), "@article{", "@string{m = m # m}", "@comment{", "@preamble{", " # ", "title",
    "title=", "doi = {10.1/x}", "eprint", "archiveprefix = {arXiv}", "crossref = {p}", "author = {", " and ",
    "others", "year = ", "{\\\"o}", "\\'e", "$x^2$", "--", "``", "{" * 200, "}" * 200, *_NASTY,
]  # fmt: skip
MARKDOWN_TOKENS = [
    *list('[]()^:*#-_`>|!<"“”«» \n\t\r0123456789.,;–'), "## References\n", "1. ", "- ", "> " * 50,
    "    ", "```\n", "[1]", "[1, 3]", "[2–4]", "[^a]", "[^a]: ", "[1]: https://x.org ", "(Smith et al., 2020)",
    "Smith (2020)", "https://doi.org/10.1/x", "doi:10.1/x", "arXiv:1706.03762", "<https://a.b>", "| a | b |\n",
    "|---|---|\n", "[" * 300, "*" * 300, "&#x0;", "<!--", *_NASTY,
]  # fmt: skip
BYTE_TOKENS = [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xef\xbb\xbf", b"\x80", b"\xf4\x90\x80\x80"]
JSON_TOKENS = [
    *(c.encode() for c in '{}[]",:'), b"null", b"true", b"-0", b"1e999", b"1.5", b"9" * 5000, b"[" * 200,
    b'"\\ud800"', b'"\\u0000"', b'"a\\nb"', b'"\\u2028"', b'"claims"', b'"id"', b'"text"', b'"citations"',
    b'"doi"', b'"url"', b'"arxiv"', b'"title"', b'"quote"', b'"start"', b'"claim_id"', b'"ref"',
    *(t.encode() for t in _NASTY[:12]), *BYTE_TOKENS,
]  # fmt: skip


@st.composite
def mutated(draw: st.DrawFn, seeds: Sequence[T], tokens: Sequence[T]) -> T:
    """A seed with a few edits: a token inserted, a span deleted, duplicated (nesting, long runs)
    or replaced by a token."""
    text = draw(st.sampled_from(seeds))
    token = st.sampled_from(tokens)
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(("insert", "delete", "repeat", "replace")))
        if op == "insert":
            text = text[:at] + draw(token) + text[at:]
        elif op == "delete":
            text = text[:at] + text[draw(st.integers(at, min(len(text), at + 40))) :]
        elif op == "repeat":
            end = draw(st.integers(at, min(len(text), at + 30)))
            text = text[:at] + text[at:end] * draw(st.integers(2, 40)) + text[end:]
        else:
            text = text[:at] + draw(token) + text[draw(st.integers(at, min(len(text), at + 8))) :]
    return text


_FIELD_NAMES = ["title", "author", "year", "doi", "eprint", "archiveprefix", "eprinttype", "crossref", "journal",
                "booktitle", "volume", "number", "pages", "month", "url", "TITLE", ""]  # fmt: skip
_VALUE_TEXT = [
    "",
    " ",
    "T",
    "2020",
    "10.1/x",
    "arXiv:1706.03762",
    "Smith, A. and others",
    "{GPT}",
    "jan",
    "m1",
    *_NASTY,
]


@st.composite
def bibtex_entries(draw: st.DrawFn) -> str:
    """A bibliography built from BibTeX's parts: ``@string`` macros (a chain of them, each twice
    the one before, as long as 24 links), then entries whose fields are empty, braced, quoted,
    bare or ``#``-joined values, keys and types that may be empty or odd."""
    out = []
    chain = draw(st.integers(0, 24))
    if chain:
        out.append("@string{m0 = {ab}}\n")
        out += [f"@string{{m{k} = m{k - 1} # m{k - 1}}}\n" for k in range(1, chain + 1)]
    text = st.sampled_from(_VALUE_TEXT) | st.text(max_size=8)
    part = st.one_of(
        text.map(lambda v: "{" + v + "}"),
        text.map(lambda v: '"' + v + '"'),
        st.sampled_from(["", "m0", f"m{chain}", "2020", "9" * 5000, "jan"]),
    )
    value = st.lists(part, min_size=1, max_size=3).map(" # ".join)
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(
            st.sampled_from(["article", "inproceedings", "misc", "proceedings", "", "string", "comment"])
        )
        key = draw(st.sampled_from(["k", "p", "K", "", " ", "k\x1b", "a b"]))
        fields = draw(st.lists(st.tuples(st.sampled_from(_FIELD_NAMES), value), max_size=5))
        body = ", ".join(f"{name} = {v}" for name, v in fields)
        out.append(f"@{kind}{{{key}, {body}}}\n")
    return "".join(out)


_KEYS = ["id", "text", "kind", "rationale", "citations", "citation_ids", "claims", "doi", "arxiv", "url", "title",
         "year", "first_author", "authors", "volume", "quote", "document_id", "document_version", "source_id",
         "revision", "digest", "ref", "start", "end", "claim_id", "citation_id", "labels", "conflicts",
         "claim_ids", "reason", "gaps", "answer", "accessed"]  # fmt: skip


def json_values() -> st.SearchStrategy[Any]:
    """Any JSON value, its keys often the formats' own, strings with the nasty characters."""
    text = st.text(max_size=12) | st.sampled_from(
        ["", " ", "10.1/x", "1706.03762", "https://a.b/", "\ud800", *_NASTY]
    )
    scalars = (
        st.none() | st.booleans() | st.integers() | st.integers(-(2**70), 2**70)
        | st.floats(allow_nan=False) | text
    )  # fmt: skip
    keys = st.sampled_from(_KEYS) | st.text(max_size=6)
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=5),
        max_leaves=8,
    )


def _nodes(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(value, dict):
        for key, child in value.items():
            out += _nodes(child, (*path, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            out += _nodes(child, (*path, i))
    return out


@st.composite
def replaced_nodes(draw: st.DrawFn, seeds: Sequence[bytes]) -> bytes:
    """A seed document with a few of its values replaced by any JSON value, keys added or
    removed: the structure the formats know, with a wrong part somewhere in it."""
    document = json.loads(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(1, 3))):
        paths = _nodes(document)[1:]  # not the root: any value as the whole document is a test of its own
        if not paths:
            break
        path = draw(st.sampled_from(paths[::-1]))  # the deepest first: where the examples start
        parent = document
        for part in path[:-1]:
            parent = parent[part]
        op = draw(st.sampled_from(("replace", "add", "delete")))
        if op == "delete":
            del parent[path[-1]]
        elif op == "add" and isinstance(parent, dict):
            parent[draw(st.sampled_from(_KEYS) | st.text(max_size=4))] = draw(json_values())
        else:
            parent[path[-1]] = draw(json_values())
    return json.dumps(document, ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogatepass")
