"""Run every benchmark and record the results in bench/RESULTS.md.

``python -m bench.run_all [--quick]``: --quick shrinks every workload tenfold
(a smoke run; its numbers are not recorded).
"""

from __future__ import annotations

import json
import sys

from bench import check_throughput
from bench.results_file import write_section


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    result = check_throughput.run(quick=quick)
    print(json.dumps(result, indent=2))
    if not quick:
        write_section("check", "`citeaudit check`: offline DOI audit against the seed script",
                      check_throughput.markdown(result))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
