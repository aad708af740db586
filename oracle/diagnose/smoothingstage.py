"""The smoothing stage's variants: the requested smoothing method computed wrongly, as real bugs do.

Each smoothing method of `oracle.formulas.smoothing` is a rewrite of the (m_n, l_n) pairs before the precisions
are taken. The variants here are those rewrites under the mutation operators bugs are made of, each seen in a
public thread: a length parameter taken from one segment where the corpus's is meant (a loop variable read after
its loop: nltk #2083, nltk PR #3903), an operator's precedence or a formula misread (nltk #2341: chen-cherry-4's
count became `i + 1 * k / ln(c)`), a counter started at 0 or replaced by the loop index, a smoothed value taken as
the precision where it is a count (nltk PR #1300), an epsilon added to every order where only the unmatched ones
take it, add-one on every order with an epsilon for an order without n-grams whatever was requested
(future-agi/future-agi #1345), sentence-level smoothing applied inside the corpus loop, and the corpus scored as the
mean of smoothed sentence scores (NVIDIA-NeMo/Skills #1408). Those the classifier had before are not repeated
here: add-k from trigrams, on every order, k truncated (`computations`), NLTK's method 5 on precisions and
method 6 with the last hypothesis's n-grams (`chen-cherry-5-precisions`, `chen-cherry-6-last-hypothesis`), the
smoothing's parameter at its default (`smoothing-parameter-ignored`), and the readings of `mechanisms.smoothing`
(another method, the request ignored).

Each variant is declared, with its name and in the order the classifier tries them, in the catalogue
(`oracle.diagnose.mechanisms.smoothing.SMOOTHING_VARIANTS`, tried in the score stage's tier:
`mechanisms.computations.COMBINATION_COMPUTATIONS`) and, like the score stage's, returns None where it does not
apply or where its value is the oracle's own (`combination.score_variant`): a variant never fits a right answer.
Float arithmetic on the oracle's counts; nothing from any library under test.
"""

from __future__ import annotations

import math

from oracle.formulas.conventions import Smoothing
from oracle.formulas.errors import BleuOracleError
from oracle.formulas.smoothing import smooth

from .combination import score_variant
from .expect import segment_alone_result

#: The methods whose unmatched orders take the k-th term of a geometric sequence (1/2^k; method 4: ln(c)/(K 2^k)).
_GEOMETRIC = frozenset({"exp", "chen-cherry-3", "chen-cherry-4", "chen-cherry-7"})
#: The methods that run Chen and Cherry's method 4 (method 7: method 4, then method 5).
_METHOD_4 = frozenset({"chen-cherry-4", "chen-cherry-7"})
#: The epsilon future-agi's bleu_score gives an order without hypothesis n-grams (future-agi/future-agi #1345).
EMPTY_ORDER_EPSILON = 1e-9


# -- the smoothed counts combined -----------------------------------------------------------------------------


def _weights_in_force(ctx):
    """The request's weights as the judged options take them (normalised where they normalise; 1/N where only
    uniform weights count), as floats."""
    weights = ctx.weights
    total = sum(weights)
    if ctx.options.uniform_weights_only or (ctx.options.weight_normalisation == "normalise" and total != 1):
        weights = tuple(w / total for w in weights) if total else weights
    return [float(w) for w in weights]


def _combined(ctx, result, matches, totals):
    """BP x exp(sum w_n log(m_n / l_n)) of smoothed counts (floats), an order without n-grams read by the judged
    empty-order rule (0, 1, or left out with the weights renormalised), an order of weight 0 left out."""
    rule = ctx.options.empty_order_at(ctx.request.level, ctx.smoothing)
    pairs = []  # (p or None for an order without n-grams, w)
    for m, t, w in zip(matches, totals, _weights_in_force(ctx), strict=False):
        p = None if t == 0 else m / t
        if w == 0:
            if ctx.options.zero_weight == "counted" and p is not None and p <= 0:
                return 0.0
            continue
        pairs.append((p, w))
    if any(p is None for p, _ in pairs):
        if rule == "zero":
            return 0.0
        if rule == "one":
            pairs = [(1.0 if p is None else p, w) for p, w in pairs]
        else:  # skip: left out, the weights renormalised over the others
            kept = [(p, w) for p, w in pairs if p is not None]
            if not kept:
                return 0.0
            scale = math.fsum(w for _, w in pairs) / math.fsum(w for _, w in kept)
            pairs = [(p, w * scale) for p, w in kept]
    if any(p <= 0 for p, _ in pairs):
        return 0.0
    return float(result.bp) * math.exp(math.fsum(w * math.log(p) for p, w in pairs))


def _counts(ctx, result):
    """The request's (m_n, l_n) as floats for its N orders, and m_(N+1) (None where not counted)."""
    s, n = result.statistics, len(ctx.weights)
    following = float(s.matches[n]) if s.max_order > n else None
    return [float(m) for m in s.matches[:n]], [float(t) for t in s.totals[:n]], following


def _smoothing_applies(ctx, result):
    """The requested smoothing is reached: a method asked for, and not an all-unmatched hypothesis the judged
    options score 0 before any smoothing (no_match='zero')."""
    if ctx.smoothing.method == "none":
        return False
    return not (ctx.options.no_match == "zero" and not any(result.statistics.matches[:len(ctx.weights)]))


def _unmatched_replaced(matches, totals, count):
    """Each order with n-grams and no matches gets `count(j, i)` (j: 1 for the first such order, 2 for the next,
    ...; i: the order's 0-based index); None from `count` leaves it unmatched."""
    out, j = list(matches), 0
    for i, (m, t) in enumerate(zip(matches, totals, strict=True)):
        if t > 0 and m == 0:
            j += 1
            value = count(j, i)
            if value is not None:
                out[i] = value
    return out


def _method_5(matches, following):
    """Chen and Cherry's method 5 on counts: m'_n = (m'_(n-1) + m_n + m_(n+1)) / 3, with m'_0 = m_1 + 1."""
    raw, out = [*matches, following], []
    previous = raw[0] + 1
    for i in range(len(matches)):
        previous = (previous + raw[i] + raw[i + 1]) / 3
        out.append(previous)
    return out


def _geometric(ctx, result, term, *, hyp_len=None):
    """The requested geometric smoothing with each unmatched order's count `term(j, i, factor)`, factor 1 for exp
    (chen-cherry-3) and ln(c)/K for chen-cherry-4 and -7 (c: `hyp_len`, the corpus's where not given; nothing is
    added where c <= 1, as ln(c) <= 0); -7 then averages as method 5. None where the method is not one of these."""
    method = ctx.smoothing.method
    if method not in _GEOMETRIC or not _smoothing_applies(ctx, result):
        return None
    matches, totals, following = _counts(ctx, result)
    if method in _METHOD_4:
        c = result.statistics.hyp_len if hyp_len is None else hyp_len
        if c > 1:  # ln(c) <= 0 adds nothing (a last segment of one token: ln(1) = 0, the orders stay unmatched)
            factor = math.log(c) / float(ctx.smoothing.k)
            matches = _unmatched_replaced(matches, totals, lambda j, i: term(j, i, factor))
        if method == "chen-cherry-7":
            if following is None:
                return None
            matches = _method_5(matches, following)
    else:
        matches = _unmatched_replaced(matches, totals, lambda j, i: term(j, i, 1.0))
    return _combined(ctx, result, matches, totals)


# -- a length parameter from one segment -------------------------------------------------------------------


def _segment_hypothesis_length(ctx, index):
    """The hypothesis length c of the request's segment `index`, counted as the oracle counts it (None where the
    request is not a corpus of several segments, or the oracle refuses the segment)."""
    request = ctx.request
    if request.level != "corpus" or len(request.segments) < 2:
        return None
    ctx.scoring_alone((index,))
    try:
        one = segment_alone_result(request, index, ctx.options, ctx.smoothing, counted=ctx.counted)
    except BleuOracleError:
        return None
    return one.statistics.hyp_len


def _method_4_with_length(ctx, result, index):
    if ctx.smoothing.method not in _METHOD_4:
        return None
    c = _segment_hypothesis_length(ctx, index)
    if c is None or c == result.statistics.hyp_len:
        return None
    return _geometric(ctx, result, lambda j, i, factor: factor / 2 ** j, hyp_len=c)


@score_variant
def chen_cherry_4_last_hypothesis(ctx, result):
    """chen-cherry-4's (and -7's) ln(c) taken from the last segment's hypothesis length, not the corpus's: the
    corpus loop's variable read after the loop (nltk #2083: `hyp_len` passed to the smoothing where
    `hyp_lengths` was meant; nltk PR #3903)."""
    return _method_4_with_length(ctx, result, -1)


@score_variant
def chen_cherry_4_first_hypothesis(ctx, result):
    """chen-cherry-4's (and -7's) ln(c) taken from the first segment's hypothesis length, not the corpus's (the
    length read once, before the loop over segments)."""
    return _method_4_with_length(ctx, result, 0)


# -- operator precedence, a formula misread --------------------------------------------------------------------


def _method_4_count(ctx, result, term):
    """chen-cherry-4 (and -7) with the unmatched order's count `term(j, i, ln c, K)` in place of ln(c)/(K 2^j)."""
    if ctx.smoothing.method not in _METHOD_4:
        return None
    k = float(ctx.smoothing.k)
    return _geometric(ctx, result, lambda j, i, factor: term(j, i, factor * k, k))


@score_variant
def chen_cherry_4_precedence(ctx, result):
    """chen-cherry-4's (and -7's) count for an unmatched order computed as i + K/ln(c), i the order's 0-based index,
    in place of 1/(2^j K / ln(c)): operator precedence (nltk #2341: `incvnt = i + 1 * self.k / math.log(hyp_len)`)."""
    return _method_4_count(ctx, result, lambda j, i, log_c, k: i + k / log_c)


@score_variant
def chen_cherry_4_ratio_inverted(ctx, result):
    """chen-cherry-4's (and -7's) count for the j-th unmatched order computed as K / (2^j ln(c)), in place of
    ln(c) / (K 2^j): the division by 1/ln(c) read as a division by ln(c)."""
    return _method_4_count(ctx, result, lambda j, i, log_c, k: k / (2 ** j * log_c))


@score_variant
def smoothing_counter_from_zero(ctx, result):
    """exp's (chen-cherry-3's) 1/2^k, and chen-cherry-4's and -7's ln(c)/(K 2^k), with k counting the unmatched
    orders from 0, not from 1: the first unmatched order's count is 1 (ln(c)/K), not 1/2."""
    return _geometric(ctx, result, lambda j, i, factor: factor / 2 ** (j - 1))


@score_variant
def smoothing_counter_is_order_index(ctx, result):
    """exp's (chen-cherry-3's) 1/2^k, and chen-cherry-4's and -7's ln(c)/(K 2^k), with k the unmatched order's own
    n (the loop's index) in place of the count of unmatched orders so far: 1/2^3 for an unmatched trigram whatever
    the lower orders matched."""
    return _geometric(ctx, result, lambda j, i, factor: factor / 2 ** (i + 1))


@score_variant
def smoothed_value_as_precision(ctx, result):
    """The smoothed value taken as the precision p_n itself where it is a matched count (divided by l_n): exp's
    (chen-cherry-3's) 1/2^k, floor's value, chen-cherry-1's epsilon (nltk PR #1300: "the smooth should only affect
    the precision count not the ngram precision itself")."""
    method = ctx.smoothing.method
    if method in ("floor", "chen-cherry-1"):
        value = float(ctx.smoothing.value if method == "floor" else ctx.smoothing.epsilon)
        return _as_precision(ctx, result, lambda j: value)
    if method in ("exp", "chen-cherry-3"):
        return _as_precision(ctx, result, lambda j: 1 / 2 ** j)
    return None


def _as_precision(ctx, result, precision_of):
    if not _smoothing_applies(ctx, result):
        return None
    matches, totals, _ = _counts(ctx, result)
    # the precision wanted, as a count over l_n
    matches = _unmatched_replaced(matches, totals, lambda j, i: precision_of(j) * totals[i])
    return _combined(ctx, result, matches, totals)


@score_variant
def epsilon_added_to_every_order(ctx, result):
    """floor's value (chen-cherry-1's epsilon) added to every order's matched count, not only to the orders with no
    matches: p_n = (m_n + value) / l_n wherever l_n > 0."""
    method = ctx.smoothing.method
    if method not in ("floor", "chen-cherry-1") or not _smoothing_applies(ctx, result):
        return None
    value = float(ctx.smoothing.value if method == "floor" else ctx.smoothing.epsilon)
    matches, totals, _ = _counts(ctx, result)
    return _combined(ctx, result, [m + value if t > 0 else m for m, t in zip(matches, totals, strict=True)], totals)


# -- a smoothing of its own ----------------------------------------------------------------------------------------


@score_variant
def add_one_every_order_epsilon_for_empty(ctx, result):
    """Its own smoothing whatever was requested: (m_n + 1) / (l_n + 1) for every order with n-grams, unigrams
    included, and an epsilon of 1e-9 for an order without n-grams (future-agi/future-agi #1345: `precision = 1e-9`
    where `total == 0`, else `(clipped + 1) / (total + 1)`). Where every order has n-grams it is add-one on every
    order whatever was requested (the reading `smoothing=lin-2004` of a request for none)."""
    matches, totals, _ = _counts(ctx, result)
    weights = _weights_in_force(ctx)
    logs = [w * (math.log(EMPTY_ORDER_EPSILON) if t == 0 else math.log((m + 1) / (t + 1)))
            for m, t, w in zip(matches, totals, weights, strict=False) if w != 0]
    return float(result.bp) * math.exp(math.fsum(logs))


# -- the smoothing per segment, not on the corpus's sums -----------------------------------------------------


def _segment_results(ctx, *, level=None, options=None, smoothing=None, several=True):
    """The oracle's result for each segment of a corpus request of several segments (of any request where not
    `several`), scored alone (at `level`, under `options` and `smoothing` where given); None where that does not
    apply or the oracle refuses a segment."""
    request = ctx.request
    if several and (request.level != "corpus" or len(request.segments) < 2):
        return None
    out = []
    for index in range(len(request.segments)):  # (each segment counted once per search: the context's counts)
        ctx.scoring_alone((index,), level=level, options=options, smoothing=smoothing)
        try:
            out.append(segment_alone_result(request, index, options or ctx.options, smoothing or ctx.smoothing,
                                            level=level, counted=ctx.counted))
        except BleuOracleError:
            return None
    return out


@score_variant
def smoothing_per_segment_summed(ctx, result):
    """The requested smoothing applied to each segment's counts inside the corpus loop (sentence-level smoothing),
    the smoothed counts then summed, in place of smoothing the corpus's sums once: add-k adds k per segment, exp
    restarts its 1/2^k in each segment."""
    if not _smoothing_applies(ctx, result):
        return None
    segments = _segment_results(ctx)
    if segments is None:
        return None
    n = len(ctx.weights)
    matches, totals = [0.0] * n, [0.0] * n
    for one in segments:
        try:
            smoothed = smooth(one.statistics, max_order=n, smoothing=ctx.smoothing)
        except BleuOracleError:
            return None
        matches = [a + float(b) for a, b in zip(matches, smoothed.matches, strict=True)]
        totals = [a + float(b) for a, b in zip(totals, smoothed.totals, strict=True)]
    return _combined(ctx, result, matches, totals)


#: sacrebleu's sentence_bleu defaults: smooth_method='exp', use_effective_order=True (orders without n-grams left out).
SENTENCE_SMOOTHING = Smoothing("exp")


@score_variant
def mean_of_exp_smoothed_sentence_bleu(ctx, result):
    """The corpus score as the mean of its segments' sentence BLEU, each with sacrebleu's sentence_bleu defaults
    whatever was requested: exp smoothing, and orders without n-grams left out (effective order)
    (NVIDIA-NeMo/Skills #1408: "sentence-level BLEU was aggregated here and used as corpus-level BLEU ...
    calculated with aggressive smoothing"). A request of one segment, at either level, is that sentence's score.
    The log-mean is divided by the kept orders' total weight, as sacrebleu's `sum(log p_n) / eff_order` divides by
    the orders it keeps: weights that do not sum to 1 are normalised (with weights summing to 1 this changes
    nothing). Every sentence is smoothed, one that matches no n-gram at all too: sacrebleu's own `compute_bleu` stops
    early with 0 there ("Early stop if there are no matches (#141)"), which this variant does not model (a mean of
    exp-smoothed sentence scores computed otherwise than by sacrebleu)."""
    options = ctx.options.with_changes(sentence_empty_order="skip", weight_normalisation="normalise")
    segments = _segment_results(ctx, level="sentence", options=options, smoothing=SENTENCE_SMOOTHING, several=False)
    if segments is None:
        return None
    return math.fsum(float(one.score) for one in segments) / len(segments)


__all__ = ["EMPTY_ORDER_EPSILON", "SENTENCE_SMOOTHING"]
