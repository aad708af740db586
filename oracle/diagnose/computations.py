"""The alternative computations the classifier tries: functions of the oracle's own intermediate
values that reproduce what a library's code does where it departs from the formulas (mean of
sentence scores, a 0-100 scale, a tiny value in place of a zero precision, an early "return 0",
...), and the oracle under changed options for the classifier's conventions.

The functions only (how each is computed): which of them the search tries, under which name and in which order,
is declared in the catalogue (`oracle.diagnose.mechanisms.computations`).

Pure: the oracle's formulas and a little float arithmetic; nothing from any library under test.
"""

from __future__ import annotations

import functools
import math
import sys
from dataclasses import dataclass, field
from fractions import Fraction

from oracle.formulas import bleu
from oracle.formulas.conventions import Smoothing
from oracle.formulas.errors import BleuOracleError
from oracle.formulas.smoothing import smooth
from oracle.formulas.tokenizers import fold_case

from .counting import all_references_empty, fold_of, matches_moved_by_spaces, with_end_tokens
from .expect import COUNTING_OPTIONS, oracle_options, oracle_result, segment_alone_result
from .oneside import one_side_folded_request
from .structure import reshaped
from .textrules import departed

# -- the oracle under options -------------------------------------------------


@dataclass(frozen=True)
class Context:
    request: object
    options: object
    smoothing: Smoothing
    weights: tuple
    #: what the oracle computed on the request (its statistics by counting options, each segment's, the results on it
    #: reshaped, folded on one side, tokenized otherwise), shared by every convention tried on it, and by every search
    #: on the same request where the caller keeps it (`context_for`'s `counted`): a function of the request alone
    counted: dict = field(default_factory=dict, compare=False, repr=False)
    #: a text request as sent (`request` is then its tokens): what a convention splitting words otherwise re-reads
    text: object = field(default=None, compare=False, repr=False)
    #: the structural mechanisms whose results this search has computed or read (`structured_computed`): what a
    #: search is charged for depends on its own computations, never on what an earlier search kept in `counted`
    searched: set = field(default_factory=set, compare=False, repr=False)
    #: what the search computing on this context is told before the oracle scores a piece of the request alone (one
    #: segment, a batch of segments, one reference of a segment): `(key, tokens)`, the piece's key (the same piece
    #: under the same options and smoothing has the same key) and its tokens, so that it charges the piece as a
    #: candidate on it (`classify._Search.piece`); None where nothing is charged (a value recomputed outside a search)
    pieces: object = field(default=None, compare=False, repr=False)

    def scoring_alone(self, indices, *, level=None, options=None, smoothing=None):
        """Before the oracle scores the segments of this context's request at `indices` alone (one segment, or a batch
        of them scored as a corpus) at `level` (else the request's), under `options` and `smoothing` (else the
        context's): the search computing on it is told, so that it charges the piece as a candidate on its tokens
        (`pieces`). A variant that scores every segment alone costs what that many candidates cost, not one candidate
        on the corpus: each scoring's exact arithmetic costs about as much whatever the segment's size."""
        if self.pieces is None:
            return
        request = self.request
        count = len(request.segments)
        indices = tuple(index % count if -count <= index < 0 else index for index in indices)
        tokens = sum(len(request.segments[index].hypothesis) + sum(len(r) for r in request.segments[index].references)
                     for index in indices)
        key = ("alone", id(request), indices, request.level if level is None else level, options or self.options,
               smoothing or self.smoothing)
        self.pieces(key, tokens)


def context_for(request, profile, overrides, text=None, counted=None):
    """The request under the profile's options, with the case's overrides and the request's case folding
    (`text`: the text request `request` was tokenized from, if it was; `counted`: what the oracle computed on this
    request for an earlier search, kept, as `Context.counted`)."""
    options = oracle_options(profile, lowercase=request.lowercase, overrides=overrides)
    smoothing = request.smoothing.to_convention()
    weights = tuple(Fraction(w) if not isinstance(w, Fraction) else w for w in request.weights)
    return Context(request, options, smoothing, weights, text=text, counted={} if counted is None else counted)


def result_under(ctx, options=None, smoothing=None, request=None):
    """The oracle's BleuResult for the request (or another one) under changed options; None if the oracle
    rejects it."""
    try:
        if request is not None:
            return oracle_result(request, options or ctx.options, smoothing or ctx.smoothing)
        return oracle_result(ctx.request, options or ctx.options, smoothing or ctx.smoothing, counted=ctx.counted)
    except BleuOracleError:
        return None


def derived_result(ctx, label, derive, options=None):
    """The oracle's BleuResult for the request `derive(ctx.request)` builds (a request the computation `label` reads:
    references cut, end tokens, one reference alone) under the context's options or `options`; None if the oracle
    rejects it. The derived request and its counts are kept in the context's counts under `label`, counted once per
    counting options (`oracle_result`'s `counted`): the request is a function of the context's request alone, and a
    search asks for it under every candidate's options. `derive` returns None where the computation does not apply
    (then None, kept too)."""
    kept = ctx.counted.setdefault(("derived", label), {})
    if "request" not in kept:
        kept["request"] = derive(ctx.request)
    request = kept["request"]
    if request is None:
        return None
    try:
        return oracle_result(request, options or ctx.options, ctx.smoothing, counted=kept)
    except BleuOracleError:
        return None


def score_of(result):
    return None if result is None else float(result.score)


def score_of_statistics(ctx, statistics):
    """The judged profile's score of `statistics` (None where there are none, or the formulas refuse them)."""
    if statistics is None:
        return None
    try:
        return float(bleu.bleu_from_statistics(statistics, weights=ctx.weights, options=ctx.options,
                                               smoothing=ctx.smoothing, level=ctx.request.level).score)
    except BleuOracleError:
        return None


# -- alternative computations (functions of the oracle's intermediate values) --


def _weighted(result, replace, bp=None):
    """BP * exp(sum w_n log p_n) with each (p, w) mapped by `replace` -> p or None (left out); `bp` in place
    of the result's own BP when given."""
    if result is None:
        return None
    if result.score.is_nan():
        return math.nan
    c = result.statistics.hyp_len
    if c == 0:
        return 0.0
    total = 0.0
    for p, w in zip(result.precisions, result.weights, strict=False):
        if w == 0 or p is None:  # an order the conventions leave out (no n-grams, skipped) stays out
            continue
        p = replace(p)
        if p is None:
            continue
        if p <= 0:
            return 0.0
        total += float(w) * math.log(p)
    return (float(result.bp) if bp is None else bp) * math.exp(total)


def _as_float(p):
    return None if p is None else float(p)


def no_brevity_penalty(ctx, result):
    """No brevity penalty at all: BP = 1 also when the hypothesis is shorter than the reference."""
    if result is None or result.score.is_nan() or result.bp == 1 or result.statistics.hyp_len == 0:
        return None
    return _weighted(result, _as_float, bp=1.0)


def brevity_penalty_when_longer(ctx, result):
    """BP = e^(1 - r/c) also when c > r (a penalty above 1: the `if c > r: BP = 1` branch left out)."""
    if result is None or result.score.is_nan():
        return None
    c, r = result.statistics.hyp_len, result.statistics.ref_len
    if not c > r:
        return None
    return _weighted(result, _as_float, bp=math.exp(1 - r / c))


def brevity_penalty_inverted(ctx, result):
    """BP = e^(1 - c/r) where c < r: the ratio inverted (a penalty above 1 for a short hypothesis)."""
    if result is None or result.score.is_nan():
        return None
    c, r = result.statistics.hyp_len, result.statistics.ref_len
    if not 0 < c < r:
        return None
    return _weighted(result, _as_float, bp=math.exp(1 - c / r))


def tiny_instead_of_zero(ctx, result):
    """NLTK's method0: a zero precision becomes sys.float_info.min, so the score is tiny, not 0 (an order
    without n-grams too: NLTK divides by max(1, count), so its precision is 0 as well)."""
    if result is None or not any(
        p == 0 for p, w in zip(result.precisions, result.weights, strict=False) if w != 0 and p is not None
    ):
        return None
    return _weighted(result, lambda p: sys.float_info.min if not p else float(p))


def zero_precision_dropped(ctx, result):
    """NLTK's `if p_i > 0` filter: an order whose (smoothed) precision is 0 is left out, weights unchanged."""
    return _weighted(result, lambda p: None if p == 0 else float(p)) if result is not None else None


def zero_precision_orders_skipped(ctx, result):
    """Orders with precision 0 left out and the weights renormalised (a literal reading of
    sacrebleu's effective_order: "stop including n-gram orders for which precision is 0")."""
    if result is None or result.score.is_nan() or result.statistics.hyp_len == 0:
        return None
    weighted = [(p, w) for p, w in zip(result.precisions, result.weights, strict=False) if w != 0]
    kept = [(p, w) for p, w in weighted if p is not None and p != 0]
    if not kept:
        return 0.0
    scale = float(sum(w for _, w in weighted)) / float(sum(w for _, w in kept))
    return float(result.bp) * math.exp(math.fsum(float(w) * scale * math.log(p) for p, w in kept))


def no_match_zero(ctx, result):
    """An early `return 0` when no n-gram matches at all, even with smoothing (sacrebleu's "#141",
    NLTK's `if p_numerators[1] == 0`, ignite's `p_numerators[1] == 0`)."""
    if result is None or result.statistics.matches[0] != 0:
        return None
    return 0.0


def any_order_unmatched_zero(ctx, result):
    """An early `return 0` when any order has no matches, even with smoothing (torchmetrics' `min(numerator) == 0`)."""
    if result is None:
        return None
    n = len(ctx.weights)
    if all(m != 0 for m in result.statistics.matches[:n]):
        return None
    return 0.0


def zero_weight_nan(ctx, result):
    """0 * log(0) evaluated in floating point: NaN when an order with weight 0 has precision 0 or 0/0."""
    if result is None:
        return None
    for p, w in zip(result.precisions, result.weights, strict=False):
        if w == 0 and (p is None or p == 0):
            return math.nan
    return None


def percent_scale(ctx, result):
    """The score on the 0-100 scale where 0-1 was asked for."""
    return None if result is None else 100.0 * float(result.score)


def printed_4_decimals(ctx, result):
    """The score as printed with four decimals (mteval-v13a.pl's "%.4f"; multi-bleu.perl's "%.2f" of 100 x BLEU)."""
    if result is None or result.score.is_nan():
        return None
    return round(float(result.score), 4)


def _mean_of_segments(ctx, level):
    """The mean of a corpus's segments' own scores, each scored alone at `level` (None where that does not apply)."""
    request = ctx.request
    if request.level != "corpus" or len(request.segments) < 2:
        return None
    scores = []
    for index in range(len(request.segments)):  # (each segment counted once per search: the context's counts)
        ctx.scoring_alone((index,), level=level)
        try:
            one = segment_alone_result(request, index, ctx.options, ctx.smoothing, level=level, counted=ctx.counted)
        except BleuOracleError:
            return None
        scores.append(float(one.score))
    return math.fsum(scores) / len(scores)


def _several_segments(ctx, result):
    """Whether `_mean_of_segments` applies to the request: a corpus of two segments or more."""
    request = ctx.request
    return request.level == "corpus" and len(request.segments) >= 2


def mean_of_sentence_scores(ctx, result):
    """The corpus score as the mean of the segments' own scores (macro average; ignite's default)."""
    return _mean_of_segments(ctx, "corpus")


def _sentence_rules_differ(ctx, result):
    """Whether `mean_of_sentence_bleu` applies: the sentence level's empty-order rule is not the corpus level's."""
    return ctx.options.empty_order_at("sentence") != ctx.options.empty_order_at("corpus") and _several_segments(
        ctx, result)


def mean_of_sentence_bleu(ctx, result):
    """The corpus score as the mean of sentence-level scores (sentence rules, e.g. effective order)."""
    if ctx.options.empty_order_at("sentence") == ctx.options.empty_order_at("corpus"):
        return None  # the same as mean-of-sentence-scores
    return _mean_of_segments(ctx, "sentence")


def max_over_single_reference_scores(ctx, result):
    """Each hypothesis scored against each of its references alone (a one-reference score of its segment), the
    highest of those its score, and the corpus score the mean of the segments' scores: multi-reference evaluation
    done one reference at a time and the best kept ("on a sentence-by-sentence basis, take the highest-scoring
    reference", neulab/xnmt#377; `max(sentence_bleu((ref,), candidate) for ref in references)`,
    Websail-NU/seqmodel's max_sentence_bleu). Each one-reference score is at the request's level (a corpus request's
    segment scored as a corpus of one). The statistics are not what it changes: only the score. None where no
    segment has two references or more (then it is `mean-of-sentence-scores`, or the formulas)."""
    request = ctx.request
    if all(len(s.references) < 2 for s in request.segments):
        return None
    scores = []
    for index, segment in enumerate(request.segments):
        best = None
        for which in range(len(segment.references)):
            if ctx.pieces is not None:  # (a one-reference request, counted and scored: a candidate on its tokens)
                ctx.pieces(("one reference", id(request), index, which, ctx.options, ctx.smoothing),
                           len(segment.hypothesis) + len(segment.references[which]))
            one = derived_result(ctx, ("one reference", index, which), functools.partial(_one_reference, index, which))
            if one is None:
                return None
            best = float(one.score) if best is None else max(best, float(one.score))
        scores.append(best)
    return math.fsum(scores) / len(scores)


def _several_references(ctx, result):
    """Whether `max_over_single_reference_scores` applies: a segment with two references or more."""
    return any(len(s.references) >= 2 for s in ctx.request.segments)


#: The computations a search may rule out by their counts before computing them (`classify._by_computation`), each
#: with the test of when it applies: the condition under which its function returns a value, tested without computing
#: it (each segment, or each reference of each segment, scored alone), so that a candidate ruled out is charged exactly
#: where it was computed. Each is a computation whose counts are the oracle's on the request it is given (its value
#: changes the score only), so that returned statistics which contradict those counts rule it out under any tolerance.
#: tests/diagnose/test_search_counts.py holds each test equal to its function's returning a value.
APPLIES = {
    "mean-of-sentence-scores": _several_segments,
    "mean-of-sentence-bleu": _sentence_rules_differ,
    "max-over-single-reference-scores": _several_references,
}


def _one_reference(index, which, request):
    """`request` holding only its segment `index`, against that segment's reference `which` alone."""
    segment = request.segments[index]
    alone = segment.model_copy(update={"references": (segment.references[which],)})
    return request.model_copy(update={"segments": (alone,)})


def coco_epsilon(ctx, result):
    """pycocoevalcap's BleuScorer: p_n = (m_n + 1e-15) / (l_n + 1e-9) and ratio = (c + 1e-15) / (r + 1e-9),
    so a zero precision is about 1e-15 / l_n instead of 0, and BP = exp(1 - 1/ratio) when ratio < 1."""
    if result is None:
        return None
    s = result.statistics
    tiny, small = 1e-15, 1e-9
    total = 0.0
    for m, t, w in zip(s.matches, s.totals, result.weights, strict=False):
        total += float(w) * math.log((float(m) + tiny) / (float(t) + small))
    ratio = (s.hyp_len + tiny) / (s.ref_len + small)
    bp = math.exp(1 - 1 / ratio) if ratio < 1 else 1.0
    return bp * math.exp(total)


def chen_cherry_5_precisions(ctx, result):
    """NLTK's method5 (and the second half of method7): averages the precisions p_{n-1}, p_n, p_{n+1}
    (with m_0 = p_1 + 1), where the documentation says matched counts, and takes the order-(N+1)
    term from the 5-gram precision of the last segment whatever N is."""
    method = ctx.smoothing.method
    if method not in ("chen-cherry-5", "chen-cherry-7") or result is None:
        return None
    s = result.statistics
    n = len(ctx.weights)
    if s.matches[0] == 0:
        return None
    p = []
    for i in range(n):
        t = max(s.totals[i], 1)  # nltk's modified_precision floors every denominator at 1
        p.append(Fraction(s.matches[i], t))
    if method == "chen-cherry-7":  # method4 first, on precisions
        hyp_len = s.hyp_len
        k = 1
        for i in range(n):
            if p[i] == 0 and hyp_len > 1:
                p[i] = (1 / (2**k * float(ctx.smoothing.k) / math.log(hyp_len))) / max(s.totals[i], 1)
                k += 1
    last = ctx.request.segments[-1]
    try:
        five = bleu.segment_statistics(last.hypothesis, last.references, max_order=5, options=ctx.options)
    except BleuOracleError:
        return None
    p5 = Fraction(five.matches[4], max(five.totals[4], 1))
    following = p + [p5]
    previous = p[0] + 1
    smoothed = []
    for i in range(n):
        value = (previous + p[i] + following[i + 1]) / 3
        smoothed.append(value)
        previous = value
    total = 0.0
    for value, w in zip(smoothed, ctx.weights, strict=False):
        if value > 0:
            total += float(w) * math.log(value)
    return float(result.bp) * math.exp(total)


def _nltk_method6(ctx, result):
    """NLTK's SmoothingFunction.method6 as its code computes it, on the oracle's counts."""
    if ctx.smoothing.method != "chen-cherry-6" or result is None:
        return None
    s = result.statistics
    n = len(ctx.weights)
    if n < 3 or s.matches[0] == 0:
        return None
    p = [Fraction(m, t) if t else Fraction(0) for m, t in zip(s.matches[:n], s.totals[:n], strict=True)]
    if p[2] == 0:
        return None  # nltk asserts here
    hypothesis = ctx.request.segments[-1].hypothesis
    alpha = ctx.smoothing.alpha
    for i in range(2, n):
        pi0 = 0 if p[i - 2] == 0 else p[i - 1] ** 2 / p[i - 2]
        last = max(len(hypothesis) - i, 0)
        p[i] = (s.matches[i] + alpha * pi0) / (last + alpha)
    total = 0.0
    for value, w in zip(p, ctx.weights, strict=False):
        if value > 0:
            total += float(w) * math.log(value)
    return float(result.bp) * math.exp(total)


def chen_cherry_6_last_hypothesis(ctx, result):
    """NLTK's method6 at corpus level: p_n = (m_n + alpha*pi0) / (l + alpha) with m_n summed over the
    corpus but l the number of n-grams of the *last* hypothesis only (so p_n can exceed 1)."""
    if ctx.request.level != "corpus" or len(ctx.request.segments) < 2:
        return None
    return _nltk_method6(ctx, result)


def chen_cherry_6_empty_order_prior(ctx, result):
    """NLTK's method6 on an order without hypothesis n-grams: (0 + alpha*pi0) / (0 + alpha) = pi0,
    the prior alone, where the oracle leaves the 0/0 order to the empty-order rule."""
    if result is None or len(ctx.request.segments) != 1:
        return None
    if all(t != 0 for t in result.statistics.totals[2:len(ctx.weights)]):
        return None
    return _nltk_method6(ctx, result)


def both_empty_smoothed(ctx, result):
    """c = r = 0 scored anyway: BP taken as 1 and the smoothed precisions of the empty counts used
    (bleuscore with smooth=True: every p_n = (0 + 1) / (0 + 1) = 1, so BLEU = 1)."""
    if result is None:
        return None
    s = result.statistics
    if s.hyp_len != 0 or s.ref_len != 0:
        return None
    smoothed = smooth(s, max_order=len(ctx.weights), smoothing=ctx.smoothing)
    total = 0.0
    for m, t, w in zip(smoothed.matches, smoothed.totals, ctx.weights, strict=False):
        if w == 0:
            continue
        if t == 0 or m == 0:
            return 0.0
        total += float(w) * math.log(float(m) / float(t))
    return math.exp(total)


def empty_hypothesis_scores_one(ctx, result):
    """A hypothesis with no tokens (c = 0, whatever r) scored 1, a perfect score, where the formula gives 0 (BP's
    limit as c -> 0; c = r = 0 is undefined): nothing in it is wrong, as a sentence scorer's early return reads it;
    an n-best selection by it then prefers an empty line (the held-out bug empty-hypothesis-scores-one)."""
    if result is None or result.statistics.hyp_len != 0:
        return None
    return 1.0


def _best_single_reference_matches(ctx, result, *, fold=False):
    """Per order, the matches of the reference whose clipped count is largest on its own, summed over
    segments (None where the request is text or the oracle rejects it)."""
    request = ctx.request
    if request.is_text or result is None:
        return None
    n = len(ctx.weights)
    options = ctx.options.with_changes(lowercase=True) if fold else ctx.options
    # (kept in the context's counts: two computations read them, on every candidate whose counting is the same)
    key = ("best single reference", n, tuple(getattr(options, name) for name in COUNTING_OPTIONS))
    if key not in ctx.counted:
        ctx.counted[key] = _best_single_reference_counted(request, n, options)
    kept = ctx.counted[key]
    return None if kept is None else list(kept)


def _best_single_reference_counted(request, n, options):
    """`_best_single_reference_matches` counted (None where the oracle rejects a segment)."""
    matches = [0] * n
    for segment in request.segments:
        best = [0] * n
        for reference in segment.references:
            try:
                one = bleu.segment_statistics(segment.hypothesis, [reference], max_order=n, options=options)
            except BleuOracleError:
                return None
            best = [max(b, m) for b, m in zip(best, one.matches, strict=False)]
        matches = [a + b for a, b in zip(matches, best, strict=False)]
    return matches


def _promptfoo_score(ctx, result, matches, *, epsilon):
    """BP * exp(sum of w_n / W log p_n) over the orders with n-grams (W: their weights' sum), p_n from
    `matches` (per order; None where they could not be counted), a zero p_n taken as 1e-7 when `epsilon`."""
    if result is None or result.score.is_nan():
        return None
    statistics = result.statistics
    if statistics.hyp_len == 0:
        return 0.0
    if matches is None:
        return None
    usable = [(m, t, float(w)) for m, t, w in zip(matches, statistics.totals, ctx.weights, strict=False) if t > 0]
    weight_sum = math.fsum(w for _, _, w in usable)
    if weight_sum == 0:
        return 0.0
    total = 0.0
    for m, t, w in usable:
        p = m / t
        if p == 0:
            if not epsilon:
                return 0.0
            p = 1e-7
        total += w / weight_sum * math.log(p)
    return float(result.bp) * math.exp(total)


def best_single_reference_clipping(ctx, result):
    """Each order's matches are clipped against the one reference that gives the most, not against each
    n-gram's maximum count over all references (promptfoo's `maxClippedCount` per reference)."""
    if result is None or all(len(s.references) < 2 for s in ctx.request.segments):
        return None
    best = _best_single_reference_matches(ctx, result)
    if best is None or best == list(result.statistics.matches[: len(best)]):
        return None  # the same counts: the clipping makes no difference here (a score it fits is another's)
    return _promptfoo_score(ctx, result, best, epsilon=False)


def best_single_reference_with_epsilon(ctx, result):
    """promptfoo's sentence BLEU: tokens lowercased, matches clipped against the single best reference,
    orders without n-grams left out (weights renormalised), and a zero precision taken as 1e-7 inside the
    logarithm. Tried only where the epsilon or the single best reference makes a difference (else a
    simpler explanation, case folded or empty orders skipped, says the same)."""
    if result is None or result.score.is_nan() or ctx.request.is_text:
        return None
    best = _best_single_reference_matches(ctx, result, fold=True)
    if best is None:
        return None
    epsilon_used = any(m == 0 and t > 0 for m, t in zip(best, result.statistics.totals, strict=False))
    folded = result_under(ctx, options=ctx.options.with_changes(lowercase=True))
    if not epsilon_used and (folded is None or list(folded.statistics.matches) == best):
        return None
    return _promptfoo_score(ctx, result, best, epsilon=True)


def epsilon_instead_of_zero(ctx, result):
    """A zero precision taken as 1e-7 inside the logarithm (orders without n-grams left out, weights
    renormalised), so a score the formulas make 0 is small and positive."""
    if result is None or not any(
        m == 0 and t > 0 for m, t in zip(result.statistics.matches, result.statistics.totals, strict=True)
    ):
        return None
    return _promptfoo_score(ctx, result, list(result.statistics.matches), epsilon=True)


def epsilon_for_every_zero_or_empty_order(ctx, result):
    """Every precision that is 0, including an order without n-grams (0/0 read as 0), taken as 1e-7 inside
    the logarithm, the weights kept as given: a hypothesis shorter than the highest order scores as if
    that order had matched nothing, not 0 and not with the order left out. With smoothing, on the smoothed
    precisions: what smoothing leaves 0 or undefined (an order without n-grams) is what the epsilon replaces."""
    if result is None or result.score.is_nan() or result.statistics.hyp_len == 0:
        return None
    pairs = [(p, w) for p, w in zip(result.precisions, ctx.weights, strict=False) if w != 0]
    if not any(p is None or p == 0 for p, _ in pairs):  # no zero precision: the formulas' own score
        return None
    total = math.fsum(float(w) * math.log(float(p) if p else 1e-7) for p, w in pairs)
    return float(result.bp) * math.exp(total)


def _log_mean_of_counts(result, weights, adjust, *, empty_is_zero=False):
    """BP * exp(sum of w_n log(m_n / t_n)) over the weighted orders, each (m, t) mapped by `adjust(n, m, t)` (n
    1-based); an order left with no n-grams is left out (0 where `empty_is_zero`: the profile's empty-order
    rule), a zero precision gives 0."""
    statistics = result.statistics
    total = 0.0
    for n, (m, t, w) in enumerate(zip(statistics.matches, statistics.totals, weights, strict=False), start=1):
        if w == 0:
            continue
        m, t = adjust(n, m, t)
        if t == 0:
            if empty_is_zero:
                return 0.0
            continue
        if m == 0:
            return 0.0
        total += float(w) * math.log(m / t)
    return float(result.bp) * math.exp(total)


def _empty_is_zero(ctx):
    """Whether the judged conventions score an order without n-grams 0 (left unsmoothed by a computation)."""
    return ctx.options.empty_order_at(ctx.request.level, ctx.smoothing) == "zero"


def add_k_from_trigrams(ctx, result):
    """add-k smoothing applied from order 3 on, not from order 2 (an off-by-one on the order index: sacrebleu
    PR #55), so a bigram precision stays unsmoothed."""
    if result is None or result.score.is_nan() or ctx.smoothing.method != "add-k" or len(ctx.weights) < 2:
        return None
    k = float(ctx.smoothing.k)
    return _log_mean_of_counts(result, ctx.weights, lambda n, m, t: (m + k, t + k) if n >= 3 else (m, t),
                               empty_is_zero=_empty_is_zero(ctx))


def add_k_on_every_order(ctx, result):
    """add-k smoothing applied to every order, unigrams included (k added to m_1 and l_1 too: tensorflow/nmt's
    compute_bleu smooths unigrams, huggingface/datasets PR #4599), not from order 2 on as Chen and Cherry's
    method 2 and sacrebleu do."""
    if result is None or result.score.is_nan() or ctx.smoothing.method != "add-k":
        return None
    k = float(ctx.smoothing.k)
    return _log_mean_of_counts(result, ctx.weights, lambda n, m, t: (m + k, t + k))


def add_k_truncated_to_an_integer(ctx, result):
    """add-k smoothing with k truncated to an integer (k = 0.5 adds nothing, 1.5 adds 1): a fractional parameter
    parsed as an int."""
    if result is None or result.score.is_nan() or ctx.smoothing.method != "add-k":
        return None
    k = int(ctx.smoothing.k)
    if k == ctx.smoothing.k:
        return None
    return _log_mean_of_counts(result, ctx.weights, lambda n, m, t: (m + k, t + k) if n >= 2 else (m, t),
                               empty_is_zero=_empty_is_zero(ctx))


def orders_beyond_4_left_out(ctx, result):
    """Only orders 1 to 4 are combined, whatever the weights say of higher orders (no renormalisation): an
    implementation that keeps four n-gram counters (fairseq's BleuStat: match1..match4)."""
    if result is None or result.score.is_nan() or not any(w != 0 for w in ctx.weights[4:]):
        return None
    kept = [(p, w) for p, w in zip(result.precisions[:4], ctx.weights[:4], strict=False) if w != 0 and p is not None]
    if any(p == 0 for p, _ in kept):
        return 0.0
    return float(result.bp) * math.exp(math.fsum(float(w) * math.log(float(p)) for p, w in kept))


def case_folded_unasked(ctx, result):
    """Case folded though the request keeps it (an implementation that always lowercases)."""
    if ctx.request.lowercase or ctx.request.is_text:
        return None
    return score_of(result_under(ctx, options=ctx.options.with_changes(lowercase=True)))


def case_not_folded(ctx, result):
    """The request's lowercase flag ignored: case kept where the request folds it."""
    if not ctx.request.lowercase or ctx.request.is_text:
        return None
    return score_of(result_under(ctx, options=ctx.options.with_changes(lowercase=False)))


#: Object.prototype's property names: a plain JavaScript object used as a map has them all.
OBJECT_PROTOTYPE_KEYS = frozenset(("constructor", "toString", "toLocaleString", "valueOf", "hasOwnProperty",
                                   "isPrototypeOf", "propertyIsEnumerable", "__defineGetter__", "__defineSetter__",
                                   "__lookupGetter__", "__lookupSetter__"))


def object_prototype_key_nan(ctx, result):
    """NaN from a JavaScript object used as an n-gram map: a hypothesis token named like one of
    Object.prototype's properties (`constructor`, `toString`, ...) reads a function, not a count."""
    request = ctx.request
    if request.is_text or not any(t in OBJECT_PROTOTYPE_KEYS for s in request.segments for t in s.hypothesis):
        return None
    return math.nan


def empty_text_one_token(ctx, result):
    """An empty hypothesis or reference scored as one empty token: the library takes a string and
    splits it on " " ("".split(" ") is [""]). Sentence level: such libraries score one sentence."""
    request = ctx.request
    if (
        request.is_text
        or request.level != "sentence"
        or not any(not s.hypothesis or not all(s.references) for s in request.segments)
    ):
        return None

    def one(tokens):
        return tokens or ("",)

    segments = tuple(s.model_copy(update={"hypothesis": one(s.hypothesis), "references": tuple(map(one, s.references))})
                     for s in request.segments)
    return score_of(result_under(ctx, request=request.model_copy(update={"segments": segments})))


def end_token_request(request):
    """`request` with every empty hypothesis and reference made one end-of-sentence token (`with_end_tokens`)."""
    segments = with_end_tokens(request.segments)
    return request if segments is None else request.model_copy(update={"segments": segments})


def empty_sentence_end_token(ctx, result):
    """An empty hypothesis or reference counted as one token, its end-of-sentence symbol: the library
    appends eos to each sentence and trims trailing eos, but never the first position (fairseq's
    bleu_rtrim stops at index 1), so an eos-only sentence keeps it, and two of them match."""
    request = ctx.request
    if request.is_text or with_end_tokens(request.segments) is None:
        return None
    return score_of(derived_result(ctx, "end tokens", end_token_request))


def hypothesis_folded_before_entities(ctx, result):
    """Case folded on each hypothesis's raw text before its 13a tokenization, and on each reference only after
    it (multi-bleu-detok.perl -lc): 13a unescapes "&amp;" and strips "<skipped>" case-sensitively, so "&AMP;"
    is one token "&" in a hypothesis and three, "& amp ;", in a reference."""
    text = ctx.text
    if text is None or not text.lowercase or text.tokenize != "13a" or not any(
            "&" in s.hypothesis or "<" in s.hypothesis for s in text.segments):
        return None
    folded = tuple(s.model_copy(update={"hypothesis": fold_case(s.hypothesis, "ascii")}) for s in text.segments)
    request = text.model_copy(update={"segments": folded}).tokenized(ctx.options.token_split,
                                                                   ctx.options.line_padding)
    return score_of(result_under(ctx, request=request))


def ratio_zero_when_r_zero(ctx, result):
    """The length ratio c/r taken as 0 when r = 0 < c (a division "no NaN": x/0 -> 0), so BP = exp(1 - 1/0)
    = 0 and the score 0, where c > r gives BP 1."""
    if result is None or result.statistics.ref_len != 0 or result.statistics.hyp_len == 0:
        return None
    return 0.0



def references_cut_to_fewest(ctx, result):
    """Every segment keeps only as many references as the segment with fewest has: the references are
    transposed into streams with `zip`, which stops at the shortest (lm-evaluation-harness' `_sacreformat`)."""
    request = ctx.request
    counts = [len(s.references) for s in request.segments]
    if not counts or min(counts) == max(counts) or min(counts) == 0:
        return None
    return score_of(derived_result(ctx, "references cut to fewest", _references_cut_to_fewest))


def _references_cut_to_fewest(request):
    fewest = min(len(s.references) for s in request.segments)
    segments = tuple(s.model_copy(update={"references": s.references[:fewest]}) for s in request.segments)
    return request.model_copy(update={"segments": segments})


def matches_moved_by_spaces_score(ctx, result):
    """N-grams of every order are counted in one map keyed by their tokens joined with a space, and each match is
    added to the order read back from its key (split on spaces again), the totals counted from the lengths: a token
    holding a space moves its match to a higher order (torchtext's `_compute_ngram_counter`, pytorch/text#2095).
    Tried only where a token holds a space and the matches then differ."""
    if result is None or ctx.request.is_text:
        return None
    n = len(ctx.weights)
    matches = matches_moved_by_spaces(ctx.request.segments, n, fold=fold_of(ctx.options))
    s = result.statistics
    if matches is None or matches == tuple(s.matches[:n]):
        return None
    try:
        moved = bleu.Statistics(s.hyp_len, s.ref_len, matches, tuple(s.totals[:n]), s.segments)
    except BleuOracleError:  # a match moved to an order without n-grams (more matches than totals): no score
        return None
    return score_of_statistics(ctx, moved)


#: What ragas' BleuScore splits its strings on (`str.split(". ")`).
SENTENCE_BREAK = ". "


def first_piece_only(ctx, result):
    """One sentence's tokens joined by spaces and split on ". ": only the hypothesis' first piece is scored,
    against every piece of the reference as an alternative reference (ragas' BleuScore, ragas #2888: the
    pieces go to sacrebleu as reference streams of one segment each, and `zip` stops after the first)."""
    request = ctx.request
    if request.is_text or len(request.segments) != 1 or len(request.segments[0].references) != 1:
        return None
    segment = request.segments[0]
    hypothesis, reference = " ".join(segment.hypothesis), " ".join(segment.references[0])
    if SENTENCE_BREAK not in hypothesis and SENTENCE_BREAK not in reference:
        return None
    pieces = tuple(tuple(piece.split()) for piece in reference.split(SENTENCE_BREAK))
    first = tuple(hypothesis.split(SENTENCE_BREAK)[0].split())
    cut = segment.model_copy(update={"hypothesis": first, "references": pieces})
    return score_of(result_under(ctx, request=request.model_copy(update={"segments": (cut,)})))


def empty_reference_batch_statistics(ctx, result):
    """The counts tfma's combiner keeps: an `add_input` batch whose references are all empty goes to
    `_extract_statistics_for_empty_reference`, which counts the hypotheses' lengths and none of their n-grams
    (each batch of a stateful plan; the whole corpus without one). None when no batch is such, or nothing is lost."""
    request = ctx.request
    if result is None or request.is_text:
        return None
    plan = request.stateful
    batches = ([batch for shard in plan.shard_segments(request.segments) for batch in shard] if plan is not None
               else [request.segments])
    n = len(ctx.weights)
    lost = [0] * n
    for segment in (s for batch in batches if all_references_empty(batch) for s in batch):
        one = bleu.segment_statistics(segment.hypothesis, segment.references, max_order=n, options=ctx.options)
        lost = [a + b for a, b in zip(lost, one.totals, strict=True)]
    if not any(lost):
        return None
    whole = result.statistics
    return bleu.Statistics(whole.hyp_len, whole.ref_len, tuple(whole.matches[:n]),
                           tuple(t - d for t, d in zip(whole.totals[:n], lost, strict=True)), whole.segments)


def empty_reference_batch_uncounted(ctx, result):
    """tfma's combiner: an `add_input` batch whose references are all empty counts the hypotheses' lengths
    and none of their n-grams (each batch of a stateful plan; the whole corpus without one)."""
    return score_of_statistics(ctx, empty_reference_batch_statistics(ctx, result))


def one_side_result(ctx, name, side):
    """The oracle's result on the request with case folded on `side` only (mechanism `name`,
    `mechanisms.structure.ONE_SIDE_FOLDS`), kept in the context's counts for the explanation's statistics; None where
    folding that side alone does not apply."""
    key = ("one-side", name, ctx.options, ctx.smoothing)
    if key not in ctx.counted:
        request = one_side_folded_request(ctx.request, ctx.text, ctx.options, side)
        ctx.counted[key] = None if request is None else result_under(
            ctx, options=ctx.options.with_changes(lowercase=False), request=request)
    return ctx.counted[key]


def one_side_fold_computation(name, words, side):
    """One-sided case folding `name` (`mechanisms.structure.ONE_SIDE_FOLDS`: its `words`, the `side` it folds) as a
    computation: the oracle's score on the request with that side folded."""
    def computation(ctx, result):
        return score_of(one_side_result(ctx, name, side))

    computation.__doc__ = words
    computation.__name__ = computation.__qualname__ = f"one side {name}"
    return computation


def departed_result(ctx, departure):
    """The oracle's result on the text request's tokens under tokenizer `departure` (`textrules.Departure`), kept in
    the context's counts for the explanation's statistics; None where the departure does not apply."""
    if ctx.text is None:
        return None
    key = ("departure", departure.name, ctx.options, ctx.smoothing)
    if key not in ctx.counted:
        request = departed(ctx.text, ctx.options, departure, ctx.request)
        ctx.counted[key] = None if request is None else result_under(ctx, request=request)
    return ctx.counted[key]


def departed_context(ctx, departure):
    """The context of the tokens tokenizer `departure` gives the text request (a computation then reads them as it
    reads the oracle's), with the oracle's result on them; None where the departure does not apply."""
    result = departed_result(ctx, departure)
    if result is None:
        return None
    request = departed(ctx.text, ctx.options, departure, ctx.request)
    return Context(request, ctx.options, ctx.smoothing, ctx.weights, pieces=ctx.pieces), result


def structured_result(ctx, structure):
    """The oracle's result on the request as a `structure.Structure` reshapes it, kept in the context's counts for the
    explanation's statistics; None where the mechanism does not apply, or where its counts and score are the oracle's
    own (a mechanism equal to the oracle on this request is not tried on it)."""
    key = ("structure", structure.name, ctx.options, ctx.smoothing)
    ctx.searched.add(key)
    if key not in ctx.counted:
        request = structured_request(ctx, structure)
        result = None if request is None else _reshaped_result(ctx, structure, request)
        base = _unreshaped(ctx) if result is not None else None
        if result is not None and base is not None and _same_counts_and_score(result, base, len(ctx.weights)):
            result = None
        ctx.counted[key] = result
    return ctx.counted[key]


def structured_counts(ctx, structure):
    """What the oracle counts on the request as a `structure.Structure` reshapes it under the context's options (a
    dict for `oracle_result`'s `counted`), kept with the request's counts: each reshaped segment's counts are then
    counted once for its result and for a variant scoring it alone (the pair tier,
    `classify._by_structure_with_stage`)."""
    return ctx.counted.setdefault(("shaped counts", structure.name, ctx.options), {})


def _reshaped_result(ctx, structure, request):
    """The oracle's BleuResult on `request` (the reshaped one) under the context's options and smoothing, its counts
    kept (`structured_counts`); None where the oracle rejects it."""
    try:
        return oracle_result(request, ctx.options, ctx.smoothing, counted=structured_counts(ctx, structure))
    except BleuOracleError:
        return None


def structured_ruled_out(ctx, structure, reported, n):
    """Whether the oracle's result under a `structure.Structure` is known, without counting an n-gram, to be one a
    search charges (`structured_result` gives a result: its counts are not the oracle's own) and one whose statistics
    are not `reported` (a protocol `Statistics`: the implementation's, compared over orders 1..`n`), so that it
    explains nothing: its c, r or totals, which the reshaped request's lengths give (`structured_lengths`), differ from
    both. A mechanism ruled out is read as computed (`structured_computed`), as the search that computed it would
    have read it; False where that is not known, or where it is computed already."""
    key = ("structure", structure.name, ctx.options, ctx.smoothing)
    if key in ctx.counted:
        return False
    lengths = structured_lengths(ctx, structure, n)
    base = _unreshaped(ctx) if lengths is not None else None
    if base is None:
        return False
    ours = base.statistics
    returned = (reported.hyp_len, reported.ref_len, tuple(reported.totals[:n]))
    if lengths in ((ours.hyp_len, ours.ref_len, tuple(ours.totals[:n])), returned):
        return False
    ctx.searched.add(key)
    return True


def structured_lengths(ctx, structure, n):
    """(c, r, the totals of orders 1..`n`) the oracle counts on the request as a `structure.Structure` reshapes it,
    from its lengths alone (a segment's c its hypothesis's tokens, r by the options' reference-length rule, its
    totals c - k + 1 or the options' floor; section 2.1.1 and 2.2.2, as `bleu.segment_statistics` counts them); None
    where the mechanism does not apply, or where a segment holds no reference (which the oracle refuses)."""
    request = structured_request(ctx, structure)
    if request is None:
        return None
    rule, floor = ctx.options.reference_length, ctx.options.segment_totals_floor
    c = r = 0
    totals = [0] * n
    for segment in request.segments:
        if not segment.references:
            return None
        length = len(segment.hypothesis)
        c += length
        r += bleu.effective_reference_length(length, [len(reference) for reference in segment.references], rule)
        for k in range(n):
            totals[k] += max(length - k, 0, floor)
    return c, r, tuple(totals)


def structured_request(ctx, structure):
    """The request as a `structure.Structure` reshapes it (`structure.reshaped`), before the oracle computes on it
    (what a search charges for it: `structured_size`); None where the mechanism does not apply."""
    key = ("reshaped", structure.name, ctx.options)
    if key not in ctx.counted:
        # classify's context holds a text request's tokens (and the text); `explained_value`'s the text itself
        text = ctx.text if ctx.text is not None or not ctx.request.is_text else ctx.request
        ctx.counted[key] = reshaped(ctx.request.tokenized_as(ctx.options), text, ctx.options, structure.reshape)
    return ctx.counted[key]


def structured_computed(ctx, structure):
    """Whether the oracle's result under a `structure.Structure` is computed already in this search
    (`structured_result`; a result an earlier search on the request kept is charged as if computed anew)."""
    return ("structure", structure.name, ctx.options, ctx.smoothing) in ctx.searched


def structured_length_bounds(ctx, structure):
    """(c, the sum of each segment's shortest reference length, the sum of its longest) of the request as a
    `structure.Structure` reshapes it, from the reshaped tokens alone (no request built, nothing counted: the cheap
    filter a counts-first structure passes before the oracle computes on it); None where it does not apply. Kept in
    the context's counts, as the reshaped request is."""
    key = ("reshaped lengths", structure.name, ctx.options)
    if key not in ctx.counted:
        built = ctx.counted.get(("reshaped", structure.name, ctx.options))
        if built is not None:  # the reshaped request built already (`structured_request`): its lengths, not a pass more
            pairs = [(segment.hypothesis, segment.references) for segment in built.segments]
        else:  # (not built, or built as None: not applicable, or the request's own segments, whose lengths count)
            text = ctx.text if ctx.text is not None or not ctx.request.is_text else ctx.request
            pairs = structure.reshape(ctx.request.tokenized_as(ctx.options).segments, text, ctx.options)
        ctx.counted[key] = None if not pairs else (
            sum(len(hypothesis) for hypothesis, _ in pairs),
            sum(min((len(r) for r in references), default=0) for _, references in pairs),
            sum(max((len(r) for r in references), default=0) for _, references in pairs))
    return ctx.counted[key]


def structured_kept(ctx, structure):
    """Whether the oracle's result under a `structure.Structure` is kept on the request by this search or an earlier
    one on it (`Context.counted`): what reading it, never computing it, may use."""
    return ("structure", structure.name, ctx.options, ctx.smoothing) in ctx.counted


def structured_size(request):
    """What computing the oracle on a reshaped request costs, in tokens: its tokens, and each reference once more
    (the oracle builds a table of n-grams per reference: a corpus reshaped into hundreds of one-character references
    a segment costs as many tables as characters, some ten times what its tokens alone would say)."""
    return max(1, request.token_count + request.reference_count)


def _unreshaped(ctx):
    """The oracle's result on the request as sent, under the context's options: computed once for every mechanism."""
    key = ("unreshaped", ctx.options, ctx.smoothing)
    if key not in ctx.counted:
        ctx.counted[key] = result_under(ctx)
    return ctx.counted[key]


def _same_counts_and_score(result, base, n):
    ours, theirs = result.statistics, base.statistics
    return ((ours.hyp_len, ours.ref_len, tuple(ours.matches[:n]), tuple(ours.totals[:n]))
            == (theirs.hyp_len, theirs.ref_len, tuple(theirs.matches[:n]), tuple(theirs.totals[:n]))
            and (result.score == base.score or (result.score.is_nan() and base.score.is_nan())))


def structure_computation(structure):
    """A `structure.Structure` (`mechanisms.structure.STRUCTURES`) as a computation: the oracle's score on the
    reshaped request, described by its reshaping function's docstring."""
    def computation(ctx, result):
        return score_of(structured_result(ctx, structure))

    computation.__doc__ = structure.reshape.__doc__
    computation.__name__ = computation.__qualname__ = f"structure {structure.name}"
    return computation


def length_departure_computation(name, statistics_of_state):
    """A metric state's departure `name` as a computation: the score of the statistics `statistics_of_state`
    (`accumulation`) implies."""

    def computation(ctx, result):
        return score_of_statistics(ctx, statistics_of_state(ctx, result))

    computation.__doc__ = statistics_of_state.__doc__
    computation.__name__ = computation.__qualname__ = f"state {name}"
    return computation


def departure_computation(departure):
    """Tokenizer `departure` (`textrules.Departure`) as a computation: the oracle's score on the departed tokens."""
    def computation(ctx, result):
        return score_of(departed_result(ctx, departure))

    computation.__doc__ = departure.description
    computation.__name__ = computation.__qualname__ = f"departure {departure.name}"
    return computation
