"""The batch driver: fingerprint the inputs, open (or resume) the output directory,
resolve missing DOIs once, run the parts that are not done, and write the summary."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any, TextIO

from citeaudit.batch.answers import Answer, read_answer
from citeaudit.batch.engines import Task, make_engine
from citeaudit.batch.options import BatchOptions
from citeaudit.batch.output import MANIFEST_VERSION, BatchDir
from citeaudit.batch.parts import PartResult
from citeaudit.batch.records import Record, fingerprint, read_records
from citeaudit.batch.wiring import WorkerSpec, driver_resolver
from citeaudit.errors import ConfigError
from citeaudit.identifiers.registry import resolver_key
from citeaudit.resolve.interface import ResolutionStatus
from citeaudit.util.version import __version__

__all__ = ["BatchOptions", "BatchOutcome", "run_batch"]


@dataclass(frozen=True)
class BatchOutcome:
    summary: dict[str, Any]
    computed: int  # parts computed by this run (the others were done before it)


def _parts(records: Iterator[Record], size: int) -> Iterator[Task]:
    """Consecutive parts of ``size`` records in input order; only one part is held at a time."""
    index, part = 0, []
    for record in records:
        part.append(record)
        if len(part) == size:
            yield index, part
            index, part = index + 1, []
    if part:
        yield index, part


class _Progress:
    """answers done / total, rate and ETA on one line of stderr, only on a terminal."""

    def __init__(self, stream: TextIO, total: int) -> None:
        self.stream, self.total = stream, total
        self.done = self.counted = 0
        self.start = time.monotonic()
        self.shown = 0.0
        self.active = stream.isatty()

    def skip(self, lines: int) -> None:
        self.done += lines

    def add(self, lines: int) -> None:
        self.done += lines
        self.counted += lines
        now = time.monotonic()
        if not self.active or now - self.shown < 0.2:
            return
        self.shown = now
        rate = self.counted / max(now - self.start, 1e-9)
        left = max(self.total - self.done, 0)
        eta = f"{int(left / rate // 60)}m{int(left / rate % 60):02d}s" if rate > 0 else "?"
        print(f"\rbatch: {self.done}/{self.total} answers, {rate:.0f}/s, ETA {eta}  ",
              end="", file=self.stream, flush=True)  # fmt: skip

    def close(self) -> None:
        if self.active and self.shown:
            print(file=self.stream)


def _missing_keys(options: BatchOptions, box: BatchDir) -> list[str]:
    """The registry keys (DOIs, arXiv ids) of the answers of parts not yet done: what their audits
    would resolve."""
    keys: set[str] = set()
    spec = options.spec
    for index, records in _parts(read_records(options.inputs, spec.max_input_bytes), options.part_size):
        if box.is_done(index):
            continue
        for record in records:
            answer = read_answer(record, spec.max_input_bytes, spec.max_depth, spec.input_format)
            if not isinstance(answer, Answer):
                continue
            sub = answer.submission
            for citation in [c for claim in sub.claims for c in claim.citations] + list(sub.citations):
                key = resolver_key(citation.source)
                if key is not None:
                    keys.add(key)
    return sorted(keys)


def _resolve_first(
    options: BatchOptions, box: BatchDir, progress: Callable[[int, int], None] | None
) -> WorkerSpec:
    """Missing DOIs resolved once, here, before any worker starts; workers stay offline."""
    spec = options.spec
    if spec.config.offline:
        return spec
    keys = _missing_keys(options, box)
    if not keys:
        return spec
    answers = driver_resolver(spec.config, progress).resolve_many(keys)
    unavailable = tuple(
        (doi, answer)
        for doi, answer in sorted(answers.items())
        if answer.status is ResolutionStatus.UNAVAILABLE
    )
    return replace(spec, unavailable=unavailable)


def _width(lines: int, part_size: int) -> int:
    """Digits of part numbers: five, more when the inputs could make more parts."""
    return max(5, len(str(max(0, -(-lines // part_size) - 1))))


def run_batch(
    options: BatchOptions,
    stderr: TextIO | None = None,
    resolve_progress: Callable[[int, int], None] | None = None,
) -> BatchOutcome:
    """Run (or finish) a batch; progress on ``stderr`` when it is a terminal, and the online
    resolver's ``(done, total)`` reported to ``resolve_progress``."""
    stderr = stderr or sys.stderr
    if not options.inputs:
        raise ConfigError("no input files")
    out = options.out.resolve()
    for path in options.inputs:
        if path.resolve().is_relative_to(out):
            raise ConfigError(f"{path}: the input is inside the output directory {options.out}")
    inputs = [fingerprint(path) for path in options.inputs]
    lines = sum(i.lines for i in inputs)
    manifest = {
        "citeaudit": __version__,
        "inputs": [i.to_json() for i in inputs],
        "layout": MANIFEST_VERSION,
        "part_size": options.part_size,
        "settings": options.spec.fingerprint(),
    }
    width = _width(lines, options.part_size)
    engine = make_engine(options.engine, options.workers, options.ray_address)
    box = BatchDir.open(options.out, manifest, width, options.fresh)
    try:
        spec = _resolve_first(options, box, resolve_progress)
    except BaseException:
        box.close()
        raise
    progress = _Progress(stderr, lines)
    parts = 0
    computed = 0

    def todo() -> Iterator[Task]:
        nonlocal parts
        records = read_records(options.inputs, spec.max_input_bytes)
        for index, part in _parts(records, options.part_size):
            parts = index + 1
            if box.is_done(index):
                progress.skip(len(part))
                continue
            yield index, part

    def done(result: PartResult) -> None:
        nonlocal computed
        box.write(result)
        computed += 1
        progress.add(int(result.state["answers"]) + len(result.state["rejected"]))

    try:
        engine.run(spec, todo(), done)
        return BatchOutcome(box.finish(parts, spec.fail_on), computed)
    finally:
        progress.close()
        box.close()
