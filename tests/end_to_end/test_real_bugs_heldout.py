"""The held-out real-bug collection of issue 36: tests/fakes/realbleu_heldout.py, its table, and its clean twin.

`benchmarks/attribution.py --real --collection heldout` measures which root cause `check` names for each held-out
bug (benchmarks/README.md, "Held-out real bugs"); as for the first collection (tests/end_to_end/test_real_bugs.py),
nothing here asserts a cause name: the table's `fits` are the yardstick of that measurement. What is held here (the
table's completeness and its threads, new and cited nowhere: tests/end_to_end/test_real_bug_collections.py): each
switch changes some answer against the clean twin, the clean twin is right on hand-derived examples and conforms
under `check`, and `attribution.py` reads this table with no catalogue spelling (tests/fakes/harness.py).
"""

from __future__ import annotations

import math

import pytest
from fakes.harness import Switches, collection_tests
from fakes.harness import score_request as _request
from fakes.realbleu_heldout import HELDOUT_BUGS, HeldoutWrapper
from fakes.realbleu_heldout import answer as heldout_answer


def test_at_least_fifteen_bugs():
    # (their threads distinct, and none of the first collection's: tests/end_to_end/test_real_bug_collections.py)
    assert len(HELDOUT_BUGS) >= 15


CORPUS = [
    ("the cat sat on the mat".split(), ["the cat sat on a mat".split(), "a cat is on the mat today".split()]),
    ("there is a dog here".split(), ["here is a dog".split()]),
    (["ab", "c", "d", "e"], [["a", "bc", "d", "e"]]),
]
PROTOCOL_EXAMPLE = _request([("the cat sat".split(), ["the cat sat on the mat".split()])], weights=(0.5, 0.5),
                            level="sentence")
#: c = 4; references of 2 and 5 tokens: the closest is 5, the shortest 2
CLOSEST_NOT_SHORTEST = _request([("a b c d".split(), ["x y".split(), "a b c d e".split()])], level="sentence")
#: Requests between which every switch changes some answer (a score, a statistic, or an error).
REQUESTS = [
    _request(CORPUS),
    PROTOCOL_EXAMPLE,
    CLOSEST_NOT_SHORTEST,
    _request([([], [["a"]]), (["a", "b"], [["a", "b"]])]),  # an empty hypothesis
    _request([(["a", "b"], [[]]), (["a", "b"], [["a", "b"]])], weights=(0.5, 0.5)),  # an empty reference
    _request([("a b c d".split(), ["a b x d".split()])], smoothing={"method": "exp"}, level="sentence"),
    _request([(["a", "b"], [["a", "b"]])], level="sentence"),  # no 3- or 4-grams at all
]


#: Switched on by a feature of the input only (not on every input): answered as the clean twin where it is absent.
CONDITIONAL = {
    "bpe-kept-on-hypotheses": "a hypothesis token of four or more characters",
    "blank-reference-one-token": "an empty reference",
    "hypotheses-shuffled": "several segments",
    "empty-samples-skipped": "an empty hypothesis or reference",
    "ngram-keys-concatenated": "two n-grams whose tokens concatenate alike",
    "shortest-reference-length": "several references",
    "empty-order-skipped": "an order without hypothesis n-grams",
    "zero-precision-terms-skipped": "a precision of 0",
    "brevity-penalty-applied-twice": "a hypothesis shorter than its reference",
    "empty-hypothesis-raises": "an empty hypothesis",
    "log-of-zero-precision-raises": "a precision of 0",
}
#: None of the features above: one segment, one reference, one-letter tokens, c = 7 > r = 6 (BP = 1), precisions
#: 6/7, 5/6, 4/5 (none 0, none 1), and weights that do not sum to 1: a switch that renormalised the weights
#: everywhere, not only where it leaves an order out, would show here
NEUTRAL = _request([("a b c d e f g".split(), ["a b c d e f".split()])], weights=(0.3, 0.3, 0.3), level="sentence")


SWITCHES = Switches(HELDOUT_BUGS, HeldoutWrapper, heldout_answer, REQUESTS,
                    {bug: (feature, [NEUTRAL]) for bug, feature in CONDITIONAL.items()}, complete=False, fresh=True)
globals().update(SWITCHES.tests())  # the switch checks every held-out set passes (tests/fakes/harness.py)
# attribution.py reads this set (its SAME_MECHANISM_HELDOUT empty), and the clean twin conforms under a whole `check`
globals().update(collection_tests("heldout", HELDOUT_BUGS, twin="conforms"))


def test_the_clean_twin_scores_the_protocol_example():
    # PROTOCOL.md, "A minimal session": both precisions are 1, c = 3, r = 6, so BLEU = BP = e^(1 - 6/3) = e^-1
    reply = heldout_answer(PROTOCOL_EXAMPLE, HeldoutWrapper(None), with_stats=True)
    assert math.isclose(reply["score"], math.exp(-1), rel_tol=1e-12)
    assert reply["statistics"] == {"hyp_len": 3, "ref_len": 6, "matches": [3, 2], "totals": [3, 2],
                                   "bp": pytest.approx(math.exp(-1), rel=1e-12)}


def test_the_clean_twin_takes_the_closest_reference():
    # every n-gram of "a b c d" is in "a b c d e": p_1..p_4 = 4/4, 3/3, 2/2, 1/1; c = 4 and the closest reference
    # has 5 tokens (|5 - 4| = 1 < |2 - 4| = 2), so BLEU = BP = e^(1 - 5/4) = e^-0.25
    reply = heldout_answer(CLOSEST_NOT_SHORTEST, HeldoutWrapper(None), with_stats=True)
    assert math.isclose(reply["score"], math.exp(-0.25), rel_tol=1e-12)
    assert reply["statistics"]["ref_len"] == 5


def test_the_clean_twin_scores_a_hypothesis_without_trigrams_zero():
    # papineni: an order without hypothesis n-grams counts as p_n = 0, so a two-token hypothesis scores 0 at order 4
    reply = heldout_answer(REQUESTS[-1], HeldoutWrapper(None), with_stats=True)
    assert reply["score"] == 0.0  # exactly: no arithmetic reaches it
    assert reply["statistics"]["totals"] == [2, 1, 0, 0]
