"""Case folded on one side only (issue 36): the classifier names an implementation that lowercases the references
but not the hypothesis, or the hypothesis but not the references, where the request folds both. Every value is
derived by hand below.

Holds: oracle.diagnose.oneside
"""

from __future__ import annotations

import pytest

from oracle.diagnose.classify import classify, explained_value
from oracle.diagnose.oneside import HYPOTHESIS_ONLY, REFERENCES_ONLY
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


def test_a_request_that_keeps_case_has_no_side_to_fold():
    """lowercase false: "the Cat sat" against "THE cat Sat" matches nothing (0): an answer of 2/3 is not one side
    folded, which is a departure from a request that folds."""
    request = one_segment("the Cat sat", "THE cat Sat", lowercase=False)
    assert classify(request, 2 / 3, "papineni").name not in (REFERENCES_ONLY, HYPOTHESIS_ONLY)
