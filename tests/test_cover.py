"""Evidence before accusation (issue 36): a state or precision explanation (`earlier-answer-returned`,
`exp-halvings-carried-over`, `float32`) names a run's records only with a pattern across at least two records or a
confirming probe, never from one record whose numbers happen to fit it.

The single-record coincidences are built by hand: a record whose only fitting name is float32 (its answer within
1e-5 of the oracle's, nothing else fitting), one whose fits are earlier-answer-returned and a mechanism of the
request alone, among the records of a run whose bug is something else.

Holds: oracle.diagnose.cover
"""

from __future__ import annotations

from oracle.diagnose.cover import minimal_cover
from oracle.harness.events import RootCauseTally
from oracle.models.outcomes import Outcome
from oracle.models.results import Classification, Record, run_name_of


def causes(signatures, confirmed=frozenset()):
    cover = minimal_cover(signatures, confirmed) if confirmed else minimal_cover(signatures)
    return [(c.name, c.records) for c in cover]


def test_one_record_fitting_float32_alone_is_unexplained_not_float32():
    # a stateless float64 bug (strict clipping on 5 records); one more record's number lies within 1e-5 of the oracle's
    assert causes({("strict-clipping",): 5, ("float32",): 1}) == [("strict-clipping", 5), ("unexplained", 1)]


def test_one_record_fitting_a_state_and_another_mechanism_keeps_the_mechanism():
    # the record's own first name is the stale answer; the mechanism of the request alone that fits it as well names it
    signatures = {("case-not-folded",): 3, ("earlier-answer-returned", "strict-clipping"): 1}
    assert causes(signatures) == [("case-not-folded", 3), ("strict-clipping", 1)]
    # and a combined name with a precision part is held to the same rule
    assert causes({("reference_length=longest + float32",): 1, ("x",): 2}) == [("x", 2), ("unexplained", 1)]
    assert causes({("exp-halvings-carried-over",): 1}) == [("unexplained", 1)]


def test_a_pattern_across_two_records_or_a_probe_is_evidence():
    assert causes({("float32",): 2}) == [("float32", 2)]
    assert causes({("float32",): 1, ("float32", "mean-of-sentence-scores"): 1}) == [("float32", 2)]
    assert causes({("earlier-answer-returned",): 1}, frozenset({"earlier-answer-returned"})) == [
        ("earlier-answer-returned", 1)]


def record(index, name, *fits, change=()):
    return Record(id=f"random-0-{index}", kind="example", outcome=Outcome.FAIL, layer="score",
                  classification=Classification(name=name, fits=fits, change=change))


def test_a_run_names_a_single_coincidence_by_what_is_known_in_every_report():
    """RootCauseTally feeds summary.md, junit.xml, the console and the baseline: the run's causes, each group's
    description, and each record's run-wide name (`run_name_of`)."""
    tally = RootCauseTally()
    for index in range(4):
        tally.add(record(index, "strict-clipping"))
    tally.add(record(4, "float32"))
    tally.add(record(5, "earlier-answer-returned", "strict-clipping"))
    names = tally.run_names()
    assert names == ["strict-clipping", "unexplained"]
    groups = {g.name: g for g in tally.groups()}
    assert groups["strict-clipping"].count == 5 and groups["unexplained"].count == 1
    assert "float32" in groups["unexplained"].description and "evidence" in groups["unexplained"].description
    assert run_name_of(("float32",), names) == "unexplained"
    assert run_name_of(("earlier-answer-returned", "strict-clipping"), names) == "strict-clipping"


def test_a_probe_confirmed_earlier_answer_names_its_single_record():
    tally = RootCauseTally()
    tally.add(record(0, "strict-clipping"))
    tally.add(record(1, "earlier-answer-returned",
                     change=(("earlier request", 3), ("confirmed by changing", "references"))))
    assert tally.run_names() == ["earlier-answer-returned", "strict-clipping"]
