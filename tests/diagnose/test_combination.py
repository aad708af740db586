"""oracle.diagnose.combination: the score stage's variants, and what the classifier says when nothing fits.

Every expected value below is derived by hand from the statistics (the arithmetic is in the comments and in
the expressions), never taken from the oracle.

Holds: oracle.diagnose.combination, oracle.diagnose.mechanisms.combination, oracle.diagnose.classify
"""

from __future__ import annotations

import math

import pytest
from fakes.harness import check, deviations, fake, results
from hypothesis import HealthCheck, given, settings
from strategies import requests

from oracle.adapters.base import ScoreAnswer
from oracle.diagnose import mechanisms
from oracle.diagnose.classify import (
    UNEXPLAINED,
    classify,
    explained_value,
    is_partial,
    known_names,
    within_contract,
)
from oracle.diagnose.computations import context_for, result_under
from oracle.diagnose.cover import UNEXPLAINED as COVER_UNEXPLAINED
from oracle.diagnose.cover import minimal_cover
from oracle.diagnose.mechanisms.combination import (
    BATCH_SIZES,
    BREVITY_PENALTY_VARIANTS,
    COMBINATION_VARIANTS,
    MATRIX_VARIANTS,
    OTHER_BREVITY_PENALTY,
    OTHER_COMBINATION,
    OTHER_SCALE,
    OTHER_WEIGHTING,
    PARTIAL_NAMES,
    batch_mean_name,
)
from oracle.diagnose.mechanisms.computations import COMBINATION_COMPUTATIONS, COMPUTATIONS
from oracle.diagnose.mechanisms.smoothing import SMOOTHING_VARIANTS
from oracle.diagnose.stale import with_stale
from oracle.formulas.conventions import SMOOTHING_METHODS
from oracle.models.protocol import ScoreRequest, Segment
from oracle.models.results import Classification


def request(level, segments, weights, smoothing=None):
    segs = tuple(Segment(hypothesis=tuple(h.split()), references=tuple(tuple(r.split()) for r in refs))
                 for h, refs in segments)
    return ScoreRequest(seq=0, level=level, segments=segs, weights=tuple(weights),
                        smoothing=smoothing or {"method": "none"})


# hypothesis "a b c d e" (c = 5) against "a b c d f g" (r = 6):
#   unigrams a b c d match of 5: p1 = 4/5; bigrams ab bc cd of 4: p2 = 3/4; trigrams abc bcd of 3: p3 = 2/3;
#   4-gram abcd of 2: p4 = 1/2.  c < r: BP = e^(1 - 6/5) = e^(-1/5).
SHORT = [("a b c d e", ["a b c d f g"])]
P1, P2, P3, P4 = 4 / 5, 3 / 4, 2 / 3, 1 / 2
BP = math.exp(-1 / 5)
# under weights (3/4, 1/4), as given (papineni): BLEU = BP * p1^(3/4) * p2^(1/4)
W1, W2 = 0.75, 0.25
MEAN = P1 ** W1 * P2 ** W2
SKEWED = request("corpus", SHORT, (W1, W2))
UNIFORM = request("corpus", SHORT, (0.5, 0.5))
RIGHT_STATISTICS = {"hyp_len": 5, "ref_len": 6, "matches": [4, 3], "totals": [5, 4]}


VARIANT_EXAMPLES = [
    # (variant, request, the implementation's answer derived by hand)
    ("weights-not-passed-on", SKEWED, BP * (P1 * P2) ** 0.5),  # uniform 1/2, 1/2 for 3/4, 1/4
    ("order-fixed-at-4", SKEWED, BP * (P1 * P2 * P3 * P4) ** 0.25),  # BLEU-4, uniform 1/4
    ("unigram-precision-only", SKEWED, BP * P1),
    ("highest-order-precision-only", SKEWED, BP * P2),
    ("arithmetic-mean-of-precisions", SKEWED, BP * (P1 + P2) / 2),  # (4/5 + 3/4) / 2 = 31/40
    ("weighted-sum-of-precisions", SKEWED, BP * (W1 * P1 + W2 * P2)),  # 3/5 + 3/16 = 63/80
    ("product-of-precisions", SKEWED, BP * P1 * P2),  # 3/5
    ("highest-order-left-out", UNIFORM, BP * P1 ** 0.5),  # orders 1..N-1, weights not renormalised
    ("unigram-precision-left-out", SKEWED, BP * P2 ** W2),  # log p1 omitted
    ("orders-shifted-up", SKEWED, BP * P2 ** W1 * P3 ** W2),  # p_(n+1) with w_n
    ("weights-shifted", SKEWED, BP * P1 ** W2),  # w_2 with p_1, no order 2
    ("exp-left-out", SKEWED, BP * (W1 * math.log(P1) + W2 * math.log(P2))),
    ("log-score-reported", SKEWED, -1 / 5 + W1 * math.log(P1) + W2 * math.log(P2)),
    ("precision-inverted", SKEWED, BP / MEAN),  # l_n / m_n for m_n / l_n
    ("weight-and-precision-swapped", SKEWED, BP * W1 ** P1 * W2 ** P2),  # w ** p for p ** w
    ("brevity-penalty-exponent-negated", SKEWED, math.exp(6 / 5 - 1) * MEAN),
    ("brevity-penalty-exp-left-out", SKEWED, (1 - 6 / 5) * MEAN),
    ("length-ratio-as-brevity-penalty", SKEWED, 5 / 6 * MEAN),
    ("brevity-penalty-applied-twice", SKEWED, math.exp(-1 / 5) * math.exp(-1 / 5) * MEAN),  # BP^2 = e^(-2/5)
    ("percent-scale-printed-2-decimals", SKEWED, round(100 * BP * MEAN, 2)),  # 64.45
    # c = 2 ("a b") against r = 5 ("a b c d e"): p1 = 2/2, p2 = 1/1; BP from r // c = 2: e^(1 - 2) = e^-1
    ("length-ratio-floored", request("corpus", [("a b", ["a b c d e"])], (0.5, 0.5)), math.exp(-1)),
    # two segments, uniform weights over one order: segment 1 "aa bb" vs "aa cc" p1 = 1/2, c = r = 2;
    # segment 2 "bb ee ff" vs "bb ee ff" p1 = 1.  The first alone: 1/2; the last alone: 1; the corpus: 4/5.
    # (Tokens of two letters: with one-letter tokens, the hypothesis read as characters scores 4/8 = 1/2 as well;
    # "bb" in the other segment's reference: else the references transposed, segment 1 against both references,
    # scores 1/2 too, and here 2/2.)
    ("first-segment-score-reported",
     request("corpus", [("aa bb", ["aa cc"]), ("bb ee ff", ["bb ee ff"])], (1.0,)), 0.5),
    ("last-segment-score-reported",
     request("corpus", [("bb ee ff", ["bb ee ff"]), ("aa bb", ["aa cc"])], (1.0,)), 0.5),
    # add-k with k = 3 where the default is 1, on "a b c" vs "a b d" (c = r = 3, BLEU-2): p1 = 2/3;
    # k = 1 gives p2 = (1 + 1) / (2 + 1) = 2/3, so BLEU = (2/3 * 2/3)^(1/2) = 2/3 (k = 3 gives (4/5)^(1/2) (2/3)^(1/2))
    ("smoothing-parameter-ignored",
     request("sentence", [("a b c", ["a b d"])], (0.5, 0.5), {"method": "add-k", "k": 3}), 2 / 3),
    # the mean of per-batch corpus scores, batches of k: k segments "dd ee" against themselves (p1 = 2/2), then
    # "aa bb ff" against "aa cc ff" (p1 = 2/3; c = r in every segment, BP = 1), BLEU-1. The batches [k perfect] and
    # [the last] score 1 and 2/3: their mean is 5/6, where the corpus scores (2k + 2) / (2k + 3) (k = 2: 6/7), and
    # batches of another size j < k another value (k = 4, j = 2: (1 + 1 + 2/3) / 3 = 8/9; j = 3: (1 + 4/5) / 2)
    *((batch_mean_name(k), request("corpus", [("dd ee", ["dd ee"])] * k + [("aa bb ff", ["aa cc ff"])], (1.0,)),
       5 / 6)
      for k in BATCH_SIZES),
]


def _fits(explanation):
    return (explanation.name, *explanation.fits)


@pytest.mark.parametrize("variant, r, answer", VARIANT_EXAMPLES, ids=[v for v, _, _ in VARIANT_EXAMPLES])
def test_each_variant_is_named_on_a_hand_derived_example(variant, r, answer):
    explanation = classify(r, answer, "papineni")
    assert explanation.name == variant, _fits(explanation)
    assert within_contract(explanation.value, answer)
    assert explained_value(r, "papineni", explanation.change) == pytest.approx(answer, rel=1e-9)


def test_with_the_right_statistics_a_variant_is_named_as_well():
    answer = {"score": BP * (P1 * P2) ** 0.5, "statistics": RIGHT_STATISTICS}
    assert classify(SKEWED, answer, "papineni").name == "weights-not-passed-on"


def test_the_default_bleu_4_fits_four_weights_sent_under_both_names():
    """Four weights (0.4, 0.3, 0.2, 0.1) sent and BLEU-4 with uniform 1/4 returned (obss/jury #58: the order and the
    weights not passed to the scorer): both `weights-not-passed-on` (uniform 1/N, N = 4) and `order-fixed-at-4`
    predict it, so the record fits both, and a run whose other records sent another number of weights (which only
    the order fixed at 4 explains) is named by that one name alone, not split into two."""
    four = request("corpus", SHORT, (0.4, 0.3, 0.2, 0.1))
    # the statistics are right: c = 5, r = 6, matches 4 3 2 1 of 5 4 3 2 (SHORT's derivation above)
    right = {"hyp_len": 5, "ref_len": 6, "matches": [4, 3, 2, 1], "totals": [5, 4, 3, 2]}
    answer = {"score": BP * (P1 * P2 * P3 * P4) ** 0.25, "statistics": right}
    e = classify(four, answer, "papineni")
    signature = (e.parts, *e.fitting)  # (as the cover takes a record's causes: `Classification.signature_parts`)
    assert {("weights-not-passed-on",), ("order-fixed-at-4",)} <= set(signature), signature
    signatures = {signature: 3, (("order-fixed-at-4",),): 5}
    assert [(c.name, c.records) for c in minimal_cover(signatures)] == [("order-fixed-at-4", 8)]
    # uniform 1/4 sent: the default is what was sent, nothing for the variant to explain
    ctx = context_for(request("corpus", SHORT, (0.25,) * 4), "papineni", None)
    assert dict(COMBINATION_VARIANTS)["order-fixed-at-4"](ctx, result_under(ctx)) is None


def test_every_variant_has_an_example_and_a_docstring_and_is_a_computation():
    names = [name for name, _ in COMBINATION_VARIANTS]
    assert set(names) == {v for v, _, _ in VARIANT_EXAMPLES}
    assert all(function.__doc__ and function.__doc__.strip() for _, function in COMBINATION_VARIANTS)
    assert set(names) <= {name for name, _ in COMPUTATIONS}


def test_each_brevity_penalty_variant_is_the_penalty_its_score_variant_applies():
    # c = 5, r = 6 (SHORT): e^(6/5 - 1) = e^(1/5); 1 - 6/5 = -1/5; 5/6; 6 // 5 = 1, so e^(1 - 1) = 1;
    # (e^(1 - 6/5))^2 = e^(-2/5).  c = 2, r = 5: 5 // 2 = 2, so e^(1 - 2) = e^-1.
    by_hand = {"brevity-penalty-exponent-negated": math.exp(1 / 5), "brevity-penalty-exp-left-out": -1 / 5,
               "length-ratio-as-brevity-penalty": 5 / 6, "length-ratio-floored": 1.0,
               "brevity-penalty-applied-twice": math.exp(-2 / 5),
               # max(1, e^(1 - 6/5)): the clamp taken as a max gives 1 where c < r
               "brevity-penalty-at-least-one": 1.0}
    assert {name: rule(5, 6) for name, rule in BREVITY_PENALTY_VARIANTS.items()} == pytest.approx(by_hand, rel=1e-12)
    assert BREVITY_PENALTY_VARIANTS["length-ratio-floored"](2, 5) == pytest.approx(math.exp(-1), rel=1e-12)
    # no penalty where c >= r: exactly 1, as the formula's BP is there -- but the clamp taken as a max, which is above 1
    # where c > r: max(1, e^(1 - 6/7)) = e^(1/7)
    assert all(rule(c, 6) == 1.0 for name, rule in BREVITY_PENALTY_VARIANTS.items() for c in (6, 7)
               if name != "brevity-penalty-at-least-one")
    assert BREVITY_PENALTY_VARIANTS["brevity-penalty-at-least-one"](6, 6) == 1.0
    assert BREVITY_PENALTY_VARIANTS["brevity-penalty-at-least-one"](7, 6) == pytest.approx(math.exp(1 / 7), rel=1e-12)
    assert set(BREVITY_PENALTY_VARIANTS) <= {name for name, _ in (*COMBINATION_VARIANTS, *MATRIX_VARIANTS)}


@pytest.mark.parametrize("name, returned_bp", [
    ("brevity-penalty-exponent-negated", math.exp(1 / 5)),  # e^(r/c - 1) at c = 5, r = 6
    ("length-ratio-as-brevity-penalty", 5 / 6),  # c / r
])
def test_a_returned_bp_names_its_variant_where_the_score_agrees(name, returned_bp):
    # the right score BP x MEAN and the right counts, the returned BP another rule's: the BP names the variant
    answer = ScoreAnswer(BP * MEAN, {**RIGHT_STATISTICS, "bp": returned_bp})
    assert classify(SKEWED, answer, "papineni").name == name


def test_the_kinds_of_the_score_and_smoothing_stages_mechanisms():
    # docs/mechanisms.md: a score stage's variant and a partial name are of kind `combination`, declared in
    # mechanisms/combination.py; the requested smoothing computed wrongly is of kind `smoothing`; a partial name is
    # described by its words and never replayed as a value
    assert {mechanisms.lookup(name).kind for name, _ in COMBINATION_VARIANTS} == {"combination"}
    assert {mechanisms.lookup(name).kind for name, _ in SMOOTHING_VARIANTS} == {"smoothing"}
    assert {mechanisms.lookup(name).kind for name in PARTIAL_NAMES} == {"combination"}
    assert all(mechanisms.describe(name) == words for name, words in PARTIAL_NAMES.items())
    assert not set(PARTIAL_NAMES) & set(known_names())
    # every variant is described by its docstring, as the computation the search tries
    assert all(mechanisms.describe(name) == " ".join(function.__doc__.split())
               for name, function in (*COMBINATION_VARIANTS, *SMOOTHING_VARIANTS))


def test_a_variant_that_would_repeat_the_oracle_is_silent():
    # uniform 1/2, 1/2 sent: "weights not passed on" would give the right score itself
    ctx = context_for(UNIFORM, "papineni", None)
    assert dict(COMBINATION_VARIANTS)["weights-not-passed-on"](ctx, result_under(ctx)) is None
    # one order: p_1 alone is the whole mean
    one = context_for(request("corpus", SHORT, (1.0,)), "papineni", None)
    assert dict(COMBINATION_VARIANTS)["unigram-precision-only"](one, result_under(one)) is None


def test_a_wrong_zero_names_no_variant_but_keeps_it_among_the_fits():
    # "a b c" vs "a b d", BLEU-1: p1 = 2/3.  BLEU-4 fixed would count the 4-gram order, empty here (0/0 read as 0),
    # so it gives 0: a 0 is what many bugs give, so it is not the record's name
    r = request("corpus", [("a b c", ["a b d"])], (1.0,))
    assert classify(r, 0.0, "papineni").name not in dict(COMBINATION_VARIANTS)
    # "a b" vs "a c" with weights (1, 0): p1 = 1/2, p2 = 0/1, order 2 off, so BLEU = 1/2 (c = r = 2).  Uniform
    # weights 1/2, 1/2 count p2 = 0: the score 0.  The early 0 of an unmatched order is its name, the variant fits
    e = classify(request("corpus", [("a b", ["a c"])], (1.0, 0.0)), 0.0, "papineni")
    assert e.name == "any-order-unmatched-zero" and "weights-not-passed-on" in e.fits
    # among the run's other records' causes (a hint, or a documented class), the variant names it
    among = classify(request("corpus", [("a b", ["a c"])], (1.0, 0.0)), 0.0, "papineni",
                     among=["weights-not-passed-on"])
    assert among.name == "weights-not-passed-on"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests(methods=tuple(SMOOTHING_METHODS)))
def test_no_variant_fits_the_oracles_own_answer(r):
    """On any request, each variant of the score and smoothing stages (`COMBINATION_COMPUTATIONS`, the smoothing
    stage's from tests/diagnose/test_smoothing_variants.py's subject) is silent or gives a value other than the oracle's
    own (it is a no-op there, so it must not fit a right answer)."""
    for profile in ("papineni", "sacrebleu"):
        ctx = context_for(r, profile, None)
        result = result_under(ctx)
        if result is None:
            continue
        for name, function in COMBINATION_COMPUTATIONS:
            value = function(ctx, result)
            assert value is None or not within_contract(value, float(result.score)), name


# -- what is known when nothing fits -------------------------------------------------------------------------


def test_the_right_statistics_and_other_weights():
    # "a b c d e" against "a b c d f": c = r = 5, BP = 1; p1 = 4/5, p2 = 3/4 as in SHORT. Weights 0.9, 0.1 in place
    # of 3/4, 1/4: answer = p1^0.9 p2^0.1 = exp(0.9 ln 0.8 + 0.1 ln 0.75) = 0.7949 lies in [p2, p1] = [3/4, 4/5],
    # and above the right mean p1^0.75 p2^0.25 = 0.7872, so no penalty in (0, 1] gives it: only other weights fit
    even = request("corpus", [("a b c d e", ["a b c d f"])], (W1, W2))
    statistics = {"hyp_len": 5, "ref_len": 5, "matches": [4, 3], "totals": [5, 4]}
    e = classify(even, {"score": P1 ** 0.9 * P2 ** 0.1, "statistics": statistics}, "papineni")
    assert e.name == OTHER_WEIGHTING and e.explained and is_partial(e.parts)
    assert "the statistics are the oracle's" in e.description and "[0.75, 0.8]" in e.description
    assert e.value is None and explained_value(even, "papineni", e.change) is None


def test_an_answer_several_intervals_hold_for_names_no_stage():
    # weights 0.6, 0.4 in place of 3/4, 1/4 with BP = e^-1/5: answer / BP = p1^0.6 p2^0.4 lies in [p2, p1] =
    # [3/4, 4/5], and answer / the mean = BP p1^-0.15 p2^0.15 < 1 is a penalty as well: two intervals hold, which
    # is evidence for neither, so the record is other-combination, both stages in its words and neither a fit
    e = classify(SKEWED, {"score": BP * P1 ** 0.6 * P2 ** 0.4, "statistics": RIGHT_STATISTICS}, "papineni")
    assert e.name == OTHER_COMBINATION and e.fits == ()
    assert "consistent with each of" in e.description and "[0.75, 0.8]" in e.description
    assert "a brevity penalty in (0, 1] other than BP" in e.description


def test_a_returned_brevity_penalty_that_the_score_follows():
    # BP 0.5 returned (not e^-1/5) and the answer 0.5 x the right mean: answer / BP = 0.5 x 0.787 / 0.819 lies
    # below p2 = 3/4, so not other weights
    answer = {"score": 0.5 * MEAN, "statistics": {**RIGHT_STATISTICS, "bp": 0.5}}
    e = classify(SKEWED, answer, "papineni")
    assert e.name == OTHER_BREVITY_PENALTY and e.fits == ()
    assert "returned BP 0.5" in e.description


@pytest.mark.parametrize("statistics", [RIGHT_STATISTICS, None])
def test_a_power_of_ten_is_another_scale_with_statistics_or_without(statistics):
    score = 1000 * BP * MEAN  # 10^3 x the score: not the 0-100 scale
    e = classify(SKEWED, {"score": score, "statistics": statistics} if statistics else score, "papineni")
    assert e.name == OTHER_SCALE and "10^3" in e.description


def test_without_statistics_an_interval_test_names_nothing():
    # the other-weights answer again, with no statistics: the counts could be what differs, so no stage is named
    e = classify(SKEWED, BP * P1 ** 0.6 * P2 ** 0.4, "papineni")
    assert e.name == UNEXPLAINED and "no statistics were returned" in e.description


@pytest.mark.parametrize("score", [0.95, math.nan])
def test_the_right_statistics_and_no_stage_is_other_combination(score):
    # 0.95 / BP = 1.16 > p1 (not a mean of the precisions) and 0.95 / the mean = 1.21 > 1 (not a penalty); NaN
    e = classify(SKEWED, {"score": score, "statistics": RIGHT_STATISTICS}, "papineni")
    assert e.name == OTHER_COMBINATION and e.fits == ()
    assert "the statistics are the oracle's" in e.description


def test_statistics_that_differ_and_a_score_that_does_not_follow_from_them():
    # m2 = 2 returned for 3: the judged formulas give BP (4/5)^(3/4) (2/4)^(1/4) = 0.58 of them, not 0.95, which
    # is above every returned precision and their mean
    e = classify(SKEWED, {"score": 0.95, "statistics": {**RIGHT_STATISTICS, "matches": [4, 2]}}, "papineni")
    assert e.name == f"other-counting-of-matches + {OTHER_COMBINATION}"
    assert "matches at order 2: expected 3, got 2" in e.description
    # a run that names its records by this reads each part's meaning
    assert PARTIAL_NAMES[OTHER_COMBINATION] in e.catalogue_description


def test_among_documented_classes_a_partial_name_is_not_given():
    answer = {"score": BP * P1 ** 0.6 * P2 ** 0.4, "statistics": RIGHT_STATISTICS}
    assert classify(SKEWED, answer, "papineni", among=["weights=normalise"]).name == UNEXPLAINED


def test_no_score_is_unexplained():
    assert classify(SKEWED, {"score": None}, "papineni").name == UNEXPLAINED


def test_a_state_carried_over_replaces_a_partial_name():
    partial = Classification(name=OTHER_COMBINATION, description="")
    stale = Classification(name="earlier-answer-returned", description="")
    assert with_stale(partial, stale).name == "earlier-answer-returned"


# -- end to end ---------------------------------------------------------------------------------------------


def test_check_names_weights_not_passed_on_as_the_runs_cause(tmp_path):
    """A fake that uses uniform weights 1/N whatever it is sent (tests/fakes/mutant_weights_not_passed.py): its
    statistics are right and its score wrong wherever the weights are not all 1/N; without the variant the run
    has no mechanism to name (its records' weights are as often equal but not 1/N, fitting `weights=normalise`,
    as not)."""
    report = tmp_path / "report"
    assert check(report, fake("mutant_weights_not_passed"), examples=40) == 1
    failing = [r for r in deviations(report) if r.classification is not None and r.classification.name]
    assert failing and all(r.layer == "score" for r in failing), {r.layer for r in failing}
    assert all("weights-not-passed-on" in r.classification.signature for r in failing)
    summary = (report / "summary.md").read_text()
    assert f"By root cause: weights-not-passed-on x{len(failing)}." in summary
    assert all(r.classification is None for r in results(report).records if r.outcome == "pass")


def test_check_names_the_brevity_penalty_applied_twice_as_the_runs_cause(tmp_path):
    """A fake whose brevity penalty is squared where c < r (tests/fakes/mutant_bp_applied_twice.py, BP^2 returned as
    its BP and in its score): every failing record is short (c < r; elsewhere BP = 1 = 1^2), and each is named by
    the variant, the run by it alone."""
    report = tmp_path / "report"
    assert check(report, fake("mutant_bp_applied_twice"), examples=40) == 1
    failing = [r for r in deviations(report) if r.classification is not None and r.classification.name]
    assert failing
    assert all(r.classification.name == "brevity-penalty-applied-twice" for r in failing), \
        {r.classification.name for r in failing}
    assert f"By root cause: brevity-penalty-applied-twice x{len(failing)}." in (report / "summary.md").read_text()


def test_what_is_known_names_the_stage_without_a_search():
    """`what_is_known` (a record whose run cut its search, `session.search_among_all`): the same partial name the
    full search ends with for the other-weights answer above (test_the_right_statistics_and_other_weights), from
    the numbers alone; nothing for a right score."""
    from oracle.diagnose.classify import what_is_known

    other_weights = {"score": P1 ** 0.9 * P2 ** 0.1, "statistics": {"hyp_len": 5, "ref_len": 5, "matches": [4, 3],
                                                                      "totals": [5, 4]}}
    even = request("corpus", [("a b c d e", ["a b c d f"])], (W1, W2))
    assert what_is_known(even, other_weights, "papineni").name == "other-weighting-of-precisions"
    right = {"score": BP * P1 ** W1 * P2 ** W2, "statistics": RIGHT_STATISTICS}
    assert what_is_known(SKEWED, right, "papineni").name == UNEXPLAINED


def test_an_answer_below_the_right_mean_alone_names_no_brevity_penalty():
    # SHORT under (3/4, 1/4): BP = e^-1/5 = 0.8187, the mean 0.7872, the score 0.6445. The answer 0.5 x p2 = 0.375:
    # answer / BP = 0.458 lies below p2 = 3/4 (no weights give it), and answer / the mean = 0.476 is in (0, 1], as
    # is every answer between 0 and the mean: "another brevity penalty" alone is no evidence, so nothing is named
    e = classify(SKEWED, {"score": 0.5 * P2, "statistics": RIGHT_STATISTICS}, "papineni")
    assert e.name == OTHER_COMBINATION and e.fits == ()
    assert "a brevity penalty in (0, 1] other than BP" in e.description


def test_what_is_known_of_a_zero_keeps_the_variants_that_give_zero():
    # "a b" against "a b c", BLEU-1: c = 2, r = 3, p1 = 2/2, BP = e^(1 - 3/2): the score is e^-0.5 = 0.607. An answer
    # of 0 with these very statistics: no power of ten, one precision (no interval), no penalty of 0; the order fixed
    # at 4 gives 0 (no trigram in two tokens: p3 = 0), so it stays among the fits. (what_is_known charges the
    # variants as a search does: it ran out of a budget of 0 before, an internal error of the whole run.)
    from oracle.diagnose.classify import what_is_known

    short = request("corpus", [("a b", ["a b c"])], (1.0,))
    zero = {"score": 0.0, "statistics": {"hyp_len": 2, "ref_len": 3, "matches": [2], "totals": [2]}}
    e = what_is_known(short, zero, "papineni")
    assert e.name == OTHER_COMBINATION and "order-fixed-at-4" in e.fits


def test_a_batch_size_names_a_run_only_where_two_records_fit_it():
    # the batch size is not known and ten are tried: one record one size fits is no evidence of that size
    four = batch_mean_name(4)
    assert [c.name for c in minimal_cover({((four,),): 1})] == [COVER_UNEXPLAINED]
    assert [(c.name, c.records) for c in minimal_cover({((four,),): 2})] == [(four, 2)]
    # a record the size fits beside another name keeps that name
    assert [c.name for c in minimal_cover({((OTHER_COMBINATION,), (four,)): 1})] == [OTHER_COMBINATION]


def test_a_score_that_agrees_beside_statistics_that_differ_is_named_by_the_layer():
    # "a b" against itself, BLEU-1: c = r = 2, m/l = 2/2, score 1. An answer of 1 with c = r = 5, m/l = 5/5: the score
    # agrees, the counts differ first at hyp_len (5 for 2) and no known counting gives 5 from "a b": what is known
    # is the layer, never a bare `unexplained`; it is a partial name (no value replayed from it)
    scored = request("sentence", [("a b", ["a b"])], (1.0,))
    statistics = {"hyp_len": 5, "ref_len": 5, "matches": [5], "totals": [5]}
    e = classify(scored, {"score": 1.0, "statistics": statistics}, "papineni")
    assert e.name == "other-counting-of-hyp_len", (e.name, e.description)
    assert "the score agrees" in e.description and e.explained


def test_statistics_a_structure_gives_and_a_score_that_does_not_follow_name_the_structure():
    # ("ab", "c") against ("ab", "d"), BLEU-1: the oracle counts c = r = 2, m1 = 1 ("ab") of 2. Read as characters
    # ("ab c" and "ab d", spaces included): c = r = 4, m1 = 3 (a, b and the space) of 4, as returned. The score those
    # give is 3/4, not the 0.95 answered (above p1 and above the mean: no stage), so nothing fits; what is known is
    # the shape the statistics are counted in (text-read-as-characters), not only the first diverging layer
    # (other-counting-of-hyp_len, its name before), and the score stage after it
    scored = request("sentence", [("ab c", ["ab d"])], (1.0,))
    statistics = {"hyp_len": 4, "ref_len": 4, "matches": [3], "totals": [4]}
    e = classify(scored, {"score": 0.95, "statistics": statistics}, "papineni")
    assert e.name == f"text-read-as-characters + {OTHER_COMBINATION}", (e.name, e.description)
    assert "as text-read-as-characters shapes it" in e.description and e.value is None
    # c = r = 4, m1 = 2 of 4 is every count of the oracle's doubled: the segment given twice (a corpus padded to 2)
    # as much as any count doubled by another mistake, so no shape is read from it and the layer names it
    doubled = classify(scored, {"score": 0.95, "statistics": {**statistics, "matches": [2]}}, "papineni")
    assert doubled.name == f"other-counting-of-hyp_len + {OTHER_COMBINATION}", (doubled.name, doubled.description)


def test_a_structure_read_from_one_records_counts_keeps_the_layers_reading_among_its_fits():
    # the same record as above: ("ab", "c") against ("ab", "d") read as characters gives c = r = 4, m1 = 3 of 4 as
    # returned, and no stage gives 0.95 from them. What the counts say without the shape, their first diverging layer
    # (hyp_len: 4 where the oracle counts 2) with the same stage, is true of these numbers as well, and fits it too
    scored = request("sentence", [("ab c", ["ab d"])], (1.0,))
    statistics = {"hyp_len": 4, "ref_len": 4, "matches": [3], "totals": [4]}
    e = classify(scored, {"score": 0.95, "statistics": statistics}, "papineni")
    assert e.name == f"text-read-as-characters + {OTHER_COMBINATION}", (e.name, e.description)
    assert f"other-counting-of-hyp_len + {OTHER_COMBINATION}" in e.fits, e.fits


def test_a_structure_read_as_what_is_known_names_a_run_only_where_two_records_fit_it():
    # one record's counts can equal a shape the search computed by chance (issue 36: never a coincidental fit on one
    # record): `<structure> + <stage>` needs a pattern across records, as a state or float32 does, and a record it
    # alone fits is named by its layer's reading, which fits it as well
    shaped = ("text-read-as-characters", OTHER_COMBINATION)  # (each cause as its parts)
    layered = ("other-counting-of-hyp_len", OTHER_COMBINATION)
    assert mechanisms.needs_evidence(shaped) and not mechanisms.needs_evidence(layered)
    assert not mechanisms.needs_evidence(("text-read-as-characters",))
    assert [(c.parts, c.records) for c in minimal_cover({(shaped, layered): 1, (("strict-clipping",),): 3})] == [
        (("strict-clipping",), 3), (layered, 1)]
    assert [(c.parts, c.records) for c in minimal_cover({(shaped, layered): 2})] == [(shaped, 2)]
