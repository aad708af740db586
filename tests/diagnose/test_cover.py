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
from oracle.harness.events import FailureCause, RootCauseTally
from oracle.models.outcomes import Outcome
from oracle.models.results import Classification, Record, RunCause, run_name_of


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


def test_the_footer_names_the_causes_from_each_failing_records_cause_alone():
    """A session keeps a `FailureCause` of each failing record, not the record: the footer's causes are the ones
    the records give summary.md. By hand: 4 records fit strict-clipping alone, one is named earlier-answer-returned
    and fits strict-clipping as well (strict-clipping covers 5), one fits float32 alone (one record, no probe: no
    evidence, unexplained); a probe-confirmed earlier answer on its own is a cause of 1 record; the documented ids
    are the union over a cause's records (sorted); a passing record counts nothing."""
    documented = (Classification(name="strict-clipping", documented=["lib-clips"]),
                  Classification(name="strict-clipping", documented=["lib-clips", "lib-clips-2"]))
    records = [
        *(Record(id=f"random-0-{i}", kind="example", outcome=Outcome.FAIL, layer="score",
                 classification=documented[i % 2]) for i in range(4)),
        record(4, "earlier-answer-returned", "strict-clipping"),
        record(5, "float32"),
        record(6, "earlier-answer-returned", change=(("confirmed by changing", "references"),)),
        Record(id="random-0-7", kind="example", outcome=Outcome.PASS),
    ]
    from_records, from_causes = RootCauseTally(), RootCauseTally()
    for one in records:
        from_records.add(one)
        cause = FailureCause.of(one)
        if cause is not None:
            from_causes.add_cause(cause)
    assert FailureCause.of(records[-1]) is None
    assert [(c.name, c.records, c.documented) for c in from_causes.run_causes()] == [
        ("strict-clipping", 5, ("lib-clips", "lib-clips-2")), ("earlier-answer-returned", 1, ()),
        ("unexplained", 1, ())]
    assert from_causes.run_causes() == [
        RunCause(name=g.name, records=g.count, alternatives=g.alternatives, documented=tuple(g.documented))
        for g in from_records.groups()]


# -- evidence before accusation (issue 36), each rule against the code: (a) a name is reported only for records the
# run's main causes do not explain, (b) a combination covering every record beats two names splitting them, (d) a
# record's other fits are shown as what its input fits as well, never as causes. (c) is the tests above.


def test_a_second_name_is_reported_only_for_records_the_main_cause_does_not_explain():
    # 5 records fit strict-clipping only; 2 name themselves case-not-folded first but fit strict-clipping as well:
    # one cause explains all 7, and case-not-folded is no cause of the run
    assert causes({("strict-clipping",): 5, ("case-not-folded", "strict-clipping"): 2}) == [("strict-clipping", 7)]
    # one more record that only case-not-folded fits: now (and only now) it is reported, for that one record
    assert causes({("strict-clipping",): 5, ("case-not-folded", "strict-clipping"): 2, ("case-not-folded",): 1}) == [
        ("strict-clipping", 7), ("case-not-folded", 1)]
    assert run_name_of(("case-not-folded", "strict-clipping"), ["strict-clipping", "case-not-folded"]) == \
        "strict-clipping"


def test_a_combination_that_covers_every_record_beats_two_names_that_split_them():
    # 3 records fit a alone and a + b, 3 fit b alone and a + b, 2 fit a + b only: a + b explains 8, a and b 3 each
    signatures = {("a", "a + b"): 3, ("b", "a + b"): 3, ("a + b",): 2}
    assert causes(signatures) == [("a + b", 8)]
    # whose records are shown by it, the others' own first names fitting as well
    assert run_name_of(("a", "a + b"), ["a + b"]) == "a + b"


def test_other_fits_are_shown_as_fitting_as_well_in_the_console_and_summary_md():
    """A record named case-not-folded first, fitting strict-clipping as well, in a run whose cause is
    strict-clipping: the console's line and summary.md's name strict-clipping, saying its input fits
    case-not-folded as well; one whose own first name is the run's cause shows no other fit as a root cause."""
    from oracle.reports.console import _root_cause
    from oracle.reports.summaries import _root_cause_text

    other = record(0, "case-not-folded", "strict-clipping")
    assert _root_cause(other, "strict-clipping").startswith(
        "root cause: strict-clipping (this input fits case-not-folded as well): ")
    assert _root_cause_text(other.classification, ["strict-clipping"])[0] == (
        "`strict-clipping` (this input fits `case-not-folded` as well)")
    own = record(1, "strict-clipping", "case-not-folded")
    assert _root_cause(own, "strict-clipping").startswith("root cause: strict-clipping: ")
    assert _root_cause_text(own.classification, ["strict-clipping"])[0] == "`strict-clipping`"
