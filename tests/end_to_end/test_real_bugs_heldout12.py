"""The twelfth held-out real-bug collection of issue 36: tests/fakes/realbleu_heldout12.py, its table, its switches.

`benchmarks/attribution.py --real --collection heldout12` measures which root cause `check` names for each bug of the
twelfth held-out set (fixes in repositories the earlier sets never cite); as for the other collections, nothing here
asserts a cause name: the table's `fits` are the yardstick of that measurement. What is held here (the table's
completeness, its controls and its threads, new and cited nowhere: tests/end_to_end/test_real_bug_collections.py):
each switch changes some answer against the clean twin, every conditional switch answers as the clean twin on an
input without its feature, and the plants do what their diffs show, on inputs derived by hand in the comments.
"""

from __future__ import annotations

import math

from fakes.harness import Switches, collection_tests
from fakes.harness import score_request as _request
from fakes.realbleu_heldout12 import HELDOUT12_BUGS, Heldout12Wrapper
from fakes.realbleu_heldout12 import answer as heldout12_answer

#: "a" against "a a" at sentence level, one order: clean m = 1 of 1, c = 1, r = 2, e^(1 - 2); zipf m = 2 of 1
REPEATED = _request([(["a"], [["a", "a"]])], weights=(1.0,), level="sentence")
#: "The cat" against "The cat", case kept: clean 1; Phrasal "the cat" against "The cat", m = 1 of 2
CASED = _request([(["The", "cat"], [["The", "cat"]])], weights=(1.0,))
#: Requests between which every switch changes some answer (a score or a statistic)
REQUESTS = [REPEATED, CASED]

#: Switched on by a feature of the input only: (the feature, inputs without it)
CONDITIONAL = {
    # zipf's corpus BLEU clipped right, and a reference with no more copies than the hypothesis gives the clip
    "sentence-matches-credited-with-reference-counts": (
        "a sentence-level request whose reference holds an n-gram more often than the hypothesis",
        [CASED,
         _request([(["a"], [["a", "a"]])], weights=(1.0,), level="corpus"),
         _request([(["a", "a", "b"], [["a", "b"]])], weights=(0.5, 0.5), level="sentence")]),
    # Phrasal lowercases the hypothesis: nothing to fold, or a request that folds both sides, changes nothing
    "hypotheses-lowercased-by-the-scoring-script": (
        "an upper-case letter in a hypothesis token of a case-sensitive request",
        [REPEATED,
         _request([(["The", "cat"], [["The", "cat"]])], weights=(1.0,), lowercase=True),
         _request([(["the", "cat"], [["The", "cat"]])], weights=(1.0,))]),
}

SWITCHES = Switches(HELDOUT12_BUGS, Heldout12Wrapper, heldout12_answer, REQUESTS, CONDITIONAL)
globals().update(SWITCHES.tests())  # the switch checks every held-out set passes (tests/fakes/harness.py)
# The fixed twin every bug's run alternates with passes `check` on 10 examples; the same examples fail the lowercasing
globals().update(collection_tests("heldout12", HELDOUT12_BUGS,
                                  twin=(10, "hypotheses-lowercased-by-the-scoring-script")))


def _answer(bug, request):
    return heldout12_answer(request, Heldout12Wrapper(bug), with_stats=True)


def test_sentence_matches_credited_with_reference_counts():
    bug = "sentence-matches-credited-with-reference-counts"
    # "a" against "a a", one order: r_ng[1].count(["a"]) = 2 matches of 1, c = 1, r = 2: 2 e^(1 - 2); clean e^(1 - 2)
    assert math.isclose(_answer(None, REPEATED)["score"], math.exp(-1), rel_tol=1e-12)
    answer = _answer(bug, REPEATED)
    assert math.isclose(answer["score"], 2 * math.exp(-1), rel_tol=1e-12)
    assert answer["statistics"]["matches"] == [2] and answer["statistics"]["totals"] == [1]
    # "a b" against "a b a b", two orders: unigrams a -> 2, b -> 2, 4 of 2; the bigram "a b" -> 2 of 1 (the reference's
    # bigrams "a b", "b a", "a b"); c = 2, r = 4: exp(ln 2 / 2 + ln 2 / 2) e^(1 - 2) = 2 e^-1; clean 2/2, 1/1, e^-1
    request = _request([(["a", "b"], [["a", "b", "a", "b"]])], weights=(0.5, 0.5), level="sentence")
    assert math.isclose(_answer(None, request)["score"], math.exp(-1), rel_tol=1e-12)
    answer = _answer(bug, request)
    assert answer["statistics"]["matches"] == [4, 2] and answer["statistics"]["totals"] == [2, 1]
    assert math.isclose(answer["score"], 2 * math.exp(-1), rel_tol=1e-12)
    # several references: each distinct hypothesis n-gram takes its largest count over them (the fixed function's
    # max, without its min): "a b" against "a a b" and "b b b", a -> 2, b -> 3, 5 of 2; c = 2, r = 3 (both 3 away by 1):
    # 5/2 e^(1 - 3/2); clean 2 of 2, e^(1 - 3/2)
    several = _request([(["a", "b"], [["a", "a", "b"], ["b", "b", "b"]])], weights=(1.0,), level="sentence")
    answer = _answer(bug, several)
    assert answer["statistics"]["matches"] == [5] and answer["statistics"]["ref_len"] == 3
    assert math.isclose(answer["score"], 2.5 * math.exp(-0.5), rel_tol=1e-12)
    assert math.isclose(_answer(None, several)["score"], math.exp(-0.5), rel_tol=1e-12)
    # the same input at corpus level is the library's corpus BLEU, which clipped: the clean twin's answer
    assert _answer(bug, _request([(["a"], [["a", "a"]])], weights=(1.0,))) == _answer(
        None, _request([(["a"], [["a", "a"]])], weights=(1.0,)))


def test_hypotheses_lowercased_by_the_scoring_script():
    bug = "hypotheses-lowercased-by-the-scoring-script"
    # "The cat" scored as "the cat" against "The cat": 1 match of 2 ("cat"), c = r = 2: 1/2; clean 1
    assert _answer(None, CASED)["score"] == 1.0
    answer = _answer(bug, CASED)
    assert answer["score"] == 0.5
    assert answer["statistics"] == {"hyp_len": 2, "ref_len": 2, "matches": [1], "totals": [2], "bp": 1.0}
    # the references are never folded: "the" against "The" has no match either way
    lower = _request([(["the"], [["The"]])], weights=(1.0,))
    assert _answer(bug, lower)["statistics"]["matches"] == [0] == _answer(None, lower)["statistics"]["matches"]
