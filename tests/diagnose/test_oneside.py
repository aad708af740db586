"""Case folded on one side only (issue 36): the classifier names an implementation that lowercases the references
but not the hypothesis, or the hypothesis but not the references, where the request folds both or neither. Every
value is derived by hand below.

Holds: oracle.diagnose.oneside
"""

from __future__ import annotations

import pytest

from oracle.diagnose.classify import classify, explained_value
from oracle.diagnose.mechanisms.structure import HYPOTHESIS_ONLY, REFERENCES_ONLY
from oracle.models.protocol import ScoreRequest, Segment


def one_segment(hypothesis, reference, *, weights=(1.0,), tokenize=None, lowercase=True):
    if tokenize is None:
        hypothesis, reference = tuple(hypothesis.split()), tuple(reference.split())
    return ScoreRequest(level="sentence", segments=[Segment(hypothesis=hypothesis, references=[reference])],
                        weights=weights, lowercase=lowercase, tokenize=tokenize)


def test_the_shrunk_input_of_issue_36_is_named_by_one_side_folded_not_strict_clipping():
    """"The" against "The", lowercase: folding the references alone leaves "The" against "the", 0 matches of 1
    (the score 0). Strict clipping (m - 1 = 0) gives the same counts on this input: it stays among the fits, and
    the case mechanism names the record (on main: strict-clipping did)."""
    answer = {"score": 0.0, "statistics": {"hyp_len": 1, "ref_len": 1, "matches": [0], "totals": [1], "bp": 1.0}}
    explanation = classify(one_segment("The", "The"), answer, "papineni")
    assert explanation.name == REFERENCES_ONLY
    assert "strict-clipping" in explanation.fits  # the input cannot tell them apart; the run can


# "the Cat sat" against "THE cat Sat", unigrams, c = r = 3 (BP 1):
#   references folded only: "the Cat sat" vs "the cat sat": the, sat match -> 2/3
#   hypothesis folded only: "the cat sat" vs "THE cat Sat": cat matches   -> 1/3
#   neither folded:          nothing matches                               -> 0
#   both folded (the oracle): 3/3                                           -> 1
@pytest.mark.parametrize("score, matches, name", [(2 / 3, 2, REFERENCES_ONLY), (1 / 3, 1, HYPOTHESIS_ONLY)])
def test_each_side_is_named_with_statistics_and_from_the_score_alone(score, matches, name):
    request = one_segment("the Cat sat", "THE cat Sat")
    with_statistics = {"score": score, "statistics": {"hyp_len": 3, "ref_len": 3, "matches": [matches],
                                                      "totals": [3], "bp": 1.0}}
    assert classify(request, with_statistics, "papineni").name == name
    assert classify(request, score, "papineni").name == name
    # the explanation's value recomputed from its name alone (as `cases validate` does)
    assert explained_value(request, "papineni", (("computation", name),)) == pytest.approx(score, rel=1e-12)


def test_a_text_request_is_folded_on_one_side_before_its_tokenizer():
    """The same words as raw text under 13a (which splits on spaces here): the references folded alone give 2/3."""
    request = one_segment("the Cat sat", "THE cat Sat", tokenize="13a")
    assert classify(request, 2 / 3, "papineni").name == REFERENCES_ONLY


def test_where_the_folded_side_has_nothing_to_fold_the_flag_ignored_names_the_record():
    """"A" against "a": the references folded alone is case kept on both sides (0 matches): the simpler name,
    the flag ignored, names the record, and one side folded fits it as well (a run names the one that fits all)."""
    answer = {"score": 0.0, "statistics": {"hyp_len": 1, "ref_len": 1, "matches": [0], "totals": [1], "bp": 1.0}}
    explanation = classify(one_segment("A", "a"), answer, "papineni")
    assert explanation.name == "case-not-folded"
    assert REFERENCES_ONLY in explanation.fits


# The same words where the request keeps case (lowercase false), c = r = 3:
#   references folded only: "the Cat sat" vs "the cat sat": the, sat match -> 2/3
#   hypothesis folded only: "the cat sat" vs "THE cat Sat": cat matches   -> 1/3
#   both folded (case-folded-unasked): 3/3                                  -> 1
#   neither folded (the oracle): nothing matches                            -> 0
@pytest.mark.parametrize("score, matches, name", [(2 / 3, 2, REFERENCES_ONLY), (1 / 3, 1, HYPOTHESIS_ONLY)])
def test_a_request_that_keeps_case_is_folded_on_one_side_all_the_same(score, matches, name):
    """A wrapper that folds one side whatever the request asks (its normalisation lowercases the model's outputs
    and never the gold answers): the same one-sided fold, named by its counts where the request keeps case too."""
    request = one_segment("the Cat sat", "THE cat Sat", lowercase=False)
    with_statistics = {"score": score, "statistics": {"hyp_len": 3, "ref_len": 3, "matches": [matches],
                                                      "totals": [3], "bp": 1.0}}
    assert classify(request, with_statistics, "papineni").name == name
    # from the score alone it is not tried where the request keeps case (a computation on nearly every request)
    assert classify(request, score, "papineni").name != name


def test_where_the_request_keeps_case_folding_a_side_without_capitals_changes_nothing():
    """lowercase false, "the cat" against "The cat": the hypothesis has nothing to fold, so folding it alone is the
    formulas' own count (1 of 2 unigrams: "cat"); folding the references alone gives "the cat" against "the cat",
    2 of 2. An answer of 1/2 agrees with the oracle, and 1 is the references folded only (folding both gives the
    same 2 of 2 and is tried first: both fit)."""
    request = one_segment("the cat", "The cat", lowercase=False)
    assert classify(request, 1 / 2, "papineni").name == "agrees"
    explanation = classify(request, {"score": 1.0, "statistics": {"hyp_len": 2, "ref_len": 2, "matches": [2],
                                                                  "totals": [2], "bp": 1.0}}, "papineni")
    assert explanation.name == "case-folded-unasked"
    assert REFERENCES_ONLY in explanation.fits and HYPOTHESIS_ONLY not in explanation.fits
