"""Sentence-level BLEU in floating point, for readings that average a corpus's sentence scores.

Averaging sentence scores (sacrebleu's `sentence_bleu`, nltk's `sentence_bleu`, in a loop, then a mean)
is a common way to get a number that is not corpus BLEU. A reading of that kind needs every segment's
sentence-level score: the oracle's exact path (`bleu.bleu_from_statistics`, 50-digit logarithms) takes
about 0.1 ms a segment, 0.4 s for WMT17's 3,004 segments, and `doctor` tries hundreds of such readings.
This is the same computation from the same exact statistics with `math.log` and `math.exp`: a few
microseconds a segment, within about 1e-15 of the exact score (tests/doctor/test_doctor_engine.py holds it to
the exact path on random statistics and on WMT17), far below the digits anybody prints of a mean.

It follows `bleu_from_statistics` step by step for uniform weights and the smoothing methods that rewrite
counts (`SCREENED_METHODS`); the others (Chen and Cherry's 4 to 7) are not averaged here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from oracle.formulas.conventions import Options, Smoothing

from .streams import ORDERS

#: The smoothing methods computed here (the rest depend on more than one order's counts at a time).
SCREENED_METHODS = ("none", "floor", "add-k", "exp", "chen-cherry-1", "chen-cherry-2", "chen-cherry-3", "lin-2004")


def sentence_score(row: tuple, options: Options, rule_in_force: str) -> float:
    """One segment's sentence-level BLEU (0-1) under `options`. `row` is (c, r, m_1, ..., m_4), r under the
    options' reference-length rule; `rule_in_force` is `options.empty_order_at("sentence", smoothing)` (the
    same for every segment, so the caller works it out once)."""
    c, r, matches = row[0], row[1], row[2:]
    if c == 0 and r == 0:
        return math.nan if options.both_empty == "nan" else 0.0
    if options.no_match == "zero" and c > 0 and not any(matches):
        return 0.0
    floor = options.segment_totals_floor
    m = [float(x) for x in matches]
    t = [float(max(c - n, 0, floor)) for n in range(ORDERS)]
    _smooth(m, t, options.smoothing)
    log_sum, kept = 0.0, 0
    for n in range(ORDERS):
        if t[n] == 0:  # no hypothesis n-grams of this order: the empty-order rule
            if rule_in_force == "zero":
                return 0.0
            if rule_in_force == "one":
                kept += 1
            continue
        if m[n] == 0:
            return 0.0
        log_sum += math.log(m[n] / t[n])
        kept += 1
    if c == 0 or kept == 0:
        return 0.0
    if rule_in_force != "skip":
        kept = ORDERS  # the weights stay 1/N; only "skip" renormalises them over the orders kept
    brevity = 1.0 if c > r else math.exp(1 - r / c)
    return brevity * math.exp(log_sum / kept)


def _smooth(m: list, t: list, smoothing: Smoothing) -> None:
    """`oracle.formulas.smoothing.smooth` for the counting methods, on floats."""
    method = smoothing.method
    if method in _REPLACING:
        k = 0
        for n in range(ORDERS):
            if t[n] > 0 and m[n] == 0:
                k += 1
                if method == "floor":
                    m[n] = float(smoothing.parameter("value"))
                elif method == "chen-cherry-1":
                    m[n] = float(smoothing.parameter("epsilon"))
                elif method != "none":
                    m[n] = 1.0 / 2 ** k
    else:
        added = _added(smoothing)
        for n in range(0 if method == "lin-2004" else 1, ORDERS):
            m[n] += added
            t[n] += added


#: Methods that only give orders without a match a count (a segment matching every order is untouched).
_REPLACING = ("none", "floor", "chen-cherry-1", "exp", "chen-cherry-3")


def _added(smoothing: Smoothing) -> float:
    return float(smoothing.parameter("k")) if smoothing.method == "add-k" else 1.0


def mean_sentence_score(rows: Iterable[tuple], options: Options) -> float:
    """The mean of the segments' sentence-level scores (0-1), summed with `math.fsum`; `rows` as `sentence_score`
    takes them.

    A segment with at least N hypothesis tokens has n-grams of every order, so no empty-order rule and no
    floor applies: its score is BP * (p_1 p_2 p_3 p_4)^(1/4) with the smoothed counts, one power instead of
    four logarithms (`_whole`). Shorter segments take the step-by-step path."""
    smoothing = options.smoothing
    rule = options.empty_order_at("sentence", smoothing)
    whole = _whole(smoothing, options.no_match == "zero")
    scores = [whole(row) if row[0] >= ORDERS else sentence_score(row, options, rule) for row in rows]
    return math.fsum(scores) / len(scores) if scores else math.nan


def _whole(smoothing: Smoothing, no_match_zero: bool) -> Callable[[tuple], float]:
    """The score of a segment with n-grams of every order (c >= N), as a function of its row."""
    method = smoothing.method
    if method in _REPLACING:
        fixed = {"floor": smoothing.value, "chen-cherry-1": smoothing.epsilon}.get(method)
        replacements = [float(fixed)] * ORDERS if fixed is not None else [1.0 / 2 ** k for k in range(1, ORDERS + 1)]

        def whole(row: tuple) -> float:
            c, r = row[0], row[1]
            matches = row[2:]
            if no_match_zero and not any(matches):
                return 0.0
            numerator, k = 1.0, 0
            for m in matches:
                if m == 0:
                    if method == "none":
                        return 0.0
                    numerator *= replacements[k]
                    k += 1
                else:
                    numerator *= m
            product = numerator / (c * (c - 1) * (c - 2) * (c - 3))
            return (1.0 if c > r else math.exp(1 - r / c)) * product ** 0.25
        return whole
    k = _added(smoothing)
    k1 = k if method == "lin-2004" else 0.0

    def whole_added(row: tuple) -> float:
        c, r, m1, m2, m3, m4 = row
        if (no_match_zero and not (m1 or m2 or m3 or m4)) or m1 + k1 == 0:
            return 0.0
        product = ((m1 + k1) * (m2 + k) * (m3 + k) * (m4 + k)) / ((c + k1) * (c - 1 + k) * (c - 2 + k) * (c - 3 + k))
        return (1.0 if c > r else math.exp(1 - r / c)) * product ** 0.25
    return whole_added
