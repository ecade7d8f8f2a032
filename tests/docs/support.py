"""What the docs tests share: the site's hook module, its pages, and Markdown read as the site reads it."""

from __future__ import annotations

import importlib.util
import re
import sys
from functools import cache
from types import ModuleType

from markdown.extensions.toc import slugify

from tests.conftest import ROOT

DOCS = ROOT / "docs"
README = ROOT / "README.md"


@cache
def hook() -> ModuleType:
    """docs/hooks/reference.py, the module MkDocs runs to fill the reference pages."""
    spec = importlib.util.spec_from_file_location("citeaudit_docs_reference", DOCS / "hooks" / "reference.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def page(name: str) -> str:
    """A hand-written page of the site, e.g. ``guides/ci.md``."""
    return (DOCS / name).read_text("utf-8")


def pages() -> dict[str, str]:
    """Every Markdown page of the site by its path under docs/."""
    return {
        p.relative_to(DOCS).as_posix(): p.read_text("utf-8")
        for p in sorted(DOCS.rglob("*.md"))
        if "hooks" not in p.relative_to(DOCS).parts
    }


_FENCE = re.compile(r"^(```+|~~~+)")


def headings(text: str) -> list[tuple[int, str, int]]:
    """(level, text, line index) of each heading outside code blocks."""
    found = []
    fence: str | None = None
    for i, line in enumerate(text.splitlines()):
        m = _FENCE.match(line)
        if m:
            fence = None if fence and line.startswith(fence) else (fence or m.group(1))
            continue
        h = re.match(r"^(#{1,6}) (.*?)(?: \{#[^}]+\})?$", line) if fence is None else None
        if h:
            found.append((len(h.group(1)), h.group(2), i))
    return found


def section(text: str, heading: str) -> str:
    """The text under ``heading`` (its subsections included) up to the next heading of its level."""
    lines = text.splitlines()
    found = headings(text)
    for n, (level, title, i) in enumerate(found):
        if title == heading:
            end = next((j for lvl, _, j in found[n + 1 :] if lvl <= level), len(lines))
            return "\n".join(lines[i + 1 : end])
    raise AssertionError(f"no heading {heading!r}")


def table_rows(text: str) -> dict[str, list[str]]:
    """First cell → the other cells, for every row of the Markdown tables in ``text``."""
    rows = {}
    for line in text.splitlines():
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        key = re.sub(r"\{#[^}]*\}$", "", cells[0]).strip("`")
        if key and not set(key) <= {"-", ":"}:
            rows[key] = cells[1:]
    return rows


def anchors(text: str) -> set[str]:
    """The ids the site gives the headings of a page (explicit ``{#id}`` ones included)."""
    ids = set()
    for _, title, _ in headings(text):
        ids.add(slugify(title, "-"))
    ids |= set(re.findall(r"\{#([^}\s]+)\}", text))
    return ids
