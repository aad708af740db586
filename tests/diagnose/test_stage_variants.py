"""The stage variants docs/stages.md's matrix found missing and added (issue 36, stage-coverage): each variant's
prediction on a hand-derived example (the derivation in the comments, never the oracle's output pasted back), and a
fake with the variant planted (tests/fakes/plantedbleu.py) named by it.

Holds: oracle.diagnose.counting, oracle.diagnose.mechanisms.counting
"""

from __future__ import annotations

import math

from fakes.harness import check, deviations, fake

from oracle.adapters.base import ScoreAnswer
from oracle.diagnose.classify import classify
from oracle.diagnose.counting import distinct_ngram_counts, last_ngram_dropped_counts
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
