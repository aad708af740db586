"""The bounded memos' hit paths in process (cleanups): `token_features` on kept tokens, `bleu_from_statistics` on kept
scorings, `exact.ln` on kept ratios, `BySegments.find`; thread CPU, best of 7 repeats, in the tree first on
PYTHONPATH. Run it in each tree in turn, alternately, and read the rows side by side:

    for round in 1 2 3; do for tree in $MAIN $BRANCH; do
        PYTHONPATH=$tree python benchmarks/memo_hits.py $(basename $tree); done; done
"""

from __future__ import annotations

import sys
import time
from fractions import Fraction

from oracle.formulas import bleu, exact
from oracle.harness import coverage
from oracle.harness.sharing import BySegments


def best(function) -> float:
    """The least thread CPU of 7 calls of `function`, in ms."""
    times = []
    for _ in range(7):
        start = time.thread_time()
        function()
        times.append(time.thread_time() - start)
    return min(times) * 1e3


def main() -> None:
    label = sys.argv[1] if len(sys.argv) > 1 else "this tree"
    tokens = [f"w{i}" for i in range(500)] * 20
    for token in tokens:
        coverage.token_features(token)
    weights = (Fraction(1, 2), Fraction(1, 2))
    stats = [bleu.Statistics(n + 3, n + 3, (1, 1), (n + 3, n + 2)) for n in range(200)]
    for one in stats:
        bleu.bleu_from_statistics(one, weights=weights)
    ratios = [Fraction(1, d) for d in range(2, 500)]
    for ratio in ratios:
        exact.ln(ratio)
    shared, segments = BySegments(), [(f"s{i}",) for i in range(4)]
    for held in segments:
        shared.keep(held, "x", 1)
    rows = {
        "token_features x10000 (hits)": best(lambda: [coverage.token_features(t) for t in tokens]),
        "bleu_from_statistics x2000 (hits)": best(lambda: [bleu.bleu_from_statistics(s, weights=weights)
                                                           for s in stats * 10]),
        "exact.ln x4980 (hits)": best(lambda: [exact.ln(r) for r in ratios * 10]),
        "BySegments.find x40000": best(lambda: [shared.find(s, "x") for s in segments * 10000]),
    }
    for name, value in rows.items():
        print(f"{label:<10} {name:<36} {value:7.2f} ms")


if __name__ == "__main__":
    main()
