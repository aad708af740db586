"""Count(n-gram) (Papineni et al. 2002, section 2.1) for sentences made of long runs of one token, exactly and cheaply.

`bleu.count` is the literal reference: it builds every n-gram of a sentence, so a run of 65,600 copies of one
token costs 65,600 tuples per order. Here a run of L copies of token t is counted arithmetically: it holds
L - n + 1 copies of the n-gram (t,) * n (none when L < n); the n-grams that cross from one run into the next are
few (at most n - 1 start before each boundary) and are enumerated one by one. The result is the same Counter as
`bleu.count` gives (tests/formulas/test_runs.py holds that with a property test); `bleu._segment_counts` uses it only
for sentences whose runs are few (`mostly_runs`), where it is cheaper.

Pure: standard library only, no I/O, inputs never mutated.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import groupby
from operator import countOf

#: A sentence shorter than this is counted literally: the literal count is already cheap.
SHORTEST = 256
#: ... and so is one with more runs than its length / RUNS_PER_TOKEN per order counted.
RUNS_PER_TOKEN = 4


def run_lengths(tokens: Sequence[str]) -> list[tuple[str, int]]:
    """The sentence as (token, how many times in a row), left to right."""
    # each run read in C, and counted without a list of it (a run of 65,600 tokens: a list of 0.5 MB): every item of
    # a group compares equal to its first, so countOf counts them all
    return [(token, countOf(group, token)) for token, group in groupby(tokens)]


def mostly_runs(tokens: Sequence[str], max_order: int) -> bool:
    """True when counting `tokens` by runs is cheaper than the literal count: a long sentence of few runs.
    Reads at most length / RUNS_PER_TOKEN / max_order runs (it stops as soon as there are too many)."""
    if len(tokens) < SHORTEST:
        return False
    allowed = len(tokens) // (RUNS_PER_TOKEN * max(max_order, 1))
    for runs_seen, _ in enumerate(groupby(tokens), 1):
        if runs_seen > allowed:
            return False
    return True


def count_by_runs(tokens: Sequence[str], max_order: int) -> Counter:
    """Count(n-gram) for every n-gram of orders 1..max_order of `tokens`: what `bleu.count(tokens, max_order)`
    gives, computed run by run."""
    tokens = tuple(tokens)
    length = len(tokens)
    orders = min(max_order, length)
    counts: Counter = Counter()
    runs = run_lengths(tokens)
    for token, run in runs:  # the n-grams inside one run: run - n + 1 copies of (token,) * n
        for n in range(1, min(orders, run) + 1):
            counts[(token,) * n] += run - n + 1
    boundaries = []  # where each run after the first starts
    start = 0
    for _, run in runs[:-1]:
        start += run
        boundaries.append(start)
    for n in range(2, orders + 1):  # the n-grams crossing a boundary, each counted once
        _count_crossing(tokens, boundaries, n, counts)
    return counts


def _count_crossing(tokens: tuple, boundaries: list[int], n: int, counts: Counter) -> None:
    """Add the n-grams [i, i + n) that hold a run boundary b (i < b <= i + n - 1): i from b - n + 1 to b - 1,
    each start once however many boundaries its n-gram holds."""
    last_start = len(tokens) - n
    next_start = 0
    for boundary in boundaries:
        first = max(boundary - n + 1, next_start)
        final = min(boundary - 1, last_start)
        for i in range(first, final + 1):
            counts[tokens[i : i + n]] += 1
        next_start = max(next_start, final + 1)
