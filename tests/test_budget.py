"""What a block of examples affords its failures (`oracle.harness.budget`): each rule is a function of the failures
judged before an example within its block, hand-derived here; the runs that show one process, `--jobs` and shards
deciding alike are in tests/test_jobs.py, tests/test_shards.py and tests/test_confirm.py.

Holds: oracle.harness.budget
"""

from __future__ import annotations

from oracle.harness.budget import SHRINK_BLOCK, failure_kind, shrink_allowed

SCORE = ("fail", "score", None)


def test_a_series_step_and_an_example_failing_alike_are_kinds_apart():
    # an example's kind is (outcome, layer, order); a series step's has "series" first: one shrink each per block
    assert failure_kind("example", "fail", "score", None) == SCORE
    series = failure_kind("series", "fail", "score", None)
    assert series == ("series", "fail", "score", None)
    assert shrink_allowed(3, series, {1: [SCORE]}, 1) is True
    assert shrink_allowed(3, SCORE, {1: [SCORE]}, 1) is False
    assert shrink_allowed(SHRINK_BLOCK, SCORE, {1: [SCORE]}, 1) is True  # example 50 starts the next block
