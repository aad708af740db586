"""The tenth held-out real-bug collection of issue 36: tests/fakes/realbleu_heldout10.py, its table, its switches.

`benchmarks/attribution.py --real --collection heldout10` measures which root cause `check` names for each bug of the
tenth held-out set (fixes in repositories the earlier sets never cite); as for the other collections, nothing here
asserts a cause name: the table's `fits` are the yardstick of that measurement. What is held here (the table's
completeness, its controls and its threads, new and cited nowhere: tests/end_to_end/test_real_bug_collections.py):
each switch changes some answer against the clean twin, every conditional switch answers as the clean twin on an
input without its feature, and the plants do what their diffs show, on inputs derived by hand in the comments.
"""

from __future__ import annotations

import math

from fakes.harness import Switches, collection_tests
from fakes.harness import score_request as _request
from fakes.realbleu_heldout10 import HELDOUT10_BUGS, Heldout10Wrapper
from fakes.realbleu_heldout10 import answer as heldout10_answer

#: "a b" against "a b" and "a c" against "a b", two orders: alone, 1 and 0 (no bigram matched)
SAME = _request([("a b".split(), ["a b".split()])], weights=(0.5, 0.5))
MISS = _request([("a c".split(), ["a b".split()])], weights=(0.5, 0.5))
#: Requests between which every switch changes some answer (a score, a statistic, or an error), sent in turn to one
#: process: the second answered after the first (Seq2SeqSharp's counts)
REQUESTS = [
    SAME,
    MISS,
    # a hypothesis longer than its one reference: DeepPavlov's roles swapped change c, r and the precisions
    _request([("a b c".split(), ["a b".split()])], weights=(0.5, 0.5)),
    # two segments: modelscope's mean of their own scores
    _request([("a b".split(), ["a b".split()]), ("a c".split(), ["a b".split()])], weights=(0.5, 0.5)),
]

#: Switched on by a feature of the input only: (the feature, inputs without it, sent in turn to one process).
CONDITIONAL = {
    # one request alone, or requests of different numbers of orders (one metric object per configuration)
    "statistics-accumulated-across-requests": ("an earlier request of the same number of orders",
                                               [SAME, _request([("a c".split(), ["a b".split()])], weights=(1.0,))]),
    # the hypothesis the same as its one reference: swapping them changes nothing
    "corpus-bleu-predictions-as-references": ("a hypothesis other than its first reference, or several references",
                                              [SAME]),
    # one segment: its own score is the corpus's
    "mean-of-unsmoothed-sentence-bleu": ("several segments", [MISS]),
}

#: Switched on for every input: each hypothesis gains "</s>" and each reference "<s>" (c and r grow by one)
UNCONDITIONAL = {"decoder-end-token-and-target-start-token-kept"}

SWITCHES = Switches(HELDOUT10_BUGS, Heldout10Wrapper, heldout10_answer, REQUESTS, CONDITIONAL,
                    unconditional=UNCONDITIONAL, neutral=SAME)
globals().update(SWITCHES.tests())  # the switch checks every held-out set passes (tests/fakes/harness.py)
# The fixed twin every bug's run alternates with passes `check` on 10 examples; the same examples fail the swap
globals().update(collection_tests("heldout10", HELDOUT10_BUGS, twin=(10, "corpus-bleu-predictions-as-references")))


def _answer(bug, request, wrapper=None):
    return heldout10_answer(request, wrapper or Heldout10Wrapper(bug), with_stats=True)


def test_statistics_accumulated_across_requests():
    # Seq2SeqSharp before its fix: `m_counts[...] += ...` and no reset between validation runs. SAME then MISS to one
    # process: alone, MISS is m = [1, 0], t = [2, 1], c = r = 2, the score 0; after SAME (m = [2, 1], t = [2, 1],
    # c = r = 2) the counts are m = [3, 1], t = [4, 2], c = r = 4: BP 1, (3/4 x 1/2)^(1/2) = (3/8)^(1/2)
    bug = "statistics-accumulated-across-requests"
    assert _answer(None, MISS)["score"] == 0.0
    wrapper = Heldout10Wrapper(bug)
    assert _answer(bug, SAME, wrapper)["score"] == 1.0  # the first request alone is right
    answer = _answer(bug, MISS, wrapper)
    assert math.isclose(answer["score"], (3 / 8) ** 0.5, rel_tol=1e-12)
    assert answer["statistics"] == {"hyp_len": 4, "ref_len": 4, "matches": [3, 1], "totals": [4, 2], "bp": 1.0}
    # a third request adds again: SAME once more gives m = [5, 2], t = [6, 3], c = r = 6: (5/6 x 2/3)^(1/2)
    answer = _answer(bug, SAME, wrapper)
    assert math.isclose(answer["score"], (5 / 9) ** 0.5, rel_tol=1e-12)
    # another number of orders reads and changes another metric object: MISS at one order after all this is its own
    # p_1 = 1/2
    assert _answer(bug, _request([("a c".split(), ["a b".split()])], weights=(1.0,)), wrapper)["score"] == 0.5


def test_corpus_bleu_predictions_as_references():
    # DeepPavlov before its fix: compute_bleu(reference_corpus=[[prediction]], translation_corpus=[target]).
    # "a b c" against "a b": clean p = (2/3, 1/2), c = 3 > r = 2: (1/3)^(1/2). Swapped: "a b" scored against "a b c",
    # p = (1, 1), c = 2 < r = 3: BP e^(1 - 3/2)
    bug = "corpus-bleu-predictions-as-references"
    request = REQUESTS[2]
    assert math.isclose(_answer(None, request)["score"], (1 / 3) ** 0.5, rel_tol=1e-12)
    answer = _answer(bug, request)
    assert math.isclose(answer["score"], math.exp(-0.5), rel_tol=1e-12)
    assert (answer["statistics"]["hyp_len"], answer["statistics"]["ref_len"]) == (2, 3)
    # several references: the first alone is the translation scored. "a" against "b" and "a": clean 1.0 (p_1 = 1/1,
    # c = r = 1); swapped, "b" scored against "a": p_1 = 0
    several = _request([(["a"], [["b"], ["a"]])], weights=(1.0,))
    assert _answer(None, several)["score"] == 1.0
    assert _answer(bug, several)["score"] == 0.0


def test_mean_of_unsmoothed_sentence_bleu():
    # modelscope before its fix: mean(sentence_bleu([tgt], pred) ...). "a b" against "a b" (1) and "a c" against "a b"
    # (0): the mean 1/2; the corpus m = [3, 1], t = [4, 2], c = r = 4: (3/8)^(1/2), the statistics the corpus's
    bug = "mean-of-unsmoothed-sentence-bleu"
    request = REQUESTS[3]
    assert math.isclose(_answer(None, request)["score"], (3 / 8) ** 0.5, rel_tol=1e-12)
    answer = _answer(bug, request)
    assert answer["score"] == 0.5
    assert answer["statistics"]["matches"] == [3, 1] and answer["statistics"]["totals"] == [4, 2]


def test_decoder_end_token_and_target_start_token_kept():
    # symphony-mt before its fix: "a b" against "a b" is scored as "a b </s>" against "<s> a b": m = [2, 1],
    # t = [3, 2], c = r = 3: (2/3 x 1/2)^(1/2) = (1/3)^(1/2) where the clean twin has 1
    bug = "decoder-end-token-and-target-start-token-kept"
    answer = _answer(bug, SAME)
    assert math.isclose(answer["score"], (1 / 3) ** 0.5, rel_tol=1e-12)
    assert answer["statistics"] == {"hyp_len": 3, "ref_len": 3, "matches": [2, 1], "totals": [3, 2], "bp": 1.0}
    # an empty hypothesis is "</s>" alone against "<s> a": c = 1, r = 2, p_1 = 0/1, BP e^(1 - 2); the score 0 as clean
    answer = _answer(bug, _request([([], [["a"]])], weights=(1.0,)))
    assert (answer["statistics"]["hyp_len"], answer["statistics"]["ref_len"], answer["score"]) == (1, 2, 0.0)
    assert math.isclose(answer["statistics"]["bp"], math.exp(-1), rel_tol=1e-12)
    # every reference of a segment carries "<s>": "a" against "a" and "b c": the closest of lengths 2 and 3 to c = 2
    answer = _answer(bug, _request([(["a"], [["a"], ["b", "c"]])], weights=(1.0,)))
    assert (answer["statistics"]["hyp_len"], answer["statistics"]["ref_len"]) == (2, 2)
