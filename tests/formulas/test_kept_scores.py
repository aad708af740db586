"""Scoring kept by value (`bleu._KEPT_RESULTS`, the memo of `bleu_from_statistics`), the weights in force kept per
weight vector (`bleu._weights_under`), and a smoothed precision built from its counts' integers (`modified_precision`):
each gives what the computation it stands for gives, on every input, first asked and asked again.

The reference is the computation without the memo (`bleu._scored` of the parsed arguments, the literal body) and, for
a precision, Python's own Fraction division m / t (section 2.1.1's p_n); results are compared exactly (every digit,
every note, the options carried).

Holds: oracle.formulas.bleu
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import smoothings, weights

from oracle.formulas import bleu
from oracle.formulas.conventions import (
    BOTH_EMPTY_RULES,
    EMPTY_ORDER_RULES,
    NO_MATCH_RULES,
    WEIGHT_RULES,
    ZERO_WEIGHT_RULES,
)
from oracle.formulas.errors import BleuOracleError
from oracle.formulas.profiles import PROFILES

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def statistics(draw, max_order=13):
    """Corpus statistics: matches never above totals; lengths and counts small (shared ratios) or large."""
    n = draw(st.integers(1, max_order))
    count = st.one_of(st.integers(0, 12), st.integers(0, 10**9))
    totals = tuple(draw(count) for _ in range(n))
    matches = tuple(draw(st.integers(0, t)) for t in totals)
    return bleu.Statistics(draw(count), draw(count), matches, totals, draw(st.integers(1, 3)))


@st.composite
def options(draw):
    """A profile's options (its counting conventions with it) with every scoring convention redrawn (`_scored` reads
    them: `bleu.SCORING_OPTIONS`), the weights' default order and the options' smoothing too (read before it)."""
    base = PROFILES[draw(st.sampled_from(sorted(PROFILES)))].options
    changes = {name: draw(st.sampled_from(sorted(rules))) for name, rules in (
        ("empty_order", EMPTY_ORDER_RULES), ("both_empty", BOTH_EMPTY_RULES), ("no_match", NO_MATCH_RULES),
        ("weight_normalisation", WEIGHT_RULES), ("zero_weight", ZERO_WEIGHT_RULES))}
    for name in ("sentence_empty_order", "unsmoothed_empty_order"):
        changes[name] = draw(st.sampled_from([None, *sorted(EMPTY_ORDER_RULES)]))
    changes["uniform_weights_only"] = draw(st.booleans())
    changes["default_max_order"] = draw(st.integers(1, 4))
    changes["smoothing"] = draw(smoothings())
    return base.with_changes(**changes)


def outcome(score, *args):
    """Everything a scoring gives (every field, in its printed form), or the refusal's class and message."""
    try:
        result = score(*args)
    except BleuOracleError as exc:
        return type(exc).__name__, str(exc)
    return (str(result.score), str(result.bp), repr(result.precisions), repr(result.weights), result.notes,
            result.statistics, result.level, result.options, result.smoothing, result.smoothed)


def _through_the_public_call(stats, w, opts, smoothing, level):
    return bleu.bleu_from_statistics(stats, weights=w, options=opts, smoothing=smoothing, level=level)


def _computed(stats, w, opts, smoothing, level):
    """The same scoring without the memo: its arguments parsed as the public call parses them, then the literal body."""
    parsed_weights, parsed_smoothing = bleu._scoring_arguments(w, opts, smoothing, level)
    return bleu._scored(stats, parsed_weights, opts, parsed_smoothing, level)


@SETTINGS
@given(stats=statistics(), w=st.tuples(*[st.one_of(st.none(), weights(max_order=12))] * 2), first=options(),
       second=options(), smoothing=st.tuples(*[st.one_of(st.none(), smoothings())] * 2),
       level=st.tuples(*[st.sampled_from(bleu.LEVELS)] * 2), same=st.tuples(st.booleans(), st.booleans()))
def test_a_kept_score_is_the_score_computed_again(stats, w, first, second, smoothing, level, same):
    # two scorings under drawn conventions (each with a profile's counting options, which a kept result is returned
    # with), one after the other and again, on the same statistics or on ones with one number changed, with the same
    # weights or others: a memo that took one for the other (a key missing a part) would answer the second with the
    # first's result
    other = stats if same[0] else replace(stats, segments=stats.segments + 1)
    cases = [(stats, w[0], first, smoothing[0], level[0]), (other, w[0] if same[1] else w[1], second, smoothing[1],
                                                            level[1])]
    expected = [outcome(_computed, *case) for case in cases]
    for _ in range(2):
        for case, wanted in zip(cases, expected, strict=True):
            assert outcome(_through_the_public_call, *case) == wanted


#: For each option scoring reads (`bleu.SCORING_OPTIONS`): (statistics, weights, smoothing, level) on which its values
#: score apart, by hand, so that a result kept under a key without it would be answered for another value's:
_WHERE_IT_MATTERS = {
    # c = r = 0: NaN under "nan", 0 under "zero"
    "both_empty": (bleu.Statistics(0, 0, (0,), (0,)), (1.0,), None, "corpus"),
    # no n-gram matches; floor 1/2 gives p_1 = (1/2)/3, p_2 = (1/2)/2 under "smoothed", sqrt(1/6 * 1/4) = 0.204, and 0
    # under "zero"
    "no_match": (bleu.Statistics(3, 3, (0, 0), (3, 2)), (0.5, 0.5), {"method": "floor", "value": 0.5}, "corpus"),
    # orders 1 and 2 all matched, order 3 without n-grams (c = 2): "zero" scores 0, "one" and "skip" 1
    "empty_order": (bleu.Statistics(2, 2, (2, 1, 0), (2, 1, 0)), (1 / 3,) * 3, {"method": "none"}, "corpus"),
    # the same at sentence level, `empty_order` "zero": None leaves it (0), "one" or "skip" 1
    "sentence_empty_order": (bleu.Statistics(2, 2, (2, 1, 0), (2, 1, 0)), (1 / 3,) * 3, {"method": "floor"},
                             "sentence"),
    # the same without smoothing: None leaves "zero" (0), "one" or "skip" 1
    "unsmoothed_empty_order": (bleu.Statistics(2, 2, (2, 1, 0), (2, 1, 0)), (1 / 3,) * 3, {"method": "none"},
                               "corpus"),
    # weight 0 on the unmatched bigram: "ignored" leaves p_1 = 1 (score 1), "counted" makes the score 0
    "zero_weight": (bleu.Statistics(2, 2, (2, 0), (2, 1)), (1.0, 0.0), {"method": "none"}, "corpus"),
    # weights 0.7 and 0.3 are not uniform: refused under True, scored under False
    "uniform_weights_only": (bleu.Statistics(2, 2, (2, 1), (2, 1)), (0.7, 0.3), None, "corpus"),
    # p_1 = p_2 = 1/2, weights 1 and 1: as given (1/2)^1 (1/2)^1 = 1/4, normalised to 1/2 each (1/2)^(1/2+1/2) = 1/2
    "weight_normalisation": (bleu.Statistics(4, 4, (2, 1), (4, 2)), (1.0, 1.0), {"method": "none"}, "corpus"),
}
_EMPTY_ORDER_OVERRIDES = [None, *sorted(EMPTY_ORDER_RULES)]
_VALUES = {"both_empty": sorted(BOTH_EMPTY_RULES), "no_match": sorted(NO_MATCH_RULES),
           "empty_order": sorted(EMPTY_ORDER_RULES), "sentence_empty_order": _EMPTY_ORDER_OVERRIDES,
           "unsmoothed_empty_order": _EMPTY_ORDER_OVERRIDES, "zero_weight": sorted(ZERO_WEIGHT_RULES),
           "uniform_weights_only": [False, True], "weight_normalisation": sorted(WEIGHT_RULES)}


def test_every_option_scoring_reads_has_an_input_where_it_matters():
    assert set(bleu.SCORING_OPTIONS) == set(_WHERE_IT_MATTERS) == set(_VALUES)


@pytest.mark.parametrize("name", sorted(_WHERE_IT_MATTERS))  # (not SCORING_OPTIONS: one left out of it is tested)
def test_scorings_apart_in_one_scoring_option_alone_are_each_their_own(name):
    # every value of the option in turn, then again, on an input where they score apart: each is its own computed
    # result, not the one kept for another value
    stats, w, smoothing, level = _WHERE_IT_MATTERS[name]
    variants = [bleu.Options(empty_order="zero").with_changes(**{name: value}) for value in _VALUES[name]]
    computed = [outcome(_computed, stats, w, options, smoothing, level) for options in variants]
    assert len({wanted[0] for wanted in computed}) > 1  # (the score, or the refusal's class: the values score apart)
    bleu._KEPT_RESULTS.clear()
    for _ in range(2):
        for options, wanted in zip(variants, computed, strict=True):
            assert outcome(_through_the_public_call, stats, w, options, smoothing, level) == wanted


def test_the_note_of_normalised_weights_is_given_every_time():
    # weights (1, 1) normalised: each 1 / (1 + 1) = 1/2. The weights in force are kept per vector, so the second
    # scoring (other statistics: not a kept score) takes them from what was kept, and must still say so
    options = PROFILES["papineni"].options.with_changes(weight_normalisation="normalise")
    note = "weights normalised to sum to one: ['1/2', '1/2']"
    for hyp_len in (3, 4):
        stats = bleu.Statistics(hyp_len, 4, (2, 1), (hyp_len, hyp_len - 1))
        result = bleu.bleu_from_statistics(stats, weights=(1, 1), options=options)
        assert result.weights == (Fraction(1, 2), Fraction(1, 2))
        assert note in result.notes


def test_statistics_built_with_lists_are_scored_as_with_tuples():
    # a Statistics is not hashable when built with lists (doctor's searches build some): scored without the memo.
    # Every n-gram matches and c = r: each p_n = 1, BP = 1, so BLEU = 1 exactly
    listed = bleu.Statistics(4, 4, [4, 3, 2, 1], [4, 3, 2, 1])
    result = bleu.bleu_from_statistics(listed)
    assert result.score == Decimal(1)
    assert result.precisions == (Fraction(1),) * 4


def test_a_refusal_is_raised_every_time():
    # two orders counted, four weights: no score (a memo must not answer the second call with anything)
    stats = bleu.Statistics(4, 4, (2, 1), (4, 3))
    for _ in range(2):
        with pytest.raises(BleuOracleError, match="statistics cover 2 orders"):
            bleu.bleu_from_statistics(stats, weights=(0.25,) * 4)


fractions = st.fractions(min_value=0, max_value=10**6, max_denominator=10**6)


@settings(max_examples=500, deadline=None)
@given(m=fractions, t=fractions.filter(lambda t: t != 0))
def test_a_smoothed_precision_is_its_counts_divided(m, t):
    # smoothing turns each count into a Fraction (1/2^k, k added, epsilon); p_n is m_n / l_n as Fraction divides them
    p = bleu.modified_precision(m, t)
    assert type(p) is Fraction
    assert (p.numerator, p.denominator) == ((m / t).numerator, (m / t).denominator)
