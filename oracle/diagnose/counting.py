"""Counting alternatives: other ways of counting c, r, matches and totals that implementations have, as
integers, so that statistics an implementation returns can be recognised exactly before any score is
compared.

Sufficient statistics are the seam between counting and scoring: when an implementation returns
statistics that differ from the oracle's, and the oracle's scoring of *those* statistics gives the
implementation's score, the bug is in counting alone, and the counting alternative whose counts are
exactly the returned ones names it. Each alternative is a mechanism (what the code does), never a
library.

    >>> from oracle.models.protocol import ScoreRequest, Segment
    >>> request = ScoreRequest(level="sentence", segments=[Segment(hypothesis=["a", "a"], references=[["a"]])],
    ...                        weights=[1.0])
    >>> unclipped_matches(request.segments, 1, fold=None)
    (2,)

Pure: the oracle's counting helpers (`oracle.formulas.bleu`) and integer arithmetic.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from oracle.formulas import bleu


def _fold_of(options: Any) -> Callable[[str], str] | None:
    if not options.lowercase:
        return None
    return str.lower if options.case_fold == "unicode" else (lambda t: t.translate(bleu._ASCII_LOWER))


def _folded(tokens: Sequence[str], fold: Callable[[str], str] | None) -> tuple[str, ...]:
    return tuple(tokens) if fold is None else tuple(map(fold, tokens))


def unclipped_matches(segments: Sequence[Any], n: int, *, fold: Callable[[str], str] | None) -> tuple[int, ...]:
    """Per order, every hypothesis n-gram that occurs in some reference, however often (no clipping)."""
    matches = [0] * n
    for segment in segments:
        hypothesis = _folded(segment.hypothesis, fold)
        in_some = set().union(*(bleu.count(_folded(r, fold), n) for r in segment.references))
        for gram, k in bleu.count(hypothesis, n).items():
            if gram in in_some:
                matches[len(gram) - 1] += k
    return tuple(matches)


def reference_sum_matches(segments: Sequence[Any], n: int, *, fold: Callable[[str], str] | None) -> tuple[int, ...]:
    """Per order, counts clipped to the sum of the references' counts (not the largest single one)."""
    matches = [0] * n
    for segment in segments:
        limit: Counter = Counter()
        for reference in segment.references:
            limit.update(bleu.count(_folded(reference, fold), n))
        for gram, k in bleu.count(_folded(segment.hypothesis, fold), n).items():
            matches[len(gram) - 1] += min(k, limit[gram])
    return tuple(matches)


def totals_one_short(segments: Sequence[Any], n: int) -> tuple[int, ...]:
    """Per order, len - n candidate n-grams instead of len - n + 1 (an off-by-one in the loop bound)."""
    return tuple(sum(max(len(s.hypothesis) - k, 0) for s in segments) for k in range(1, n + 1))


def case_changed_matches(segments: Sequence[Any], n: int, options: Any, *, lowercase: bool) -> tuple[int, ...]:
    """Per order, the clipped matches with case folded (`lowercase`) or kept, whatever the request asked."""
    changed = options.with_changes(lowercase=lowercase)
    matches = [0] * n
    for segment in segments:
        one = bleu.segment_statistics(segment.hypothesis, segment.references, max_order=n, options=changed)
        matches = [a + b for a, b in zip(matches, one.matches, strict=False)]
    return tuple(matches)


def _unless(condition: Callable[[Any], bool], function: Callable[[Sequence[Any], int, Any], tuple[int, ...]]):
    """`function` where `condition(options)` holds, else nothing (no counts: the alternative does not apply)."""
    return lambda segments, n, options: function(segments, n, options) if condition(options) else None


#: name -> (what the code does, which counts it changes, how to count them)
COUNTING_ALTERNATIVES: dict[str, tuple[str, str, Callable[[Sequence[Any], int, Any], tuple[int, ...]]]] = {
    "unclipped-matches": (
        "matches are not clipped: every hypothesis n-gram that occurs in some reference counts, however often "
        "(section 2.1's 'modified' precision left out)", "matches",
        lambda segments, n, options: unclipped_matches(segments, n, fold=_fold_of(options))),
    "clipped-to-reference-sum": (
        "matches are clipped to the sum of the references' counts, not to the largest count in any single "
        "reference (Max_Ref_Count)", "matches",
        lambda segments, n, options: reference_sum_matches(segments, n, fold=_fold_of(options))),
    "totals-one-short": (
        "each order's total is len - n, not len - n + 1 (an off-by-one in the n-gram loop)", "totals",
        lambda segments, n, options: totals_one_short(segments, n)),
    "case-not-folded": (
        "the request's lowercase flag ignored: case kept where the request folds it", "matches",
        _unless(lambda options: options.lowercase,
                lambda segments, n, options: case_changed_matches(segments, n, options, lowercase=False))),
    "case-folded-unasked": (
        "case folded though the request keeps it (an implementation that always lowercases)", "matches",
        _unless(lambda options: not options.lowercase,
                lambda segments, n, options: case_changed_matches(segments, n, options, lowercase=True))),
}


def matching_alternatives(segments: Sequence[Any], n: int, options: Any, reported: Any, oracle_counts: Any, *,
                          permitted: Callable[[str], bool] = lambda name: True,
                          charge: Callable[[], None] = lambda: None) -> list[str]:
    """The counting alternatives whose counts are exactly the reported ones, the other counts being the
    oracle's (`reported`: the protocol's Statistics; `oracle_counts`: the oracle's formulas Statistics). Only
    an alternative for a layer that differs is counted (one recount each, `charge`d first), and only where
    `permitted`: on a large corpus each is a pass over every token."""
    if reported.hyp_len != oracle_counts.hyp_len or reported.ref_len != oracle_counts.ref_len:
        return []
    oracle = {"matches": tuple(oracle_counts.matches[:n]), "totals": tuple(oracle_counts.totals[:n])}
    wanted = {"matches": tuple(reported.matches[:n]), "totals": tuple(reported.totals[:n])}
    differing = {layer for layer in oracle if oracle[layer] != wanted[layer]}
    if len(differing) != 1:  # each alternative changes one layer
        return []
    found = []
    for name, (_, layer, function) in COUNTING_ALTERNATIVES.items():
        if layer not in differing or not permitted(name):
            continue
        charge()
        computed = function(segments, n, options)
        if computed is not None and tuple(int(x) for x in computed) == wanted[layer]:
            found.append(name)
    return found


__all__ = ["COUNTING_ALTERNATIVES", "matching_alternatives", "reference_sum_matches", "totals_one_short",
           "unclipped_matches"]
