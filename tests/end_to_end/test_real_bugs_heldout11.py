"""The eleventh held-out real-bug collection of issue 36: tests/fakes/realbleu_heldout11.py, its table, its switches.

`benchmarks/attribution.py --real --collection heldout11` measures which root cause `check` names for each bug of the
eleventh held-out set (fixes in repositories the earlier sets never cite); as for the other collections, nothing here
asserts a cause name: the table's `fits` are the yardstick of that measurement. What is held here (the table's
completeness, its controls and its threads, new and cited nowhere: tests/end_to_end/test_real_bug_collections.py):
each switch changes some answer against the clean twin, every conditional switch answers as the clean twin on an
input without its feature, and the plants do what their diffs show, on inputs derived by hand in the comments.
"""

from __future__ import annotations

import math

from fakes.harness import Switches, collection_tests
from fakes.harness import score_request as _request
from fakes.realbleu_heldout11 import END, HELDOUT11_BUGS, PAD, Heldout11Wrapper
from fakes.realbleu_heldout11 import answer as heldout11_answer

#: "a b" against "a b", two orders: 1, c = r = 2
SAME = _request([("a b".split(), ["a b".split()])], weights=(0.5, 0.5))
#: an empty hypothesis against "a": c = 0, r = 1, the score 0
EMPTY = _request([([], [["a"]])], weights=(1.0,))
#: one empty hypothesis and one that is not: c = 1, r = 2
ONE_EMPTY = _request([([], [["a"]]), (["a"], [["a"]])], weights=(1.0,))
#: Requests between which every switch changes some answer (a score, a statistic, or an error)
REQUESTS = [SAME, EMPTY]

#: Switched on by a feature of the input only: (the feature, inputs without it)
CONDITIONAL = {
    # c > 0: the division is by the corpus's hypothesis length, the same BP as the clean twin's
    "brevity-penalty-divides-by-empty-output": ("every hypothesis of the corpus empty", [SAME, ONE_EMPTY]),
}

#: Switched on for every input: every hypothesis and every reference gains the end token (and pads, where shorter)
UNCONDITIONAL = {"end-and-pad-tokens-decoded-on-both-sides"}

SWITCHES = Switches(HELDOUT11_BUGS, Heldout11Wrapper, heldout11_answer, REQUESTS, CONDITIONAL,
                    unconditional=UNCONDITIONAL, neutral=SAME)
globals().update(SWITCHES.tests())  # the switch checks every held-out set passes (tests/fakes/harness.py)
# The fixed twin every bug's run alternates with passes `check` on 10 examples; the same examples fail the tokens kept
globals().update(collection_tests("heldout11", HELDOUT11_BUGS,
                                  twin=(10, "end-and-pad-tokens-decoded-on-both-sides")))


def _answer(bug, request):
    return heldout11_answer(request, Heldout11Wrapper(bug), with_stats=True)


def test_end_and_pad_tokens_decoded_on_both_sides():
    bug = "end-and-pad-tokens-decoded-on-both-sides"
    # GLM-4 between its two commits: "a b" against "a b" is scored as "a b <|user|>" against "a b <|user|>" (each the
    # longest of its side: no pad): m = [3, 2], t = [3, 2], c = r = 3, the score still 1
    answer = _answer(bug, SAME)
    assert answer["score"] == 1.0
    assert answer["statistics"] == {"hyp_len": 3, "ref_len": 3, "matches": [3, 2], "totals": [3, 2], "bp": 1.0}
    # "a" against "a" and "b c", one order. Clean: m = 1 of 1, c = 1, r = 1 (the closest), 1. Planted: the hypothesis
    # "a <|user|>" (the longest hypothesis: no pad); the references "a <|user|>" then one pad, and "b c <|user|>",
    # padded to the longest reference, 3: m = 2 of 2 (a, <|user|>), c = 2, r = 3, BP e^(1 - 3/2)
    several = _request([(["a"], [["a"], ["b", "c"]])], weights=(1.0,))
    assert _answer(None, several)["score"] == 1.0
    answer = _answer(bug, several)
    assert math.isclose(answer["score"], math.exp(-0.5), rel_tol=1e-12)
    assert answer["statistics"]["hyp_len"] == 2 and answer["statistics"]["ref_len"] == 3
    assert answer["statistics"]["matches"] == [2] and answer["statistics"]["totals"] == [2]
    # each side padded to its own longest: "a" and "a b c" against "a b c" and "a". Hypotheses "a <|user|> <pad> <pad>"
    # and "a b c <|user|>"; references "a b c <|user|>" and "a <|user|> <pad> <pad>": unigrams a, <|user|> match in
    # each segment and the pads of the one side meet none on the other, m = 2 + 2 of t = 4 + 4, c = r = 8, 1/2; the
    # clean twin: m = 1 + 1 of 1 + 3, c = r = 4, 1/2 as well, the statistics told apart
    crossed = _request([(["a"], [["a", "b", "c"]]), (["a", "b", "c"], [["a"]])], weights=(1.0,))
    answer = _answer(bug, crossed)
    assert answer["score"] == 0.5
    assert answer["statistics"] == {"hyp_len": 8, "ref_len": 8, "matches": [4], "totals": [8], "bp": 1.0}
    assert _answer(None, crossed)["statistics"]["hyp_len"] == 4
    # the pads of the two sides are one token and match each other: "a" and "a b" against "a" and "a b": hypotheses
    # "a <|user|> <pad>", "a b <|user|>", references the same: every count matched, 1, c = r = 6
    same_shapes = _request([(["a"], [["a"]]), (["a", "b"], [["a", "b"]])], weights=(0.5, 0.5))
    answer = _answer(bug, same_shapes)
    assert answer["score"] == 1.0
    assert answer["statistics"]["hyp_len"] == 6 and answer["statistics"]["matches"] == [6, 4]
    assert (END, PAD) == ("<|user|>", "<|endoftext|>")


def test_brevity_penalty_divides_by_empty_output():
    bug = "brevity-penalty-divides-by-empty-output"
    # tgen before its fix: exp(1 - r / float(c)) whenever c <= r, so c = 0 raises, whatever r
    assert _answer(None, EMPTY)["score"] == 0.0
    for request in (EMPTY, _request([([], [["a"]]), ([], [[]])], weights=(0.5, 0.5)),
                    _request([([], [[]])], weights=(1.0,))):
        try:
            _answer(bug, request)
        except ZeroDivisionError:
            continue
        raise AssertionError(f"no error for {request['segments']}")
    # one non-empty hypothesis anywhere: c = 1, r = 2, m = 1 of 1, BP e^(1 - 2): the clean twin's answer
    answer = _answer(bug, ONE_EMPTY)
    assert math.isclose(answer["score"], math.exp(-1), rel_tol=1e-12)
    assert answer == _answer(None, ONE_EMPTY)
