"""The stage variants docs/stages.md's matrix found missing and added (issue 36, stage-coverage): each variant's
prediction on a hand-derived example (the derivation in the comments, never the oracle's output pasted back), and a
fake with the variant planted (tests/fakes/plantedbleu.py) named by it.

The score stage's cells filled later (matrix-cells): each variant's value on a hand-derived example, called directly
and through the classifier, and a fake with each planted (its run's main cause).

Holds: oracle.diagnose.counting, oracle.diagnose.mechanisms.counting, oracle.diagnose.mechanisms.combination,
    oracle.diagnose.classify

(oracle.diagnose.classify for the lengths stage's readings and the length-and-clipping pair.)
"""

from __future__ import annotations

import math

import pytest
from fakes.harness import check, deviations, fake

from oracle.adapters.base import ScoreAnswer
from oracle.diagnose.classify import classify
from oracle.diagnose.computations import context_for, result_under
from oracle.diagnose.counting import distinct_ngram_counts, equal_direction_matches, last_ngram_dropped_counts
from oracle.diagnose.cover import minimal_cover
from oracle.diagnose.mechanisms.combination import MATRIX_VARIANTS
from oracle.formulas.profiles import get_profile
from oracle.models.protocol import ScoreRequest, Segment


def _request(hypothesis, references, weights):
    segment = Segment(hypothesis=tuple(hypothesis.split()), references=tuple(tuple(r.split()) for r in references))
    return ScoreRequest(seq=0, level="sentence", segments=(segment,), weights=tuple(weights),
                        smoothing={"method": "none"}, lowercase=False)


# -- n-gram extraction, an index off by one: last-ngram-dropped ---------------------------------------------------

# 'a b a b' against 'a b a', orders 1 and 2. By hand:
#   the formulas: unigrams a:2 b:2 against a:2 b:1 -> 2 + 1 = 3 of 4; bigrams ab:2 ba:1 against ab:1 ba:1 -> 1 + 1
#     = 2 of 3;
#   the extractor looping range(len - n): the hypothesis's unigrams are a, b, a (its last 'b' dropped: a:2 b:1), the
#     reference's a, b (a:1 b:1) -> min(2, 1) + min(1, 1) = 2 of 3; bigrams ab, ba against ab -> 1 of 2.
#   c = 4 > r = 3: BP = 1, so the score is (2/3 x 1/2)^(1/2) = sqrt(1/3).
ONE_SHORT = _request("a b a b", ["a b a"], (0.5, 0.5))
ONE_SHORT_STATISTICS = {"hyp_len": 4, "ref_len": 3, "matches": [2, 1], "totals": [3, 2]}


def test_last_ngram_dropped_counts_each_sequence_without_its_last_ngram():
    counted = last_ngram_dropped_counts(ONE_SHORT.segments, 2, get_profile("papineni").options)
    assert counted == {"matches": (2, 1), "totals": (3, 2)}


def test_returned_counts_of_an_extractor_one_short_are_named_by_it():
    found = classify(ONE_SHORT, ScoreAnswer(math.sqrt(1 / 3), ONE_SHORT_STATISTICS), "papineni")
    assert found.name == "last-ngram-dropped"


def test_totals_one_short_with_every_match_kept_stays_totals_one_short():
    # 'a a' against 'a' and 'a b', order 1: the formulas count 1 clipped match of 2. An extractor one short keeps the
    # hypothesis's first 'a' and the second reference's 'a': still 1 match, of 1. The matches are the formulas': the
    # counts say only that the totals are one short, which `totals-one-short` names (tests/diagnose/test_classify.py).
    request = _request("a a", ["a", "a b"], (1.0,))
    found = classify(request, ScoreAnswer(1.0, {"hyp_len": 2, "ref_len": 2, "matches": [1], "totals": [1]}),
                     "papineni")
    assert found.name == "totals-one-short" and "last-ngram-dropped" not in found.fits


def test_a_planted_extractor_one_short_is_the_runs_main_cause(tmp_path):
    """tests/fakes/plantedbleu.py's ngram-loop-one-short (SmoothNLP #26, explosion/thinc #512, cited at its switch):
    the run's main cause is last-ngram-dropped; a record whose dropped n-grams matched nothing keeps the formulas'
    matches, and only its totals say anything: totals-one-short (the same counts)."""
    report = tmp_path / "report"
    assert check(report, fake("plantedbleu", "ngram-loop-one-short"), examples=40) == 1
    named = {r.classification.name for r in deviations(report) if r.classification is not None and r.outcome == "fail"}
    assert "last-ngram-dropped" in named and named <= {"last-ngram-dropped", "totals-one-short"}
    summary = (report / "summary.md").read_text()
    line = next(text for text in summary.splitlines() if text.startswith("By root cause: "))
    assert line.startswith("By root cause: last-ngram-dropped x")


# -- clipping and totals, a constant for a parameter (each distinct n-gram counted once): ngrams-counted-as-sets -----

# 'a a b' against 'a b b', orders 1 and 2. By hand:
#   the formulas: unigrams a:2 b:1 against a:1 b:2 -> min(2, 1) + min(1, 2) = 2 of 3; bigrams 'a a', 'a b' against
#     'a b', 'b b' -> 1 of 2;
#   as sets: unigrams {a, b}, both in the reference -> 2 of 2; bigrams {a a, a b}, 'a b' in the reference -> 1 of 2;
#   c = r = 3: BP = 1, so the score is (2/2 x 1/2)^(1/2) = sqrt(1/2).
AS_SETS = _request("a a b", ["a b b"], (0.5, 0.5))
AS_SETS_STATISTICS = {"hyp_len": 3, "ref_len": 3, "matches": [2, 1], "totals": [2, 2]}


def test_distinct_ngram_counts_count_each_distinct_ngram_once():
    counted = distinct_ngram_counts(AS_SETS.segments, 2, get_profile("papineni").options)
    assert counted == {"matches": (2, 1), "totals": (2, 2)}


def test_distinct_ngram_counts_change_nothing_without_a_repeated_ngram():
    # 'a b' against 'a b': no n-gram repeats, so the sets are the counts
    assert distinct_ngram_counts(_request("a b", ["a b"], (1.0,)).segments, 2, get_profile("papineni").options) is None


def test_returned_counts_of_ngram_sets_are_named_by_it():
    found = classify(AS_SETS, ScoreAnswer(math.sqrt(1 / 2), AS_SETS_STATISTICS), "papineni")
    assert found.name == "ngrams-counted-as-sets"


def test_a_planted_set_counting_is_the_runs_main_cause(tmp_path):
    """tests/fakes/plantedbleu.py's ngrams-as-sets (louissmit/SSLP, cited at its switch): the run's main cause is
    ngrams-counted-as-sets."""
    report = tmp_path / "report"
    assert check(report, fake("plantedbleu", "ngrams-as-sets"), examples=40) == 1
    summary = (report / "summary.md").read_text()
    line = next(text for text in summary.splitlines() if text.startswith("By root cause: "))
    assert line.startswith("By root cause: ngrams-counted-as-sets x")


# -- the score stage's cells (matrix-cells): each variant on hand-derived numbers ---------------------------------

def _corpus(pairs, weights):
    segments = tuple(Segment(hypothesis=tuple(h.split()), references=tuple(tuple(r.split()) for r in refs))
                     for h, refs in pairs)
    return ScoreRequest(seq=0, level="corpus", segments=segments, weights=tuple(weights),
                        smoothing={"method": "none"}, lowercase=False)


# 'a b c d e' (c = 5) against 'a b c d f g' (r = 6). By hand: unigrams a b c d match, 4 of 5; bigrams ab bc cd, 3 of
# 4; trigrams abc bcd, 2 of 3. c < r: BP = e^(1 - 6/5) = e^(-1/5). Under (1/2, 1/2) the formulas give
# e^(-1/5) x sqrt(4/5 x 3/4) = e^(-1/5) x sqrt(3/5) = 0.8187307531 x 0.7745966692 = 0.6341...
SHORT_BP = math.exp(-1 / 5)
SHORT2 = _request("a b c d e", ["a b c d f g"], (0.5, 0.5))
SHORT2_STATISTICS = {"hyp_len": 5, "ref_len": 6, "matches": [4, 3], "totals": [5, 4]}
SHORT3 = _request("a b c d e", ["a b c d f g"], (1 / 3, 1 / 3, 1 / 3))
SHORT3_STATISTICS = {"hyp_len": 5, "ref_len": 6, "matches": [4, 3, 2], "totals": [5, 4, 3]}
SHORT_FULL = _request("a b c", ["a b c d"], (0.5, 0.5))
SHORT_FULL_STATISTICS = {"hyp_len": 3, "ref_len": 4, "matches": [3, 2], "totals": [3, 2]}
# Two segments: 'a b c d e' against 'a b c d f g' as above (c 5, r 6; 4/5, 3/4) and 'a b' against 'a b' (c 2, r 2;
# 2/2, 1/1). Summed: c = 7, r = 8, matches 6 and 4 of 7 and 5; BP = e^(1 - 8/7) = e^(-1/7).
TWO = _corpus([("a b c d e", ["a b c d f g"]), ("a b", ["a b"])], (0.5, 0.5))
TWO_STATISTICS = {"hyp_len": 7, "ref_len": 8, "matches": [6, 4], "totals": [7, 5]}
# 'a b c d e' against 'a b c d f g' (SHORT3's counts: 4/5, 3/4, 2/3; BP e^(-1/5)) under weights (3/10, 1/2, 1/5), none
# equal, the first and last not the largest (so that no cut of small weights leaves one of them alone, and no shift
# of the weights gives the same number): the mean's terms are (3/10) ln(4/5), (1/2) ln(3/4), (1/5) ln(2/3)
# (combination-kinds)
UNEVEN3 = _request("a b c d e", ["a b c d f g"], (0.3, 0.5, 0.2))

MATRIX_EXAMPLES = [
    # (variant, request, its statistics, the answer derived by hand)
    # three orders summed, divided by 4 (not 3): e^(-1/5) x (4/5 + 3/4 + 2/3) / 4 = e^(-1/5) x (133/60) / 4
    ("individual-bleu-scores-averaged-over-four", SHORT3, SHORT3_STATISTICS, SHORT_BP * 133 / 240),
    # the log of the product of the two precisions divided by 4, not 2 (each weight 1/2 scaled by 2/4 to 1/4):
    # e^(-1/5) x (4/5 x 3/4)^(1/4) = e^(-1/5) x (3/5)^(1/4) = 0.8187... x 0.8801... = 0.7205...
    ("geometric-mean-root-fixed-at-4", SHORT2, SHORT2_STATISTICS, SHORT_BP * (3 / 5) ** 0.25),
    # every denominator c = 5: p_1 = 4/5, p_2 = 3/5, so e^(-1/5) x sqrt(12/25)
    ("precisions-over-hypothesis-length", SHORT2, SHORT2_STATISTICS, SHORT_BP * math.sqrt(12 / 25)),
    # p_n = m_n: e^(-1/5) x sqrt(4 x 3) = e^(-1/5) x sqrt(12), above 1
    ("matches-as-precisions", SHORT2, SHORT2_STATISTICS, SHORT_BP * math.sqrt(12)),
    # 'a b c' against 'a b c d': every n-gram matches (3 of 3, 2 of 2), c = 3 < r = 4, so the right score is
    # BP = e^(1 - 4/3) = e^(-1/3) = 0.71653...: truncated to a whole percent 0.71 (rounding would give 0.72); on the
    # 0-100 scale as an integer 71 (not 72)
    ("score-truncated-to-whole-percent", SHORT_FULL, SHORT_FULL_STATISTICS, 0.71),
    ("percent-scale-truncated-to-an-integer", SHORT_FULL, SHORT_FULL_STATISTICS, 71.0),
    # per order the segments' precisions averaged: (4/5 + 2/2) / 2 = 9/10, (3/4 + 1/1) / 2 = 7/8; BP e^(-1/7) from
    # the summed lengths: e^(-1/7) x sqrt(9/10 x 7/8) = e^(-1/7) x sqrt(63/80)
    ("precisions-averaged-over-segments", TWO, TWO_STATISTICS, math.exp(-1 / 7) * math.sqrt(63 / 80)),
    # the segments' own penalties e^(-1/5) and 1 (c = r) averaged, times the corpus's sqrt(6/7 x 4/5) = sqrt(24/35)
    ("brevity-penalty-averaged-over-segments", TWO, TWO_STATISTICS, (SHORT_BP + 1) / 2 * math.sqrt(24 / 35)),
    # the three terms averaged, not summed: exp(((3/10) ln(4/5) + (1/2) ln(3/4) + (1/5) ln(2/3)) / 3) =
    # (4/5)^(1/10) x (3/4)^(1/6) x (2/3)^(1/15), times e^(-1/5)
    ("weighted-log-terms-averaged", UNEVEN3, SHORT3_STATISTICS,
     SHORT_BP * (4 / 5) ** (1 / 10) * (3 / 4) ** (1 / 6) * (2 / 3) ** (1 / 15)),
    # the first term alone: exp((3/10) ln(4/5)) = (4/5)^(3/10), times e^(-1/5) (unigram-precision-only: e^(-1/5) x 4/5)
    ("first-weighted-term-only", UNEVEN3, SHORT3_STATISTICS, SHORT_BP * (4 / 5) ** (3 / 10)),
    # the last term alone: exp((1/5) ln(2/3)) = (2/3)^(1/5), times e^(-1/5) (highest-order-precision-only: x 2/3)
    ("last-weighted-term-only", UNEVEN3, SHORT3_STATISTICS, SHORT_BP * (2 / 3) ** (1 / 5)),
]


#: The matrix variants an earlier name or the zero rule names first, each tested on its own below (stage-variants).
NAMED_FIRST_ELSEWHERE = {"precisions-integer-division", "brevity-penalty-at-least-one", "brevity-penalty-alone"}


def test_every_matrix_variant_has_a_hand_derived_example():
    assert {name for name, *_ in MATRIX_EXAMPLES} | NAMED_FIRST_ELSEWHERE == {name for name, _ in MATRIX_VARIANTS}


@pytest.mark.parametrize(("name", "request_", "statistics", "answer"), MATRIX_EXAMPLES,
                         ids=[name for name, *_ in MATRIX_EXAMPLES])
def test_a_matrix_variant_computes_its_hand_derived_answer(name, request_, statistics, answer):
    ctx = context_for(request_, "papineni", None)
    assert math.isclose(dict(MATRIX_VARIANTS)[name](ctx, result_under(ctx)), answer, rel_tol=1e-12)


@pytest.mark.parametrize(("name", "request_", "statistics", "answer"), MATRIX_EXAMPLES,
                         ids=[name for name, *_ in MATRIX_EXAMPLES])
def test_the_classifier_names_a_matrix_variants_answer(name, request_, statistics, answer):
    # the statistics are the formulas' (hand-derived above), so only the score stage can differ
    assert classify(request_, ScoreAnswer(answer, statistics), "papineni").name == name


def test_the_mean_over_four_is_the_arithmetic_mean_where_four_orders_are_in_force():
    # four orders: (p_1 + ... + p_4) / 4 is the arithmetic mean, an earlier variant's name; p_4 = abcd, 1 of 2:
    # e^(-1/5) x (4/5 + 3/4 + 2/3 + 1/2) / 4 = e^(-1/5) x (163/60) / 4
    four = _request("a b c d e", ["a b c d f g"], (0.25,) * 4)
    statistics = {"hyp_len": 5, "ref_len": 6, "matches": [4, 3, 2, 1], "totals": [5, 4, 3, 2]}
    ctx = context_for(four, "papineni", None)
    assert dict(MATRIX_VARIANTS)["individual-bleu-scores-averaged-over-four"](ctx, result_under(ctx)) is None
    found = classify(four, ScoreAnswer(SHORT_BP * 163 / 240, statistics), "papineni")
    assert found.name == "arithmetic-mean-of-precisions"


def test_the_root_fixed_at_4_of_one_order_is_the_fourth_root_of_its_precision():
    # BLEU-1, 'a b c d e' against 'a b c d f g': p_1 = 4/5, BP e^(-1/5); log(p_1) / 4: e^(-1/5) x (4/5)^(1/4)
    one = _request("a b c d e", ["a b c d f g"], (1.0,))
    statistics = {"hyp_len": 5, "ref_len": 6, "matches": [4], "totals": [5]}
    answer = SHORT_BP * (4 / 5) ** 0.25
    ctx = context_for(one, "papineni", None)
    assert math.isclose(dict(MATRIX_VARIANTS)["geometric-mean-root-fixed-at-4"](ctx, result_under(ctx)), answer,
                        rel_tol=1e-12)
    assert classify(one, ScoreAnswer(answer, statistics), "papineni").name == "geometric-mean-root-fixed-at-4"


def test_the_root_fixed_at_4_is_invisible_where_four_orders_are_sent():
    # four orders: log(p_1 ... p_4) / 4 is the right mean, so the variant gives nothing to tell apart (None), and an
    # answer that is wrong otherwise is never given its name: the arithmetic mean of the same four precisions (as in
    # the test of the mean over four above), e^(-1/5) x (163/60) / 4, is `arithmetic-mean-of-precisions`
    four = _request("a b c d e", ["a b c d f g"], (0.25,) * 4)
    statistics = {"hyp_len": 5, "ref_len": 6, "matches": [4, 3, 2, 1], "totals": [5, 4, 3, 2]}
    ctx = context_for(four, "papineni", None)
    assert dict(MATRIX_VARIANTS)["geometric-mean-root-fixed-at-4"](ctx, result_under(ctx)) is None
    found = classify(four, ScoreAnswer(SHORT_BP * 163 / 240, statistics), "papineni")
    assert "geometric-mean-root-fixed-at-4" not in (found.name, *found.fits)


def test_a_score_already_a_whole_percent_is_not_truncated():
    # 'a b' against 'a b', one order: the formulas give 1, a whole percent: truncating it on the 0-1 scale gives the
    # right answer, so that variant does not apply (a variant never fits a correct answer); on the 0-100 scale it is
    # 100, another scale
    exact = _request("a b", ["a b"], (1.0,))
    ctx = context_for(exact, "papineni", None)
    variants = dict(MATRIX_VARIANTS)
    assert variants["score-truncated-to-whole-percent"](ctx, result_under(ctx)) is None
    assert variants["percent-scale-truncated-to-an-integer"](ctx, result_under(ctx)) == 100.0


def test_uniform_weights_in_integers_are_the_cut_above_every_weight():
    # 1 // 2 = 0 for both weights: the score is BP alone, e^(-1/5); the classifier's earlier name for it is the cut
    # of every weight (no separate variant: docs/stages.md, stage 9)
    found = classify(SHORT2, ScoreAnswer(SHORT_BP, SHORT2_STATISTICS), "papineni")
    assert found.name == "small-weights-taken-as-zero"


#: Each plant of tests/fakes/plantedbleu.py's score-stage section, with the name its run's main cause should have.
PLANTED_MATRIX = [
    ("avg-bleu-over-four", "individual-bleu-scores-averaged-over-four"),
    ("weights-int-division", "small-weights-taken-as-zero"),
    ("truncate-percent", "score-truncated-to-whole-percent"),
    ("percent-int", "percent-scale-truncated-to-an-integer"),
    ("precision-over-c", "precisions-over-hypothesis-length"),
    ("precision-no-denominator", "matches-as-precisions"),
    ("macro-precision", "precisions-averaged-over-segments"),
    ("segment-bp-mean", "brevity-penalty-averaged-over-segments"),
]


def test_a_macro_precision_of_one_order_is_left_to_the_mean_of_sentence_scores():
    # one order: the segments' precisions 4/5 and 2/2 averaged, 9/10, times the corpus's BP; where every segment's BP
    # is 1 that is the mean of the sentence scores, an earlier name, so the variant needs two orders in force
    one = _corpus([("a b c d e", ["a b c d f g"]), ("a b", ["a b"])], (1.0,))
    ctx = context_for(one, "papineni", None)
    assert dict(MATRIX_VARIANTS)["precisions-averaged-over-segments"](ctx, result_under(ctx)) is None


# -- the counting stages' cells (stage-variants): the lengths c and r, a pair across stages, the score stage's integer
# division and its clamp at 1, each on hand-derived numbers --------------------------------------------------------

def _segments(pairs):
    return tuple(Segment(hypothesis=tuple(h.split()), references=tuple(tuple(r.split()) for r in refs))
                 for h, refs in pairs)


# Two segments, orders 1 and 2. By hand:
#   'a bb c' (3 tokens; the line 'a bb c' is 6 characters) against 'a bb' (2; 4 characters) and 'a bb c d' (4; 8);
#   'a a' (2; 3 characters) against 'a' (1; 1) and 'a b c' (3; 5).
#   The formulas: closest to 3 of 2 and 4 is a tie, the shorter 2; closest to 2 of 1 and 3 a tie, 1: c = 5, r = 3.
#   Unigrams: a, bb, c all in the first segment's second reference (3); 'a a' against at most one 'a' (1): 4 of 5.
#   Bigrams: 'a bb', 'bb c' (2); 'a a' (0): 2 of 3.
#   In characters: c = 6 + 3 = 9; closest to 6 of 4 and 8 is a tie, 4; closest to 3 of 1 and 5 a tie, 1: r = 5.
#   c alone in characters: 9, r the formulas' 3. r alone in characters, against c in tokens: closest to 3 of 4 and 8
#     is 4; closest to 2 of 1 and 5 is 1: r = 5.
#   Against the running hypothesis length: 3 (the first segment's own: 2), then 3 + 2 = 5 (of 1 and 3: 3): r = 5.
#   The first references: 2 + 1 = 3; the last: 4 + 3 = 7.
LENGTHS = _segments([("a bb c", ["a bb", "a bb c d"]), ("a a", ["a", "a b c"])])
LENGTH_READING_COUNTS = [
    ("lengths-counted-in-characters", {"hyp_len": 9, "ref_len": 5}),
    ("hypothesis-length-counted-in-characters", {"hyp_len": 9}),
    ("reference-length-counted-in-characters", {"ref_len": 5}),
    ("closest-reference-to-running-hypothesis-length", {"ref_len": 5}),
    ("reference-length-of-first-reference", {"ref_len": 3}),
    ("reference-length-of-last-reference", {"ref_len": 7}),
]


def test_every_length_reading_has_a_hand_derived_example():
    from oracle.diagnose.mechanisms.counting import LENGTH_READINGS
    assert {name for name, _ in LENGTH_READING_COUNTS} == set(LENGTH_READINGS)


@pytest.mark.parametrize(("name", "counts"), LENGTH_READING_COUNTS, ids=[name for name, _ in LENGTH_READING_COUNTS])
def test_a_length_reading_counts_its_hand_derived_lengths(name, counts):
    from oracle.diagnose.mechanisms.counting import LENGTH_READINGS
    assert LENGTH_READINGS[name][2](LENGTHS, 2, get_profile("papineni").options) == counts


def test_lengths_in_characters_are_named_from_the_returned_statistics():
    # c = 9 > r = 5: BP 1, as the formulas' c = 5 > r = 3; the score is sqrt(4/5 x 2/3) = sqrt(8/15) either way, and
    # the returned lengths alone say what differs
    request = ScoreRequest(seq=0, level="corpus", segments=LENGTHS, weights=(0.5, 0.5), smoothing={"method": "none"},
                           lowercase=False)
    statistics = {"hyp_len": 9, "ref_len": 5, "matches": [4, 2], "totals": [5, 3]}
    assert classify(request, ScoreAnswer(math.sqrt(8 / 15), statistics), "papineni").name == \
        "lengths-counted-in-characters"


def test_a_reference_length_of_one_reference_with_one_reference_changes_nothing():
    from oracle.diagnose.mechanisms.counting import LENGTH_READINGS
    single = _segments([("a b", ["a b c"]), ("c", ["c d"])])
    options = get_profile("papineni").options
    for name in ("reference-length-of-first-reference", "reference-length-of-last-reference",
                 "closest-reference-to-running-hypothesis-length"):
        assert LENGTH_READINGS[name][2](single, 2, options) is None


# A length reading and a clipping at once, orders 1 and 2. 'a a a b' (c = 4) against 'a b c d e' (5), 'x y z w' (4),
# 'a' (1) and 'q q q q q q q' (7): the first reference is neither the closest (4), the shortest (1) nor the longest (7).
#   The formulas: r = 4; unigrams a (3, at most 1 in any one reference) and b (1): 1 + 1 = 2 of 4; bigrams 'a a' x2,
#     'a b' (in the first reference): 1 of 3; c = r: BP 1, score sqrt(2/4 x 1/3) = sqrt(1/6).
#   r the first reference's, 5, and the references' n-grams pooled (a: 1 + 1 = 2, b: 1): min(3, 2) + 1 = 3 of 4;
#     bigrams 'a b' once: 1 of 3. BP e^(1 - 5/4) = e^(-1/4); score e^(-1/4) x sqrt(3/4 x 1/3) = e^(-1/4) / 2.
#   Unclipped matches would be 3 + 1 = 4, the best single reference's 2: only the pooled clipping gives 3.
PAIRED = ScoreRequest(seq=0, level="sentence",
                      segments=_segments([("a a a b", ["a b c d e", "x y z w", "a", "q q q q q q q"])]),
                      weights=(0.5, 0.5), smoothing={"method": "none"}, lowercase=False)
PAIRED_STATISTICS = {"hyp_len": 4, "ref_len": 5, "matches": [3, 1], "totals": [4, 3]}


def test_a_length_reading_and_a_clipping_are_named_together():
    from oracle.diagnose.classify import explained_value
    found = classify(PAIRED, ScoreAnswer(math.exp(-1 / 4) / 2, PAIRED_STATISTICS), "papineni")
    assert found.name == "reference-length-of-first-reference + clipped-to-reference-sum"
    assert math.isclose(explained_value(PAIRED, "papineni", found.change), math.exp(-1 / 4) / 2, rel_tol=1e-12)


def test_neither_half_of_the_pair_names_it_alone():
    # the lengths right (r = 4) and the pooled matches: clipped-to-reference-sum alone, no pair
    found = classify(PAIRED, ScoreAnswer(math.sqrt(3 / 4 * 1 / 3),
                                         {**PAIRED_STATISTICS, "ref_len": 4}), "papineni")
    assert found.name == "clipped-to-reference-sum"


# The score stage. 'a b c' against 'c a b', orders 1 and 2: unigrams 3 of 3, bigrams 'a b' of 'a b', 'b c': 1 of 2;
# c = r = 3, BP 1, the formulas' sqrt(1 x 1/2). In integers 3 // 3 = 1 and 1 // 2 = 0: the score 0.
INT_DIVISION = _request("a b c", ["c a b"], (0.5, 0.5))
INT_DIVISION_STATISTICS = {"hyp_len": 3, "ref_len": 3, "matches": [3, 1], "totals": [3, 2]}


def test_integer_division_of_the_precisions_gives_its_hand_derived_zero():
    ctx = context_for(INT_DIVISION, "papineni", None)
    assert dict(MATRIX_VARIANTS)["precisions-integer-division"](ctx, result_under(ctx)) == 0.0


def test_integer_division_with_a_hypothesis_shorter_than_its_reference_has_no_score():
    # 'a b' against 'a b c': c // r = 0, whose 1 / ratio raises: an error, not a score
    short = _request("a b", ["a b c"], (0.5, 0.5))
    ctx = context_for(short, "papineni", None)
    assert dict(MATRIX_VARIANTS)["precisions-integer-division"](ctx, result_under(ctx)) is None


def test_an_integer_divisions_zero_stays_among_the_fits():
    # a 0 names no variant by itself: the record is named by what is known, the variant among its fits
    found = classify(INT_DIVISION, ScoreAnswer(0.0, INT_DIVISION_STATISTICS), "papineni")
    assert found.name != "precisions-integer-division" and "precisions-integer-division" in found.fits


# max(1, e^(1 - r/c)): 'a b c d e' against 'a b c' (c = 5 > r = 3), one order: unigrams 3 of 5; the formulas' BP 1,
# score 3/5; the clamp taken as a max: e^(1 - 3/5) = e^(2/5) x 3/5. And 'a b c' against 'a b c d e' (c = 3 < r = 5):
# the formulas' e^(1 - 5/3) = e^(-2/3) x 1; the max's 1.
def test_the_brevity_penalty_at_least_one_computes_its_hand_derived_answers():
    variant = dict(MATRIX_VARIANTS)["brevity-penalty-at-least-one"]
    long = _request("a b c d e", ["a b c"], (1.0,))
    ctx = context_for(long, "papineni", None)
    assert math.isclose(variant(ctx, result_under(ctx)), math.exp(2 / 5) * 3 / 5, rel_tol=1e-12)
    short = _request("a b c", ["a b c d e"], (1.0,))
    ctx = context_for(short, "papineni", None)
    assert math.isclose(variant(ctx, result_under(ctx)), 1.0, rel_tol=1e-12)


def test_each_half_of_the_clamp_keeps_its_earlier_name_and_lists_the_variant():
    long = _request("a b c d e", ["a b c"], (1.0,))
    found = classify(long, ScoreAnswer(math.exp(2 / 5) * 3 / 5, {"hyp_len": 5, "ref_len": 3, "matches": [3],
                                                                 "totals": [5]}), "papineni")
    assert found.name == "brevity-penalty-when-longer" and "brevity-penalty-at-least-one" in found.fits
    short = _request("a b c", ["a b c d e"], (1.0,))
    found = classify(short, ScoreAnswer(1.0, {"hyp_len": 3, "ref_len": 5, "matches": [3], "totals": [3]}),
                     "papineni")
    assert found.name == "no-brevity-penalty" and "brevity-penalty-at-least-one" in found.fits


#: Each plant of tests/fakes/plantedbleu.py's counting-stages section, with the name its run's main cause should have.
PLANTED_COUNTING = [
    ("lengths-in-characters", "lengths-counted-in-characters"),
    ("hyp-length-in-characters", "hypothesis-length-counted-in-characters"),
    ("ref-length-in-characters", "reference-length-counted-in-characters"),
    ("r-closest-to-running-c", "closest-reference-to-running-hypothesis-length"),
    ("r-first-reference", "reference-length-of-first-reference"),
    ("r-last-reference", "reference-length-of-last-reference"),
    ("r-first-reference-summed-clip", "reference-length-of-first-reference + clipped-to-reference-sum"),
    ("bp-at-least-one", "brevity-penalty-at-least-one"),
    ("precision-int-division", "precisions-integer-division"),
]

#: Every plant of both sections above, each run once below.
PLANTED = PLANTED_MATRIX + PLANTED_COUNTING


@pytest.mark.slow
@pytest.mark.parametrize(("bug", "name"), PLANTED, ids=[bug for bug, _ in PLANTED])
def test_a_planted_stage_variant_is_its_runs_main_cause(tmp_path, bug, name):
    """A whole `check` (40 examples) on each plant of the score stage's and the counting stages' sections: the run's
    main cause is the variant planted."""
    report = tmp_path / "report"
    assert check(report, fake("plantedbleu", bug), examples=40) == 1
    summary = (report / "summary.md").read_text()
    line = next(text for text in summary.splitlines() if text.startswith("By root cause: "))
    assert line.startswith(f"By root cause: {name} x")


def test_a_pair_of_two_stages_with_records_of_its_own_accounts_for_each_halfs_records():
    # one implementation with r from the first reference and the pooled clipping: 3 records show the length alone
    # (the pooled counts changed nothing there), 2 the clipping alone, 2 both. The pair has records of its own
    # (2 >= PATTERN_RECORDS), so it accounts for all 7; with one record of its own it is no evidence, and each half
    # keeps its records
    from oracle.diagnose.cover import minimal_cover
    length, clipping = ("reference-length-of-first-reference",), ("clipped-to-reference-sum",)
    pair = ("reference-length-of-first-reference", "clipped-to-reference-sum")
    assert [(c.parts, c.records) for c in minimal_cover({(length,): 3, (clipping,): 2, (pair,): 2})] == [(pair, 7)]
    assert [(c.parts, c.records) for c in minimal_cover({(length,): 3, (clipping,): 2, (pair,): 1})] == [
        (length, 3), (clipping, 2), (pair, 1)]
    # a convention with a clipping is no such pair: it accounts for its own records only
    convention = ("reference_length=shortest", "clipped-to-reference-sum")
    assert [(c.parts, c.records) for c in minimal_cover({(length,): 3, (convention,): 2})] == [
        (length, 3), (convention, 2)]


def test_a_length_reading_stays_among_the_fits_of_a_record_an_earlier_reading_names():
    # 'a b c' (c = 3) against 'a' (1) and 'a b c d' (4): the formulas' r is 4 (closest), BP e^(1 - 4/3); every n-gram
    # matches (3 of 3, 2 of 2). Returned r = 1, the first reference's and the shortest: BP 1, the score 1. The
    # convention `reference_length=shortest` names the record (an earlier reading); the first reference's length fits
    # it as well and stays among its fits, so that a run whose other records only it names accounts for this one
    request = _request("a b c", ["a", "a b c d"], (0.5, 0.5))
    found = classify(request, ScoreAnswer(1.0, {"hyp_len": 3, "ref_len": 1, "matches": [3, 2], "totals": [3, 2]}),
                     "papineni")
    assert found.name == "reference_length=shortest"
    assert "reference-length-of-first-reference" in found.fits


# -- n-gram comparison, an equality test that always holds at an order: unigrams-always-match,
# ngrams-equal-when-proportional (real-misses; coverage of real 30's cosine-ngram-equality, not generalisation) -------

# 'a a b' against 'c c d' and 'e', orders 1 and 2. By hand:
#   the formulas: no unigram or bigram in common: matches (0, 0) of (3, 2).
#   every unigram equal (CoNT's cosine test on one-element id vectors): the hypothesis's 3 unigrams are one key, the
#     longest reference holds 3 of it (the other 1): min(3, 3) = 3; bigrams by identity: 0 -> (3, 0).
#   and a constant n-gram equal to every constant n-gram of its order ((x, x) and (y, y) point the same way): 'a a'
#     against 'c c' -> 1; 'a b' against 'c d' stays unequal (ids proportional or not: the request does not say) ->
#     (3, 1).
#   c = 3 = r (the closest reference, 'c c d'): BP = 1, so under (1/2, 1/2) the score is (3/3 x 1/2)^(1/2) = sqrt(1/2).
DIRECTION = _request("a a b", ["c c d", "e"], (0.5, 0.5))


@pytest.mark.parametrize("constant, matches", [(False, (3, 0)), (True, (3, 1))])
def test_equal_direction_matches_every_unigram_and_with_constant_every_repeated_token(constant, matches):
    assert equal_direction_matches(DIRECTION.segments, 2, fold=None, constant=constant) == matches


def test_only_constant_ngrams_are_equal_whatever_the_ids():
    # 'a a b' against 'c c': unigrams min(3, 2) = 2; bigrams 'a a' against 'c c' -> 1, 'a b' has no equal -> (2, 1)
    segments = _request("a a b", ["c c"], (0.5, 0.5)).segments
    assert equal_direction_matches(segments, 2, fold=None, constant=True) == (2, 1)


def test_unigram_matches_are_clipped_to_each_segments_longest_reference():
    # two segments: 'a b c d' against 'x' and 'y z' -> min(4, 2) = 2; 'p' against 'q r s' -> min(1, 3) = 1: 3 in all
    two = ScoreRequest(seq=0, level="corpus", weights=(1.0,), smoothing={"method": "none"}, lowercase=False,
                       segments=(Segment(hypothesis=("a", "b", "c", "d"), references=(("x",), ("y", "z"))),
                                 Segment(hypothesis=("p",), references=(("q", "r", "s"),))))
    assert equal_direction_matches(two.segments, 1, fold=None, constant=False) == (3,)


def test_returned_counts_of_a_direction_test_are_named_by_it():
    statistics = {"hyp_len": 3, "ref_len": 3, "matches": [3, 1], "totals": [3, 2]}
    found = classify(DIRECTION, ScoreAnswer(math.sqrt(1 / 2), statistics), "papineni")
    assert found.name == "ngrams-equal-when-proportional"
    # 'a b' against 'c d e', BLEU-1: every unigram equal, min(2, 3) = 2 of 2 (the formulas: 0); c 2, r 3: BP e^-0.5.
    # No constant n-gram: the two variants give the same counts, and the narrower (tried first) names the record
    unigram = _request("a b", ["c d e"], (1.0,))
    found = classify(unigram, ScoreAnswer(math.exp(-0.5), {"hyp_len": 2, "ref_len": 3, "matches": [2], "totals": [2]}),
                     "papineni")
    assert (found.name, found.fits) == ("unigrams-always-match", ("ngrams-equal-when-proportional",))


def test_real_cosine_equality_is_the_runs_main_cause(tmp_path):
    """tests/fakes/realbleu.py's cosine-ngram-equality (Shark-NLP/CoNT issue 4, cited there), seen for sessions:
    the run's main cause is the direction test; records where the fake's ids (given by first appearance) made two
    non-constant n-grams proportional are read by what is known, never by the variant."""
    report = tmp_path / "report"
    assert check(report, fake("realbleu", "cosine-ngram-equality"), examples=40) == 1
    summary = (report / "summary.md").read_text()
    line = next(text for text in summary.splitlines() if text.startswith("By root cause: "))
    assert line.startswith("By root cause: ngrams-equal-when-proportional x")


#: 'a b c' against 'a b d e': c = 3 < r = 4, BP = e^(1 - 4/3) = e^(-1/3); p_1 = 2/3, p_2 = 1/2 (coincidences16)
BP_ONLY_BP = math.exp(-1 / 3)
BP_ONLY_ONE = _request("a b c", ["a b d e"], (1.0,))
BP_ONLY_ONE_STATISTICS = {"hyp_len": 3, "ref_len": 4, "matches": [2], "totals": [3]}
BP_ONLY_TWO = _request("a b c", ["a b d e"], (0.5, 0.5))
BP_ONLY_TWO_STATISTICS = {"hyp_len": 3, "ref_len": 4, "matches": [2, 1], "totals": [3, 2]}


def test_the_brevity_penalty_alone_is_the_penalty_whatever_the_precisions():
    for request_ in (BP_ONLY_ONE, BP_ONLY_TWO):
        ctx = context_for(request_, "papineni", None)
        assert math.isclose(dict(MATRIX_VARIANTS)["brevity-penalty-alone"](ctx, result_under(ctx)), BP_ONLY_BP,
                            rel_tol=1e-12)


def test_a_lone_weight_is_cut_by_no_small_weights_rule():
    # one weight of 1 sent, the answer BP alone: 1 // 1 = 1 cuts nothing, and no "negligible" cut drops the only
    # weight, so small-weights-taken-as-zero does not fit; the mean's term left out does (stage-mutants' class)
    found = classify(BP_ONLY_ONE, ScoreAnswer(BP_ONLY_BP, BP_ONLY_ONE_STATISTICS), "papineni")
    names = (found.parts, *found.fitting)
    assert ("small-weights-taken-as-zero",) not in names, names
    assert ("brevity-penalty-alone",) in names, names


def test_a_lone_weight_under_1_is_still_a_small_weight():
    # planted:tiny-weight-zero's class: one weight of 1/1000 sent, cut as negligible, the answer BP alone
    request_ = _request("a b c", ["a b d e"], (0.001,))
    found = classify(request_, ScoreAnswer(BP_ONLY_BP, BP_ONLY_ONE_STATISTICS), "papineni")
    assert found.name == "small-weights-taken-as-zero"
    assert ("brevity-penalty-alone",) in found.fitting


def test_two_weights_cut_to_bp_keep_the_brevity_penalty_alone_among_the_fits():
    # two weights of 1/2: uniform weights as 1 // 2 = 0 give BP alone as well, the earlier name; the variant a fit
    found = classify(BP_ONLY_TWO, ScoreAnswer(BP_ONLY_BP, BP_ONLY_TWO_STATISTICS), "papineni")
    assert found.name == "small-weights-taken-as-zero"
    assert ("brevity-penalty-alone",) in found.fitting


def test_a_run_answering_bp_on_one_and_two_weights_is_named_by_the_brevity_penalty_alone():
    # the two records above as a run's signatures (their names, then their fits): one name covers both
    one = classify(BP_ONLY_ONE, ScoreAnswer(BP_ONLY_BP, BP_ONLY_ONE_STATISTICS), "papineni")
    two = classify(BP_ONLY_TWO, ScoreAnswer(BP_ONLY_BP, BP_ONLY_TWO_STATISTICS), "papineni")
    causes = minimal_cover({(one.parts, *one.fitting): 3, (two.parts, *two.fitting): 5})
    assert [(c.name, c.records) for c in causes] == [("brevity-penalty-alone", 8)]


# -- stage 10's terms by kind (combination-kinds): where the new variants must not name ------------------------------


def test_one_order_in_force_has_no_term_to_average_or_pick():
    # BLEU-1: the mean is the one term w_1 log p_1, so its average, first and last are the formulas' own: no-ops
    request_ = _request("a b c d e", ["a b c d f g"], (1.0,))
    ctx = context_for(request_, "papineni", None)
    for name in ("weighted-log-terms-averaged", "first-weighted-term-only", "last-weighted-term-only"):
        assert dict(MATRIX_VARIANTS)[name](ctx, result_under(ctx)) is None, name


def test_two_orders_averaged_are_the_root_fixed_at_4_and_keep_its_name():
    # two orders in force, any weights: exp((w_1 ln p_1 + w_2 ln p_2) / 2) = G^(1/2) = G^(2/4), the earlier name's
    # number; under (1/2, 1/2): e^(-1/5) x (4/5 x 3/4)^(1/4) = e^(-1/5) x (3/5)^(1/4). The earlier name keeps the
    # record; the new one is among its fits (a run of three orders tells them apart)
    found = classify(SHORT2, ScoreAnswer(SHORT_BP * (3 / 5) ** (1 / 4), SHORT2_STATISTICS), "papineni")
    assert found.name == "geometric-mean-root-fixed-at-4"
    assert ("weighted-log-terms-averaged",) in found.fitting


def test_the_first_term_with_its_weight_dropped_stays_unigram_precision_only():
    # e^(-1/5) x 4/5 under UNEVEN3: the first precision without its weight, the earlier name; (4/5)^(3/10) is not 4/5
    found = classify(UNEVEN3, ScoreAnswer(SHORT_BP * 4 / 5, SHORT3_STATISTICS), "papineni")
    assert found.name == "unigram-precision-only"
    assert ("first-weighted-term-only",) not in found.fitting


@pytest.mark.slow
@pytest.mark.parametrize(("mutant", "name"), [("average:stage_mean:193:20", "weighted-log-terms-averaged"),
                                              ("first:stage_mean:193:24", "first-weighted-term-only"),
                                              ("last:stage_mean:193:24", "last-weighted-term-only")])
def test_a_mean_mutant_of_the_staged_bleu_is_named_by_its_term_variant(tmp_path, mutant, name):
    """tests/fakes/stagedbleu.py's stage_mean mutated (`sum(logs)` -> their mean, `logs[0]`, `logs[-1]`: the fakes
    with the bug), which stage-mutants' run named by partial names only: the run's only cause is the variant."""
    report = tmp_path / "report"
    assert check(report, fake("stagedbleu", "--mutant", mutant), examples=40) == 1
    line = next(text for text in (report / "summary.md").read_text().splitlines()
                if text.startswith("By root cause: "))
    assert line.startswith(f"By root cause: {name} x") and "," not in line, line
