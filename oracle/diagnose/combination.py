"""The score stage: what a wrong combination of right statistics is, and what is known when nothing fits.

BLEU's combination of its statistics is a short pipeline: the precisions p_n = m_n / l_n (after smoothing, an
empty order read by the profile's rule), the orders 1..N with their weights w_n, the weighted geometric mean
exp(sum w_n log p_n), the brevity penalty BP = e^(1 - r/c) where c <= r, and the score's scale. The variants
here are that pipeline under the mutation operators real bugs are made of (PIT's and mutmut's: a constant
where a parameter belongs, the first or last element in place of all, an average in place of a product,
integer in place of true division, an index off by one, a term left out, operands swapped), each a function
of the oracle's own intermediate values, declared with their names, in the order the classifier tries them, in the
catalogue (`oracle.diagnose.mechanisms.combination.COMBINATION_VARIANTS`; tried in a tier of their own after the
single explanations). Those the classifier had before are not repeated here: no brevity penalty, BP also when c > r,
BP from c/r (`no-brevity-penalty`, `brevity-penalty-when-longer`, `brevity-penalty-inverted`), the 0-100
scale and four printed decimals, zero precisions dropped or skipped, orders beyond 4 left out, mean of
sentence scores, add-k from trigrams, the requested smoothing not applied, floor's and chen-cherry-1's
documented default in place of the given one (`classify._smoothing_readings`), weights normalised or as given.

A variant returns None where it does not apply, and also where its value is the oracle's own (within the
numeric contract, with the judge's zero rule): a variant never fits a correct answer. A variant that gives 0 never
names a record by itself (an early 0 is what many bugs give: an empty order counted, a test on one order's
matches); it stays among the record's fits, so that a run whose other records it names accounts for its 0s too.

When no explanation fits, `stages_consistent_with` says what is known of the score stage by small tests on
the numbers, each giving the partial name the catalogue declares for it (`StageNames`: `other-scale-of-score`,
`other-brevity-penalty`, `other-weighting-of-precisions`; with `other-combination` where none decides, the names of
`oracle.diagnose.mechanisms.combination.PARTIAL_NAMES`, one family with `other-counting-of-<layer>`).

Pure: the oracle's formulas and float arithmetic on its values; nothing from any library under test.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

from oracle.formulas import bleu
from oracle.formulas.conventions import SMOOTHING_METHODS, Smoothing
from oracle.formulas.errors import BleuOracleError, BleuValueError

from .expect import oracle_result, segment_counts, segments_result
from .judge import Contract, breaks_zero_rule

#: The numeric contract a float is decided by here (|a - e| <= 1e-12 + 1e-9 |e|, the judge's default).
CONTRACT = Contract()


@dataclass(frozen=True)
class ReturnedStatistics(bleu.Statistics):
    """The statistics an implementation returned, as the score stage reads them to test whether its score follows
    from them (`classify._scored_as_returned`, `classify._from_returned_counts`): whole counts, none negative, whose
    matches may exceed their totals. `bleu.Statistics` refuses matches above totals, the counting's invariant, which
    the oracle's own counts obey; an implementation's counts need not (a per-sentence BLEU that credits each distinct
    hypothesis n-gram with its count in the reference returns 2 matches of 1 unigram for "a" against "a a"), and its
    score is then its own formula's arithmetic on them: each precision m/t as it comes, above 1 or not (2/1 there,
    2 x e^(1 - 2/1) with BP). Built only from returned counts, never from the oracle's counting, so the formulas'
    invariant stands for the oracle's own use. An order with matches and no n-gram (m > 0 of t = 0) has no precision
    m/t (the formulas read 0 of 0 as an empty order, which m of 0 is not): refused, as a count that is not one is;
    the caller reads a refusal as "the score of these statistics is not known", never as a combination fault."""

    def __post_init__(self):
        if len(self.matches) != len(self.totals):
            raise BleuValueError(
                f"`matches` and `totals` must have one entry per order (got {len(self.matches)} and {len(self.totals)})"
            )
        for name in ("hyp_len", "ref_len", "segments"):
            _require_returned_count(getattr(self, name), name)
        for name in ("matches", "totals"):
            for i, value in enumerate(getattr(self, name)):
                _require_returned_count(value, f"{name}[{i}]")
        for i, (m, t) in enumerate(zip(self.matches, self.totals, strict=True)):
            if m > 0 and t == 0:
                raise BleuValueError(f"order {i + 1} has {m} matches of 0 n-grams: no precision m/t")


@dataclass(frozen=True)
class ReturnedNumbers(bleu.Statistics):
    """Counts a reply wrote as numbers that are not integers (`oracle.models.protocol.NumericStatistics`), as exact
    Fractions, to be scored as the formulas score counts (each precision m/t, the penalty e^(1 - r/c)): whether the
    score that came with them follows from them (`classify.numeric_fits`). None negative; an order with matches of no
    n-gram has no precision and is refused, as in `ReturnedStatistics`."""

    def __post_init__(self):
        if len(self.matches) != len(self.totals):
            raise BleuValueError(
                f"`matches` and `totals` must have one entry per order (got {len(self.matches)} and {len(self.totals)})"
            )
        for value in (self.hyp_len, self.ref_len, *self.matches, *self.totals):
            if type(value) not in (int, Fraction) or value < 0:
                raise BleuValueError(f"a count must be a non-negative number (got {value!r})")
        for i, (m, t) in enumerate(zip(self.matches, self.totals, strict=True)):
            if m > 0 and t == 0:
                raise BleuValueError(f"order {i + 1} has {m} matches of 0 n-grams: no precision m/t")


def returned_statistics(hyp_len, ref_len, matches, totals, segments):
    """Counts an implementation returned, to be scored: `bleu.Statistics` where they obey the counting's invariant (a
    result the formulas keep, as before), else `ReturnedStatistics` (matches above totals, read as they come); a
    `BleuValueError` where they are no counts, or an order has matches of no n-gram."""
    if all(type(m) is int and type(t) is int and m <= t for m, t in zip(matches, totals, strict=False)):
        return bleu.Statistics(hyp_len, ref_len, tuple(matches), tuple(totals), segments)
    return ReturnedStatistics(hyp_len, ref_len, tuple(matches), tuple(totals), segments)


def _require_returned_count(value, name):
    if type(value) is not int or value < 0:
        raise BleuValueError(f"`{name}` must be a non-negative integer count (got {value!r})")


def _same(value, expected):
    """`value` is `expected` under the numeric contract, with the judge's zero rule (`classify.within_contract`)."""
    return CONTRACT.close(value, expected) and not breaks_zero_rule(value, expected)


def score_variant(function):
    """A variant that applies only where the hypothesis is not empty and the oracle's score is a number, and that
    never gives the oracle's own value (None there: it is a no-op on this request)."""

    @functools.wraps(function)
    def variant(ctx, result):
        if result is None or result.score.is_nan() or result.statistics.hyp_len == 0:
            return None
        value = function(ctx, result)
        if value is None or _same(value, float(result.score)):
            return None
        return value

    return variant


# -- the oracle's intermediate values as floats --------------------------------------------------------


def _in_force(result):
    """(p_n, w_n) as floats for every order the judged conventions combine: weight not 0 and precision not left
    out (an empty order the profile skips has precision None)."""
    return [(float(p), float(w)) for p, w in zip(result.precisions, result.weights, strict=False)
            if w != 0 and p is not None]


def _geometric(pairs):
    """exp(sum w log p) over (p, w) pairs; 0 where a p is 0."""
    if any(p <= 0 for p, _ in pairs):
        return 0.0
    return math.exp(math.fsum(w * math.log(p) for p, w in pairs))


def _bp(result):
    return float(result.bp)


def _rescored(ctx, statistics, *, weights=None, smoothing=None):
    """The judged profile's score of `statistics` under other weights or smoothing (None where refused)."""
    try:
        return float(bleu.bleu_from_statistics(statistics, weights=weights or ctx.weights, options=ctx.options,
                                               smoothing=smoothing or ctx.smoothing, level=ctx.request.level).score)
    except BleuOracleError:
        return None


def _oracle(ctx, *, weights=None, indices=None, smoothing=None):
    """The oracle's result for the request with other weights (counted once per number of orders, in the
    context's counts), its segments at `indices` alone (each segment counted once, in the context's counts) or
    another smoothing; None where it is refused."""
    if indices is not None:  # (a piece of the request scored alone: the search charges it as a candidate on it)
        ctx.scoring_alone(indices, smoothing=smoothing)
    try:
        if indices is not None:
            return segments_result(ctx.request, indices, ctx.options, smoothing or ctx.smoothing, counted=ctx.counted)
        request = ctx.request.model_copy(update={"weights": weights}) if weights is not None else ctx.request
        return oracle_result(request, ctx.options, smoothing or ctx.smoothing, counted=ctx.counted)
    except BleuOracleError:
        return None


def _score(result):
    return None if result is None else float(result.score)


# -- a constant where a parameter belongs ------------------------------------------------------------


@score_variant
def weights_not_passed_on(ctx, result):
    """The weights sent are not passed on: uniform weights 1/N are used whatever they are (N their number),
    as where a wrapper takes the weights but calls the scorer with its default (torchmetrics #1074: only
    `n_gram`, weights uniform, before PR #1075 added them)."""
    n = len(ctx.weights)
    return _rescored(ctx, result.statistics, weights=(Fraction(1, n),) * n)


@score_variant
def order_fixed_at_4(ctx, result):
    """BLEU-4 with uniform weights 1/4 whatever order and weights are sent: the scorer's default used in place of
    both (multeval's JBLEU: `N = 4`, `ngramOrderWeight = 0.25`, jhclark/multeval #11; jury's bleu_n all equal,
    obss/jury #58, where the order and weights were not passed to the scorer). Where four weights are sent this is
    `weights-not-passed-on`'s prediction as well: both fit those records, and the run's cover keeps the one name
    that explains every record of the run (four orders or not)."""
    uniform = (Fraction(1, 4),) * 4
    if tuple(ctx.weights) == uniform:  # nothing to explain: the default is what was sent
        return None
    return _score(_oracle(ctx, weights=uniform))


@score_variant
def individual_bleu_scores_averaged_over_four(ctx, result):
    """The score is the sum over the orders in force of the individual BLEU-n (BP x p_n) divided by 4 whatever the
    number of orders: the arithmetic mean of the precisions with a constant 4 in place of their number N (mutation
    operator "a constant for a parameter" on the mean). Where N is 4 this is `arithmetic-mean-of-precisions`, tried
    first; this variant applies to the other orders only. Real code: a toolkit's 'avg-bleu' summed its individual
    BLEU-n and divided by 4.0 (the sixth held-out set's `individual-bleu-scores-averaged-over-four`, a seen bug now;
    its thread is cited in that set's own file only)."""
    pairs = _in_force(result)
    if not pairs or len(pairs) == 4:
        return None
    return _bp(result) * math.fsum(p for p, _ in pairs) / 4


@score_variant
def geometric_mean_root_fixed_at_4(ctx, result):
    """The log of the product of the precisions divided by 4 whatever the number N of orders sent: BP x exp((N/4) x
    sum w_n log p_n), each weight scaled by N/4 (uniform weights 1/N become 1/4), the geometric mean's root a constant
    in place of the order (mutation operator "a constant for a parameter" at the mean; the geometric sibling of
    `individual-bleu-scores-averaged-over-four`). One constant, 4, not a family: 4 is the conventional order (BLEU-4,
    the default every scorer ships), the one a constant written in place of the order has a reason to be; another
    root (3, 2, ...) has no such reason, and a family searched over roots would fit simple numbers by the choice of
    root. Invisible where four orders are sent (N/4 = 1: the right score), so it applies to the other orders only;
    BLEU-1 is p_1^(1/4), orders above 4 fall below the score. The precisions are those in force under the judged
    smoothing (an order of weight 0 stays off). Real code: a C++ toolkit's BLEU took `log(product)/4` whatever order
    was configured (the ninth held-out set's `geometric-mean-root-fixed-at-4`, a seen bug now; its thread is cited in
    that set's own file only)."""
    n = len(ctx.weights)
    pairs = _in_force(result)
    if not pairs or n == 4:
        return None
    mean = _geometric(pairs)
    return _bp(result) * mean ** (n / 4) if mean > 0 else 0.0


#: Methods whose parameter the classifier already reads at its documented default (`classify._smoothing_readings`).
_DEFAULT_READ_ELSEWHERE = frozenset({"floor", "chen-cherry-1"})


@score_variant
def smoothing_parameter_ignored(ctx, result):
    """The smoothing method's parameter is ignored: its documented default is used in place of the one given
    (add-k's k = 1, chen-cherry-4's and 7's k = 5, chen-cherry-6's alpha = 5), as where a command line has no
    switch for it (sacrebleu #23: `--smooth floor` had no way to set the floor)."""
    method = ctx.smoothing.method
    defaults = SMOOTHING_METHODS.get(method, {})
    if method in _DEFAULT_READ_ELSEWHERE or all(getattr(ctx.smoothing, n) == v for n, v in defaults.items()):
        return None
    return _score(_oracle(ctx, smoothing=Smoothing(method)))


# -- the first or last element in place of all ---------------------------------------------------------


def _precision_alone(result, index):
    pairs = _in_force(result)
    if len(pairs) < 2:
        return None
    p = result.precisions[index]
    return None if p is None else _bp(result) * float(p)


@score_variant
def unigram_precision_only(ctx, result):
    """The score is BP x p_1: the unigram precision in place of the weighted geometric mean of every order
    (the mean's first term alone)."""
    return _precision_alone(result, 0)


@score_variant
def highest_order_precision_only(ctx, result):
    """The score is BP x p_N: the highest order's precision in place of the weighted geometric mean (the
    loop's last value kept, not accumulated)."""
    return _precision_alone(result, len(ctx.weights) - 1)


def _one_segment(ctx, index):
    request = ctx.request
    if request.level != "corpus" or len(request.segments) < 2:
        return None
    return _score(_oracle(ctx, indices=(index,)))


@score_variant
def first_segment_score_reported(ctx, result):
    """The corpus score is the first segment's own score: a `return` inside the loop over segments."""
    return _one_segment(ctx, 0)


@score_variant
def last_segment_score_reported(ctx, result):
    """The corpus score is the last segment's own score: the loop's last sentence score reported (its
    variable read after the loop) in place of the corpus's."""
    return _one_segment(ctx, -1)


def batch_mean(size):
    """The variant that scores the corpus as the mean of per-batch corpus scores, batches of `size` segments (its
    name, one per size tried: `oracle.diagnose.mechanisms.combination.batch_mean_name`)."""

    @score_variant
    def variant(ctx, result):
        segments = ctx.request.segments
        if ctx.request.level != "corpus" or len(segments) <= size:  # one batch: the corpus score itself
            return None
        scores = []
        for start in range(0, len(segments), size):
            batch = _oracle(ctx, indices=range(start, min(start + size, len(segments))))
            if batch is None or batch.score.is_nan():
                return None
            scores.append(float(batch.score))
        return math.fsum(scores) / len(scores)

    variant.__doc__ = (
        f"The corpus score is the mean of the corpus scores of consecutive batches of {size} segments, the last "
        "(smaller) batch weighted as much as the others, in place of one score of the corpus's summed statistics "
        "(huggingface/transformers #9161: \"the seq2seq finetune script calculates the final metrics (bleu or "
        "rouge) per batch, and then simply averages these numbers across batches\"; pytorch/ignite #2178). The "
        "batch size is not known: each size tried names a run's records only where two of them fit it.")
    variant.__name__ = variant.__qualname__ = f"mean_of_scores_of_batches_of_{size}"
    return variant



def _segment_results(ctx):
    """Each segment's own result (counted once, in the context's counts), for a corpus of two or more segments;
    None where one is refused."""
    request = ctx.request
    if request.level != "corpus" or len(request.segments) < 2:
        return None
    results = [_oracle(ctx, indices=(i,)) for i in range(len(request.segments))]
    return None if any(r is None for r in results) else results


def _segment_statistics(ctx, result):
    """Each segment's own statistics (counted once, in the context's counts, as the means of sentence scores count
    them), for a corpus of two or more segments: no segment is scored exactly where its counts say enough."""
    request = ctx.request
    if request.level != "corpus" or len(request.segments) < 2:
        return None
    orders = len(result.statistics.matches)
    return [segment_counts(request, i, ctx.options, orders, ctx.counted) for i in range(len(request.segments))]


def _counted(result):
    """A result's counts after smoothing (its statistics where none was applied)."""
    return result.smoothed if result.smoothed is not None else result.statistics


@score_variant
def precisions_averaged_over_segments(ctx, result):
    """A macro precision: each order's precision the mean over the segments of their own precisions (each segment's
    m_n / l_n under the judged smoothing, the segments whose order has n-grams after it), in place of the summed matches
    over the summed totals; BP from the summed lengths, the weights as in force (mutation operator "an average for a
    sum" on the corpus aggregation; no real instance found). Two orders in force at least: with one, where every
    segment's BP is 1, it is `mean-of-sentence-scores`."""
    if len(_in_force(result)) < 2:  # one order, every BP 1: the mean of sentence scores
        return None
    if ctx.smoothing.method == "none":  # each segment's precision its m_n / l_n: its counts say it
        counts = _segment_statistics(ctx, result)
        if counts is None:
            return None
        owns = [[Fraction(s.matches[n], s.totals[n]) for s in counts if s.totals[n] > 0]
                for n in range(len(result.precisions))]
    else:
        segments = _segment_results(ctx)
        if segments is None:
            return None
        owns = [[r.precisions[n] for r in segments if r.precisions[n] is not None and _counted(r).totals[n] > 0]
                for n in range(len(result.precisions))]
    pairs = []
    for n, (p, w) in enumerate(zip(result.precisions, result.weights, strict=False)):
        if w == 0 or p is None:
            continue
        own = owns[n]
        if not own:
            return None
        pairs.append((math.fsum(float(x) for x in own) / len(own), float(w)))
    return _bp(result) * _geometric(pairs)


@score_variant
def brevity_penalty_averaged_over_segments(ctx, result):
    """The brevity penalty the mean of the segments' own penalties, (1/S) sum e^(1 - r_i/c_i) (1 where c_i >= r_i,
    0 where c_i = 0), in place of e^(1 - r/c) from the summed lengths, times the corpus's geometric mean (mutation
    operator "an average for a sum" on the brevity penalty; no real instance found)."""
    counts = _segment_statistics(ctx, result)
    if counts is None or any(s.hyp_len == 0 and s.ref_len == 0 for s in counts):  # BP undefined for one
        return None
    mean = _geometric(_in_force(result))
    penalties = [0.0 if s.hyp_len == 0 else math.exp(1 - s.ref_len / s.hyp_len) if s.hyp_len < s.ref_len else 1.0
                 for s in counts]
    return math.fsum(penalties) / len(penalties) * mean


# -- an average in place of a product ----------------------------------------------------------------


@score_variant
def arithmetic_mean_of_precisions(ctx, result):
    """The score is BP x (p_1 + ... + p_N) / N: the arithmetic mean of the precisions, weights aside, in place
    of their weighted geometric mean."""
    pairs = _in_force(result)
    if len(pairs) < 2:
        return None
    return _bp(result) * math.fsum(p for p, _ in pairs) / len(pairs)


@score_variant
def weighted_sum_of_precisions(ctx, result):
    """The score is BP x sum w_n p_n: the precisions weighted and summed, not their logarithms (exp and log
    left out)."""
    pairs = _in_force(result)
    return _bp(result) * math.fsum(w * p for p, w in pairs) if pairs else None


@score_variant
def product_of_precisions(ctx, result):
    """The score is BP x p_1 x ... x p_N: the precisions multiplied without their weights (exp(sum log p_n))."""
    pairs = _in_force(result)
    return _bp(result) * _geometric([(p, 1.0) for p, _ in pairs]) if pairs else None


# -- integer in place of true division ---------------------------------------------------------------


@score_variant
def precisions_integer_division(ctx, result):
    """Integer (floor) division where true division was meant, in the precisions and the length ratio: each order's
    precision m_n // l_n, 1 where every n-gram matched and 0 otherwise, for the orders the judged smoothing left as
    integer counts (an order it changed holds floats and divides truly), and the ratio c // r, whose brevity penalty
    is 1 where c >= r (and whose 1 / ratio raises where c < r: no score there, so the variant does not apply). As
    Python 2's `/` on two ints gives it in code written for Python 3's (nltk/nltk #989: `_modified_precision` copied
    without nltk's `from __future__ import division`, "It influences BLEU score"). Without a smoothing its answer is
    the right one or 0, and a 0 names no variant by itself (it stays among a record's fits); a smoothed order beside
    orders that all matched gives another number."""
    s = result.statistics
    if s.ref_len == 0 or s.hyp_len < s.ref_len:  # c // r is 0 (or r is 0): the penalty's division raises
        return None
    counts = _counted(result)
    pairs = []
    for n, (p, w) in enumerate(zip(result.precisions, result.weights, strict=False)):
        if w == 0 or p is None:
            continue
        whole = (n < len(s.totals) and s.totals[n] > 0 and counts.matches[n] == s.matches[n]
                 and counts.totals[n] == s.totals[n])  # the smoothing left the order's counts as integers
        pairs.append((float(s.matches[n] // s.totals[n]) if whole else float(p), float(w)))
    return _geometric(pairs) if pairs else None


@score_variant
def length_ratio_floored(ctx, result):
    """Integer division in the brevity penalty: BP = e^(1 - r // c) where c < r (r and c both ints)."""
    return _penalised(result, floored_ratio_penalty)


def _counts_in_force(result):
    """(m_n, w_n) for each order in force, m_n the matches after smoothing (the statistics' where none was applied),
    where every precision in force is those matches over their totals; None where one is not (a smoothing that is no
    ratio of counts, an empty order read by a rule)."""
    counts = _counted(result)
    pairs = []
    for n, (p, w) in enumerate(zip(result.precisions, result.weights, strict=False)):
        if w == 0 or p is None:
            continue
        if n >= len(counts.totals) or counts.totals[n] == 0 or p != Fraction(counts.matches[n]) / counts.totals[n]:
            return None
        pairs.append((float(counts.matches[n]), float(w)))
    return pairs


# (Uniform weights as 1 // N in integers, every weight 0 for N > 1 and the score BP alone, is no variant here: the
# classifier's `small-weights-taken-as-zero` tries the cut above every weight, which gives that score, before this
# tier.)


@score_variant
def score_truncated_to_whole_percent(ctx, result):
    """The score truncated to a whole percent: floor(100 x BLEU) / 100, as `int(100 * bleu) / 100` or
    `100 * bleu // 1` gives it (mutation operator "integer for true division" on the scale; no real instance
    found). A multiple of 1/100 is a simple number, so it names a run's records only with a second record
    (`needs_evidence`); a score below 0.01 truncates to 0, which names no variant by itself."""
    return math.floor(100.0 * float(result.score)) / 100.0


@score_variant
def percent_scale_truncated_to_an_integer(ctx, result):
    """The score on the 0-100 scale truncated to an integer: floor(100 x BLEU), as `int(bleu * 100)` gives it
    (mutation operator "integer for true division" on the scale; no real instance found). An integer is a simple
    number, so it names a run's records only with a second record (`needs_evidence`)."""
    return float(math.floor(100.0 * float(result.score)))


# -- the precisions' denominators ---------------------------------------------------------------------


@score_variant
def precisions_over_hypothesis_length(ctx, result):
    """Each precision's denominator fixed at c, the hypothesis length: p_n = m_n / c for every order in place of
    m_n / l_n (mutation operator "a constant for a parameter" on the precision: the unigram total used for every
    order; no real instance found). The statistics returned are right; the judged smoothing applies to these
    counts."""
    s = result.statistics
    n = len(s.matches)
    if n < 2 or s.hyp_len == 0 or all(t == s.hyp_len for t in s.totals):
        return None
    return _rescored(ctx, bleu.Statistics(s.hyp_len, s.ref_len, s.matches, (s.hyp_len,) * n, s.segments))


@score_variant
def matches_as_precisions(ctx, result):
    """Each precision's denominator left out: p_n = m_n, the clipped matches themselves (after the judged smoothing,
    where it adds to them), in place of m_n / l_n (mutation operator "a term left out" on the precision; no real
    instance found): BP x exp(sum w_n log m_n), a number that can exceed 1. It applies where every precision in force
    is a ratio of counts and every order in force matched (a 0 names nothing)."""
    pairs = _counts_in_force(result)
    if not pairs or any(m <= 0 for m, _ in pairs):
        return None
    return _bp(result) * _geometric(pairs)


# -- an index off by one -----------------------------------------------------------------------------


def _orders(result, keep):
    """BP x exp(sum w_n log p_n) over the orders n (1-based) that `keep(n, N)` keeps, weights as in force."""
    n_orders = len(result.weights)
    pairs = [(p, w) for n, (p, w) in enumerate(zip(result.precisions, result.weights, strict=False), start=1)
             if keep(n, n_orders) and w != 0 and p is not None]
    return _bp(result) * _geometric([(float(p), float(w)) for p, w in pairs])


@score_variant
def highest_order_left_out(ctx, result):
    """Orders 1..N-1 combined: the loop over orders stops one short (`range(1, N)`), order N left out and the
    weights not renormalised."""
    if len(ctx.weights) < 2:
        return None
    return _orders(result, lambda n, top: n < top)


@score_variant
def unigram_precision_left_out(ctx, result):
    """Orders 2..N combined: the loop over orders starts one late, log p_1 left out and the weights not
    renormalised."""
    if len(ctx.weights) < 2:
        return None
    return _orders(result, lambda n, top: n > 1)


@score_variant
def orders_shifted_up(ctx, result):
    """Orders 2..N+1 combined: precision p_(n+1) taken with weight w_n (the n-gram order counted from 2, an
    index off by one), N+1 orders counted."""
    n = len(ctx.weights)
    longer = _oracle(ctx, weights=(Fraction(1, n + 1),) * (n + 1))  # (uniform: only its counts are read)
    if longer is None:
        return None
    s = longer.statistics
    shifted = bleu.Statistics(s.hyp_len, s.ref_len, tuple(s.matches[1:n + 1]), tuple(s.totals[1:n + 1]), s.segments)
    return _rescored(ctx, shifted)


@score_variant
def weights_shifted(ctx, result):
    """Weight w_(n+1) taken with precision p_n (the weights read from index 1): orders 1..N-1 weighted by
    w_2..w_N."""
    weights = result.weights
    if len(weights) < 2 or len(set(weights)) == 1:  # equal weights: `highest-order-left-out` says it
        return None
    pairs = [(float(p), float(w)) for p, w in zip(result.precisions, weights[1:], strict=False)
             if w != 0 and p is not None]
    return _bp(result) * _geometric(pairs)


# -- a term left out -----------------------------------------------------------------------------------


@score_variant
def exp_left_out(ctx, result):
    """The exponential left out: the score is BP x sum w_n log p_n (a number at most 0)."""
    pairs = _in_force(result)
    if not pairs or any(p <= 0 for p, _ in pairs):
        return None
    return _bp(result) * math.fsum(w * math.log(p) for p, w in pairs)


@score_variant
def log_score_reported(ctx, result):
    """The logarithm of the score is reported: log BP + sum w_n log p_n, the last exp left out."""
    score = float(result.score)
    return math.log(score) if score > 0 else None


# -- operands swapped ----------------------------------------------------------------------------------


@score_variant
def precision_inverted(ctx, result):
    """Each precision inverted, l_n / m_n for m_n / l_n (operands of the division swapped): BP divided by the
    weighted geometric mean."""
    mean = _geometric(_in_force(result))
    return _bp(result) / mean if mean > 0 else None


@score_variant
def weight_and_precision_swapped(ctx, result):
    """The operands of the power swapped: BP x product of w_n ** p_n in place of p_n ** w_n."""
    pairs = _in_force(result)
    if not pairs:
        return None
    return _bp(result) * math.prod(w ** p for p, w in pairs)


# -- the brevity penalty ---------------------------------------------------------------------------------

# The brevity penalties of the variants below as functions of (c, r) for c > 0, 1 where c >= r: the score variants
# multiply the right geometric mean by them, and a returned BP equal to one of them names the variant even where the
# score cannot (`oracle.diagnose.mechanisms.combination.BREVITY_PENALTY_VARIANTS`).


def exponent_negated_penalty(c, r):
    """e^(r/c - 1) where c < r."""
    return math.exp(r / c - 1) if c < r else 1.0


def exp_left_out_penalty(c, r):
    """1 - r/c where c < r."""
    return 1 - r / c if c < r else 1.0


def length_ratio_penalty(c, r):
    """c/r where c < r."""
    return c / r if c < r else 1.0


def floored_ratio_penalty(c, r):
    """e^(1 - r // c) where c < r."""
    return math.exp(1 - r // c) if c < r else 1.0


def squared_penalty(c, r):
    """(e^(1 - r/c))^2 where c < r."""
    return math.exp(1 - r / c) ** 2 if c < r else 1.0


def at_least_one_penalty(c, r):
    """max(1, e^(1 - r/c)): 1 where c <= r, above 1 where c > r (not 1 where c >= r, unlike the penalties above)."""
    return max(1.0, math.exp(1 - r / c))


def _penalised(result, penalty):
    """BP replaced by `penalty(c, r)` where c < r (elsewhere BP is 1 and these variants are no-ops)."""
    c, r = result.statistics.hyp_len, result.statistics.ref_len
    if not 0 < c < r:
        return None
    return penalty(c, r) * _geometric(_in_force(result))


@score_variant
def brevity_penalty_alone(ctx, result):
    """The score is the brevity penalty alone: the weighted geometric mean of the precisions left out of the product
    BP x exp(sum w_n log p_n) (mutation operator "a term left out" on the score's product, stage 12; or a mean
    returned as 1, stage 10; or each p_n returned as 1, stage 6: no input tells these apart). No public instance
    found by the `search` tool (issues and code, 2026-11-30); the class is stage-mutants' (benchmarks/README.md,
    "Machine-made mutants of an independent BLEU"): four mutants of three stages answer BP on every input. Where
    more than one weight is sent, `small-weights-taken-as-zero`'s cut above every weight (uniform weights as 1 // N
    in integers) gives the same number and names the record first; this variant stays among its fits, and names a
    run whose records include a single weight (1 // 1 = 1: no cut)."""
    return _bp(result)


# -- the mean's terms, each w_n log p_n, combined otherwise (combination-kinds: stage 10 by operator) ----------------


def _weighted_terms(result):
    """The mean's terms w_n log p_n over the orders in force, in order; None where fewer than two orders are in force
    (one term: its average, its first and its last are the sum) or a precision in force is 0 (the score is the
    formulas' 0 before any term is taken: no log of 0 is summed)."""
    pairs = _in_force(result)
    if len(pairs) < 2 or any(p <= 0 for p, _ in pairs):
        return None
    return [w * math.log(p) for p, w in pairs]


@score_variant
def weighted_log_terms_averaged(ctx, result):
    """The weighted logarithms averaged where they are summed: BP x exp((w_1 log p_1 + ... + w_K log p_K) / K) over
    the K orders in force, the weighted geometric mean's K-th root (mutation operator "an average for a sum" on the
    mean's sum, stage 10: `mean(w * log(p))` for `sum(w * log(p))`, the weights applied and then divided again by
    their number). Under uniform weights 1/N this is G^(1/N), the mean of the log p_n divided by N twice. Where two
    orders are sent and both are in force it is `geometric-mean-root-fixed-at-4`'s G^(2/4) as well, whatever the
    weights: the two are indistinguishable on every such input, and the earlier name keeps the record, this one
    among its fits; three orders or more, or an order of weight 0, tell them apart. No public
    instance found by the `search` tool (code and issues, 2026-11-30); the class is stage-mutants'
    (`average:stage_mean:193:20`)."""
    terms = _weighted_terms(result)
    return None if terms is None else _bp(result) * math.exp(math.fsum(terms) / len(terms))


@score_variant
def first_weighted_term_only(ctx, result):
    """The mean's first term alone: BP x p_f^(w_f), f the first order in force, its weight kept (mutation operator
    "the first element for all" on the mean's sum: `exp(terms[0])` for `exp(sum(terms))`, stage 10). Not
    `unigram-precision-only` (BP x p_1, the weight dropped as well): the two agree only where w_f is 1 or p_f is 1.
    No public instance found by the `search` tool (code and issues, 2026-11-30); the class is stage-mutants'
    (`first:stage_mean:193:24`)."""
    terms = _weighted_terms(result)
    return None if terms is None else _bp(result) * math.exp(terms[0])


@score_variant
def last_weighted_term_only(ctx, result):
    """The mean's last term alone: BP x p_l^(w_l), l the highest order in force, its weight kept (mutation operator
    "the last element for all" on the mean's sum: the loop's last term assigned where it is accumulated, stage 10).
    Not `highest-order-precision-only` (BP x p_N, the weight dropped as well). No public instance found by the
    `search` tool (code and issues, 2026-11-30); the class is stage-mutants' (`last:stage_mean:193:24`)."""
    terms = _weighted_terms(result)
    return None if terms is None else _bp(result) * math.exp(terms[-1])


@score_variant
def brevity_penalty_at_least_one(ctx, result):
    """BP = max(1, e^(1 - r/c)): the penalty's clamp at 1 taken the wrong way (a max where a min, or the branch's
    condition, was meant), so a short hypothesis has no penalty and a long one a factor above 1 (mutation operator
    "negated condition" on the brevity penalty, its two halves `no-brevity-penalty` (c < r) and
    `brevity-penalty-when-longer` (c > r) in one name). No public instance found by the `search` tool (issues and
    code, 2026-11-30) but the seventh held-out set's, cited in its own file only. Each half is an earlier name, which
    names a record first; this variant stays among both halves' fits, so that a run with records on both sides of
    c = r is named by it (`oracle.diagnose.cover`)."""
    c, r = result.statistics.hyp_len, result.statistics.ref_len
    if c == 0 or c == r:
        return None
    return at_least_one_penalty(c, r) * _geometric(_in_force(result))


@score_variant
def brevity_penalty_exponent_negated(ctx, result):
    """BP = e^(r/c - 1) where c < r: the exponent's sign flipped (a penalty above 1 for a short hypothesis)."""
    return _penalised(result, exponent_negated_penalty)


@score_variant
def brevity_penalty_exp_left_out(ctx, result):
    """BP = 1 - r/c where c < r: the exponential left out of the brevity penalty (a score below 0)."""
    return _penalised(result, exp_left_out_penalty)


@score_variant
def length_ratio_as_brevity_penalty(ctx, result):
    """BP = c/r where c < r: the length ratio itself in place of e^(1 - r/c)."""
    return _penalised(result, length_ratio_penalty)


@score_variant
def brevity_penalty_applied_twice(ctx, result):
    """BP x BP x the geometric mean where c < r: the brevity penalty applied twice (a score already penalised is
    multiplied by BP again where it is returned: a factor repeated, BP squared)."""
    return _penalised(result, squared_penalty)


# -- scale and rounding ----------------------------------------------------------------------------------


@score_variant
def percent_scale_printed_2_decimals(ctx, result):
    """The score on the 0-100 scale, rounded to two decimals (multi-bleu.perl's and sacrebleu's printed
    "%.2f" of 100 x BLEU, read back as the score)."""
    return round(100.0 * float(result.score), 2)


# -- what is known when nothing fits ---------------------------------------------------------------------

#: The powers of ten the scale test tries (10^-6 .. 10^6, 10^0 left out).
SCALE_POWERS = 6


class PartialName(NamedTuple):
    """A partial name as the catalogue declares it: the name a stage test gives, and its words (which the test's
    description ends with)."""

    name: str
    words: str


class StageNames(NamedTuple):
    """The partial name each stage test gives (`oracle.diagnose.mechanisms.combination.STAGE_NAMES`): another scale,
    another brevity penalty, another weighting of the precisions."""

    scale: PartialName
    brevity_penalty: PartialName
    weighting: PartialName


@dataclass(frozen=True)
class Stage:
    """A stage of the combination the answer is consistent with: its partial name and the test that decided it."""

    name: str
    description: str
    #: decided by an equality (a power of ten, a returned BP that gives the answer), not only an interval: an
    #: interval holds for many answers, so a record several of them fit is evidence for none (`classify`)
    decided: bool = False
    #: an interval every answer between 0 and the right mean falls in (another brevity penalty): never a name alone
    vacuous: bool = False


def _power_of_ten(ratio):
    """k where `ratio` is 10^k within the numeric contract (0 < |k| <= SCALE_POWERS), else None."""
    if not (math.isfinite(ratio) and ratio > 0):
        return None
    k = round(math.log10(ratio))
    return k if k and abs(k) <= SCALE_POWERS and CONTRACT.close(ratio, 10.0 ** k) else None


def _between(value, low, high):
    """low <= value <= high, each end widened by the numeric contract."""
    return low - CONTRACT.abs - CONTRACT.rel * abs(low) <= value <= high + CONTRACT.abs + CONTRACT.rel * abs(high)


def stages_consistent_with(answer, result, names, *, returned_bp=None):
    """The stages of the combination whose difference `answer` is consistent with, given the statistics the
    implementation combined as `result` (a BleuResult: the oracle's, or the judged profile's scoring of the
    statistics it returned): decided by exact tests on the numbers, each float within the numeric contract
    (`CONTRACT`), the first that holds first, each named as `names` (a `StageNames`) says.

    - scale: answer / score is 10^k (k = -6..6, not 0);
    - brevity penalty, decided: a returned BP other than the oracle's, and answer = that BP x the geometric mean
      exp(sum w_n log p_n) of the precisions in force;
    - weights: answer / BP lies between the least and the greatest precision in force (not all equal): a weighted
      geometric mean of them under weights (summing to 1) other than those in force;
    - brevity penalty, consistent: answer / the geometric mean is a penalty in (0, 1] other than BP.
    """
    if answer is None or not math.isfinite(answer) or result is None or result.score.is_nan():
        return []
    score, bp = float(result.score), _bp(result)
    pairs = _in_force(result)
    mean = _geometric(pairs) if pairs else 0.0
    found = []
    k = _power_of_ten(answer / score) if score else None
    if k is not None:
        found.append(Stage(names.scale.name, f"answer / the score of these statistics ({score!r}) = 10^{k}: "
                                             f"{names.scale.words}", decided=True))
    if (returned_bp is not None and math.isfinite(returned_bp) and not CONTRACT.close(returned_bp, bp) and mean > 0
            and _same(answer, returned_bp * mean)):
        found.append(Stage(names.brevity_penalty.name, f"the answer is the returned BP {returned_bp!r} (not {bp!r}) "
                                                       f"times the right geometric mean of the precisions {mean!r}",
                           decided=True))
    precisions = [p for p, _ in pairs]
    if bp > 0 and precisions and min(precisions) > 0 and min(precisions) < max(precisions) and _between(
            answer / bp, min(precisions), max(precisions)):
        found.append(Stage(names.weighting.name, f"answer / BP = {answer / bp!r} lies between the least and the "
                                                 f"greatest precision, [{min(precisions)!r}, {max(precisions)!r}]: "
                                                 f"{names.weighting.words}"))
    if mean > 0 and answer > 0 and _between(answer / mean, 0.0, 1.0) and not CONTRACT.close(answer / mean, bp) and all(
            stage.name != names.brevity_penalty.name for stage in found):
        found.append(Stage(names.brevity_penalty.name, f"answer / the geometric mean of the precisions = "
                                                       f"{answer / mean!r}, a brevity penalty in (0, 1] other than BP "
                                                       f"{bp!r}: {names.brevity_penalty.words}", vacuous=True))
    return found


__all__ = ["CONTRACT", "SCALE_POWERS", "PartialName", "ReturnedStatistics", "Stage", "returned_statistics",
           "StageNames", "batch_mean", "exp_left_out_penalty", "exponent_negated_penalty", "floored_ratio_penalty",
           "length_ratio_penalty", "score_variant", "squared_penalty", "stages_consistent_with"]
