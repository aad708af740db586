"""The sixth held-out real-bug collection of issue 36: tests/fakes/realbleu_heldout6.py, its table, its switches.

`benchmarks/attribution.py --real --collection heldout6` measures which root cause `check` names for each bug of the
sixth held-out set (bugs from sources the earlier sets never used: BLEU code in other languages, smaller frameworks, a
wrong call of a peer's API); as for the other collections, nothing here asserts a cause name: the table's `fits` are
the yardstick of that measurement. What is held here (the table's completeness, its controls and its threads, new and
cited nowhere: tests/end_to_end/test_real_bug_collections.py): each switch changes some answer against the clean twin,
every conditional switch answers as the clean twin on an input without its feature, and the plants do what their
diffs show, on inputs derived by hand in the comments.
"""

from __future__ import annotations

import math

from fakes.harness import Switches, collection_tests
from fakes.harness import score_request as _request
from fakes.realbleu_heldout6 import HELDOUT6_BUGS, Heldout6Wrapper
from fakes.realbleu_heldout6 import answer as heldout6_answer

#: Requests between which every switch changes some answer (a score, a statistic, or an error).
REQUESTS = [
    # "a a" against two references "a": a unigram in both references
    _request([("a a".split(), [["a"], ["a"]])], weights=(1.0,)),
    # a three-token and a one-token segment, three orders: the short one is shorter than n - 1 for trigrams
    _request([("a b c".split(), ["a b c".split()]), (["d"], [["d"]])], weights=(1 / 3, 1 / 3, 1 / 3)),
    # an empty hypothesis against an empty reference, beside a segment with tokens
    _request([([], [[]]), (["a"], [["a"]])], weights=(1.0,)),
    # several tokens of several characters, some concatenating alike ("ab c" and "a bc")
    _request([("ab c d".split(), ["a bc d".split()]), ("e f".split(), ["e f".split()])], weights=(0.5, 0.5)),
]


#: None of the conditional features: one reference per segment, no empty text, every segment at least N - 1 = 2
#: tokens long, one-character tokens (no two n-grams concatenate alike)
NEUTRAL = _request([("a b c d e f g".split(), ["a b c d e f".split()]), ("a b".split(), ["a c".split()])],
                   weights=(0.3, 0.3, 0.3))
#: Two references, only one of which holds any of the hypothesis's n-grams: their sum is their largest count
NEUTRAL_DISJOINT_REFERENCES = _request([("a b".split(), ["a b".split(), "c d".split()])], weights=(0.5, 0.5))
#: Segments exactly N - 1 = 2 tokens long for three orders: c_i - (n - 1) is zero, not below
NEUTRAL_SEGMENTS_OF_N_MINUS_ONE = _request([("a b c".split(), ["a b c".split()]), ("d e".split(), ["d e".split()])],
                                           weights=(1 / 3, 1 / 3, 1 / 3))
#: Tokens of two characters whose concatenations collide with no other n-gram's
NEUTRAL_LONG_TOKENS_NO_COLLISION = _request(
    [("ab cd".split(), ["ab cd".split()]), ("ef gh".split(), ["ef xy".split()])], weights=(0.5, 0.5))
#: Switched on by a feature of the input only (not on every input): (the feature, inputs without it).
CONDITIONAL = {
    "reference-counts-summed-across-references": (
        "a hypothesis n-gram found in two references", [NEUTRAL, NEUTRAL_DISJOINT_REFERENCES]),
    "totals-from-corpus-length-unclamped": (
        "a segment shorter than N - 1 tokens", [NEUTRAL, NEUTRAL_SEGMENTS_OF_N_MINUS_ONE]),
    "empty-text-split-into-one-empty-token": ("an empty hypothesis or reference", [NEUTRAL]),
    "ngram-keys-joined-without-separator-rust": (
        "two n-grams whose tokens concatenate alike", [NEUTRAL, NEUTRAL_LONG_TOKENS_NO_COLLISION]),
}
#: Switched on for (almost) every input: every hypothesis loses a token, every score is re-combined, every reference is
#: split into its tokens' characters
UNCONDITIONAL = {"hypothesis-first-token-sliced-off", "individual-bleu-scores-averaged-over-four",
                 "corpus-bleu-references-not-wrapped"}


SWITCHES = Switches(HELDOUT6_BUGS, Heldout6Wrapper, heldout6_answer, REQUESTS,
                    CONDITIONAL, unconditional=UNCONDITIONAL, neutral=NEUTRAL)
globals().update(SWITCHES.tests())  # the switch checks every held-out set passes (tests/fakes/harness.py)
globals().update(collection_tests("heldout6", HELDOUT6_BUGS))  # attribution.py reads this set (harness.py)


def _answer(bug, request):
    return heldout6_answer(request, Heldout6Wrapper(bug), with_stats=True)


def test_reference_counts_summed_across_references():
    # bleuscore#109: "a a" against "a" and "a", weights (1,). Clean: "a" is clipped to 1 (its largest count in one
    # reference): p_1 = 1/2, c = 2 > r = 1: 0.5. Summed: clipped to 1 + 1 = 2: p_1 = 2/2: 1.0, matches 2
    request = _request([("a a".split(), [["a"], ["a"]])], weights=(1.0,), level="sentence")
    assert math.isclose(_answer(None, request)["score"], 0.5, rel_tol=1e-12)
    answer = _answer("reference-counts-summed-across-references", request)
    assert answer["score"] == 1.0
    assert answer["statistics"]["matches"] == [2]


def test_totals_from_corpus_length_unclamped():
    # bsbleu: "a b c" against itself and "d" against itself, three orders. Clean totals: unigrams 3 + 1, bigrams 2 + 0,
    # trigrams 1 + 0 = (4, 2, 1), every n-gram matched: 1.0. Unclamped: c - (n - 1) x S = 4 - 0, 4 - 2, 4 - 4 = (4, 2,
    # 0): the trigram order has no n-grams left, p_3 = 0: 0.0
    request = _request([("a b c".split(), ["a b c".split()]), (["d"], [["d"]])], weights=(1 / 3, 1 / 3, 1 / 3))
    assert math.isclose(_answer(None, request)["score"], 1.0, rel_tol=1e-12)
    answer = _answer("totals-from-corpus-length-unclamped", request)
    assert answer["statistics"]["totals"] == [4, 2, 0]
    assert answer["score"] == 0.0
    # "a b c" against "a b c" and an empty hypothesis against "x", two orders: c = 3, r = 3 + 1 = 4, BP = e^(1 - 4/3).
    # Clean bigram total 2 (p_2 = 2/2); unclamped 3 - 1 x 2 = 1, so p_2 = 2/1 = 2: e^(-1/3) x sqrt(1 x 2)
    request = _request([("a b c".split(), ["a b c".split()]), ([], [["x"]])], weights=(0.5, 0.5))
    assert math.isclose(_answer(None, request)["score"], math.exp(-1 / 3), rel_tol=1e-12)
    assert math.isclose(_answer("totals-from-corpus-length-unclamped", request)["score"],
                        math.exp(-1 / 3) * math.sqrt(2), rel_tol=1e-12)


def test_empty_text_split_into_one_empty_token():
    # joshua's Z-MERT BLEU: an empty hypothesis against an empty reference, weights (1,). Clean: c = r = 0: NaN.
    # Split into one empty token each: c = r = 1, the empty unigram matches 1 of 1: 1.0
    request = _request([([], [[]])], weights=(1.0,), level="sentence")
    assert _answer(None, request)["score"] == "NaN"
    answer = _answer("empty-text-split-into-one-empty-token", request)
    assert answer["score"] == 1.0
    assert (answer["statistics"]["hyp_len"], answer["statistics"]["ref_len"]) == (1, 1)
    # an empty hypothesis against "a": clean c = 0 scores 0 with c = 0; one empty token has c = 1, no match: 0 of 1
    request = _request([([], [["a"]])], weights=(1.0,), level="sentence")
    answer = _answer("empty-text-split-into-one-empty-token", request)
    assert (answer["statistics"]["hyp_len"], answer["statistics"]["totals"], answer["score"]) == (1, [1], 0.0)
    assert _answer(None, request)["statistics"]["hyp_len"] == 0


def test_hypothesis_first_token_sliced_off():
    # ParlAI#3518: "a b c" against itself, weights (1,). Clean 1.0. Sliced, "b c" matches 2 of 2, c = 2 < r = 3:
    # BP = e^(1 - 3/2) = e^(-1/2)
    request = _request([("a b c".split(), ["a b c".split()])], weights=(1.0,), level="sentence")
    assert _answer(None, request)["score"] == 1.0
    answer = _answer("hypothesis-first-token-sliced-off", request)
    assert math.isclose(answer["score"], math.exp(-0.5), rel_tol=1e-12)
    assert answer["statistics"]["hyp_len"] == 2


def test_individual_bleu_scores_averaged_over_four():
    # TextBox#66: "a b c" against "a b x", weights (0.5, 0.5): p_1 = 2/3, p_2 = 1/2, c = r = 3. Clean: the geometric
    # mean sqrt(1/3). Averaged over four: (2/3 + 1/2) / 4 = 7/24, the statistics unchanged
    request = _request([("a b c".split(), ["a b x".split()])], weights=(0.5, 0.5), level="sentence")
    assert math.isclose(_answer(None, request)["score"], math.sqrt(1 / 3), rel_tol=1e-12)
    answer = _answer("individual-bleu-scores-averaged-over-four", request)
    assert math.isclose(answer["score"], 7 / 24, rel_tol=1e-12)
    assert answer["statistics"] == _answer(None, request)["statistics"]
    # four orders, "a b c d" against "a b c x": p = 3/4, 2/3, 1/2, 0/1. Clean: 0 (an unmatched order). Averaged:
    # (3/4 + 2/3 + 1/2 + 0) / 4 = 23/48
    request = _request([("a b c d".split(), ["a b c x".split()])], level="sentence")
    assert _answer(None, request)["score"] == 0.0
    assert math.isclose(_answer("individual-bleu-scores-averaged-over-four", request)["score"], 23 / 48,
                        rel_tol=1e-12)


def test_corpus_bleu_references_not_wrapped():
    # kubeflow/examples#51: "a b" against the reference "ab c", weights (1,). Clean: neither token is "ab" or "c":
    # 0 of 2. Unwrapped, the references are the characters of "ab" and of "c": "a" and "b" both match (1 each), c = 2,
    # reference lengths 2 and 1, the closest 2: 1.0
    request = _request([("a b".split(), ["ab c".split()])], weights=(1.0,), level="sentence")
    assert _answer(None, request)["score"] == 0.0
    answer = _answer("corpus-bleu-references-not-wrapped", request)
    assert answer["score"] == 1.0
    assert answer["statistics"]["ref_len"] == 2


def test_ngram_keys_joined_without_separator_rust():
    # bleuscore#13: "ab c d" against "a bc d", weights (0.5, 0.5). Clean: the unigram "d" matches (1/3), no bigram
    # (0/2): 0. Joined with no separator, the bigram "ab"+"c" = "abc" is "a"+"bc": p_1 = 1/3, p_2 = 1/2, c = r = 3:
    # sqrt(1/6)
    request = _request([("ab c d".split(), ["a bc d".split()])], weights=(0.5, 0.5), level="sentence")
    assert _answer(None, request)["score"] == 0.0
    answer = _answer("ngram-keys-joined-without-separator-rust", request)
    assert math.isclose(answer["score"], math.sqrt(1 / 6), rel_tol=1e-12)
    assert answer["statistics"]["matches"] == [1, 1]
