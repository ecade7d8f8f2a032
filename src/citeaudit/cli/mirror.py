"""``citeaudit mirror import|info``: local mirrors of the bibliographic dumps (DBLP, Crossref,
OpenAlex, arXiv) that ``work`` citations are looked up in offline."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from citeaudit.cli.common import EXIT_CLEAN, Parser, positive, print_json, require_extra
from citeaudit.errors import ConfigError

if TYPE_CHECKING:
    from citeaudit.mirror.interface import SourceState

__all__ = ["add_parsers", "dump_date", "run_import", "run_info"]

_FORMATS = ("dblp", "crossref", "openalex", "arxiv")  # citeaudit.mirror.FORMATS, without importing it
_DATE_IN_NAME = re.compile(r"(\d{4})[-_](\d{2})[-_](\d{2})")


def add_parsers(commands: argparse._SubParsersAction[Parser]) -> None:
    mirror = commands.add_parser(
        "mirror", help="import bibliographic dumps into a local mirror, and describe it"
    )
    actions = mirror.add_subparsers(dest="action", required=True, parser_class=Parser)
    load = actions.add_parser(
        "import",
        help="stream dump files into a mirror (resumable: rerun after an interruption)",
        description="Exit 0: every file imported; 2: a file could not be read (what was committed stays, "
        "and the mirror shows the file as incomplete until a rerun finishes it).",
    )
    load.add_argument("--format", required=True, choices=_FORMATS, help="the dump's format")
    load.add_argument(
        "files", nargs="+", metavar="FILE", help="dump files, folders of them, or (Crossref) a tar archive"
    )
    load.add_argument("--mirror", required=True, type=Path, help="the mirror file (created if absent)")
    load.add_argument("--batch", type=positive, default=20000, help="records per transaction (default 20000)")
    load.add_argument(
        "--readers",
        type=_count,
        default=None,
        metavar="N",
        help="processes that read and normalise the dump while another writes (default: 2, or 3 with "
        "more than 3 CPUs; 0: read in the writing process)",
    )
    load.add_argument(
        "--max-record-bytes",
        type=positive,
        default=64 * 1024 * 1024,
        help="longest record read (default 64 MiB); a longer JSON line is skipped and counted, a longer "
        "Crossref work is an error",
    )
    load.set_defaults(func=run_import)
    info = actions.add_parser("info", help="the mirror's dumps, record counts, dump dates and completeness")
    info.add_argument("--mirror", required=True, type=Path, help="the mirror file")
    info.add_argument("--json", action="store_true", help="print it as JSON")
    info.set_defaults(func=run_info)


def _count(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = -1
    if number < 0:
        raise argparse.ArgumentTypeError(f"expected 0 or a positive integer, got {value!r}")
    return number


def run_import(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    if args.format == "dblp":  # dblp.xml and its DTD's entities are read by lxml
        require_extra("mirror", "mirror import --format dblp")
    for name in args.files:  # before the mirror is created: a mistyped dump name leaves no empty one
        if not Path(name).exists():
            raise ConfigError(f"{name}: no such file or folder")
    from citeaudit.mirror import SqliteStore, import_dump

    def progress(name: str, units: int) -> None:
        if stderr.isatty():
            print(
                f"\r{Path(name.split(':')[0]).name}: {units:,} records read", end="", file=stderr, flush=True
            )

    store = SqliteStore(args.mirror)
    try:
        report = import_dump(
            store,
            args.format,
            args.files,
            batch=args.batch,
            max_record_bytes=args.max_record_bytes,
            progress=progress,
            readers=args.readers,
        )
    finally:
        store.close()
        if stderr.isatty():
            print(file=stderr)
    for f in report.files:
        skipped = sum(f.skipped.values())
        extra = f", {skipped:,} skipped ({_reasons(f.skipped)})" if skipped else ""
        print(f"{shown_path(f.name)}: {f.action}: {f.imported:,} records{extra}", file=stdout)
    return EXIT_CLEAN


def _reasons(skipped: dict[str, int]) -> str:
    return "; ".join(f"{reason}: {n:,}" for reason, n in sorted(skipped.items()))


def dump_date(state: SourceState) -> tuple[str, str]:
    """The dump's date and where it comes from: the newest record date in the dump, else a date in
    the file's name, else unknown."""
    if state.dump_date:
        return state.dump_date, "the dump: its newest record date"
    m = _DATE_IN_NAME.search(state.name)
    if m:
        return "-".join(m.groups()), "the file name"
    return "unknown", "neither the dump nor the file name"


def _view(path: Path) -> dict[str, Any]:
    from citeaudit.mirror.sqlite import mirror_status

    sources, counts, size, built = mirror_status(path)
    formats: dict[str, Any] = {}
    for fmt in sorted({s.format for s in sources} | set(counts), key=_FORMATS.index):
        files = []
        for s in (s for s in sources if s.format == fmt):
            date, source = dump_date(s)
            files.append(
                {"name": s.name, "complete": s.complete, "units": s.units, "imported": s.imported,
                 "skipped": dict(sorted(s.skipped.items())), "dump_date": date, "dump_date_from": source}
            )  # fmt: skip
        formats[fmt] = {"records": counts.get(fmt, 0), "files": files}
    incomplete = [s.name for s in sources if not s.complete]
    total = sum(counts.values())
    return {
        "mirror": str(path),
        "engine": "sqlite-fts5",
        "bytes": size,
        "records": total,
        "complete": bool(sources) and not incomplete and built,
        "incomplete_files": incomplete,
        "index_built": built,
        "formats": formats,
    }


def run_info(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    view = _view(args.mirror)
    if args.json:
        print_json(view, stdout)
        return EXIT_CLEAN
    per = f", {view['bytes'] / view['records']:,.0f} bytes a record" if view["records"] else ""
    print(
        f"mirror {view['mirror']} (SQLite FTS5): {view['records']:,} records, "
        f"{view['bytes'] / 1e6:,.1f} MB on disk{per}",
        file=stdout,
    )
    for fmt, info in view["formats"].items():
        print(f"{fmt}: {info['records']:,} records", file=stdout)
        for f in info["files"]:
            state = (
                "complete" if f["complete"] else "INCOMPLETE (rerun `citeaudit mirror import` to finish it)"
            )
            skipped = sum(f["skipped"].values())
            extra = f", {skipped:,} skipped ({_reasons(f['skipped'])})" if skipped else ""
            print(
                f"  {f['name']}: {state}; {f['units']:,} read, {f['imported']:,} imported{extra}; "
                f"dump date {f['dump_date']} (from {f['dump_date_from']})",
                file=stdout,
            )
    if view["complete"]:
        print("status: complete", file=stdout)
    elif not view["formats"]:
        print("status: empty (nothing imported yet)", file=stdout)
    elif not view["incomplete_files"]:
        print(
            "status: incomplete: the import ended before the index was built; "
            "rerun `citeaudit mirror import`",
            file=stdout,
        )
    else:
        print(
            f"status: incomplete: {', '.join(view['incomplete_files'])} did not finish importing", file=stdout
        )
    return EXIT_CLEAN


def shown_path(name: str) -> str:
    """A dump file as a person named it: relative to the working directory when it is under it
    (the mirror records the absolute path, so that a rerun from elsewhere resumes the same file)."""
    import os

    relative = os.path.relpath(name)
    return name if relative.startswith("..") else relative
