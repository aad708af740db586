"""Name the root cause of a disagreement between an implementation and the oracle.

Given a (minimal) failing request, the implementation's answer and the judged
profile, `classify` recomputes the oracle under each alternative convention
(an `Options` field changed: reference length rule, per-segment totals floor,
empty-order rule, weight rule, both-empty rule, another reading of the
smoothing method) and under alternative computations that are not conventions
(mean of sentence scores, float32 arithmetic, a 0-100 scale, a tiny value in
place of a zero precision, an early "return 0", ...), then pairs of them, and
returns the first whose value matches the answer within the numeric contract
|a - e| <= 1e-12 + 1e-9 |e| (NaN matches only NaN).

    >>> from oracle.models.protocol import ScoreRequest, Segment
    >>> request = ScoreRequest(level="sentence", segments=[Segment(hypothesis=["a", "b"], references=[["b", "a"]])],
    ...                        weights=[0.5, 0.01])
    >>> classify(request, 0.0008384428090212442, "nltk").name  # nltk: sys.float_info.min ** 0.01
    'tiny-instead-of-zero'

Pure: uses the oracle's formulas (`oracle.formulas.bleu`) and a little float arithmetic
on the oracle's own intermediate values; nothing here is imported from any
library under test.
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass, replace
from fractions import Fraction
from itertools import combinations

from oracle.formulas import bleu
from oracle.formulas.conventions import (
    BOTH_EMPTY_RULES,
    EMPTY_ORDER_RULES,
    REFERENCE_LENGTH_RULES,
    Smoothing,
)
from oracle.formulas.errors import BleuOracleError, BleuValueError
from oracle.formulas.profiles import get_profile
from oracle.formulas.smoothing import smooth
from oracle.models.jsonvalues import json_safe

from .expect import oracle_options, oracle_result
from .judge import DEFAULT_REL, Contract

#: float32 somewhere in the arithmetic (torch's default dtype: weights, precisions or the score)
#: agrees to about this relative error on short inputs; every explanation is retried at this
#: tolerance after none matched exactly, and named "<explanation> + float32".
FLOAT32_REL_TOLERANCE = 1e-5
FLOAT32 = "float32"

AGREES = "agrees"
UNEXPLAINED = "unexplained"
SMOOTHED_COUNTS = "statistics-report-smoothed-counts"


@dataclass(frozen=True)
class Explanation:
    """A named root cause: what changed (option changes and/or a computation) and the value it gives."""

    name: str
    description: str
    #: ((option, value), ...) and/or (("computation", name),), in the order they were applied
    change: tuple = ()
    #: the recomputed value that matched the answer (None when unexplained)
    value: float | None = None
    #: the oracle's own value under the judged profile
    expected: float | None = None

    @property
    def explained(self):
        return self.name != UNEXPLAINED

    def to_json(self):
        return {
            "name": self.name,
            "description": self.description,
            "change": [list(c) for c in self.change],
            "value": json_safe(self.value),
            "expected": json_safe(self.expected),
        }


def within_contract(actual, expected, *, rel_tol=DEFAULT_REL):
    """The numeric contract (`oracle.models.outcomes.Contract`) at relative tolerance `rel_tol`."""
    return Contract(rel=rel_tol).close(actual, expected)


# -- the oracle under options -------------------------------------------------


@dataclass(frozen=True)
class _Context:
    request: object
    options: object
    smoothing: Smoothing
    weights: tuple


def _context(request, profile, overrides):
    """The request under the profile's options, with the case's overrides and the request's case folding."""
    options = oracle_options(profile, lowercase=request.lowercase, overrides=overrides)
    smoothing = request.smoothing.to_convention()
    weights = tuple(Fraction(w) if not isinstance(w, Fraction) else w for w in request.weights)
    return _Context(request, options, smoothing, weights)


def _result(ctx, options=None, smoothing=None, request=None):
    """The oracle's BleuResult for the request (or another one) under changed options; None if the oracle
    rejects it."""
    try:
        return oracle_result(request or ctx.request, options or ctx.options, smoothing or ctx.smoothing)
    except BleuOracleError:
        return None


def _score(result):
    return None if result is None else float(result.score)


# -- alternative computations (functions of the oracle's intermediate values) --


def _weighted(result, replace):
    """BP * exp(sum w_n log p_n) with each (p, w) mapped by `replace` -> p or None (left out)."""
    if result is None:
        return None
    if result.score.is_nan():
        return math.nan
    c = result.statistics.hyp_len
    if c == 0:
        return 0.0
    total = 0.0
    for p, w in zip(result.precisions, result.weights):
        if w == 0:
            continue
        p = replace(p)
        if p is None:
            continue
        if p <= 0:
            return 0.0
        total += float(w) * math.log(p)
    return float(result.bp) * math.exp(total)


def tiny_instead_of_zero(ctx, result):
    """NLTK's method0: a zero precision becomes sys.float_info.min, so the score is tiny, not 0."""
    if result is None or not any(p == 0 for p, w in zip(result.precisions, result.weights) if w != 0 and p is not None):
        return None
    return _weighted(result, lambda p: sys.float_info.min if p == 0 else float(p))


def zero_precision_dropped(ctx, result):
    """NLTK's `if p_i > 0` filter: an order whose (smoothed) precision is 0 is left out, weights unchanged."""
    return _weighted(result, lambda p: None if p == 0 else float(p)) if result is not None else None


def zero_precision_orders_skipped(ctx, result):
    """Orders with precision 0 left out and the weights renormalised (a literal reading of
    sacrebleu's effective_order: "stop including n-gram orders for which precision is 0")."""
    if result is None or result.score.is_nan() or result.statistics.hyp_len == 0:
        return None
    weighted = [(p, w) for p, w in zip(result.precisions, result.weights) if w != 0]
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
    for p, w in zip(result.precisions, result.weights):
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
    for segment in request.segments:
        one = _result(ctx, request=request.model_copy(update={"segments": (segment,), "level": level}))
        if one is None:
            return None
        scores.append(float(one.score))
    return math.fsum(scores) / len(scores)


def mean_of_sentence_scores(ctx, result):
    """The corpus score as the mean of the segments' own scores (macro average; ignite's default)."""
    return _mean_of_segments(ctx, "corpus")


def mean_of_sentence_bleu(ctx, result):
    """The corpus score as the mean of sentence-level scores (sentence rules, e.g. effective order)."""
    if ctx.options.empty_order_at("sentence") == ctx.options.empty_order_at("corpus"):
        return None  # the same as mean-of-sentence-scores
    return _mean_of_segments(ctx, "sentence")


def coco_epsilon(ctx, result):
    """pycocoevalcap's BleuScorer: p_n = (m_n + 1e-15) / (l_n + 1e-9) and ratio = (c + 1e-15) / (r + 1e-9),
    so a zero precision is about 1e-15 / l_n instead of 0, and BP = exp(1 - 1/ratio) when ratio < 1."""
    if result is None:
        return None
    s = result.statistics
    tiny, small = 1e-15, 1e-9
    total = 0.0
    for m, t, w in zip(s.matches, s.totals, result.weights):
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
    for value, w in zip(smoothed, ctx.weights):
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
    p = [Fraction(m, t) if t else Fraction(0) for m, t in zip(s.matches[:n], s.totals[:n])]
    if p[2] == 0:
        return None  # nltk asserts here
    hypothesis = ctx.request.segments[-1].hypothesis
    alpha = ctx.smoothing.alpha
    for i in range(2, n):
        pi0 = 0 if p[i - 2] == 0 else p[i - 1] ** 2 / p[i - 2]
        last = max(len(hypothesis) - i, 0)
        p[i] = (s.matches[i] + alpha * pi0) / (last + alpha)
    total = 0.0
    for value, w in zip(p, ctx.weights):
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
    for m, t, w in zip(smoothed.matches, smoothed.totals, ctx.weights):
        if w == 0:
            continue
        if t == 0 or m == 0:
            return 0.0
        total += float(w) * math.log(float(m) / float(t))
    return math.exp(total)


#: Computations gated by a condition specific to one library's code (tried before the conventions).
SPECIFIC_COMPUTATIONS = (
    ("tiny-instead-of-zero", tiny_instead_of_zero),
    ("no-match-zero", no_match_zero),
    ("any-order-unmatched-zero", any_order_unmatched_zero),
    ("chen-cherry-5-precisions", chen_cherry_5_precisions),
    ("chen-cherry-6-last-hypothesis", chen_cherry_6_last_hypothesis),
    ("chen-cherry-6-empty-order-prior", chen_cherry_6_empty_order_prior),
    ("coco-epsilon", coco_epsilon),
    ("zero-weight-nan", zero_weight_nan),
    ("both-empty-smoothed", both_empty_smoothed),
)
#: Computations that apply to many inputs (tried after the single conventions).
GENERIC_COMPUTATIONS = (
    ("zero-precision-dropped", zero_precision_dropped),
    ("zero-precision-orders-skipped", zero_precision_orders_skipped),
    ("mean-of-sentence-scores", mean_of_sentence_scores),
    ("mean-of-sentence-bleu", mean_of_sentence_bleu),
    ("percent-scale", percent_scale),
    ("printed-4-decimals", printed_4_decimals),
)
COMPUTATIONS = SPECIFIC_COMPUTATIONS + GENERIC_COMPUTATIONS
_COMPUTATION_DOCS = {name: " ".join(function.__doc__.split()) for name, function in COMPUTATIONS}
_COMPUTATION_DOCS[FLOAT32] = ("float32 arithmetic somewhere (weights, precisions or score in torch's default dtype, "
                              "or weights stored as C floats): agrees to float32 precision")


# -- alternative conventions --------------------------------------------------


def _convention_changes(options, smoothing, level, profile_options):
    """(name, description, option changes, smoothing) for every single alternative convention."""
    out = []
    for rule in REFERENCE_LENGTH_RULES:
        if rule != options.reference_length:
            out.append((f"reference_length={rule}", f"r is {REFERENCE_LENGTH_RULES[rule]}",
                        {"reference_length": rule}, None))
    floor = 1 if options.segment_totals_floor == 0 else 0
    out.append((f"segment_totals_floor={floor}",
                "each segment's n-gram total is at least 1 before summing (nltk's modified_precision "
                "denominator max(1, ...))" if floor else "no per-segment floor on n-gram totals",
                {"segment_totals_floor": floor}, None))
    current = options.empty_order_at(level)
    for rule in EMPTY_ORDER_RULES:
        if rule != current:
            out.append((f"empty_order={rule}", f"an order with no hypothesis n-grams: {EMPTY_ORDER_RULES[rule]}",
                        {"empty_order": rule, "sentence_empty_order": None}, None))
    weight_rule = "normalise" if options.weight_normalisation == "as-given" else "as-given"
    out.append((f"weights={weight_rule}", "the weights are divided by their sum" if weight_rule == "normalise"
                else "the weights are used as given", {"weight_normalisation": weight_rule, "uniform_weights_only": False}, None))
    for rule in BOTH_EMPTY_RULES:
        if rule != options.both_empty:
            out.append((f"both_empty={rule}", f"no hypothesis and no reference tokens: {BOTH_EMPTY_RULES[rule]}",
                        {"both_empty": rule}, None))
    for alternative, description in _smoothing_readings(smoothing, profile_options):
        out.append((f"smoothing={alternative.describe()}", description, {}, alternative))
    return out


def _weak(convention):
    """Readings that say "the implementation ignored the request" come after the specific computations."""
    name = convention[0]
    return name.startswith("smoothing=") and convention[1].startswith(("the requested smoothing", "the profile's default"))


def _smoothing_readings(smoothing, profile_options):
    """Other readings of the requested smoothing method's documentation."""
    method = smoothing.method
    readings = []
    if method == "chen-cherry-2" or (method == "add-k" and smoothing.k == 1):
        readings.append((Smoothing("lin-2004"), "add 1 to matches and totals of every order, unigrams included "
                         "(NLTK's page: 'Add 1 to both numerator and denominator')"))
    if method == "lin-2004":
        readings.append((Smoothing("chen-cherry-2"), "add 1 to matches and totals of orders n > 1 only"))
    if method == "chen-cherry-7":
        readings.append((Smoothing("chen-cherry-4", k=smoothing.k), "method 4 only"))
        readings.append((Smoothing("chen-cherry-5"), "method 5 only"))
    if method == "floor":
        readings.append((Smoothing("floor", value=Fraction(1, 10)), "the documented default value 0.1, not the given one"))
    if method == "chen-cherry-1" and smoothing.epsilon != Fraction(1, 10):
        readings.append((Smoothing("chen-cherry-1"), "the documented default epsilon 0.1, not the given one"))
    if method != "none":
        readings.append((Smoothing("none"), "the requested smoothing is not applied"))
    default = profile_options.smoothing
    if default.method != method and default.method != "none":
        readings.append((default, f"the profile's default smoothing {default.describe()} instead of the requested one"))
    return [(s, d) for s, d in readings if s != smoothing]


# -- classification --------------------------------------------------------------


def _answer_parts(answer):
    if isinstance(answer, (int, float)):
        return float(answer), None
    score = getattr(answer, "score", None)
    statistics = getattr(answer, "statistics", None)
    if score is None and isinstance(answer, dict):
        score, statistics = answer.get("score"), answer.get("statistics")
    if isinstance(score, str) and score.lower() == "nan":
        score = math.nan
    return (None if score is None else float(score)), statistics


def _statistics_differ(statistics, result, n):
    """Which layer of the reported statistics differs from the oracle's (None if none does)."""
    if not statistics or result is None:
        return None
    s = result.statistics
    for name, want in (("hyp_len", s.hyp_len), ("ref_len", s.ref_len)):
        if name in statistics and statistics[name] is not None and float(statistics[name]) != want:
            return name
    for name, want in (("matches", s.matches[:n]), ("totals", s.totals[:n])):
        got = statistics.get(name)
        if got is not None and [float(x) for x in got][:n] != [float(x) for x in want]:
            return name
    return None


def classify(request, answer, profile, *, overrides=None, among=None):
    """The first explanation of `answer` (a ScoreAnswer, a mapping or a number) for `request` under `profile`.

    Returns Explanation("agrees") if the oracle itself matches, Explanation("unexplained") if no
    alternative does. `overrides` are convention overrides the case already applies. `among`, if
    given, restricts the search to explanations whose every part (see `component_names`) is one of
    these names -- e.g. the documented discrepancy classes of one implementation -- so that an
    answer several alternatives explain is attributed to the one known to occur.

    Order: computations gated by a library-specific condition; one convention; generic
    computations; readings that ignore the requested smoothing; a convention with a computation;
    two conventions; two conventions with a computation. All of that first within the numeric
    contract, then again within float32 precision ("... + float32").

    When the score agrees but reported statistics do not, the explanation is the first
    convention (or pair) under which the oracle's statistics are the reported ones.
    """
    profile = get_profile(profile)
    actual, statistics = _answer_parts(answer)
    ctx = _context(request, profile, overrides)
    options, smoothing, weights = ctx.options, ctx.smoothing, ctx.weights
    base = _result(ctx)
    expected = _score(base)
    n = len(weights)
    allowed = None if among is None else set(among)

    def permitted(*names):
        return allowed is None or all(name in allowed for name in names)

    if actual is None:
        return Explanation(UNEXPLAINED, "the answer has no score", (), None, expected)

    conventions = _convention_changes(options, smoothing, request.level, profile.options)
    strong = [c for c in conventions if not _weak(c)]
    weak = [c for c in conventions if _weak(c)]
    pairs = [
        (f"{n1} + {n2}", f"{d1}; and {d2}", {**c1, **c2}, s1 or s2)
        for (n1, d1, c1, s1), (n2, d2, c2, s2) in combinations(conventions, 2)
        if not (set(c1) & set(c2)) and not (s1 is not None and s2 is not None)
    ]
    cache = {}

    def result_for(changes, smoothing_change):
        key = (tuple(sorted(changes.items())), smoothing_change)
        if key not in cache:
            try:
                changed = options.with_changes(**changes) if changes else options
            except BleuOracleError:
                cache[key] = None
            else:
                cache[key] = _result(ctx, options=changed, smoothing=smoothing_change)
        return cache[key]

    exact_close = within_contract

    def float32_close(a, e):
        return within_contract(a, e, rel_tol=FLOAT32_REL_TOLERANCE)

    def by_convention(candidates, close, suffix, *, stats=False):
        for name, description, changes, smoothing_change in candidates:
            if not permitted(*component_names(name), *component_names(suffix)):
                continue
            result = result_for(changes, smoothing_change)
            value = _score(result)
            if close(actual, value) and (not stats or _statistics_differ(statistics, result, n) is None):
                return Explanation(_join(name, suffix), _join_text(description, suffix),
                                   _change_tuple(changes, smoothing_change) + _suffix_change(suffix), value, expected)
        return None

    def by_computation(computations, close, suffix, candidates=((None, None, {}, None),)):
        for name, description, changes, smoothing_change in candidates:
            if name is not None and not permitted(*component_names(name)):
                continue
            result = result_for(changes, smoothing_change) if name is not None else base
            if result is None:
                continue
            changed = ctx if name is None else _Context(request, options.with_changes(**changes) if changes else options,
                                                         smoothing_change or smoothing, weights)
            for cname, function in computations:
                if not permitted(cname, *component_names(suffix)):
                    continue
                value = function(changed, result)
                if value is not None and close(actual, value):
                    label = _join(cname if name is None else f"{name} + {cname}", suffix)
                    text = _COMPUTATION_DOCS[cname] if name is None else f"{description}; and {_COMPUTATION_DOCS[cname]}"
                    return Explanation(label, _join_text(text, suffix),
                                       _change_tuple(changes, smoothing_change) + (("computation", cname),)
                                       + _suffix_change(suffix), value, expected)
        return None

    def search(close, suffix):
        return (
            by_computation(SPECIFIC_COMPUTATIONS, close, suffix)
            or by_convention(strong, close, suffix)
            or by_computation(GENERIC_COMPUTATIONS, close, suffix)
            or by_convention(weak, close, suffix)
            or by_computation(COMPUTATIONS, close, suffix, conventions)
            or by_convention(pairs, close, suffix)
            or by_computation(COMPUTATIONS, close, suffix, pairs)
        )

    if within_contract(actual, expected):
        differs = _statistics_differ(statistics, base, n)
        if differs is None:
            return Explanation(AGREES, "the oracle under the judged profile gives this value", (), expected, expected)
        smoothed = base.smoothed
        if smoothed is not None and differs in ("matches", "totals") and permitted(SMOOTHED_COUNTS):
            want_m = [float(x) for x in smoothed.matches[:n]]
            want_t = [float(x) for x in smoothed.totals[:n]]
            got_m = [float(x) for x in statistics.get("matches", want_m)][:n]
            got_t = [float(x) for x in statistics.get("totals", want_t)][:n]
            if got_m == want_m and got_t == want_t:
                return Explanation(SMOOTHED_COUNTS,
                                   "the score agrees; the reported matches/totals include the smoothing's additions",
                                   (("computation", SMOOTHED_COUNTS),), expected, expected)
        found = by_convention(strong, exact_close, "", stats=True) or by_convention(pairs, exact_close, "", stats=True)
        if found:
            return found
        return Explanation(UNEXPLAINED, f"the score agrees but the statistics differ at {differs}", (), None, expected)

    if statistics is not None and float32_close(actual, expected) and permitted(FLOAT32):
        if _statistics_differ(statistics, base, n) is not None:
            found = (by_convention(strong, float32_close, FLOAT32, stats=True)
                     or by_convention(pairs, float32_close, FLOAT32, stats=True))
            if found:
                return found
    found = search(exact_close, "")
    if found:
        return found
    if float32_close(actual, expected) and permitted(FLOAT32):
        return Explanation(FLOAT32, _COMPUTATION_DOCS[FLOAT32], (("computation", FLOAT32),), expected, expected)
    found = search(float32_close, FLOAT32)
    if found:
        return found
    return Explanation(UNEXPLAINED, "no single or paired alternative convention or computation gives this value",
                       (), None, expected)


def _join(name, suffix):
    return f"{name} + {suffix}" if suffix else name


def _join_text(text, suffix):
    return f"{text}; and {_COMPUTATION_DOCS[suffix]}" if suffix else text


def _suffix_change(suffix):
    return (("computation", suffix),) if suffix else ()


def _change_tuple(changes, smoothing_change):
    out = tuple((k, v) for k, v in changes.items() if not (k == "sentence_empty_order" and v is None)
                and k != "uniform_weights_only")
    if smoothing_change is not None:
        out += (("smoothing", smoothing_change.describe()),)
    return out


def smoothing_from_description(text):
    """The Smoothing an explanation's ("smoothing", text) change names: `Smoothing.describe()` read back,
    e.g. "floor(value=1/10)" or "none"."""
    match = re.fullmatch(r"([a-z0-9-]+)(?:\((.*)\))?", text.strip())
    if not match:
        raise BleuValueError(f"not a smoothing description: {text!r} (expected e.g. 'floor(value=1/10)')")
    params = {}
    for item in filter(None, (match.group(2) or "").split(",")):
        name, sep, value = item.strip().partition("=")
        if not sep:
            raise BleuValueError(f"not a smoothing description: {text!r} (parameters are name=value)")
        try:
            params[name.strip()] = Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            raise BleuValueError(f"not a smoothing description: {text!r} (parameter {name.strip()} = {value!r})") from None
    return Smoothing(match.group(1), **params)


def explained_value(request, profile, change, *, overrides=None):
    """The value the oracle gives for `request` under `profile` changed as an explanation says.

    `change` is an `Explanation.change` (or its JSON): (option, value) pairs for conventions,
    ("smoothing", Smoothing | its description | a protocol mapping) for another reading of the
    smoothing method, ("computation", name) for an alternative computation. This is the value
    `classify` matched against the answer, recomputed from the explanation alone: a case found by
    `bleu-oracle fuzz` records the implementation's value and its explanation, and `cases validate`
    checks that the oracle under that explanation still gives it. "float32" and
    "statistics-report-smoothed-counts" change no value (they are about precision and reported
    statistics). Returns None when the oracle rejects the input under the changed conventions or
    the computation does not apply.
    """
    base = _context(request, profile, overrides)
    functions = dict(COMPUTATIONS)
    changes, smoothing_change, computations = {}, None, []
    for key, value in change:
        if key == "computation":
            if value not in functions and value not in (FLOAT32, SMOOTHED_COUNTS):
                raise BleuValueError(f"unknown computation {value!r} (known: {sorted(known_names())})")
            computations.append(value)
        elif key == "smoothing":
            smoothing_change = smoothing_from_description(value) if isinstance(value, str) else Smoothing.parse(value)
        else:
            changes[key] = value
    if "empty_order" in changes:  # as _convention_changes: the sentence-level rule follows
        changes.setdefault("sentence_empty_order", None)
    if "weight_normalisation" in changes:
        changes.setdefault("uniform_weights_only", False)
    changed = base.options.with_changes(**changes) if changes else base.options
    ctx = replace(base, options=changed, smoothing=smoothing_change or base.smoothing)
    result = _result(ctx)
    value = _score(result)
    for name in computations:
        if name in (FLOAT32, SMOOTHED_COUNTS):
            continue
        if result is None:
            return None
        value = functions[name](ctx, result)
    return value


def component_names(name):
    """The parts of a (possibly combined) explanation name: 'a + b' -> ('a', 'b'); '' -> ()."""
    return tuple(part.strip() for part in name.split(" + ") if part.strip())


def known_names():
    """Every single explanation name classify can give (conventions are named `field=value`)."""
    return tuple(name for name, _ in COMPUTATIONS) + (FLOAT32, SMOOTHED_COUNTS)


__all__ = ["AGREES", "COMPUTATIONS", "Explanation", "FLOAT32", "FLOAT32_REL_TOLERANCE", "SMOOTHED_COUNTS",
           "UNEXPLAINED", "classify", "component_names", "explained_value", "known_names",
           "smoothing_from_description", "within_contract"]
