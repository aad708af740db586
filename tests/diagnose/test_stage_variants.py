"""The stage variants docs/stages.md's matrix found missing and added (issue 36, stage-coverage): each variant's
prediction on a hand-derived example (the derivation in the comments, never the oracle's output pasted back), and a
fake with the variant planted (tests/fakes/plantedbleu.py) named by it.

The score stage's cells filled later (matrix-cells): each variant's value on a hand-derived example, called directly
and through the classifier, and a fake with each planted (its run's main cause).

Holds: oracle.diagnose.counting, oracle.diagnose.mechanisms.counting, oracle.diagnose.mechanisms.combination
"""

from __future__ import annotations

import math

import pytest
from fakes.harness import check, deviations, fake

from oracle.adapters.base import ScoreAnswer
from oracle.diagnose.classify import classify
from oracle.diagnose.computations import context_for, result_under
from oracle.diagnose.counting import distinct_ngram_counts, last_ngram_dropped_counts
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

MATRIX_EXAMPLES = [
    # (variant, request, its statistics, the answer derived by hand)
    # three orders summed, divided by 4 (not 3): e^(-1/5) x (4/5 + 3/4 + 2/3) / 4 = e^(-1/5) x (133/60) / 4
    ("individual-bleu-scores-averaged-over-four", SHORT3, SHORT3_STATISTICS, SHORT_BP * 133 / 240),
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
]


def test_every_matrix_variant_has_a_hand_derived_example():
    assert {name for name, *_ in MATRIX_EXAMPLES} == {name for name, _ in MATRIX_VARIANTS}


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


@pytest.mark.slow
@pytest.mark.parametrize(("bug", "name"), PLANTED_MATRIX, ids=[bug for bug, _ in PLANTED_MATRIX])
def test_a_planted_score_stage_bug_is_its_runs_main_cause(tmp_path, bug, name):
    """A whole `check` (40 examples) on each plant: the run's main cause is the variant planted."""
    report = tmp_path / "report"
    assert check(report, fake("plantedbleu", bug), examples=40) == 1
    summary = (report / "summary.md").read_text()
    line = next(text for text in summary.splitlines() if text.startswith("By root cause: "))
    assert line.startswith(f"By root cause: {name} x")


def test_a_macro_precision_of_one_order_is_left_to_the_mean_of_sentence_scores():
    # one order: the segments' precisions 4/5 and 2/2 averaged, 9/10, times the corpus's BP; where every segment's BP
    # is 1 that is the mean of the sentence scores, an earlier name, so the variant needs two orders in force
    one = _corpus([("a b c d e", ["a b c d f g"]), ("a b", ["a b"])], (1.0,))
    ctx = context_for(one, "papineni", None)
    assert dict(MATRIX_VARIANTS)["precisions-averaged-over-segments"](ctx, result_under(ctx)) is None
