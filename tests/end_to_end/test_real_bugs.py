"""The real-bug collection of issue 36: tests/fakes/realbleu.py, its table and a few of its bugs through `check`.

`benchmarks/attribution.py --real` measures which root cause `check` names for each bug (benchmarks/README.md,
"Root causes of real bugs (issue 36)"); nothing here asserts a cause name, since the table's `fits` are the
yardstick of that measurement, not a contract. What is held here (the table's completeness and its threads:
tests/end_to_end/test_real_bug_collections.py): each switch changes some answer, the clean twin is right on the
document's example and conforms under `check`, and a handful of bugs of different kinds are caught.
"""

from __future__ import annotations

import json
import math

import pytest
from fakes.harness import clean_twin_tests, deviations, real_bug_check
from fakes.realbleu import REAL_BUGS, Wrapper, answer


def _request(segments, weights=(0.25, 0.25, 0.25, 0.25), smoothing=None, level="corpus"):
    return {"cmd": "score", "seq": 1, "level": level, "weights": list(weights), "lowercase": False,
            "smoothing": smoothing or {"method": "none"},
            "segments": [{"hypothesis": h, "references": r} for h, r in segments]}


SEGMENTS = [
    ("the cat sat on the mat".split(), ["the cat sat on a mat".split(), "a cat is on the mat today".split()]),
    ("there is a dog here".split(), ["here is a dog".split()]),
    (["a b", "c", "d", "e", "f"], [["a b", "c", "d", "e", "f", "g"], ["x"]]),
]
SHORT = ("a b c d e".split(), ["a b x y z w".split()])
CHEN_CHERRY_4 = {"method": "chen-cherry-4", "k": 5}
#: Requests between which every switch changes some answer (a score, a statistic, or an error).
REQUESTS = [
    _request(SEGMENTS),
    _request(SEGMENTS, weights=(0.5, 0.5)),
    _request(SEGMENTS + [("one two three".split(), ["one two four".split()]), SHORT]),
    _request([([], [["a"]])]),
    _request([SHORT], smoothing=CHEN_CHERRY_4, level="sentence"),
    _request([SHORT, ("x y".split(), ["x y".split()])], smoothing=CHEN_CHERRY_4),
    _request([(["q"], [["a", "b"]])], smoothing=CHEN_CHERRY_4, level="sentence"),
    _request([("a b c d".split(), ["a b c d e".split(), "a b c".split()])], level="sentence"),
]


def _reply(bug, request):
    try:
        return json.dumps(answer(request, Wrapper(bug), with_stats=True), sort_keys=True)
    except Exception as exc:  # noqa: BLE001 - the protocol loop turns any exception into an error reply
        return f"error: {type(exc).__name__}"


@pytest.mark.parametrize("bug", sorted(REAL_BUGS))
def test_each_switch_changes_some_answer(bug):
    assert any(_reply(bug, r) != _reply(None, r) for r in REQUESTS), f"{bug} answers every request as clean does"


def test_the_clean_twin_scores_the_protocol_example():
    # PROTOCOL.md, "A minimal session": both precisions are 1, c = 3, r = 6, so BLEU = BP = e^(1 - 6/3) = e^-1
    reply = answer(_request([("the cat sat".split(), ["the cat sat on the mat".split()])], weights=(0.5, 0.5),
                            level="sentence"), Wrapper(None), with_stats=True)
    assert math.isclose(reply["score"], math.exp(-1), rel_tol=1e-12)
    assert reply["statistics"] == {"hyp_len": 3, "ref_len": 6, "matches": [3, 2], "totals": [3, 2],
                                   "bp": pytest.approx(math.exp(-1), rel=1e-12)}


globals().update(clean_twin_tests("realbleu", "conforms"))  # a whole `check` (tests/fakes/harness.py)


#: One bug of each of four kinds, among those the benchmark saw caught in seconds.
CAUGHT = ("references-transposed", "padding-counted", "percent-scale", "chen-cherry-4-log-one")


@pytest.mark.slow
@pytest.mark.parametrize("bug", CAUGHT)
def test_a_handful_of_real_bugs_are_caught(tmp_path, bug):
    assert real_bug_check(tmp_path / "report", "realbleu", bug) == 1, f"{bug} ({REAL_BUGS[bug].url}) was not caught"
    assert deviations(tmp_path / "report")
