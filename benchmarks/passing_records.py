"""A check report's run causes and their alternatives, each evaluated on the run's passing records (issue 36,
combination-kinds: the "among equals" question read on data, no rule built).

For every run cause and every alternative that fits its records as well, the value the oracle gives under that name
(`oracle.diagnose.classify.explained_value`, the judged profile) on each passing record whose request the report
kept: how many it applies to, and on how many its value is not the expected score (the implementation answered
right there, so a name that predicts otherwise is not what the code computes on that request), by smoothing method.
Computations and smoothing readings only; a convention's name is skipped, as are requests kept without segments
and an expected NaN.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/passing_records.py REPORT_DIR
"""

from __future__ import annotations

import math
import sys
from collections import Counter

from oracle.diagnose.classify import explained_value
from oracle.diagnose.combination import CONTRACT
from oracle.diagnose.equals import change_of
from oracle.formulas.errors import BleuOracleError
from oracle.harness.events import read_results


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: passing_records.py REPORT_DIR", file=sys.stderr)
        return 2
    results = read_results(argv[0])
    profile = results.header.judged_profile
    names = [parts for cause in (results.footer.causes or ()) if results.footer
             for parts in (cause.parts, *cause.alternative_parts)]
    passing = [r for r in results.records if r.outcome.value == "pass" and r.expected is not None
               and hasattr(r.request, "segments")]
    print(f"{len(passing)} passing records with their requests; profile {profile}")
    for parts in names:
        change = change_of(parts)
        if change is None:
            print(f"{' + '.join(parts)}: a convention, not read")
            continue
        applies: Counter[str] = Counter()
        contradicted: Counter[str] = Counter()
        for record in passing:
            try:
                value = explained_value(record.request, profile, change)
            except BleuOracleError:
                value = None
            want = float(record.expected.score)
            if value is None or math.isnan(want):
                continue
            method = record.request.smoothing.method
            applies[method] += 1
            if not CONTRACT.close(value, want):
                contradicted[method] += 1
        print(f"{' + '.join(parts)}: applies to {sum(applies.values())} ({dict(applies)}), contradicted by "
              f"{sum(contradicted.values())} ({dict(contradicted)})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
