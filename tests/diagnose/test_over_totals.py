"""Matches above totals (issue 36, over-totals): the statistics an implementation returned are read with the formula's
own arithmetic when the diagnosis asks whether its score follows from them, each precision m/t as it comes (above 1
or not), and the oracle's own `bleu.Statistics` keeps its invariant; and the clipping with the hypothesis's count
left out (`matches-credited-with-reference-counts`). Every expected value is derived by hand in the test's words."""

from __future__ import annotations

import math

import pytest

from oracle.adapters.base import ScoreAnswer
from oracle.diagnose.classify import classify, explained_value
from oracle.diagnose.combination import ReturnedStatistics
from oracle.diagnose.counting import reference_count_matches
from oracle.formulas import bleu
from oracle.formulas.errors import BleuValueError
from oracle.models.protocol import ScoreRequest, Segment


def request(level, segments, weights):
    segs = tuple(Segment(hypothesis=tuple(h.split()), references=tuple(tuple(r.split()) for r in refs))
                 for h, refs in segments)
    return ScoreRequest(seq=0, level=level, segments=segs, weights=tuple(weights), smoothing={"method": "none"},
                        lowercase=False)


def parts_of(explanation):
    return explanation.name.split(" + ")


def test_the_oracle_s_statistics_keep_their_invariant_and_returned_ones_are_read_as_they_come():
    # "a" against "a a": c = 1, r = 2 (BP = e^(1 - 2/1) = e^-1); an implementation returning 2 matches of 1 unigram
    # has p_1 = 2/1 = 2, so its formula gives 2 x e^-1. The counting's own Statistics still refuses 2 > 1.
    with pytest.raises(BleuValueError):
        bleu.Statistics(1, 2, (2,), (1,), 1)
    result = bleu.bleu_from_statistics(ReturnedStatistics(1, 2, (2,), (1,), 1), weights=(1.0,))
    assert math.isclose(float(result.score), 2 * math.exp(-1), rel_tol=1e-12)
    # matches of no n-gram have no precision m/0: refused, not read as an empty order
    with pytest.raises(BleuValueError):
        ReturnedStatistics(2, 4, (2, 1), (2, 0), 1)


def test_a_score_that_follows_from_counts_above_their_totals_does_not_accuse_the_combination():
    # "a" against "a": the oracle counts 1 match of 1, c = r = 1, score 1. An answer of 2 with 2 matches of 1
    # unigram (c = r = 1) is its own counts scored: p_1 = 2/1, BP = 1, 2 x 1 = 2. No counting alternative gives 2
    # matches here (unclipped: 1, the reference's count: 1), so what is known is the counting alone.
    r = request("sentence", [("a", ["a"])], weights=(1.0,))
    answer = ScoreAnswer(2.0, {"hyp_len": 1, "ref_len": 1, "matches": [2], "totals": [1]})
    assert classify(r, answer, "papineni").name == "other-counting-of-matches"
    # the same counts with an answer of 1/2, which does not follow from them (2 x 1 = 2): the combination stays
    # accused as well
    wrong = ScoreAnswer(0.5, {"hyp_len": 1, "ref_len": 1, "matches": [2], "totals": [1]})
    named = classify(r, wrong, "papineni")
    assert parts_of(named)[0] == "other-counting-of-matches" and len(parts_of(named)) == 2, named.name


def test_the_shrunk_case_of_reference_counts_is_not_a_combination_fault():
    # "a" against "a a", matches [2], totals [1], c = 1, r = 2: score 2 x e^(1 - 2/1) = 2 e^-1 (the twelfth held-out
    # set's shrunk failure, its plant scoring its own counts by the clean formula)
    r = request("sentence", [("a", ["a a"])], weights=(1.0,))
    answer = ScoreAnswer(2 * math.exp(-1), {"hyp_len": 1, "ref_len": 2, "matches": [2], "totals": [1]})
    named = classify(r, answer, "papineni")
    assert "other-combination" not in parts_of(named), named.name
    assert named.name == "matches-credited-with-reference-counts", named.name
    # 2 e^-1 is not e^-1 (the oracle's): not within the contract either way, so the test can tell them apart
    assert math.isclose(explained_value(r, "papineni", named.change), 2 * math.exp(-1), rel_tol=1e-12)


def test_counts_the_formulas_cannot_score_name_what_is_known_and_no_combination():
    # "a b" against "a b a b", BLEU-2: the oracle counts matches [2, 1] of totals [2, 1]. Returned totals [2, 0] with
    # matches [2, 1]: 1 bigram match of 0 bigrams has no precision, so no score follows or fails to follow from them.
    r = request("sentence", [("a b", ["a b a b"])], weights=(0.5, 0.5))
    answer = ScoreAnswer(0.3, {"hyp_len": 2, "ref_len": 4, "matches": [2, 1], "totals": [2, 0]})
    named = classify(r, answer, "papineni")
    assert named.name == "other-counting-of-totals", named.name
    assert "whether the score follows from them is not known" in named.description


def test_reference_counts_credited_per_distinct_hypothesis_ngram():
    # hypothesis "a b a" against "a a a b" and "b b": distinct unigrams a (largest reference count 3) and b (2):
    # 3 + 2 = 5 unigram matches of 3; distinct bigrams (a b) (1, in the first) and (b a) (0): 1 bigram match of 2
    r = request("sentence", [("a b a", ["a a a b", "b b"])], weights=(0.5, 0.5))
    assert reference_count_matches(r.segments, 2, fold=None) == (5, 1)
    # where the reference never has an n-gram more often than the hypothesis, the counts are the clipped ones
    same = request("sentence", [("a a b", ["a b c"])], weights=(1.0,))
    assert reference_count_matches(same.segments, 1, fold=None) == (2,)


def test_what_a_user_reads_of_counts_with_no_score_claims_nothing_of_the_score():
    # "a b" against "a b a b", BLEU-2 (c = 2, r = 4, BP = e^(1 - 4/2) = e^-1). Returned totals [2, 3] with matches
    # [2, 1] and an answer of sqrt(2/2 x 1/3) x e^-1: its own counts, scored, give its answer (totals growing with the
    # order: no expression of the fitted counting's grammar gives them, so two such records are a group of what is
    # known, not of a fit; [2, 2], the windows of width 1 at every order, would be: counting-fit). Returned totals
    # [2, 0]:
    # 1 bigram match of 0 bigrams has no score. Both are named `other-counting-of-totals`; only the first record's
    # words may say that the answer follows from the counts.
    from oracle.diagnose import mechanisms
    from oracle.harness.events import RootCauseTally
    from oracle.models.outcomes import Outcome
    from oracle.models.results import Record

    r = request("sentence", [("a b", ["a b a b"])], weights=(0.5, 0.5))
    follows = classify(r, ScoreAnswer(math.sqrt(1 / 3) * math.exp(-1), {"hyp_len": 2, "ref_len": 4, "matches": [2, 1],
                                                                         "totals": [2, 3]}), "papineni")
    unknown = classify(r, ScoreAnswer(0.3, {"hyp_len": 2, "ref_len": 4, "matches": [2, 1], "totals": [2, 0]}),
                       "papineni")
    assert follows.name == unknown.name == "other-counting-of-totals"
    assert "give its answer" in follows.description and "is not known" in unknown.description
    # the catalogue's words for the name (a run's cause no record named first, a fit, a mixed group): the counts
    # differ, and nothing of the score, either way
    catalogue = mechanisms.describe("other-counting-of-totals")
    assert "differ" in catalogue and "totals" in catalogue
    assert "give its answer" not in catalogue and "no score" not in catalogue
    # nor beside a score stage, which says the score does not follow from them
    assert "give its answer" not in mechanisms.describe_parts(("other-counting-of-totals", "other-combination"))

    def tally(*classified):
        out = RootCauseTally()
        for index, explanation in enumerate(classified):
            out.add(Record(id=f"random-0-{index}", kind="example", outcome=Outcome.FAIL, layer="totals",
                           classification=explanation.classification()))
        (group,) = out.groups()
        return group

    # the smallest record's words stand for a group whose records said the same; where one record's counts have no
    # score, the group says the catalogue's words, whichever record is the smallest
    assert tally(follows, follows).description == follows.description
    assert tally(unknown, unknown).description == unknown.description
    assert tally(follows, unknown).description == catalogue
    assert tally(unknown, follows).description == catalogue
