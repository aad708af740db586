"""How a metric state can get a planned request wrong: the statistics a state that updates, merges or resets
in the wrong way ends with, for a request carrying a `stateful` plan (PROTOCOL.md, "Stateful implementations").

The oracle's answer to a planned request is the one-shot score: every batch's counts added, states merged by
adding, a reset forgetting everything. Each departure below is a field of the state kept otherwise, restated
on the plan: lengths a reset leaves behind, lengths assigned (not added) by an update or a merge, precisions a
merge averages pairwise. Each gives the statistics it implies (checked against the returned ones as any
explanation's) and the score the judged profile's formulas give them; None where the plan does not use the
step it is about, or where it changes nothing.

The functions only: the mechanisms they compute, named, are declared in the catalogue
(`oracle.diagnose.mechanisms.state`).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from oracle.formulas import bleu


def _lengths(ctx: Any, segments: Any) -> tuple[int, int]:
    """(c, r) of `segments` under the judged options: each segment's reference length is its own."""
    if not segments:
        return 0, 0
    n = len(ctx.weights)
    counted = bleu.sum_statistics([(s.hypothesis, s.references) for s in segments], max_order=n, options=ctx.options)
    return counted.hyp_len, counted.ref_len


def _plan_of(ctx: Any) -> Any:
    request = ctx.request
    return None if request.is_text or request.level != "corpus" else request.stateful


def _previous_corpora(ctx: Any, plan: Any) -> list[Any]:
    """The plan's previous corpora as token segments (a text request's tokenized as its own segments are)."""
    if ctx.text is None:
        return list(plan.previous)
    return [ctx.text.model_copy(update={"segments": corpus, "stateful": None}).tokenized_as(ctx.options).segments
            for corpus in plan.previous]


def _with_lengths(result: Any, c: int, r: int) -> Any:
    whole = result.statistics
    if (c, r) == (whole.hyp_len, whole.ref_len):
        return None
    return bleu.Statistics(c, r, tuple(whole.matches), tuple(whole.totals), whole.segments)


def lengths_kept_by_reset(ctx: Any, result: Any) -> Any:
    """Statistics of a state whose reset zeroes the n-gram counts but not c and r: each shard's state keeps the
    lengths of the corpora it scored before (the plan's `previous`), so they are added once per shard."""
    plan = _plan_of(ctx)
    if plan is None or not plan.previous or result is None:
        return None
    earlier = [_lengths(ctx, corpus) for corpus in _previous_corpora(ctx, plan)]
    c_before, r_before = sum(c for c, _ in earlier), sum(r for _, r in earlier)
    shards = len(plan.shards)
    whole = result.statistics
    return _with_lengths(result, whole.hyp_len + shards * c_before, whole.ref_len + shards * r_before)


def lengths_assigned_by_update(ctx: Any, result: Any) -> Any:
    """Statistics of a state whose update assigns its batch's c and r instead of adding them: each shard keeps
    the lengths of its last batch only (its n-gram counts are added)."""
    plan = _plan_of(ctx)
    if plan is None or result is None or all(len(batches) == 1 for batches in plan.shards):
        return None
    last = [_lengths(ctx, shard[-1]) for shard in plan.shard_segments(ctx.request.segments)]
    return _with_lengths(result, sum(c for c, _ in last), sum(r for _, r in last))


def lengths_assigned_by_merge(ctx: Any, result: Any) -> Any:
    """Statistics of a merge that assigns the merged-in state's c and r instead of adding them: the lengths are
    the last merged shard's alone (its n-gram counts are added)."""
    plan = _plan_of(ctx)
    if plan is None or result is None or len(plan.shards) < 2:
        return None
    shards = plan.shard_segments(ctx.request.segments)
    c, r = _lengths(ctx, [s for batch in shards[plan.merge[-1]] for s in batch])
    return _with_lengths(result, c, r)


def precisions_averaged_by_merge(ctx: Any, result: Any) -> float | None:
    """A merge that averages the two states' precisions, (p_a + p_b) / 2, folded in merge order (three states
    weigh 1/4, 1/4, 1/2), where the counts should be added; BP from the added lengths; the averaged precisions
    used as they are (a smoothing, defined on counts, has nothing to apply to them)."""
    plan = _plan_of(ctx)
    if plan is None or result is None or len(plan.shards) < 2:
        return None
    n = len(ctx.weights)
    shards = plan.shard_segments(ctx.request.segments)
    precisions = []
    for shard in shards:
        counted = bleu.sum_statistics([(s.hypothesis, s.references) for batch in shard for s in batch],
                                      max_order=n, options=ctx.options)
        precisions.append([Fraction(m, t) if t else Fraction(0) for m, t in zip(counted.matches, counted.totals,
                                                                                 strict=True)])
    averaged = precisions[plan.merge[0]]
    for index in plan.merge[1:]:
        averaged = [(a + b) / 2 for a, b in zip(averaged, precisions[index], strict=True)]
    if result.statistics.hyp_len == 0:
        return 0.0
    if any(p == 0 and w > 0 for p, w in zip(averaged, ctx.weights, strict=True)):
        return 0.0
    log_mean = sum(float(w) * math.log(p) for p, w in zip(averaged, ctx.weights, strict=True) if w > 0)
    return float(result.bp) * math.exp(log_mean)  # (every p with a weight is positive here)


def last_segment_of_each_batch_dropped(ctx: Any, result: Any) -> Any:
    """Statistics of a state whose update leaves out the last segment of each batch of two or more (a library
    that truncates each call to the shorter of two lists, as `last-segment-dropped` does to a whole corpus)."""
    plan = _plan_of(ctx)
    if plan is None or result is None or all(size == 1 for batches in plan.shards for size in batches):
        return None
    n = len(ctx.weights)
    kept = [s for shard in plan.shard_segments(ctx.request.segments) for batch in shard
            for s in (batch[:-1] if len(batch) > 1 else batch)]
    if not kept:
        return bleu.Statistics(0, 0, (0,) * n, (0,) * n, 0)
    return bleu.sum_statistics([(s.hypothesis, s.references) for s in kept], max_order=n, options=ctx.options)

