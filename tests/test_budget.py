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


# -- the searches among every explanation --------------------------------------------------------------------


def test_the_first_failure_of_a_kind_the_hints_leave_unexplained_is_searched_in_full_and_no_later_one():
    """Hand-derived, with one search a kind a block (--shrink-first 1): example 3 (kind score) was searched, so
    example 8 of the kind is not; another kind, or the same kind in the next block, is; failures of example 3 itself
    (a companion failing alike) are, since only examples before it count; a later search never changes an earlier
    answer. --shrink-first 0 still allows one: a block's bug gets one full search beyond its shrunk failures."""
    from oracle.harness.budget import full_search_allowed

    matches2 = ("fail", "matches", 2)
    searched = {3: [SCORE]}
    assert full_search_allowed(3, SCORE, searched, 1) is True
    assert full_search_allowed(8, SCORE, searched, 1) is False
    assert full_search_allowed(8, matches2, searched, 1) is True
    assert full_search_allowed(8, SCORE, searched, 2) is True  # --shrink-first 2: two a block
    assert full_search_allowed(8, SCORE, {3: [SCORE], 5: [SCORE]}, 2) is False
    assert full_search_allowed(SHRINK_BLOCK + 8, SCORE, searched, 1) is True
    assert full_search_allowed(2, SCORE, searched, 1) is True
    assert full_search_allowed(8, SCORE, {}, 0) is True
    assert full_search_allowed(8, SCORE, searched, 0) is False


def test_the_names_a_full_search_finds_are_hints_for_its_kind_after_those_of_the_shrunk_failure():
    """One process's bookkeeping (`RestartBudget`): example 1 shrunk and named A; example 4, searched in full, named
    B (fitting C as well): example 9 of the kind is tested against A, then B and C, each once; another kind is not."""
    from oracle.harness.transport import RestartBudget

    budget = RestartBudget(3)
    budget.example_started(1)
    assert budget.may_shrink(SCORE) == (True, ())
    budget.classified(("A",))
    budget.example_started(4)
    assert budget.may_shrink(SCORE) == (False, ("A",))
    assert budget.may_search_all(SCORE) is True
    budget.searched_named(SCORE, ("B", "C"))
    budget.searched_named(SCORE, ("A", "B"))  # (a companion of example 4 searched too: nothing new)
    budget.example_started(9)
    assert budget.may_shrink(SCORE) == (False, ("A", "B", "C"))
    assert budget.may_search_all(SCORE) is False
    assert budget.may_shrink(("fail", "bp", None)) == (True, ())


# -- sending a failure once more -------------------------------------------------------------------------------


def test_a_failure_is_sent_again_until_the_first_of_its_kind_in_its_block_was_answered_alike():
    """Hand-derived, --shrink-first 1: example 1 failed at score and was answered alike (charged as its kind), so
    example 3 of that kind is not sent again; another kind is, the same kind in the next block is, and example 1
    itself was. After an example answered two ways (charged as NONDETERMINISTIC_KIND), every later failure of the
    block is sent again. --shrink-first 0: the first failure of a kind is still sent again."""
    from oracle.harness.budget import NONDETERMINISTIC_KIND, resend_waived

    earlier = {1: [SCORE]}
    assert resend_waived(3, SCORE, earlier, 1) is True
    assert resend_waived(1, SCORE, earlier, 1) is False
    assert resend_waived(3, ("fail", "bp", None), earlier, 1) is False
    assert resend_waived(SHRINK_BLOCK + 3, SCORE, earlier, 1) is False
    assert resend_waived(3, SCORE, earlier, 2) is False  # --shrink-first 2: two sent again first
    assert resend_waived(3, SCORE, {0: [SCORE], 1: [SCORE]}, 2) is True
    assert resend_waived(3, SCORE, {0: [NONDETERMINISTIC_KIND], 1: [SCORE]}, 1) is False
    assert resend_waived(3, SCORE, {1: [SCORE], 2: [NONDETERMINISTIC_KIND]}, 1) is False
    assert resend_waived(3, SCORE, {}, 0) is False
    assert resend_waived(3, SCORE, earlier, 0) is True
