"""``citeaudit mirror``: import rate from DBLP XML and Crossref JSON, peak memory at 100k and 1M
records, title look-up latency on the 1M mirror, bytes on disk per record, and from those the
full dumps on paper. ``python -m bench.mirror_bench [--records N] [--record] [--tantivy]``.

``--tantivy`` (with tantivy installed: ``pip install tantivy``; not a dependency) also measures
tantivy against SQLite FTS5 on the records of the 1M DBLP mirror: building the index from the same
normalised rows, its size, and the same look-ups with the same plans run by tantivy instead of
FTS5 (the records, the word counts and the scoring stay in SQLite). The comparison is kept in
``bench/work/mirror/engines-N.json`` and shown by every later ``--record``."""

from __future__ import annotations

import argparse
import html
import importlib
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "bench" / "work" / "mirror"
FULL = {"dblp": 7_000_000, "crossref": 160_000_000}
KINDS = ("exact", "unknown word", "other word")


def _load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def _generate(n: int) -> tuple[Path, Path]:
    sys.path.insert(0, str(ROOT))
    from tests.mirror.dumps import write_crossref, write_dblp

    dblp, crossref = WORK / f"dblp-{n}", WORK / f"crossref-{n}"
    if not (dblp / "dblp.xml.gz").exists():
        write_dblp(dblp, n, www_every=0)
    if not (crossref / "done").exists():
        write_crossref(crossref, n)
        (crossref / "done").write_text("")
    return dblp / "dblp.xml.gz", crossref


def _import(fmt: str, source: Path, mirror: Path) -> dict[str, Any]:
    for p in (mirror, Path(f"{mirror}-wal"), Path(f"{mirror}-shm")):
        p.unlink(missing_ok=True)
    args = ["mirror", "import", "--format", fmt, str(source), "--mirror", str(mirror)]
    script = (
        "import resource, runpy, sys; sys.argv = ['citeaudit', *sys.argv[1:]]; "
        "code = 0\ntry: runpy.run_module('citeaudit', run_name='__main__')\n"
        "except SystemExit as e: code = e.code or 0\n"
        "print('MAXRSS', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "
        "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); sys.exit(code)"
    )
    load = _load()
    start, cpu = time.perf_counter(), os.times()
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    used = os.times()
    writer, reader = (int(x) for x in done.stderr.rsplit("MAXRSS", 1)[1].split()[:2])
    records = sum(
        int(line.rsplit(": ", 1)[1].split()[0].replace(",", "")) for line in done.stdout.splitlines()
    )
    size = sum(p.stat().st_size for p in (mirror, Path(f"{mirror}-wal")) if p.exists())
    cpu_s = used.children_user - cpu.children_user + used.children_system - cpu.children_system
    from citeaudit.mirror.load import READERS

    # The writer's peak and the largest reader's, once per reader: an upper bound (what the readers
    # share with the writer since the fork is counted again for each).
    peak = (writer + READERS * reader) / 1024
    return {"records": records, "seconds": wall, "per_second": records / wall, "cpu_seconds": cpu_s,
            "peak_rss_mb": peak, "writer_rss_mb": writer / 1024, "reader_rss_mb": reader / 1024,
            "readers": READERS, "bytes": size, "bytes_per_record": size / records, "load_before": load,
            "load_after": _load()}  # fmt: skip


def _queries(n: int, count: int = 2000) -> list[tuple[str, str, Any]]:
    """``count`` look-ups of generated works: half exact titles (no author, no year), half with one
    word wrong and the first author and year: a word no record has, or another real word."""
    sys.path.insert(0, str(ROOT))
    from tests.mirror.dumps import works

    from citeaudit.resolve.indexes.interface import WorkQuery

    step = max(n // count, 1)
    chosen = [w for w in works(n) if w.i % step == 0][:count]
    vocabulary = sorted({word for w in chosen for word in w.words})
    rng = random.Random(26)
    out = []
    for k, w in enumerate(chosen):
        key = f"conf/gen/W{w.i}"
        if k % 2 == 0:
            out.append(("exact", key, WorkQuery(w.title)))
            continue
        words = list(w.words)
        if k % 4 == 1:
            words[len(words) // 2] = "qqwordqq"
            kind = "unknown word"
        else:
            words[rng.randrange(len(words))] = rng.choice(vocabulary)
            kind = "other word"
        out.append((kind, key, WorkQuery(" ".join(words), html.unescape(w.authors[0][1]), w.year)))
    return out


def _write_bib(n: int, path: Path, count: int = 500) -> None:
    """``count`` references without an identifier, as a ``.bib`` names generated works: every
    ``n // count``-th work's title, authors (entities decoded), year, venue and pages."""
    sys.path.insert(0, str(ROOT))
    from tests.mirror.dumps import works

    entries: list[str] = []
    for w in works(n):
        if w.i % max(n // count, 1) or len(entries) == count:
            continue
        authors = " and ".join(html.unescape(f"{g} {f}") for g, f, _ in w.authors)
        venue = "booktitle" if w.kind == "inproceedings" else "journal"
        entries.append(
            f"@{w.kind}{{w{w.i},\n  title = {{{w.title}}},\n  author = {{{authors}}},\n  year = {{{w.year}}},\n"
            f"  {venue} = {{{w.venue}}},\n  pages = {{{w.pages.replace('-', '--')}}}\n}}\n"
        )
    path.write_text("\n".join(entries), "utf-8")


def _evict(*paths: Path) -> None:
    """Drops the files' pages from the page cache (clean pages; no privileges needed), so the
    next read is from the disk, as after a reboot."""
    for path in paths:
        if path.exists():
            fd = os.open(path, os.O_RDONLY)
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def _bib_check(n: int, mirror: Path, runs: int = 3) -> dict[str, Any]:
    """``citeaudit check refs.bib --offline --mirror M`` of 500 references on the ``n``-record
    mirror, a fresh process each: first with the mirror's pages evicted, then ``runs`` warm."""
    bib, report = WORK / f"refs-{n}.bib", WORK / f"refs-{n}.json"
    _write_bib(n, bib)
    cli = [sys.executable, "-m", "citeaudit", "check", str(bib), "--offline", "--mirror", str(mirror),
           "--indexes", "", "--out", str(report)]  # fmt: skip
    load = _load()
    times = []
    for k in range(runs + 1):
        if k == 0:
            _evict(mirror, Path(f"{mirror}-wal"))
        t = time.perf_counter()
        done = subprocess.run(cli, capture_output=True, text=True, timeout=600)
        times.append(time.perf_counter() - t)
        if done.returncode not in (0, 1):
            raise RuntimeError(f"check of {bib} exited {done.returncode}: {done.stderr.strip()}")
    codes: dict[str, int] = {}
    for row in json.loads(report.read_text("utf-8"))["results"]:
        for finding in row.get("findings", ()):
            codes[finding["code"]] = codes.get(finding["code"], 0) + 1
    return {"references": 500, "evicted_seconds": times[0], "warm_seconds": statistics.median(times[1:]),
            "codes": dict(sorted(codes.items())), "load_before": load, "load_after": _load()}  # fmt: skip


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return 1000 * ordered[int(q * (len(ordered) - 1))]


def _lookups(index: Any, queries: Sequence[tuple[str, str, Any]]) -> dict[str, Any]:
    load = _load()
    times, cpu = [], []
    found: dict[str, list[bool]] = {kind: [] for kind in KINDS}
    for kind, key, q in queries:
        t, c = time.perf_counter(), time.process_time()
        answer = index.search_many([q])[q.key]
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
        found[kind].append(any(c.key == key for c in answer.candidates))
    return {
        "queries": len(times),
        "p50_ms": 1000 * statistics.median(times),
        "p99_ms": _percentile(times, 0.99),
        "max_ms": 1000 * max(times),
        "cpu_p50_ms": 1000 * statistics.median(cpu),
        "cpu_p99_ms": _percentile(cpu, 0.99),
        "found": {kind: sum(v) / len(v) for kind, v in found.items() if v},
        "found_count": {kind: f"{sum(v)}/{len(v)}" for kind, v in found.items() if v},
        "load_before": load,
        "load_after": _load(),
    }


def _engines(mirror: Path, queries: Sequence[tuple[str, str, Any]]) -> dict[str, Any]:
    """tantivy and SQLite FTS5, each building the mirror's full-text index from the same rows and
    running the same look-up plans."""
    tantivy = importlib.import_module("tantivy")
    from citeaudit.mirror.rows import fts_words
    from citeaudit.mirror.sqlite import SqliteMirror

    with sqlite3.connect(f"file:{mirror}?mode=ro", uri=True) as conn:
        rows = conn.execute("SELECT id, norm, names, year FROM records ORDER BY id").fetchall()
    texts = [(rowid, fts_words(norm, names, year)) for rowid, norm, names, year in rows]
    del rows
    out: dict[str, Any] = {"records": len(texts), "tantivy_version": getattr(tantivy, "__version__", "")}

    path = WORK / "engine-fts5.sqlite"
    for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        p.unlink(missing_ok=True)
    load, start = _load(), time.perf_counter()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.executescript(
        "CREATE VIRTUAL TABLE fts USING fts5(words, content='', columnsize=0, detail=none, "
        "tokenize=\"ascii tokenchars '_'\");"
        "INSERT INTO fts(fts, rank) VALUES ('pgsz', 500); INSERT INTO fts(fts, rank) VALUES ('automerge', 0);"
        "INSERT INTO fts(fts, rank) VALUES ('crisismerge', 64);"
    )
    for i in range(0, len(texts), 20_000):
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO fts(rowid, words) VALUES (?, ?)", texts[i : i + 20_000])
        conn.execute("COMMIT")
    conn.execute("INSERT INTO fts(fts) VALUES ('optimize')")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    seconds = time.perf_counter() - start
    out["fts5_build"] = {"seconds": seconds, "per_second": len(texts) / seconds,
                         "bytes": path.stat().st_size, "load": f"{load} → {_load()}"}  # fmt: skip
    path.unlink()

    folder = WORK / "engine-tantivy"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("words", stored=False, tokenizer_name="whitespace", index_option="basic")
    builder.add_unsigned_field("id", stored=False, indexed=False, fast=True)
    load, start = _load(), time.perf_counter()
    index = tantivy.Index(builder.build(), path=str(folder))
    writer = index.writer(heap_size=128_000_000, num_threads=1)
    for rowid, words in texts:
        doc = tantivy.Document()
        doc.add_unsigned("id", rowid)
        doc.add_text("words", words)
        writer.add_document(doc)
    writer.commit()
    writer.wait_merging_threads()
    seconds = time.perf_counter() - start
    size = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
    out["tantivy_build"] = {"seconds": seconds, "per_second": len(texts) / seconds, "bytes": size,
                            "load": f"{load} → {_load()}"}  # fmt: skip
    del texts
    index.reload()
    searcher = index.searcher()
    columns = "r.id, r.format, r.key, r.norm, r.names, r.year"

    class TantivyPlans(SqliteMirror):
        """The mirror's plans, their index expressions run by tantivy."""

        def _match(self, expression: str, cap: int) -> list[Any]:
            query = index.parse_query(expression, ["words"])
            hits = searcher.search(
                query, limit=cap, count=False, order_by_field="id", order=tantivy.Order.Asc
            )
            ids = [hit[0] for hit in hits.hits]
            if not ids:
                return []
            marks = ",".join("?" * len(ids))
            found: list[Any] = (
                self._connect()
                .execute(f"SELECT {columns} FROM records r WHERE r.id IN ({marks}) ORDER BY r.id", ids)
                .fetchall()
            )
            return found

    out["tantivy_lookups"] = _lookups(TantivyPlans(mirror), queries)
    out["fts5_lookups"] = _lookups(SqliteMirror(mirror), queries)
    return out


def run(quick: bool = False, records: int | None = None, engines: bool = False) -> dict[str, Any]:
    n = records or (100_000 if quick else 1_000_000)
    small = n // 10
    WORK.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    dblp_small, _ = _generate(small)
    dblp, crossref = _generate(n)
    result: dict[str, Any] = {"records": n, "generate_seconds": time.perf_counter() - t}
    result["dblp_small"] = _import("dblp", dblp_small, WORK / f"dblp-{small}.sqlite")
    result["dblp"] = _import("dblp", dblp, WORK / f"dblp-{n}.sqlite")
    result["crossref"] = _import("crossref", crossref, WORK / f"crossref-{n}.sqlite")
    result["memory_ratio"] = result["dblp"]["peak_rss_mb"] / result["dblp_small"]["peak_rss_mb"]
    from citeaudit.mirror import open_mirror

    queries = _queries(n)
    result["lookups"] = _lookups(open_mirror(WORK / f"dblp-{n}.sqlite"), queries)
    result["bib"] = _bib_check(n, WORK / f"dblp-{n}.sqlite")
    for fmt, total in FULL.items():
        r = result[fmt]
        result[f"{fmt}_full"] = {"records": total, "hours": total / r["per_second"] / 3600,
                                 "gigabytes": total * r["bytes_per_record"] / 1e9}  # fmt: skip
    saved = WORK / f"engines-{n}.json"
    if engines:
        result["engines"] = _engines(WORK / f"dblp-{n}.sqlite", queries)
        saved.write_text(json.dumps(result["engines"], indent=2) + "\n", "utf-8")
    elif saved.exists():
        result["engines"] = json.loads(saved.read_text("utf-8"))
    return result


def _found(q: dict[str, Any]) -> str:
    return ", ".join(
        f"{kind} {100 * q['found'][kind]:.1f} % ({q['found_count'][kind]})" for kind in q["found"]
    )


def _engines_markdown(e: dict[str, Any]) -> str:
    f, t = e["fts5_build"], e["tantivy_build"]
    fl, tl = e["fts5_lookups"], e["tantivy_lookups"]
    rows = [
        "| engine | index build, records/s | index on disk, bytes/record | look-up p50 / p99 wall, ms "
        "| p50 / p99 CPU, ms | found |",
        "|---|---:|---:|---:|---:|---|",
        f"| SQLite FTS5 (detail=none) | {f['per_second']:,.0f} | {f['bytes'] / e['records']:,.0f} | "
        f"{fl['p50_ms']:.2f} / {fl['p99_ms']:.2f} | {fl['cpu_p50_ms']:.2f} / {fl['cpu_p99_ms']:.2f} | {_found(fl)} |",
        f"| {e['tantivy_version']} (`index_option='basic'`, 1 writer thread) | {t['per_second']:,.0f} | "
        f"{t['bytes'] / e['records']:,.0f} | {tl['p50_ms']:.2f} / {tl['p99_ms']:.2f} | "
        f"{tl['cpu_p50_ms']:.2f} / {tl['cpu_p99_ms']:.2f} | {_found(tl)} |",
    ]
    return (
        f"Engines on the same {e['records']:,} records (`--tantivy`): each builds the full-text index from the "
        "same normalised rows (the words, the first author and year tokens), then runs the same look-ups with "
        "the same plans, the records, word counts and scoring staying in SQLite (load average during the "
        f"builds: FTS5 {f['load']}, tantivy {t['load']}; look-ups: FTS5 {fl['load_before']}, tantivy "
        f"{tl['load_before']}).\n\n" + "\n".join(rows) + "\n"
    )


def markdown(r: dict[str, Any]) -> str:
    d, c, s, q = r["dblp"], r["crossref"], r["dblp_small"], r["lookups"]
    rows = [
        "| measure | DBLP XML (`dblp.xml.gz`) | Crossref JSON (`*.json.gz`) | goal |",
        "|---|---:|---:|---|",
        f"| import, records/s ({r['records']:,} records) | {d['per_second']:,.0f} | {c['per_second']:,.0f} | ≥ 20,000 |",
        f"| import wall time, s (CPU time, writer and reader) | {d['seconds']:,.1f} ({d['cpu_seconds']:,.1f}) | "
        f"{c['seconds']:,.1f} ({c['cpu_seconds']:,.1f}) | |",
        f"| load average (1/5/15 min) before → after | {d['load_before']} → {d['load_after']} | "
        f"{c['load_before']} → {c['load_after']} | |",
        f"| peak memory at {r['records']:,}, MB (writer + {d['readers']} × reader) | {d['peak_rss_mb']:,.0f} "
        f"({d['writer_rss_mb']:,.0f} + {d['readers']} × {d['reader_rss_mb']:,.0f}) | {c['peak_rss_mb']:,.0f} | |",
        f"| peak memory at {r['records'] // 10:,} (DBLP), MB; ratio | {s['peak_rss_mb']:,.0f} "
        f"({s['writer_rss_mb']:,.0f} + {s['readers']} × {s['reader_rss_mb']:,.0f}); {r['memory_ratio']:.2f}× | | "
        "≤ 1.2× |",
        f"| bytes on disk per record | {d['bytes_per_record']:,.0f} | {c['bytes_per_record']:,.0f} | |",
        f"| full dump on paper: records | ~{FULL['dblp']:,} | ~{FULL['crossref']:,} | |",
        f"| full dump on paper: import time, h | {r['dblp_full']['hours']:,.1f} | {r['crossref_full']['hours']:,.1f} | |",
        f"| full dump on paper: disk, GB | {r['dblp_full']['gigabytes']:,.1f} | {r['crossref_full']['gigabytes']:,.1f} | |",
    ]
    look = (
        f"Title look-ups on the {r['records']:,}-record DBLP mirror, {q['queries']:,} queries, one `search_many` "
        "each: half exact titles (no author, no year), half with one word wrong — a word no record has, or "
        "another word of the generated vocabulary — with the first author and year: "
        f"p50 {q['p50_ms']:.2f} ms, p99 {q['p99_ms']:.2f} ms (goal ≤ 10 ms), max {q['max_ms']:.1f} ms "
        f"(CPU time: p50 {q['cpu_p50_ms']:.2f} ms, p99 {q['cpu_p99_ms']:.2f} ms; load average "
        f"{q['load_before']} → {q['load_after']}); the record looked for was among the candidates: {_found(q)}."
    )
    b = r["bib"]
    bib = (
        f"A `.bib` of {b['references']} references without an identifier (every {r['records'] // 500:,}th "
        "generated work: title, authors, year, venue, pages), `citeaudit check refs.bib --offline --mirror M "
        f'--indexes ""` on the {r["records"]:,}-record DBLP mirror, a fresh process each: '
        f"{b['evicted_seconds']:.2f} s with the mirror's pages evicted from the page cache first, "
        f"{b['warm_seconds']:.2f} s warm (median of 3; goal ≤ 3 s; load average {b['load_before']} → "
        f"{b['load_after']}); findings {json.dumps(b['codes'])} (the titles DBLP writes with inline "
        "markup, cited without it, are the title mismatches)."
    )
    text = "\n".join(rows) + "\n\n" + look + "\n\n" + bib + "\n"
    if "engines" in r:
        text += "\n" + _engines_markdown(r["engines"])
    return text


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.mirror_bench")
    parser.add_argument("--records", type=int, default=None)
    parser.add_argument("--record", action="store_true", help="write the section of bench/RESULTS.md")
    parser.add_argument("--tantivy", action="store_true", help="measure tantivy against SQLite FTS5 too")
    args = parser.parse_args(argv)
    result = run(records=args.records, engines=args.tantivy)
    print(json.dumps(result, indent=2))
    print(markdown(result))
    if args.record:
        from bench.results_file import write_section

        write_section(
            "mirror", "`citeaudit mirror`: import and title look-ups at 1M records", markdown(result)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
