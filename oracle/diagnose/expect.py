"""What the oracle expects of a request under a profile: the score with its statistics, or a
rejection (with, on an input the documents leave undefined, each named convention's acceptable value).
The one place a request meets the formulas (the oracle adapter, the judge's callers and the classifier
all ask here)."""

from __future__ import annotations

from decimal import Decimal

from oracle import counting
from oracle.formulas import bleu
from oracle.formulas.bleu import LEVELS
from oracle.formulas.conventions import UNDEFINED_CONVENTIONS, Smoothing
from oracle.formulas.errors import BleuOracleError, BleuTypeError, BleuValueError, describe
from oracle.formulas.profiles import get_profile
from oracle.models.outcomes import Acceptable, DocumentExpectation, Expected
from oracle.models.protocol import Segment, Statistics

#: What asking the oracle about an input, or replaying a mechanism's computation on its exact values, raises on
#: purpose where that input has no value under it: the one tuple the diagnosis catches around such a call (a probe's
#: prediction, an explanation replayed, a state's answer, the counts an implementation returned scored by the
#: formulas), each caller deciding what a refusal means there (no prediction, not explained, not confirmed).
#:
#: - `BleuOracleError`: the oracle refusing the input (its BleuValueError and BleuTypeError: weights that do not
#:   match the statistics' orders, more matches than n-grams, an option a profile does not take), the one root every
#:   error the formulas raise on purpose has.
#: - `ArithmeticError`: the exact arithmetic of a reading that has no value on the input: a division by zero
#:   (ZeroDivisionError: a precision over an empty order, a ratio of lengths where one is 0), a value past a float
#:   or a Decimal context (OverflowError, decimal.Overflow: a Fraction too large for a float, an exponent past
#:   Emax), an operation the Decimal context refuses (decimal.InvalidOperation: the logarithm of a negative value).
#:
#: Nothing else: a TypeError or a ValueError raised there is a bug of the diagnosis, not a mechanism that does not
#: fit, and propagates (`check` exits 4 on it, an internal error) rather than being read as "this does not explain it".
ORACLE_REFUSALS: tuple[type[Exception], ...] = (BleuOracleError, ArithmeticError)

def oracle_options(profile, *, lowercase=False, overrides=None):
    options = get_profile(profile).options
    changes = dict(overrides or {})
    if isinstance(lowercase, bool):
        changes["lowercase"] = lowercase
    return options.with_changes(**changes) if changes else options


#: The options that counting reads (case folding, the floor of a segment's totals, the reference-length
#: rule) and the token split a text request is tokenized by; every other option is read by scoring alone,
#: so results under options equal in these share their counts (`oracle_result`'s `counted`).
COUNTING_OPTIONS = ("lowercase", "case_fold", "fold_stage", "segment_totals_floor", "reference_length",
                    "token_split", "line_padding")


def oracle_result(request, options, smoothing=None, counted=None):
    """The oracle's BleuResult for `request` under `options`, with the request's smoothing unless
    `smoothing` is given; raises a BleuOracleError for a request the oracle rejects. `counted`: a dict
    kept by the caller across calls on the same request, in which the statistics are kept by
    counting options (COUNTING_OPTIONS) and orders, so that trying many conventions counts each
    distinct way once (the classifier's candidates differ mostly in scoring).

    The clipped matches are counted by the compiled kernel where it was built (`oracle.counting`), else by the
    formulas' literal counting, which stays the reference: tests/diagnose/test_expect_kernel.py holds the two
    equal on the search's own inputs under every profile."""
    if request.level not in LEVELS:
        raise BleuValueError(f"`level` must be one of {list(LEVELS)} (got {describe(request.level)})")
    if request.level == "sentence" and len(request.segments) != 1:
        raise BleuValueError(f"sentence level takes exactly one segment (got {len(request.segments)})")
    smoothing = smoothing or request.smoothing.to_convention()
    if counted is not None:
        return _result_from_counts(request, options, smoothing, counted)
    segments = request.tokenized_as(options).segments  # text: its named tokenizer
    count_matches = counting.kernel_clipped_matches()
    if request.level == "sentence":
        return bleu.sentence_bleu(segments[0].hypothesis, segments[0].references, weights=request.weights,
                                  options=options, smoothing=smoothing, count_matches=count_matches)
    return bleu.corpus_bleu([s.hypothesis for s in segments], [s.references for s in segments],
                            weights=request.weights, options=options, smoothing=smoothing, count_matches=count_matches)


def _result_from_counts(request, options, smoothing, counted):
    """`corpus_bleu`/`sentence_bleu`'s two steps (count, then score), the counts looked up in `counted` first, and
    the result kept there too: a function of the counts, the weights, the level, the options and the smoothing,
    which a search asks for again under each computation that reads the request under changed options (case folded,
    a convention paired with a computation) as its candidates did (a refusal is raised every time)."""
    key = ("result", request.weights, request.level, options, smoothing)
    try:
        kept = counted.get(key)
    except TypeError:  # a smoothing given as a mapping: scored, not kept
        key, kept = None, None
    if kept is not None:
        return kept
    weights = bleu.parse_weights(request.weights, default_max_order=options.default_max_order)
    chosen = Smoothing.parse(smoothing) or options.smoothing
    statistics = _counts(request, options, bleu.counting_orders(weights, chosen), counted)
    result = bleu.bleu_from_statistics(statistics, weights=weights, options=options, smoothing=chosen,
                                       level=request.level)
    if key is not None:
        counted[key] = result
    return result


def _counts(request, options, orders, counted):
    """`request`'s statistics counted to `orders` under `options`, looked up in `counted` first (and kept there)."""
    key = _counts_key(options, orders)
    if key not in counted:
        segments = request.tokenized_as(options).segments
        count_matches = counting.kernel_clipped_matches()
        if request.level == "sentence":
            counted[key] = bleu.segment_statistics(segments[0].hypothesis, segments[0].references,
                                                   max_order=orders, options=options, count_matches=count_matches)
        elif len(segments) > 1:
            counted[key] = _corpus_counts(segments, options, orders, counted, key, count_matches)
        else:
            counted[key] = bleu.corpus_statistics([s.hypothesis for s in segments], [s.references for s in segments],
                                                  max_order=orders, options=options, count_matches=count_matches)
    return counted[key]


def _corpus_counts(segments, options, orders, counted, key, count_matches):
    """`bleu.corpus_statistics` of a corpus's (tokenized) `segments`: each segment's statistics summed (section 2.1.1;
    `bleu.sum_statistics`, a refusal named by its segment as it names it), each segment's kept in `counted` under `key`
    as `segment_counts` keeps it (a segment is tokenized and counted alike alone and in its corpus), so that a
    variant scoring every segment alone (a mean of sentence scores) counts none of them again."""
    hyp_len = ref_len = 0
    matches, totals = [0] * orders, [0] * orders
    for index, segment in enumerate(segments):
        kept = counted.setdefault(("segment alone", index), {})
        part = kept.get(key)
        if part is None:
            try:
                part = bleu.segment_statistics(segment.hypothesis, segment.references, max_order=orders,
                                               options=options, count_matches=count_matches)
            except (BleuValueError, BleuTypeError) as exc:
                raise type(exc)(f"segment {index}: {exc}") from None
            kept[key] = part
        hyp_len += part.hyp_len
        ref_len += part.ref_len
        for n in range(orders):
            matches[n] += part.matches[n]
            totals[n] += part.totals[n]
    return bleu.Statistics(hyp_len, ref_len, tuple(matches), tuple(totals), len(segments))


def _counts_key(options, orders):
    return tuple(getattr(options, name) for name in COUNTING_OPTIONS), orders


def segment_counts(request, index, options, orders, counted):
    """Segment `index`'s statistics counted alone, kept in `counted` as `segment_alone_result` keeps them (the
    one-segment request is built only to count it)."""
    kept = counted.setdefault(("segment alone", index), {})
    key = _counts_key(options, orders)
    if key not in kept:
        _counts(request.model_copy(update={"segments": (request.segments[index],)}), options, orders, kept)
    return kept[key]


def segment_alone_result(request, index, options, smoothing=None, *, level=None, counted=None):
    """The oracle's BleuResult for segment `index` of `request` scored alone (at `level`, else at the request's
    level), as `oracle_result` gives it for that one-segment request. `counted`: the caller's dict kept across
    calls on the same request (`oracle_result`'s), in which each segment's counts are kept apart by its index (a
    segment counts alike at either level: `segment_statistics` and a corpus of one): a search whose variants score
    every segment alone (a mean of sentence scores, under several smoothings and rules) then counts each segment
    once per counting options, not once per variant tried."""
    index = range(len(request.segments))[index]  # (the last segment, -1, is kept with its own index)
    update = {"segments": (request.segments[index],)}
    if level is not None:
        update["level"] = level
    if counted is None:
        return oracle_result(request.model_copy(update=update), options, smoothing)
    kept = counted.setdefault(("segment alone", index), {})
    # (its result too: a function of the segment, its level, the options and the smoothing, which several variants
    # and a record's several searches ask for alike; the one-segment request is built only to compute it)
    key = ("segment result", index, request.level if level is None else level, options, smoothing)
    if key not in kept:
        kept[key] = oracle_result(request.model_copy(update=update), options, smoothing, counted=kept)
    return kept[key]


def segments_result(request, indices, options, smoothing=None, *, counted):
    """The oracle's BleuResult for the corpus of `request`'s segments at `indices` (a batch of a corpus request), as
    `oracle_result` gives it for the request holding those segments alone: a corpus's statistics are its segments'
    counts summed (section 2.1.1), so each segment's counts are those `segment_alone_result` keeps in `counted`,
    counted once however many batches of however many sizes a search scores them in."""
    if len(indices) == 1:
        return segment_alone_result(request, indices[0], options, smoothing, counted=counted)
    if request.level != "corpus":  # (several segments at sentence level: refused by the oracle, as before)
        return oracle_result(request.model_copy(update={"segments": tuple(request.segments[i] for i in indices)}),
                             options, smoothing)
    weights = bleu.parse_weights(request.weights, default_max_order=options.default_max_order)
    chosen = Smoothing.parse(smoothing or request.smoothing.to_convention()) or options.smoothing
    orders = bleu.counting_orders(weights, chosen)
    parts = [segment_counts(request, i, options, orders, counted) for i in indices]
    summed = bleu.Statistics(sum(p.hyp_len for p in parts), sum(p.ref_len for p in parts),
                             tuple(sum(p.matches[n] for p in parts) for n in range(orders)),
                             tuple(sum(p.totals[n] for p in parts) for n in range(orders)),
                             sum(p.segments for p in parts))
    return bleu.bleu_from_statistics(summed, weights=weights, options=options, smoothing=chosen, level="corpus")


def statistics_of(result, n):
    """A BleuResult's statistics as protocol v1 has them: orders 1..n (some smoothing methods count one
    order further), and BP."""
    statistics = result.statistics
    return Statistics(hyp_len=statistics.hyp_len, ref_len=statistics.ref_len, matches=tuple(statistics.matches[:n]),
                      totals=tuple(statistics.totals[:n]), bp=float(result.bp))


def oracle_expected(request, profile, *, overrides=None):
    """What the oracle says about `request` under `profile`: a score with statistics, or a rejection."""
    try:
        if not isinstance(request.lowercase, bool):
            raise BleuValueError(f"`lowercase` must be a bool (got {describe(request.lowercase)})")
        if not isinstance(request.weights, (list, tuple)):
            raise BleuValueError(f"`weights` must be a list of numbers (got {describe(request.weights)})")
        # the conventions a request carries are the case's overrides in force for it (or a replay's): they apply last
        options = oracle_options(profile, lowercase=request.lowercase, overrides=overrides)
        result = oracle_result(request, options.switched(request.chosen_conventions))
    except BleuOracleError as exc:
        return Expected(rejected=True, reason=str(exc), acceptable=undefined_answers(request, options))
    return Expected(score=float(result.score), statistics=statistics_of(result, len(request.weights)),
                    score_exact=str(result.score), notes=tuple(result.notes))


def scored_expectation(request, profile):
    """The oracle's expectation of `request` under `profile` where it is a score with statistics, else None (a
    rejection, or an input the formulas cannot take): what a probe built by the diagnosis predicts, or nothing to
    predict from."""
    try:
        expected = oracle_expected(request, profile)
    except ORACLE_REFUSALS:
        return None
    return None if expected.rejected or expected.statistics is None else expected


def undefined_kind(request):
    """Which input of `UNDEFINED_INPUTS` `request` is ("empty-corpus", "zero-weights"), read off the request, or None.
    Whether it is nothing else invalid besides is `undefined_answers`' to find out."""
    if request.level == "corpus" and not request.segments:
        return "empty-corpus"
    weights = request.weights
    if isinstance(weights, (list, tuple)) and weights and all(w == 0 for w in weights):
        return "zero-weights"
    return None


def _stand_in(request, kind):
    """`request` with its undefined part made valid: one segment "a" against "a" in an empty corpus, weights 1/N in
    place of zeros. The oracle scores it unless something else is invalid too."""
    if kind == "empty-corpus":
        text = "a" if request.is_text else ("a",)
        return request.model_copy(update={"segments": (Segment(hypothesis=text, references=(text,)),)})
    n = len(request.weights)
    return request.model_copy(update={"weights": (1 / n,) * n})


def undefined_answers(request, options):
    """Each named convention's value (`UNDEFINED_CONVENTIONS`) on `request` under `options`, when `request` is an
    input the documents leave undefined and nothing else about it is invalid; None otherwise (a refusal is then the
    only right answer). A stateful plan is a metric's life, not one call: none either.

    The empty corpus: 0 and NaN. Every weight zero: BP, and where an order has no match (p_n = 0, or 0/0 left as it
    is) 0 or NaN instead, the precisions and BP being those the profile gives the request with any valid weights
    (weights change neither)."""
    kind = undefined_kind(request)
    if kind is None or request.stateful is not None:
        return None
    try:
        stand_in = oracle_result(_stand_in(request, kind), options)
    except BleuOracleError:
        return None
    if kind == "empty-corpus":
        values = {"empty-corpus-zero": Decimal(0), "empty-corpus-nan": Decimal("NaN")}
    else:
        bp = stand_in.bp
        unmatched = any(p is None or p == 0 for p in stand_in.precisions[:len(request.weights)])
        values = {"zero-weights-bp": bp, "zero-weights-counted": Decimal(0) if unmatched else bp,
                  "zero-weights-nan": Decimal("NaN") if unmatched else bp}
    return tuple(Acceptable(convention=name, score=float(value), score_exact=str(value))
                 for name, value in values.items() if UNDEFINED_CONVENTIONS[name][0] == kind)


def case_expected(request, profile, *, overrides=None, document=None, profiles=()):
    """What the oracle expects of a case's request under `profile`, and, when `profile` is among the
    case's `profiles`, what its document says: a rejection, or the printed value (`Expected.document`)."""
    expected = oracle_expected(request, profile, overrides=overrides)
    if not document or profile not in profiles:
        return expected
    if document.get("rejected"):
        notes = expected.notes if expected.rejected else (
            *expected.notes, "the case expects a rejection; the oracle under this profile gives a score")
        return expected.model_copy(update={
            "rejected": True, "notes": notes,
            "reason": expected.reason or document.get("reason", "the case expects a rejection")})
    printed = {k: v for k, v in document.items() if k in ("score", "tolerance", "statistics")}
    return expected.model_copy(update={"document": DocumentExpectation(**printed)}) if printed else expected
