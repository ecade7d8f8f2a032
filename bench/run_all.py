"""Run every benchmark and record the results in bench/RESULTS.md.

``python -m bench.run_all [--quick] [--batch-answers=N] [--batch-shell-loop=N] [NAME ...]`` (names
below): --quick shrinks every workload tenfold (a smoke run; its numbers are not recorded); names pick
benchmarks; the --batch-… options set the scale of ``batch`` (100,000 answers, 1,000 in the loop of check).
"""

from __future__ import annotations

import json
import sys

from bench import (
    accuracy,
    batch_throughput,
    check_throughput,
    hallmark_search,
    hallmark_venues,
    hostile_input,
    html_report,
    judge_throughput,
    manifest_writes,
    markdown_report,
    near_titles,
    rag_latency,
    resolve_integrity,
    resolve_rate,
    retrieval,
    semantic_eval,
    service_load,
    short_claims,
    speed,
    startup,
    stats_time,
    trail_volume,
)
from bench.results_file import write_section

BENCHMARKS = {
    "speed": ("Per-core speed: every goal in one run", speed),
    "check": ("`citeaudit check`: offline DOI audit against the seed script", check_throughput),
    "rag": ("Corpus citations: RAG responses against seed 003's verify.py", rag_latency),
    "resolve": ("Online resolution under Crossref's limits", resolve_rate),
    "integrity": ("Accuracy: verdicts of online resolution under injected faults", resolve_integrity),
    "stats": ("`citeaudit stats` over many reports", stats_time),
    "service": ("The HTTP API under load", service_load),
    "trail": ("The audit trail: 10,000 audits appended and queried", trail_volume),
    "semantic": ("The semantic stage: the offline judges on labelled public sets", semantic_eval),
    "semantic-vetoes": (semantic_eval.TITLE, semantic_eval.wrong_claims),
    "judges": ("Judge throughput: rules, and nli batched against unbatched", judge_throughput),
    "hostile": ("Hostile input: worst-case shapes in linear time", hostile_input),
    "html": ("The HTML report of 10,000 claims in Chromium", html_report),
    "accuracy": ("Verdict accuracy: careful citations of real records, fabricated references", accuracy),
    "search": ("References without an identifier: HALLMARK dev against a DBLP mirror", hallmark_search),
    "batch": ("`citeaudit batch`: local and Ray engines against a loop of `check`", batch_throughput),
    "startup": ("Start-up: `citeaudit --version` and `check` of the README example", startup),
    "markdown": ("Research reports in Markdown: a 500-claim report checked offline", markdown_report),
    "manifest": ("Cache writes as the cache grows: the manifest rewritten per entry", manifest_writes),
    "retrieval": ("Passages for quote-less claims: recall, the judges on them, speed", retrieval),
    "short-claims": (short_claims.TITLE, short_claims),
    "search-copies": (
        "References without an identifier: HALLMARK dev against a DBLP mirror with CoRR copies and Unicode titles",
        hallmark_search,
    ),
    "near-titles": ("References a title word off, on a large mirror", near_titles),
    "venue-forms": (
        "Venue names as people write them: HALLMARK dev under every form of its venue",
        hallmark_venues,
    ),
}
# Benchmarks that run one module another way than its plain run(quick=…).
_RUNS = {
    "search-copies": lambda quick: hallmark_search.run(quick=quick, copies=True),
    "near-titles": lambda quick: near_titles.run(
        records=100_000 if quick else 1_000_000, count=50 if quick else 500
    ),
}


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    scale = {
        key: int(a.split("=", 1)[1])
        for a in argv
        for flag, key in (("--batch-answers=", "answers"), ("--batch-shell-loop=", "shell_loop"))
        if a.startswith(flag)
    }
    chosen = [a for a in argv if not a.startswith("--")] or list(BENCHMARKS)
    for name in chosen:
        title, module = BENCHMARKS[name]
        if name == "batch":
            result = batch_throughput.run(quick=quick, **scale)
        elif name in _RUNS:
            result = _RUNS[name](quick)
        else:
            result = module.run(quick=quick)
        print(json.dumps(result, indent=2))
        if not quick:
            write_section(name, title, module.markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
