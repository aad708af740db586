"""The second held-out real-bug collection of issue 36: tests/fakes/realbleu_heldout2.py, its table, its switches.

`benchmarks/attribution.py --real --collection heldout2` measures which root cause `check` names for each bug of the
second held-out set (benchmarks/README.md, "Second held-out real bugs"); as for the other collections, nothing here
asserts a cause name: the table's `fits` are the yardstick of that measurement. What is held here (the table's
completeness, its controls and its threads, new and cited nowhere: tests/end_to_end/test_real_bug_collections.py):
each switch changes some answer against the
clean twin, every conditional switch answers as the clean twin on an input without its feature, and the plants
do what their threads show on the threads' own examples where the thread gives one.
"""

from __future__ import annotations

import math

from fakes.harness import Switches, collection_tests
from fakes.harness import score_request as _request
from fakes.realbleu_heldout2 import HELDOUT2_BUGS, Heldout2Wrapper
from fakes.realbleu_heldout2 import answer as heldout2_answer

CORPUS = [
    ("the cat sat on the mat".split(), ["the cat sat on a mat".split(), "a cat is on the mat today".split()]),
    ("there is a dog here".split(), ["here is a dog".split()]),
    (["ab", "c", "d", "e"], [["a", "bc", "d", "e"]]),
]
#: c = 4; references of 2 and 5 tokens: the closest is 5, the shortest 2
CLOSEST_NOT_SHORTEST = _request([("a b c d".split(), ["x y".split(), "a b c d e".split()])], level="sentence")
#: Requests between which every switch changes some answer (a score, a statistic, or an error).
REQUESTS = [
    _request(CORPUS),
    CLOSEST_NOT_SHORTEST,
    _request([(["a", "b"], [[]]), (["a", "b"], [["a", "b"]])], weights=(0.5, 0.5)),  # an empty reference
    _request([([], [["a", "b"]])], weights=(0.5, 0.5), level="sentence"),  # every hypothesis empty
    _request([("a b c d".split(), ["a b x d".split()])], smoothing={"method": "exp"}, level="sentence"),
    _request([("a b c d".split(), ["a b x d".split()])], smoothing={"method": "floor", "value": 0.1},
             level="sentence"),
    _request([("a b c d e f g h i j".split(), ["a b c d e f g h i j".split()])], level="sentence"),  # 10 tokens
    _request([("The Cat sat".split(), ["The Cat sat".split()])], weights=(0.5, 0.5), level="sentence"),
    _request([("a <unk> b".split(), ["a <unk> b".split()])], weights=(0.5, 0.5), level="sentence"),
]


#: None of the conditional features: one segment, two references of 6 and 8 tokens (the closest to c = 7 is the
#: shorter on the tie, so closest and shortest agree; none longer than 8), lowercase one-letter tokens, c = 7 > r = 6
#: (BP = 1), precisions 6/7, 5/6, 4/5 (none 0, none 1), no smoothing, no special token
NEUTRAL = _request([("a b c d e f g".split(), ["a b c d e f".split(), "a b c d e f x y".split()])],
                   weights=(0.3, 0.3, 0.3), level="sentence")
#: The same with one reference: where references are transposed, one segment of one reference is its own transpose
NEUTRAL_ONE_REFERENCE = _request([("a b c d e f g".split(), ["a b c d e f".split()])], weights=(0.3, 0.3, 0.3),
                                 level="sentence")
#: The last hypothesis empty: nothing for a last character to be chopped from
NEUTRAL_LAST_EMPTY = _request([("a b c d e f g".split(), ["a b c d e f".split()]), ([], [["x"]])],
                              weights=(0.3, 0.3, 0.3))
#: Switched on by a feature of the input only (not on every input): (the feature, an input without it).
CONDITIONAL = {
    "hypotheses-lowercased-always": ("an upper-case hypothesis token", NEUTRAL),
    "last-character-chopped": ("a non-empty last hypothesis", NEUTRAL_LAST_EMPTY),
    "references-truncated-to-8-tokens": ("a reference of more than 8 tokens", NEUTRAL),
    "reference-lists-as-streams-asserted": ("a reference matrix that is not its own transpose",
                                            NEUTRAL_ONE_REFERENCE),
    "first-hypothesis-length-only": ("a non-empty hypothesis after the first segment", NEUTRAL),
    "empty-hypothesis-scores-one": ("a corpus whose hypotheses are all empty", NEUTRAL),
    "exp-smoothing-sets-the-precision": ("exp smoothing with an unmatched order", NEUTRAL),
    "empty-references-dropped": ("an empty reference", NEUTRAL),
    "error-on-one-reference": ("a segment with one reference", NEUTRAL),
    "references-cached-from-first-request": ("a request after the first", NEUTRAL),
    "shortest-reference-length-min": ("a closest reference longer than the shortest", NEUTRAL),
    "floor-value-left-at-zero": ("floor smoothing with an unmatched order", NEUTRAL),
    "reference-unk-escaped": ("a reference <unk>", NEUTRAL),
}


SWITCHES = Switches(HELDOUT2_BUGS, Heldout2Wrapper, heldout2_answer, REQUESTS,
                    {bug: (feature, [neutral]) for bug, (feature, neutral) in CONDITIONAL.items()})
globals().update(SWITCHES.tests())  # the switch checks every held-out set passes (tests/fakes/harness.py)
globals().update(collection_tests("heldout2", HELDOUT2_BUGS))  # attribution.py reads this set (harness.py)


def _answer(bug, request, wrapper=None):
    return heldout2_answer(request, wrapper or Heldout2Wrapper(bug), with_stats=True)


def test_first_hypothesis_length_only_on_the_threads_example():
    # sacrebleu#280: hypotheses 'a' and 'b c' against 'A' and 'B C D' (the thread's lengths, here as tokens): the
    # clean corpus has c = 1 + 2 = 3; the bug reports the first hypothesis's length alone, c = 1 (r = 1 + 3 = 4)
    request = _request([(["a"], [["A"]]), (["b", "c"], [["B", "C", "D"]])], weights=(1.0,))
    assert _answer(None, request)["statistics"]["hyp_len"] == 3
    assert _answer("first-hypothesis-length-only", request)["statistics"]["hyp_len"] == 1
    assert _answer("first-hypothesis-length-only", request)["statistics"]["ref_len"] == 4


def test_exp_smoothing_sets_the_precision_to_a_power_of_one_half():
    # "a b c d" against "a b x d", weights 1/2 on orders 2 and 3 only: p_2 = 1/3 (only "a b"), order 3 has 2
    # n-grams and no match. Clean exp smoothing gives it the count 1/2, p_3 = (1/2)/2 = 1/4; nltk's method3 before
    # #1300 gives it the precision 1/2 itself. c = r = 4, BP = 1, so the scores are sqrt(1/3 * 1/4) and
    # sqrt(1/3 * 1/2).
    request = _request([("a b c d".split(), ["a b x d".split()])], weights=(0.0, 0.5, 0.5),
                       smoothing={"method": "exp"}, level="sentence")
    assert math.isclose(_answer(None, request)["score"], math.sqrt(1 / 12), rel_tol=1e-12)
    assert math.isclose(_answer("exp-smoothing-sets-the-precision", request)["score"], math.sqrt(1 / 6),
                        rel_tol=1e-12)


def test_references_cached_from_the_first_request():
    # Texygen#27: the second request is scored against the first request's references. First: "a b" against
    # "a b"; second: "c d" against "c d" -- clean scores it 1, the bug scores "c d" against "a b": no unigram
    # matches, so 0.
    first = _request([(["a", "b"], [["a", "b"]])], weights=(1.0,), level="sentence")
    second = _request([(["c", "d"], [["c", "d"]])], weights=(1.0,), level="sentence")
    wrapper = Heldout2Wrapper("references-cached-from-first-request")
    assert _answer(None, second)["score"] == 1.0  # exactly: every precision 1 and BP 1
    assert _answer(None, first, wrapper)["score"] == 1.0
    assert _answer(None, second, wrapper)["score"] == 0.0


def test_empty_hypothesis_scores_one_as_in_the_thread():
    # browsermt/students#10: compute_bleu("this is what you want", " ") is 1.0; the clean twin scores an empty
    # hypothesis against a non-empty reference 0 (c = 0)
    request = _request([([], ["this is what you want".split()])], level="sentence")
    assert _answer(None, request)["score"] == 0.0
    assert _answer("empty-hypothesis-scores-one", request)["score"] == 1.0


def test_last_character_chopped_drops_a_one_character_last_token():
    # multi-bleu.perl's chop on a last line without its newline: "a b" becomes "a ", one token, so c = 1
    request = _request([(["a", "b"], [["a", "b"]])], weights=(1.0,), level="sentence")
    assert _answer("last-character-chopped", request)["statistics"]["hyp_len"] == 1
