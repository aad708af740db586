"""oracle.diagnose.smoothingstage: the requested smoothing computed wrongly, and the readings of a request for none.

Every expected value below is derived by hand from the counts (the arithmetic is in the comments and in the
expressions), never taken from the oracle.

Holds: oracle.diagnose.smoothingstage, oracle.diagnose.mechanisms.smoothing
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from oracle.diagnose.classify import classify, explained_value, within_contract
from oracle.diagnose.computations import context_for, result_under
from oracle.diagnose.mechanisms.computations import COMBINATION_COMPUTATIONS
from oracle.diagnose.mechanisms.smoothing import SMOOTHING_VARIANTS, UNREQUESTED, readings
from oracle.formulas.conventions import Options, Smoothing
from oracle.models.protocol import ScoreRequest, Segment


def request(level, segments, weights, smoothing=None):
    segs = tuple(Segment(hypothesis=tuple(h.split()), references=tuple(tuple(r.split()) for r in refs))
                 for h, refs in segments)
    return ScoreRequest(seq=0, level=level, segments=segs, weights=tuple(weights),
                        smoothing=smoothing or {"method": "none"})


# "a b c d" against "a x c y": c = r = 4 (BP = 1); unigrams a, c match: m1/l1 = 2/4; bigrams ab bc cd against
# ax xc cy: m2/l2 = 0/3; trigrams abc bcd: 0/2; the 4-gram abcd: 0/1.
ONE = [("a b c d", ["a x c y"])]
# "a b c d e" against "a x c y e": c = r = 5; a, c, e match: 3/5; bigrams ab bc cd de against ax xc cy ye: 0/4.
FIVE = [("a b c d e", ["a x c y e"])]
# ONE, then "e f" against "e g" (c = r = 2; e matches: 1/2; ef against eg: 0/1): the corpus has c = r = 6,
# m1/l1 = 3/6, m2/l2 = 0/4.
TWO = [("a b c d", ["a x c y"]), ("e f", ["e g"])]
BLEU2 = (0.5, 0.5)
CC4 = {"method": "chen-cherry-4"}  # K = 5: the j-th unmatched order's count is ln(c) / (5 2^j)
EXP = {"method": "exp"}  # the j-th unmatched order's count is 1/2^j
FLOOR = {"method": "floor", "value": 0.1}  # an unmatched order's count is 0.1

VARIANT_EXAMPLES = [
    # (variant, request, the implementation's answer derived by hand); BLEU-2 below is sqrt(p1 p2)
    # right: ln 4 / 10 for m2; nltk #2341's `i + 1 * k / ln(c)` with i = 1 (bigrams' 0-based index): 1 + 5 / ln 4
    ("chen-cherry-4-precedence", request("corpus", ONE, BLEU2, CC4), math.sqrt(2 / 4 * (1 + 5 / math.log(4)) / 3)),
    # K / (2^1 ln 4) for ln 4 / (K 2^1)
    ("chen-cherry-4-ratio-inverted", request("corpus", ONE, BLEU2, CC4),
     math.sqrt(2 / 4 * (5 / (2 * math.log(4))) / 3)),
    # 2^0 for 2^1: ln 5 / 5 for ln 5 / 10 (FIVE: on ONE, sqrt(1/2 x ln 4 / 15) is also sqrt(p2), order 1 left out)
    ("smoothing-counter-from-zero", request("corpus", FIVE, BLEU2, CC4), math.sqrt(3 / 5 * (math.log(5) / 5) / 4)),
    # the bigram's own n = 2 for the count j = 1: ln 4 / (5 x 4) for ln 4 / (5 x 2)
    ("smoothing-counter-is-order-index", request("corpus", ONE, BLEU2, CC4),
     math.sqrt(2 / 4 * (math.log(4) / 20) / 3)),
    # the corpus's c = 6 replaced by the last segment's c = 2 (or the first's, 4): m2 = ln 2 / 10 over l2 = 4
    ("chen-cherry-4-last-hypothesis", request("corpus", TWO, BLEU2, CC4), math.sqrt(3 / 6 * (math.log(2) / 10) / 4)),
    ("chen-cherry-4-first-hypothesis", request("corpus", TWO, BLEU2, CC4),
     math.sqrt(3 / 6 * (math.log(4) / 10) / 4)),
    # exp on BLEU-3: right p2 = (1/2)/3, p3 = (1/4)/2; as precisions p2 = 1/2, p3 = 1/4: (1/2 x 1/2 x 1/4)^(1/3)
    ("smoothed-value-as-precision", request("corpus", ONE, (1 / 3,) * 3, EXP), (1 / 16) ** (1 / 3)),
    # counted from 0: p2 = 1/3, p3 = (1/2)/2: (1/2 x 1/3 x 1/4)^(1/3)
    ("smoothing-counter-from-zero", request("corpus", ONE, (1 / 3,) * 3, EXP), (1 / 24) ** (1 / 3)),
    # exp on BLEU-2, the order's n for the count: p2 = (1/2^2)/3 = 1/12 (BLEU-3 reaches (1/384)^(1/3), which is
    # also p2 p3 p4 = 1/6 x 1/8 x 1/8 of the orders shifted up)
    ("smoothing-counter-is-order-index", request("corpus", ONE, BLEU2, EXP), math.sqrt(2 / 4 * 1 / 12)),
    # floor 0.1 added to m1 as well: p1 = 2.1/4, p2 = 0.1/3
    ("epsilon-added-to-every-order", request("corpus", ONE, BLEU2, FLOOR), math.sqrt(2.1 / 4 * 0.1 / 3)),
    # floor's 0.1 as p2 itself, not 0.1/3
    ("smoothed-value-as-precision", request("corpus", ONE, BLEU2, FLOOR), math.sqrt(2 / 4 * 0.1)),
    # none requested, BLEU-4, "a b c" against "a b d" (c = r = 3): (2+1)/(3+1), (1+1)/(2+1), (0+1)/(1+1), and
    # 1e-9 for the empty 4-gram order: (3/4 x 2/3 x 1/2 x 1e-9)^(1/4)
    ("add-one-every-order-epsilon-for-empty", request("corpus", [("a b c", ["a b d"])], (0.25,) * 4),
     (3 / 4 * 2 / 3 * 1 / 2 * 1e-9) ** 0.25),
    # exp requested, every order with n-grams: add-one on both, unigrams included: (2+1)/(4+1), (0+1)/(3+1)
    ("add-one-every-order-epsilon-for-empty", request("corpus", ONE, BLEU2, EXP), math.sqrt(3 / 5 * 1 / 4)),
    # add-k k = 1 per segment: (0+1)/(3+1) and (0+1)/(1+1) summed to 2/6, not (0+1)/(4+1) once; p1 = 3/6
    ("smoothing-per-segment-summed", request("corpus", TWO, BLEU2, {"method": "add-k", "k": 1}),
     math.sqrt(3 / 6 * 2 / 6)),
    # none requested, BLEU-4; each sentence with exp and effective order: ONE gives 1/2, (1/2)/3, (1/4)/2, (1/8)/1,
    # so (1/768)^(1/4); "e f" has no trigram or 4-gram, orders 1-2 only at 1/2 each: (1/2 x (1/2)/1)^(1/2) = 1/2
    ("mean-of-exp-smoothed-sentence-bleu", request("corpus", TWO, (0.25,) * 4), ((1 / 768) ** 0.25 + 1 / 2) / 2),
    # weights 1/2, 1/4 (sum 3/4), divided by the kept orders' weight as sacrebleu divides by eff_order: 2/3, 1/3.
    # ONE: p1 = 2/4, p2 = (1/2)/3 = 1/6, so (1/2)^(2/3) (1/6)^(1/3); "e f": p1 = 1/2, p2 = (1/2)/1, so 1/2
    ("mean-of-exp-smoothed-sentence-bleu", request("corpus", TWO, (0.5, 0.25)),
     ((1 / 2) ** (2 / 3) * (1 / 6) ** (1 / 3) + 1 / 2) / 2),
]


@pytest.mark.parametrize("variant, r, answer", VARIANT_EXAMPLES, ids=[f"{v}-{i}" for i, (v, _, _) in
                                                                       enumerate(VARIANT_EXAMPLES)])
def test_each_variant_is_named_on_a_hand_derived_example(variant, r, answer):
    explanation = classify(r, answer, "papineni")
    assert explanation.name == variant, (explanation.name, explanation.fits)
    assert within_contract(explanation.value, answer)
    assert explained_value(r, "papineni", explanation.change) == pytest.approx(answer, rel=1e-9)


def test_every_variant_has_an_example_and_a_docstring_and_is_tried():
    names = {name for name, _ in SMOOTHING_VARIANTS}
    assert names == {v for v, _, _ in VARIANT_EXAMPLES}
    assert all(function.__doc__ and function.__doc__.strip() for _, function in SMOOTHING_VARIANTS)
    assert names <= {name for name, _ in COMBINATION_COMPUTATIONS}


def test_the_right_answer_is_no_variant():
    # ONE under chen-cherry-4, BLEU-2: the right m2 = ln 4 / 10, so sqrt(1/2 x ln 4 / 30)
    r = request("corpus", ONE, BLEU2, CC4)
    assert classify(r, math.sqrt(2 / 4 * math.log(4) / 30), "papineni").name == "agrees"


def test_a_length_from_one_segment_is_silent_where_it_is_the_corpus_length():
    # one segment: its length is the corpus's, so the variant would repeat the oracle
    ctx = context_for(request("corpus", ONE, BLEU2, CC4), "papineni", None)
    assert dict(SMOOTHING_VARIANTS)["chen-cherry-4-last-hypothesis"](ctx, result_under(ctx)) is None


# (that no variant fits the oracle's own answer is held for both stages at once: tests/diagnose/test_combination.py
# test_no_variant_fits_the_oracles_own_answer, over COMBINATION_COMPUTATIONS)


# -- a smoothing applied where none was requested ----------------------------------------------------------------


def test_a_request_for_none_reads_each_method_once():
    tried = [reading.smoothing for reading in readings(Smoothing("none"), Options())]
    assert tried == list(UNREQUESTED) and len(set(tried)) == len(tried)
    # the profile's default keeps its own words, not repeated among the others
    default = Options(smoothing=Smoothing("exp"))
    words = {reading.smoothing: reading.words for reading in readings(Smoothing("none"), default)}
    assert words[Smoothing("exp")].startswith("the profile's default") and len(words) == len(UNREQUESTED)
    # a request for a method is not read as these
    assert Smoothing("chen-cherry-6") not in [reading.smoothing for reading in readings(Smoothing("exp"), Options())]


def test_a_reading_declares_when_it_is_tried():
    # the readings of a request for none: the profile's default first (ignores the request, still paired), then each
    # method applied where none was asked, which ignores it and is tried alone (mechanisms/smoothing.py Reading)
    default, *unrequested = readings(Smoothing("none"), Options(smoothing=Smoothing("exp")))
    assert default.smoothing == Smoothing("exp") and default.ignores_request and default.pairs_with_conventions
    assert unrequested and all(r.ignores_request and not r.pairs_with_conventions for r in unrequested)
    # a floor of 1/5 read at its documented default 1/10 is another reading of the request, not the request ignored;
    # no smoothing at all ignores it, and is paired
    floor = {r.smoothing: r for r in readings(Smoothing("floor", value=Fraction(1, 5)), Options())}
    assert not floor[Smoothing("floor", value=Fraction(1, 10))].ignores_request
    assert floor[Smoothing("none")].ignores_request and floor[Smoothing("none")].pairs_with_conventions


def test_a_smoothing_applied_where_none_was_requested_is_named():
    # ONE, none requested, BLEU-2: the oracle's score is 0 (m2 = 0). add-one on bigrams (Lin and Och): p2 = 1/4,
    # so sqrt(2/4 x 1/4) = sqrt(1/8); chen-cherry-6 and the others give other values on these counts
    r = request("corpus", ONE, BLEU2)
    assert classify(r, math.sqrt(1 / 8), "papineni").name == "smoothing=add-k(k=1)"
    # chen-cherry-4 (K = 5): m2 = ln 4 / 10 over 3
    assert classify(r, math.sqrt(2 / 4 * math.log(4) / 30), "papineni").name == "smoothing=chen-cherry-4(k=5)"
