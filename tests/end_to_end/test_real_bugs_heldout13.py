"""The thirteenth held-out real-bug collection of issue 36: tests/fakes/realbleu_heldout13.py, its table, its switch.

`benchmarks/attribution.py --real --collection heldout13` measures which root cause `check` names for the bug of the
thirteenth held-out set (a fix in a repository the earlier sets never cite); as for the other collections, nothing
here asserts a cause name: the table's `fits` are the yardstick of that measurement. What is held here (the table's
completeness, its control and its commit, new and cited nowhere: tests/end_to_end/test_real_bug_collections.py): the
switch changes some answer against the clean twin, answers as the clean twin on every input without its feature, and
the plant does what its diff shows, on inputs derived by hand in the comments.
"""

from __future__ import annotations

import math

from fakes.harness import Switches, collection_tests
from fakes.harness import score_request as _request
from fakes.realbleu_heldout13 import HELDOUT13_BUGS, Heldout13Wrapper
from fakes.realbleu_heldout13 import answer as heldout13_answer

BUG = "empty-output-scored-one-by-a-safe-division"
#: an empty hypothesis against "a", one order: c = 0, r = 1; clean 0 (BP 0); GEval before its fix 1 (BP 1)
EMPTY = _request([([], [["a"]])], weights=(1.0,))
#: "a" against "a": c = r = 1, 1 match of 1: 1 either way
MATCH = _request([(["a"], [["a"]])], weights=(1.0,))
#: Requests between which the switch changes some answer (a score or a statistic)
REQUESTS = [EMPTY, MATCH]

#: Switched on by a feature of the input only: (the feature, inputs without it)
CONDITIONAL = {
    # one hypothesis token anywhere in the corpus gives c > 0, and no reference token either (c = r = 0) is left alone
    BUG: ("no hypothesis token in the whole request and some reference token (c = 0, r > 0)",
          [MATCH,
           _request([([], [["a"]]), (["a"], [["a"]])], weights=(1.0,)),
           _request([([], [[]])], weights=(1.0,)),
           _request([(["a", "b"], [["a", "c", "d"]])], weights=(0.5, 0.5), level="sentence")]),
}

SWITCHES = Switches(HELDOUT13_BUGS, Heldout13Wrapper, heldout13_answer, REQUESTS, CONDITIONAL)
globals().update(SWITCHES.tests())  # the switch checks every held-out set passes (tests/fakes/harness.py)
# The fixed twin the bug's run alternates with passes `check` on 66 examples; the same examples fail the bug (the 66th,
# `random-0-65`, is the first of `check`'s seed-0 examples whose corpus has no hypothesis token)
globals().update(collection_tests("heldout13", HELDOUT13_BUGS, twin=(66, BUG)))


def _answer(bug, request):
    return heldout13_answer(request, Heldout13Wrapper(bug), with_stats=True)


def test_empty_output_scored_one_by_a_safe_division():
    # c = 0, r = 1: every p_n is 0 /. 0 = 1 and BP = exp(1 - 1 /. 0) = exp(1 - 1) = 1; clean: 0 and BP 0
    clean, answer = _answer(None, EMPTY), _answer(BUG, EMPTY)
    assert clean["score"] == 0.0 and clean["statistics"]["bp"] == 0.0
    assert answer["score"] == 1.0
    assert answer["statistics"] == {"hyp_len": 0, "ref_len": 1, "matches": [0], "totals": [0], "bp": 1.0}
    # four orders with their weights, two empty hypotheses against references of 3 and 2 tokens (r = 5), and at sentence
    # level: 1 each time
    corpus = _request([([], [["a", "b", "c"]]), ([], [["d", "e"]])])
    assert _answer(BUG, corpus)["score"] == 1.0 and _answer(BUG, corpus)["statistics"]["ref_len"] == 5
    assert _answer(None, corpus)["score"] == 0.0
    sentence = _request([([], [["a", "b"]])], weights=(0.5, 0.5), level="sentence")
    assert _answer(BUG, sentence)["score"] == 1.0
    # the fix's guard is c == 0 && r > 0: c = r = 0 is left to the clean twin (NaN), and one hypothesis token anywhere
    # gives c > 0 and the clean score: "a" against "a" beside an empty line against "a", c = 1, r = 2, 1 of 1, e^(1 - 2)
    assert _answer(BUG, _request([([], [[]])], weights=(1.0,)))["score"] == "NaN"
    mixed = _answer(BUG, _request([([], [["a"]]), (["a"], [["a"]])], weights=(1.0,)))
    assert math.isclose(mixed["score"], math.exp(-1), rel_tol=1e-12)
