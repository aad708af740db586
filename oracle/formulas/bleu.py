"""BLEU, literally: Papineni, Roukos, Ward and Zhu (2002), section 2, top to bottom.

    2.1    Count, Max_Ref_Count, Count_clip               ngrams, count, max_ref_count, count_clip
    2.1.1  p_n over blocks of text (sums before dividing)  Statistics, segment/corpus_statistics, modified_precision
    2.1.3  combining the p_n: a weighted geometric mean    weighted_log_mean
    2.2.2  best match length r                             effective_reference_length
    2.3    BP and BLEU = BP * exp(sum w_n log p_n)         brevity_penalty, bleu_from_statistics

Counting ends in `Statistics` (c, r, matches[n], totals[n]): the seam between
counting and scoring, as in sacrebleu's `compute_bleu`. Scoring is exact:
precisions are Fractions; ln and exp are correctly rounded, with guard digits,
and the score is rounded once to `exact.DIGITS` digits.

Pure: standard library only, no I/O, inputs never mutated.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Set
from dataclasses import dataclass, field, replace
from decimal import Decimal
from fractions import Fraction
from itertools import chain, islice

from . import exact, runs
from .conventions import Options, Smoothing, exact_number
from .errors import BleuTypeError, BleuValueError, describe
from .memo import LEAST_RECENT, Memo, memoized
from .smoothing import SmoothedCounts, extra_orders, smooth
from .tokenizers import fold_case

#: The levels BLEU is computed at: a corpus (statistics summed over segments), or one sentence.
LEVELS = ("corpus", "sentence")

# -- 2.1 Modified n-gram precision ------------------------------------------


def ngrams(tokens, n):
    """The n-grams of a sentence, left to right (section 2.1).

    Read through `islice`, not slices: a slice copies the sentence, and a 300,000-token sentence
    counted to order 8 would hold 36 copies at once."""
    return zip(*[islice(tokens, i, None) for i in range(n)], strict=False)


def count(tokens, max_order):
    """Count(n-gram) for every n-gram of orders 1..max_order in a sentence (section 2.1).

    All orders share one Counter (an n-gram's order is its length), so a
    sentence is counted once however many orders there are. Only the orders the
    sentence has are read: a sentence of L tokens has no n-gram longer than L, and
    each order's reader holds n iterators, so 3,000 orders of a 4-token sentence
    would otherwise hold 4.5 million of them at once.
    """
    orders = min(max_order, len(tokens))
    return Counter(chain.from_iterable(ngrams(tokens, n) for n in range(1, orders + 1)))


def max_ref_count(gram, reference_counts):
    """Max_Ref_Count: the largest count of the n-gram in any *single* reference (section 2.1)."""
    return max(counts.get(gram, 0) for counts in reference_counts)


def count_clip(gram, candidate_counts, reference_counts):
    """Count_clip = min(Count, Max_Ref_Count) (section 2.1)."""
    return min(candidate_counts[gram], max_ref_count(gram, reference_counts))


def clipped_matches(candidate_counts, reference_counts, max_order):
    """The sum of Count_clip over the candidate's n-grams, per order: p_n's numerator (section 2.1).

    In bulk, with set operations: an n-gram the candidate has once clips to 1 if
    any reference has it, so only repeated candidate n-grams need Max_Ref_Count.
    """
    in_some = reference_counts[0].keys() if len(reference_counts) == 1 else set().union(*reference_counts)
    in_a_reference = candidate_counts.keys() & in_some
    matches = [0] * max_order
    for order, k in Counter(map(len, in_a_reference)).items():
        matches[order - 1] = k  # one each
    if sum(candidate_counts.values()) > len(candidate_counts):  # some candidate n-gram repeats
        for gram, k in candidate_counts.items():
            if k > 1 and gram in in_a_reference:
                matches[len(gram) - 1] += count_clip(gram, candidate_counts, reference_counts) - 1
    return matches


# -- 2.1.1 Modified n-gram precision on blocks of text ----------------------


@dataclass(frozen=True)
class Statistics:
    """c, r, and per order the clipped matches and the candidate n-gram totals, summed over
    segments before any division (section 2.1.1). The seam between counting and scoring."""

    hyp_len: int
    ref_len: int
    matches: tuple
    totals: tuple
    segments: int = 1

    def __post_init__(self):
        if len(self.matches) != len(self.totals):
            raise BleuValueError(
                f"`matches` and `totals` must have one entry per order (got {len(self.matches)} and {len(self.totals)})"
            )
        if _plain_counts(self):  # what counting builds: the checks below, in C (each candidate a search or a
            return  # shrink scores builds one; their Python loop was a tenth of an expectation's CPU)
        for name in ("hyp_len", "ref_len", "segments"):
            _require_count(getattr(self, name), name)
        for name in ("matches", "totals"):
            for i, value in enumerate(getattr(self, name)):
                _require_count(value, f"{name}[{i}]")
        for i, (m, t) in enumerate(zip(self.matches, self.totals, strict=True)):
            if m > t:
                raise BleuValueError(f"`matches[{i}]` must not exceed `totals[{i}]` (got {m} > {t})")

    @property
    def max_order(self):
        return len(self.matches)

    def to_json(self):
        return {
            "hyp_len": self.hyp_len,
            "ref_len": self.ref_len,
            "matches": list(self.matches),
            "totals": list(self.totals),
        }


def _plain_counts(statistics):
    """Whether every count of `statistics` is an int (not a bool, not a subclass), none negative, and no order's matches
    exceed its totals: `Statistics.__post_init__`'s checks all passing, asked at once (False: they are run one by
    one, and raise the first error as they always did)."""
    counts = (statistics.hyp_len, statistics.ref_len, statistics.segments, *statistics.matches, *statistics.totals)
    return (set(map(type, counts)) <= {int} and min(counts) >= 0
            and all(map(int.__le__, statistics.matches, statistics.totals)))


def segment_statistics(hypothesis, references, *, max_order, options=Options(), count_matches=None):
    """Statistics of one candidate sentence against its references (`count_matches`: see `sum_statistics`)."""
    c, r, matches, totals = _segment_counts(hypothesis, references, max_order, options, count_matches)
    return Statistics(c, r, tuple(matches), tuple(totals), 1)


#: A segment of more tokens than this to count n-gram by n-gram (hypothesis and references together, long
#: runs of one token apart: `runs` counts those arithmetically) is counted one order at a time: memory then
#: holds one order's n-grams instead of every order's (a million characters under `--tokenize char`: 321 MB
#: instead of 884 MB). A smaller one is counted in one pass, which is faster (a third, on WMT17 with one
#: reference) and whose memory does not matter.
ORDER_BY_ORDER = 10_000


def _segment_counts(hypothesis, references, max_order, options, count_matches=None):
    hypothesis, references = _prepare(hypothesis, references, options)
    orders = min(max_order, len(hypothesis))  # a reference's n-grams longer than the hypothesis match nothing
    matches = _matches(hypothesis, references, orders, max_order, count_matches)
    floor = options.segment_totals_floor
    totals = [max(len(hypothesis) - n + 1, 0, floor) for n in range(1, max_order + 1)]
    r = effective_reference_length(len(hypothesis), [len(ref) for ref in references], options.reference_length)
    return len(hypothesis), r, matches, totals


def _matches(hypothesis, references, orders, max_order, count_matches=None):
    """The clipped matches per order: every order counted in one pass (a long run of one token arithmetically,
    `runs`: the same counts, few n-grams to hold), or one order at a time when more than ORDER_BY_ORDER tokens
    are to be counted n-gram by n-gram. Each distinct reference is counted once: Max_Ref_Count is a maximum over
    the references, which a repeated one cannot change (a corpus reshaped into hundreds of one-character references
    a segment has a few dozen distinct ones). `count_matches`, where given, counts every segment that has no long
    run (a run is counted arithmetically here, which no n-gram by n-gram counting matches for speed)."""
    references = tuple(dict.fromkeys(references))
    sequences = (hypothesis, *references)
    if sum(map(len, sequences)) <= runs.SHORTEST:  # most segments: no sequence long enough to have long runs
        if count_matches is not None:
            return count_matches(hypothesis, references, max_order)
        by_runs = (False,) * len(sequences)
    else:
        by_runs = tuple(runs.mostly_runs(tokens, orders) for tokens in sequences)
        if count_matches is not None and not any(by_runs):
            return count_matches(hypothesis, references, max_order)
    if sum(len(tokens) for tokens, fast in zip(sequences, by_runs, strict=True) if not fast) <= ORDER_BY_ORDER:
        hypothesis_counts, *reference_counts = [
            runs.count_by_runs(tokens, orders) if fast else count(tokens, orders)
            for tokens, fast in zip(sequences, by_runs, strict=True)
        ]
        return clipped_matches(hypothesis_counts, reference_counts, max_order)
    matches = [0] * max_order
    for n in range(1, orders + 1):
        reference_counts = [Counter(ngrams(reference, n)) for reference in references]
        matches[n - 1] = clipped_matches(Counter(ngrams(hypothesis, n)), reference_counts, n)[n - 1]
    return matches


def corpus_statistics(hypotheses, references, *, max_order, options=Options(), count_matches=None):
    """"We first compute the n-gram matches sentence by sentence ... add the clipped n-gram
    counts for all the candidate sentences and divide by the number of candidate n-grams" (2.1.1)."""
    return sum_statistics(_paired(hypotheses, references), max_order=max_order, options=options,
                          count_matches=count_matches)


def sum_statistics(segments, *, max_order, options=Options(), count_matches=None):
    """`corpus_statistics` over an iterable of (hypothesis, references) pairs, read lazily,
    so memory holds one segment and the running sums, however long the corpus.

    `count_matches(hypothesis, references, max_order)`, where given, counts a segment's clipped matches per order
    (a sequence of `max_order` ints) in place of this module's counting (`clipped_matches` over `count`), which stays
    the reference: it must give the same numbers. It is passed in, never imported here: a caller above the formulas
    passes a compiled counting where one was built (`oracle.counting`), and its equality with the literal counting
    is a test's to hold (tests/doctor/test_counting_kernel.py, tests/diagnose/test_expect_kernel.py)."""
    hyp_len = ref_len = segment_count = 0
    matches, totals = [0] * max_order, [0] * max_order
    for index, (hypothesis, segment_references) in enumerate(segments):
        try:
            c, r, segment_matches, segment_totals = _segment_counts(hypothesis, segment_references, max_order, options,
                                                                    count_matches)
        except (BleuValueError, BleuTypeError) as exc:
            raise type(exc)(f"segment {index}: {exc}") from None
        hyp_len += c
        ref_len += r
        segment_count += 1
        for n in range(max_order):
            matches[n] += segment_matches[n]
            totals[n] += segment_totals[n]
    if segment_count == 0:
        raise BleuValueError("`hypotheses` must hold at least one segment (got 0)")
    return Statistics(hyp_len, ref_len, tuple(matches), tuple(totals), segment_count)


def modified_precision(matches, totals):
    """p_n = sum of Count_clip / sum of Count (section 2.1.1); None when it is 0/0."""
    if totals == 0:
        return None
    if type(matches) is Fraction and type(totals) is Fraction:  # smoothed counts: the same ratio, built from ints
        return Fraction(matches.numerator * totals.denominator, totals.numerator * matches.denominator)
    if isinstance(matches, Decimal) or isinstance(totals, Decimal):
        return exact.CONTEXT.divide(exact.to_decimal(matches), exact.to_decimal(totals))
    return Fraction(matches, totals)


# -- 2.1.3 Combining the modified n-gram precisions -------------------------


def weighted_log_mean(precisions, weights, *, zero_weight="ignored"):
    """sum of w_n log p_n, "the average logarithm with uniform weights" generalised (2.1.3, 2.3);
    -Infinity when a counted order has p_n = 0 (the geometric mean is then 0).

    zero_weight="ignored": an order with w_n = 0 contributes nothing even when
    p_n = 0 (0 * log 0 taken as its limit 0). "counted": p_n = 0 still gives 0.
    Orders sharing a weight are summed as w * log(product of their p_n): the
    product of Fractions is exact, so this is one rounding instead of several.
    """
    by_weight = {}
    for p, w in zip(precisions, weights, strict=False):
        if p == 0 and (w != 0 or zero_weight == "counted"):
            return Decimal("-Infinity")
        if w != 0:
            by_weight.setdefault(w, []).append(p)
    total = exact.ZERO
    for w, group in by_weight.items():
        exact_part = Fraction(1)
        for p in group:
            if isinstance(p, Fraction):
                exact_part *= p
            else:  # an irrational smoothed precision (Decimal) takes its own logarithm
                total = exact.add(total, exact.mul(w, exact.ln(p)))
        total = exact.add(total, exact.mul(w, exact.ln(exact_part)))
    return total


# -- 2.2.2 Sentence brevity penalty: the best match length r ----------------


def effective_reference_length(hypothesis_length, reference_lengths, rule):
    """r for one segment: the "best match length" (section 2.2.2) under a documented rule."""
    if rule == "shortest":
        return min(reference_lengths)
    if rule == "longest":
        return max(reference_lengths)
    closest = min(abs(length - hypothesis_length) for length in reference_lengths)
    tied = [length for length in reference_lengths if abs(length - hypothesis_length) == closest]
    if rule == "closest":
        return min(tied)
    if rule == "closest-longer":
        return max(tied)
    if rule == "closest-first":
        return tied[0]
    raise BleuValueError(f"`reference_length` must be a known rule (got {rule!r})")


# -- 2.3 BLEU details ---------------------------------------------------------


def brevity_penalty(c, r):
    """BP = 1 if c > r, else e^(1 - r/c) (section 2.3); its limit 0 as c -> 0 with r > 0."""
    if c > r:
        return exact.ONE
    if c == 0:
        return exact.ZERO
    return exact.exp(1 - Fraction(r, c))


@dataclass(frozen=True)
class BleuResult:
    """The score with every intermediate value, as the derivation produced them."""

    score: Decimal  # exact.DIGITS significant digits; NaN where BLEU is undefined
    bp: Decimal
    precisions: tuple  # Fraction, Decimal (irrational smoothing), or None (0/0: undefined or left out)
    weights: tuple  # Fractions actually applied, after normalisation or effective order
    statistics: Statistics
    level: str
    options: Options
    smoothing: Smoothing
    smoothed: SmoothedCounts | None = None
    notes: tuple = field(default=())

    @property
    def score_float(self):
        return float(self.score)

    def to_json(self):
        return {
            "score": "NaN" if self.score.is_nan() else float(self.score),
            "score_exact": str(self.score),
            "bp": "NaN" if self.bp.is_nan() else float(self.bp),
            "precisions": [None if p is None else str(p) for p in self.precisions],
            "weights": [str(w) for w in self.weights],
            "statistics": self.statistics.to_json(),
            "level": self.level,
            "smoothing": self.smoothing.to_json(),
            "notes": list(self.notes),
        }


def parse_weights(weights, *, default_max_order=4):
    """Validate w_n: a non-empty sequence of finite, non-negative numbers, not all zero."""
    if weights is None:
        return (Fraction(1, default_max_order),) * default_max_order
    if type(weights) is tuple and weights and all(type(w) is Fraction and w.numerator >= 0 for w in weights) and any(
            w.numerator for w in weights):  # (a Fraction's sign is its numerator's: compared as ints, not Fractions)
        return weights  # already parsed (corpus_bleu passes its parsed weights on)
    if isinstance(weights, (str, bytes, Set, Mapping)) or not hasattr(weights, "__iter__"):
        raise BleuTypeError(
            f"`weights` must be a sequence of numbers (got {type(weights).__name__} {describe(weights)})"
        )
    if type(weights) is tuple and all(type(w) is float for w in weights):
        return _parsed_floats(weights)
    return _parsed(weights)


@memoized(256)
def _parsed_floats(weights):
    """`_parsed` of a tuple of floats (a request's weights), kept: a search scores every segment of a corpus alone
    under each per-segment variant, each time with the request's weights (a refusal is raised each time: an
    exception is not kept)."""
    return _parsed(weights)


def _parsed(weights):
    given = list(weights)
    if not given:
        raise BleuValueError("`weights` must hold at least one weight (got [])")
    parsed = []
    for w in given:
        if isinstance(w, float) and w != w:  # a Decimal NaN is refused by exact_number
            raise BleuValueError(f"`weights` must not contain NaN (got {describe(given)})")
        parsed.append(exact_number(w, name="weights"))
    if any(w < 0 for w in parsed):
        raise BleuValueError(f"`weights` must be non-negative (got {describe(given)})")
    if all(w == 0 for w in parsed):
        raise BleuValueError(f"`weights` must not be all zero (got {describe(given)})")
    return tuple(parsed)


def bleu_from_statistics(statistics, *, weights=None, options=Options(), smoothing=None, level="corpus"):
    """BLEU = BP * exp(sum w_n log p_n) (section 2.3), from sufficient statistics."""
    w, smoothing = _scoring_arguments(weights, options, smoothing, level)
    if not _keepable(statistics, options):
        return _scored(statistics, w, options, smoothing, level)
    key = (statistics, _weights_key(w), tuple(getattr(options, name) for name in SCORING_OPTIONS), smoothing, level)
    kept = _KEPT_RESULTS.get(key)
    if kept is None:  # (a refusal is raised every time: never kept)
        kept = _KEPT_RESULTS.keep(key, _scored(statistics, w, options, smoothing, level))
    return kept if kept.options is options else replace(kept, options=options)


def _weights_key(w):
    """Parsed weights as a kept result's key has them: each Fraction as its (numerator, denominator), equal exactly
    where the Fractions are (both in lowest terms) and hashed in C; a Fraction's own hash is computed in Python,
    and a key is hashed up to four times a scoring (looked up, moved to the most recent, kept)."""
    if all(type(x) is Fraction for x in w):
        return tuple([(x.numerator, x.denominator) for x in w])
    return w


def _scoring_arguments(weights, options, smoothing, level):
    """(the weights, the smoothing) a scoring uses, parsed (`smoothing` None: the options' own); a refusal where the
    level, the weights or the smoothing is not valid."""
    if level not in LEVELS:
        raise BleuValueError(f"`level` must be 'corpus' or 'sentence' (got {describe(level)})")
    return parse_weights(weights, default_max_order=options.default_max_order), Smoothing.parse(smoothing) or (
        options.smoothing)


#: The options `_scored` reads (both lengths 0, no match, the empty-order rules, a zero weight, the weights' rules):
#: part of a kept result's key. The weights' default order and the options' smoothing are read before (the parsed
#: weights and smoothing are in the key), and the rest (how tokens are made and counted) by counting alone, only
#: carried in the result.
SCORING_OPTIONS = ("both_empty", "no_match", "empty_order", "sentence_empty_order", "unsmoothed_empty_order",
                   "zero_weight", "uniform_weights_only", "weight_normalisation")

#: Results kept by `bleu_from_statistics`, the least recently used dropped past `_KEPT_RESULTS_LIMIT`, by value: the
#: statistics, the parsed weights and smoothing, the level and the `SCORING_OPTIONS` (a BleuResult is frozen; one
#: kept under other counting options is returned with the caller's). Two uses: the oracle scores the same statistics
#: under the same conventions again soon after (1,191 of the 4,063 scorings of a cold 1000-example `check` repeat
#: one, 981 of them within the last 64 distinct ones), and the classifier scores the same counts under the same
#: weights, scoring options and smoothing again and again (each segment of a corpus under each per-segment variant
#: and candidate, conventions that change only how tokens are counted where they count alike, a record's several
#: searches). At most 1,024 (about 1.5 KB each, some 1.5 MB): bounded well under what a long run's memory may grow
#: by (issue 39's row, `check` at 20,000 examples against 500, stands at its 1.2x edge; 8,192 could have crossed it).
_KEPT_RESULTS_LIMIT = 1024
_KEPT_RESULTS: Memo = Memo(_KEPT_RESULTS_LIMIT, LEAST_RECENT)


def _keepable(statistics, options):
    """Whether a result is kept for these statistics and options: whole-number counts, so that statistics equal as
    keys are equal in type too (a count of 2.0 would be carried in the result as given), and the options' own type
    (its fields are the key's)."""
    return (type(statistics) is Statistics and type(options) is Options
            and type(statistics.matches) is tuple and type(statistics.totals) is tuple
            and all(type(x) is int for x in statistics.matches) and all(type(x) is int for x in statistics.totals)
            and type(statistics.hyp_len) is int and type(statistics.ref_len) is int)


def _scored(statistics, w, options, smoothing, level):
    """`bleu_from_statistics` of parsed weights and smoothing (`_scoring_arguments`), computed: the result is a
    function of these values alone (every part is compared by value, and a BleuResult is frozen), which is what lets
    `bleu_from_statistics` keep it."""
    notes = []
    w = _weights_in_force(w, options, notes)
    if statistics.max_order < len(w):
        raise BleuValueError(f"statistics cover {statistics.max_order} orders but `weights` has {len(w)}")
    c, r = statistics.hyp_len, statistics.ref_len

    if c == 0 and r == 0:
        score = exact.NAN if options.both_empty == "nan" else exact.ZERO
        notes.append(
            f"hypothesis and reference lengths are both 0: score is {score} (both_empty={options.both_empty!r})"
        )
        return BleuResult(score, score, (None,) * len(w), w, statistics, level, options, smoothing, None, tuple(notes))

    if options.no_match == "zero" and c > 0 and not any(statistics.matches[: len(w)]):
        notes.append("no n-gram of any order matches: score 0, before any smoothing (no_match='zero')")
        precisions = tuple(
            modified_precision(m, t) for m, t in zip(statistics.matches, statistics.totals[: len(w)], strict=False)
        )
        return BleuResult(exact.ZERO, exact.final(brevity_penalty(c, r)), precisions, w, statistics, level, options,
                          smoothing, None, tuple(notes))

    smoothed = smooth(statistics, max_order=len(w), smoothing=smoothing)
    notes.extend(smoothed.notes)
    precisions = [modified_precision(m, t) for m, t in zip(smoothed.matches, smoothed.totals, strict=True)]
    w, precisions = _apply_empty_order_rule(w, precisions, options.empty_order_at(level, smoothing), notes)
    bp = brevity_penalty(c, r)
    if c == 0:
        notes.append("the hypothesis is empty: BP is 0 (the limit of e^(1 - r/c) as c -> 0)")
        score = exact.ZERO
    else:
        score = exact.mul(bp, exact.exp(weighted_log_mean(precisions, w, zero_weight=options.zero_weight)))
    return BleuResult(exact.final(score), exact.final(bp), tuple(precisions), w, statistics, level, options,
                      smoothing, smoothed, tuple(notes))


def _weights_in_force(w, options, notes):
    w, note = _weights_under(w, options.uniform_weights_only, options.weight_normalisation)
    if note is not None:
        notes.append(note)
    return w


@memoized(256)
def _weights_under(w, uniform_weights_only, weight_normalisation):
    """The weights in force and the note saying why they differ from `w` (None: they are `w`), kept: a search sends
    a few weight vectors, each scored thousands of times (a refusal is raised each time: an exception is not kept)."""
    if uniform_weights_only:
        if len(set(w)) > 1:
            raise BleuValueError(f"`weights` must be uniform under these options (got {[str(x) for x in w]})")
        if sum(w) != 1:  # such implementations take only an order count N: w_n = 1/N
            return (Fraction(1, len(w)),) * len(w), f"uniform weights taken as 1/{len(w)} (only the number of " \
                "orders counts here)"
    if weight_normalisation == "normalise" and sum(w) != 1:
        w = tuple(x / sum(w) for x in w)
        return w, f"weights normalised to sum to one: {[str(x) for x in w]}"
    return w, None


def _apply_empty_order_rule(weights, precisions, rule, notes):
    """Orders with no hypothesis n-grams (p_n = 0/0) under the documented rule."""
    empty = [n for n, p in enumerate(precisions) if p is None]
    if not empty:
        return weights, precisions
    orders = ", ".join(str(n + 1) for n in empty)
    if rule == "zero":
        notes.append(f"order(s) {orders} have no hypothesis n-grams: p_n counted as 0 (empty_order='zero')")
        return weights, [Fraction(0) if p is None else p for p in precisions]
    if rule == "one":
        notes.append(f"order(s) {orders} have no hypothesis n-grams: p_n counted as 1 (empty_order='one')")
        return weights, [Fraction(1) if p is None else p for p in precisions]
    if rule != "skip":
        raise BleuValueError(f"`empty_order` must be a known rule (got {rule!r})")
    kept = sum(w for w, p in zip(weights, precisions, strict=False) if p is not None)
    if kept == 0:
        notes.append(f"order(s) {orders} have no hypothesis n-grams and no other order has weight: score 0")
        return weights, [Fraction(0) if p is None else p for p in precisions]
    scale = sum(weights) / kept
    new_weights = tuple(Fraction(0) if p is None else w * scale for w, p in zip(weights, precisions, strict=False))
    notes.append(
        f"order(s) {orders} have no hypothesis n-grams: left out, weights renormalised to "
        f"{[str(x) for x in new_weights]} (empty_order='skip')"
    )
    return new_weights, precisions


def counting_orders(weights, smoothing):
    """How many orders to count for parsed `weights` under `smoothing` (some methods look one order further)."""
    return len(weights) + extra_orders(smoothing.method)


def corpus_bleu(hypotheses, references, *, weights=None, options=Options(), smoothing=None, count_matches=None):
    """Corpus BLEU: hypotheses[i] is a token list, references[i] the list of its references (`count_matches`: see
    `sum_statistics`)."""
    w = parse_weights(weights, default_max_order=options.default_max_order)
    chosen = Smoothing.parse(smoothing) or options.smoothing
    stats = corpus_statistics(hypotheses, references, max_order=counting_orders(w, chosen), options=options,
                              count_matches=count_matches)
    return bleu_from_statistics(stats, weights=w, options=options, smoothing=chosen, level="corpus")


def sentence_bleu(hypothesis, references, *, weights=None, options=Options(), smoothing=None, count_matches=None):
    """Sentence BLEU: one hypothesis (a token list) against its references (`count_matches`: see
    `sum_statistics`)."""
    w = parse_weights(weights, default_max_order=options.default_max_order)
    chosen = Smoothing.parse(smoothing) or options.smoothing
    stats = segment_statistics(hypothesis, references, max_order=counting_orders(w, chosen), options=options,
                               count_matches=count_matches)
    return bleu_from_statistics(stats, weights=w, options=options, smoothing=chosen, level="sentence")


# -- Input checks ------------------------------------------------------------


def _require_count(value, name):
    if isinstance(value, bool) or not isinstance(value, int):
        raise BleuTypeError(f"`{name}` must be an int (got {type(value).__name__} {describe(value)})")
    if value < 0:
        raise BleuValueError(f"`{name}` must be non-negative (got {value})")


def _paired(hypotheses, references):
    """Pair segment i's hypothesis with its references; unequal counts are an error."""
    references = iter(references)
    for index, hypothesis in enumerate(hypotheses):
        segment_references = next(references, _MISSING)
        if segment_references is _MISSING:
            raise BleuValueError(
                f"`hypotheses` and `references` must have the same number of segments "
                f"(got more than {index} hypotheses and {index} reference sets)"
            )
        yield hypothesis, segment_references
    if next(references, _MISSING) is not _MISSING:
        raise BleuValueError(
            "`hypotheses` and `references` must have the same number of segments (got fewer hypotheses than reference "
            "sets)"
        )


_MISSING = object()


def _prepare(hypothesis, references, options):
    """Validate one segment and apply case folding, without touching the caller's lists."""
    hypothesis = _tokens(hypothesis, "hypothesis")
    if type(references) not in _SEQUENCES and _unordered_or_not_iterable(references):
        raise BleuTypeError(
            f"`references` must be a list of token lists (got {type(references).__name__} {describe(references)})"
        )
    references = [_tokens(reference, f"references[{i}]") for i, reference in enumerate(references)]
    if not references:
        raise BleuValueError("`references` must hold at least one reference for each segment (got [])")
    if options.lowercase:
        # each distinct token is folded once and shared: a run of 300,000 tokens holds one folded string; tokens
        # of a line already folded (fold_stage "line") fold to themselves (every rule is idempotent)
        folded = {token: fold_case(token, options.case_fold) for token in set(hypothesis).union(*references)}
        hypothesis = tuple(map(folded.__getitem__, hypothesis))
        references = [tuple(map(folded.__getitem__, reference)) for reference in references]
    return hypothesis, references


#: A tuple or a list is neither a string, a set nor a mapping, and iterable: no need to ask (the ABC checks of
#: `_unordered_or_not_iterable` cost a microsecond each, for every sequence of every segment).
_SEQUENCES = (tuple, list)


def _unordered_or_not_iterable(value):
    """A string, bytes, a set, a mapping, or not iterable: nothing to read n-grams from."""
    return isinstance(value, (str, bytes, Set, Mapping)) or not hasattr(value, "__iter__")


def _tokens(tokens, name):
    # An unordered container has no n-grams: reject sets and mappings by name.
    if type(tokens) not in _SEQUENCES and _unordered_or_not_iterable(tokens):
        raise BleuTypeError(
            f"`{name}` must be a list of str tokens, not {type(tokens).__name__} "
            f"(got {describe(tokens)}; split a sentence into tokens first)"
        )
    tokens = tuple(tokens)
    if not set(map(type, tokens)) <= {str}:  # fast path; str subclasses are checked below
        for i, token in enumerate(tokens):
            if not isinstance(token, str):
                raise BleuTypeError(f"`{name}[{i}]` must be a str token (got {type(token).__name__} {describe(token)})")
    return tokens
