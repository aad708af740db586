"""Among equals (issue 36, passing-tie): where two names fit every failing record of a run equally, the passing
requests of the failing records' smoothing method rule out a name that predicts a score other than the one the
implementation answered right there; never every name. The sample of passing requests is bounded (PASSING_SAMPLE per
smoothing method, the first ones).

Every value below is derived by hand from PROTOCOL.md's definitions ("add-k": add k to m_n and l_n for every order
n > 1; the score is BP x exp(sum w_n log p_n)); weights (1/2, 1/2), one segment, hypothesis and reference of equal
length (BP = 1):

- "a b c" against "a b d": unigrams 2/3 (a, b), bigrams 1/2 ("a b"). Under add-k (k = 1) p_2 = (1+1)/(2+1) = 2/3, so
  the right score is (2/3 x 2/3)^(1/2) = 2/3. `smoothing=none` predicts (2/3 x 1/2)^(1/2) = 1/3^(1/2) = 0.5774
  (contradicted); `any-order-unmatched-zero` (an early 0 where an order has no match) does not apply (every order
  matched): not contradicted.
- "a b" against "a c": unigrams 1/2, bigrams 0/1. Under add-k p_2 = (0+1)/(1+1) = 1/2: the right score is 1/2.
  `smoothing=none` predicts 0 (p_2 = 0), `any-order-unmatched-zero` predicts 0: both contradicted.

The cover's `settled` and `among_equals`, and the events' bounded sample, are held here too.

Holds: oracle.diagnose.equals, oracle.diagnose.cover, oracle.harness.events
"""

from __future__ import annotations

import math

import pytest

from oracle.diagnose.cover import minimal_cover, settled
from oracle.diagnose.equals import PASSING_SAMPLE, Passing, contradicts, not_contradicted
from oracle.harness.events import RootCauseTally
from oracle.models.outcomes import Outcome
from oracle.models.protocol import ScoreReply, ScoreRequest, Segment
from oracle.models.results import Classification, Record

PROFILE = "papineni"
NONE, UNMATCHED = ("smoothing=none",), ("any-order-unmatched-zero",)
ADD_ONE = {"method": "add-k", "k": 1}


def request(hypothesis, reference, smoothing, seq=1):
    return ScoreRequest(seq=seq, level="corpus", weights=(0.5, 0.5), smoothing=smoothing, lowercase=False,
                        segments=[Segment(hypothesis=hypothesis.split(), references=[reference.split()])])


def failing(index, smoothing, first=UNMATCHED, other=NONE):
    """A failing record both names fit equally (any-order-unmatched-zero its own first name by default, as the
    chen-cherry-4 mutants' records are named on main)."""
    return Record(id=f"random-0-{index}", kind="example", outcome=Outcome.FAIL, layer="score",
                  request=request("a b", "a c", smoothing),
                  classification=Classification(name=first[0], fits=other))


def passing(index, hypothesis, reference, score, smoothing):
    return Record(id=f"random-0-{index}", kind="example", outcome=Outcome.PASS,
                  request=request(hypothesis, reference, smoothing, seq=index + 1),
                  actual=ScoreReply(seq=index + 1, score=score))


ALL_MATCHED = ("a b c", "a b d", 2 / 3)       # add-k's right score 2/3; smoothing=none predicts 1/3^(1/2)
BIGRAM_UNMATCHED = ("a b", "a c", 1 / 2)     # add-k's right score 1/2; both names predict 0


def test_each_name_read_on_one_passing_request():
    matched = Passing(request(*ALL_MATCHED[:2], ADD_ONE), ALL_MATCHED[2])
    assert contradicts(matched, NONE, PROFILE)
    assert not contradicts(matched, UNMATCHED, PROFILE)
    unmatched = Passing(request(*BIGRAM_UNMATCHED[:2], ADD_ONE), BIGRAM_UNMATCHED[2])
    assert contradicts(unmatched, NONE, PROFILE) and contradicts(unmatched, UNMATCHED, PROFILE)
    assert not_contradicted((NONE, UNMATCHED), [matched], PROFILE) == (UNMATCHED,)
    assert not_contradicted((NONE, UNMATCHED), [matched, unmatched], PROFILE) == ()
    # the name predicting the answered score is not contradicted: smoothing=none on a request asking for none
    plain = Passing(request(*ALL_MATCHED[:2], {"method": "none"}), 1 / math.sqrt(3))
    assert not contradicts(plain, NONE, PROFILE)
    # a convention's name (an option's value) and what is known are not read
    assert not contradicts(matched, ("reference_length=shortest",), PROFILE)
    assert not contradicts(matched, ("other-counting-of-matches",), PROFILE)


def test_settled_never_leaves_a_tie_without_a_name():
    assert settled((NONE, UNMATCHED), [UNMATCHED]) == (UNMATCHED,)
    assert settled((NONE, UNMATCHED), []) == (NONE, UNMATCHED)
    # through the cover: the records stay together, the name the filter keeps is the cause, the other dropped
    signatures = {(UNMATCHED, NONE): 7, (("strict-clipping",),): 2}
    cover = minimal_cover(signatures, among_equals=lambda tied, taken: tuple(c for c in tied if c != UNMATCHED))
    assert [(c.parts, c.records, c.alternative_parts) for c in cover] == [
        (NONE, 7, ()), (("strict-clipping",), 2, ())]
    cover = minimal_cover(signatures, among_equals=lambda tied, taken: ())
    assert [(c.parts, c.records, c.alternative_parts) for c in cover][0] == (UNMATCHED, 7, (NONE,))


def tally_of(failing_methods, passing_records):
    tally = RootCauseTally(profile=PROFILE)
    for index, method in enumerate(failing_methods):
        tally.add(failing(index, method))
    for record in passing_records:
        tally.add(record)
    return tally


def test_a_tie_of_two_names_one_contradicted_by_a_passing_request():
    """Failing records of add-k fit both names; a passing add-k request every order matched, answered 2/3, contradicts
    smoothing=none (which predicts 0.5774) and not any-order-unmatched-zero (which does not apply)."""
    tally = tally_of([ADD_ONE] * 3, [passing(10, *ALL_MATCHED, ADD_ONE)])
    causes = tally.run_causes()
    assert [(c.parts, c.records, c.alternative_parts) for c in causes] == [(UNMATCHED, 3, ())]
    # and where the records name smoothing=none first (the name chosen before any passing request is read), the
    # request rules it out and the other name is the cause, of the same records
    tally = RootCauseTally(profile=PROFILE)
    for index in range(3):
        tally.add(failing(index, ADD_ONE, first=NONE, other=UNMATCHED))
    assert [(c.parts, c.alternative_parts) for c in tally.run_causes()] == [(NONE, (UNMATCHED,))]
    tally.add(passing(10, *ALL_MATCHED, ADD_ONE))
    assert [(c.parts, c.records, c.alternative_parts) for c in tally.run_causes()] == [(UNMATCHED, 3, ())]


def test_a_tie_both_names_contradicted_keeps_both():
    tally = tally_of([ADD_ONE] * 3, [passing(10, *ALL_MATCHED, ADD_ONE), passing(11, *BIGRAM_UNMATCHED, ADD_ONE)])
    assert [(c.parts, c.records, c.alternative_parts) for c in tally.run_causes()] == [(UNMATCHED, 3, (NONE,))]


def test_the_scope_is_the_smoothing_method_the_failing_records_share():
    # failing records of smoothing none: the add-k request that contradicts smoothing=none is out of their scope
    tally = tally_of([{"method": "none"}] * 3, [passing(10, *ALL_MATCHED, ADD_ONE)])
    assert [(c.parts, c.alternative_parts) for c in tally.run_causes()] == [(UNMATCHED, (NONE,))]
    # failing records of two methods share none: every kept passing request is read
    tally = tally_of([{"method": "none"}, ADD_ONE], [passing(10, *ALL_MATCHED, ADD_ONE)])
    assert [(c.parts, c.alternative_parts) for c in tally.run_causes()] == [(UNMATCHED, ())]


def test_without_a_profile_or_passing_requests_nothing_is_read():
    tally = RootCauseTally()
    for index in range(3):
        tally.add(failing(index, ADD_ONE))
    tally.add(passing(10, *ALL_MATCHED, ADD_ONE))
    assert tally.passing_kept() == {}
    assert [(c.parts, c.alternative_parts) for c in tally.run_causes()] == [(UNMATCHED, (NONE,))]


def test_a_report_reads_the_tie_as_the_footer_settled_it():
    """summary.md's tally reads results.jsonl's passing records without their requests: it keeps the names the
    footer gave."""
    settled_run = tally_of([ADD_ONE] * 3, [passing(10, *ALL_MATCHED, ADD_ONE)])
    report = RootCauseTally()
    for index in range(3):
        report.add(failing(index, ADD_ONE))
    report.settle_as(tuple(settled_run.run_causes()))
    assert report.run_names() == [UNMATCHED]
    assert [(g.name, g.count, g.alternatives) for g in report.groups()] == [("any-order-unmatched-zero", 3, ())]


@pytest.mark.parametrize("passing_count", [PASSING_SAMPLE - 1, PASSING_SAMPLE, 3 * PASSING_SAMPLE])
def test_the_sample_never_exceeds_its_cap(passing_count):
    tally = RootCauseTally(profile=PROFILE)
    for index in range(passing_count):
        tally.add(passing(index, *ALL_MATCHED, ADD_ONE))
    for index in range(5):
        tally.add(passing(1000 + index, *ALL_MATCHED[:2], 1 / math.sqrt(3), {"method": "none"}))
    assert PASSING_SAMPLE == 64
    assert tally.passing_kept() == {"add-k": min(passing_count, 64), "none": 5}
    # the first ones, in the run's order
    assert [p.request.seq for p in tally._passing["add-k"]] == list(range(1, min(passing_count, 64) + 1))


def test_only_random_examples_judged_against_the_oracle_are_sampled():
    """A passing case (its expectation may come with the case's own conventions) and a relation's record (a relation
    that held says two answers agree, not that either is right) are not kept; nor is a failing record. An example's
    companion judged against the oracle (kind example, id random-S-I~brackets) is."""
    tally = RootCauseTally(profile=PROFILE)
    case = passing(1, *ALL_MATCHED, ADD_ONE).model_copy(update={"kind": "case", "id": "papineni-1"})
    relation = passing(2, *ALL_MATCHED, ADD_ONE).model_copy(update={"kind": "metamorphic", "id": "random-0-2~swap"})
    series = passing(3, *ALL_MATCHED, ADD_ONE).model_copy(update={"kind": "series", "id": "random-0-3~series"})
    for record in (case, relation, series, failing(4, ADD_ONE)):
        tally.add(record)
    assert tally.passing_kept() == {}
    tally.add(passing(5, *ALL_MATCHED, ADD_ONE).model_copy(update={"id": "random-0-5~brackets"}))
    tally.add(passing(6, *ALL_MATCHED, ADD_ONE))
    assert tally.passing_kept() == {"add-k": 2}
