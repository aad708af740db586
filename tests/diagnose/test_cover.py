"""Evidence before accusation (issue 36): a state or precision explanation (`earlier-answer-returned`,
`exp-halvings-carried-over`, `float32`) names a run's records only with a pattern across at least two records or a
confirming probe, never from one record whose numbers happen to fit it.

The single-record coincidences are built by hand: a record whose only fitting name is float32 (its answer within
1e-5 of the oracle's, nothing else fitting), one whose fits are earlier-answer-returned and a mechanism of the
request alone, among the records of a run whose bug is something else.

A narrower name one record can fit by chance beside the run's main cause (a cap on the references' lengths, one
segment's length: `needs_evidence`) is built by hand too: records of an implementation that reads every reference's
length as 2 (the first held-out set's `reference-length-of-pair`), two of which a cut of each reference to 2
tokens reproduces as well.

Holds: oracle.diagnose.cover
"""

from __future__ import annotations

import math

import pytest

from oracle.diagnose.attribute import attribute_shrunk
from oracle.diagnose.classify import classify
from oracle.diagnose.cover import minimal_cover, run_name_of
from oracle.diagnose.expect import oracle_expected
from oracle.diagnose.judge import judge
from oracle.harness.events import FailureCause, RootCauseTally
from oracle.harness.transport import Reply
from oracle.models.outcomes import Outcome
from oracle.models.protocol import ScoreReply, ScoreRequest, Segment
from oracle.models.results import Classification, Record, RunCause


def one(*names):
    """A signature of causes of one mechanism each, as the cover takes them (each cause its parts)."""
    return tuple((name,) for name in names)


def causes(signatures, confirmed=frozenset()):
    cover = minimal_cover(signatures, confirmed) if confirmed else minimal_cover(signatures)
    return [(c.name, c.records) for c in cover]


def test_one_record_fitting_float32_alone_is_unexplained_not_float32():
    # a stateless float64 bug (strict clipping on 5 records); one more record's number lies within 1e-5 of the oracle's
    assert causes({one("strict-clipping"): 5, one("float32"): 1}) == [("strict-clipping", 5), ("unexplained", 1)]


def test_one_record_fitting_a_state_and_another_mechanism_keeps_the_mechanism():
    # the record's own first name is the stale answer; the mechanism of the request alone that fits it as well names it
    signatures = {one("case-not-folded"): 3, one("earlier-answer-returned", "strict-clipping"): 1}
    assert causes(signatures) == [("case-not-folded", 3), ("strict-clipping", 1)]
    # and a combined name with a precision part is held to the same rule
    assert causes({(("reference_length=longest", "float32"),): 1, one("x"): 2}) == [("x", 2), ("unexplained", 1)]
    assert causes({one("exp-halvings-carried-over"): 1}) == [("unexplained", 1)]


def test_a_pattern_across_two_records_or_a_probe_is_evidence():
    assert causes({one("float32"): 2}) == [("float32", 2)]
    assert causes({one("float32"): 1, one("float32", "mean-of-sentence-scores"): 1}) == [("float32", 2)]
    assert causes({one("earlier-answer-returned"): 1}, frozenset(one("earlier-answer-returned"))) == [
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
    assert names == list(one("strict-clipping", "unexplained"))
    groups = {g.name: g for g in tally.groups()}
    assert groups["strict-clipping"].count == 5 and groups["unexplained"].count == 1
    assert "float32" in groups["unexplained"].description and "evidence" in groups["unexplained"].description
    assert run_name_of(one("float32"), names) == ("unexplained",)
    assert run_name_of(one("earlier-answer-returned", "strict-clipping"), names) == ("strict-clipping",)


def test_a_probe_confirmed_earlier_answer_names_its_single_record():
    tally = RootCauseTally()
    tally.add(record(0, "strict-clipping"))
    tally.add(record(1, "earlier-answer-returned",
                     change=(("earlier request", 3), ("confirmed by changing", "references"))))
    assert tally.run_names() == list(one("earlier-answer-returned", "strict-clipping"))


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
    main, both = {one("strict-clipping"): 5}, {one("case-not-folded", "strict-clipping"): 2}
    assert causes({**main, **both}) == [("strict-clipping", 7)]
    # one more record that only case-not-folded fits: now (and only now) it is reported, for that one record
    assert causes({**main, **both, one("case-not-folded"): 1}) == [("strict-clipping", 7), ("case-not-folded", 1)]
    assert run_name_of(one("case-not-folded", "strict-clipping"), one("strict-clipping", "case-not-folded")) == \
        ("strict-clipping",)


def test_a_combination_that_covers_every_record_beats_two_names_that_split_them():
    # 3 records fit a alone and a + b, 3 fit b alone and a + b, 2 fit a + b only: a + b explains 8, a and b 3 each
    a, b, a_b = ("a",), ("b",), ("a", "b")
    signatures = {(a, a_b): 3, (b, a_b): 3, (a_b,): 2}
    assert causes(signatures) == [("a + b", 8)]
    # whose records are shown by it, the others' own first names fitting as well
    assert run_name_of((a, a_b), [a_b]) == a_b


def test_other_fits_are_shown_as_fitting_as_well_in_the_console_and_summary_md():
    """A record named case-not-folded first, fitting strict-clipping as well, in a run whose cause is
    strict-clipping: the console's line and summary.md's name strict-clipping, saying its input fits
    case-not-folded as well; one whose own first name is the run's cause shows no other fit as a root cause."""
    from oracle.reports.console import _root_cause
    from oracle.reports.summaries import _root_cause_text

    other = record(0, "case-not-folded", "strict-clipping")
    clipping = ("strict-clipping",)
    assert _root_cause(other, clipping).startswith(
        "root cause: strict-clipping (this input fits case-not-folded as well): ")
    assert _root_cause_text(other.classification, [clipping])[0] == (
        "`strict-clipping` (this input fits `case-not-folded` as well)")
    own = record(1, "strict-clipping", "case-not-folded")
    assert _root_cause(own, clipping).startswith("root cause: strict-clipping: ")
    assert _root_cause_text(own.classification, [clipping])[0] == "`strict-clipping`"


# -- a narrower name one record can fit by chance, beside the run's main cause (issue 36) ------------------------------


def test_a_name_needing_evidence_counts_its_pattern_outside_the_main_causes_records():
    # float32 fits 2 records, one of which strict-clipping (6 records) explains as well: among the records left, one
    # record is float32's whole pattern, a numeric coincidence by the rule (PATTERN_RECORDS = 2), so unexplained
    signatures = {one("strict-clipping"): 5, one("strict-clipping", "float32"): 1, one("float32"): 1}
    assert causes(signatures) == [("strict-clipping", 6), ("unexplained", 1)]
    # two records of its own are a pattern, whatever the main cause's records fit
    assert causes({**signatures, one("float32"): 2}) == [("strict-clipping", 6), ("float32", 2)]
    # nor is it an alternative ("fits: A or B") of a cause with evidence only the main cause's records gave it:
    # case-not-folded's one record fits float32 as well, whose other 3 records strict-clipping explains
    beside = {one("strict-clipping", "float32"): 3, one("strict-clipping"): 3, one("case-not-folded", "float32"): 1}
    assert [(c.name, c.records, c.alternatives) for c in minimal_cover(beside)] == [
        ("strict-clipping", 6, ()), ("case-not-folded", 1, ())]


def _one_segment(hypothesis, reference):
    return ScoreRequest(level="corpus", weights=(0.5, 0.5), smoothing={"method": "none"}, lowercase=False,
                        segments=[Segment(hypothesis=hypothesis.split(), references=[reference.split()])])


def _length_two(c, matches, totals, score):
    """The answer of an implementation that takes every reference's length as 2 (the length of a [tokens, weights]
    pair): r = 2 on one segment, BP 1 since c > 2, the matches and totals the oracle's own."""
    return {"score": score, "statistics": {"hyp_len": c, "ref_len": 2, "matches": list(matches),
                                           "totals": list(totals), "bp": 1.0}}


#: By hand, BLEU-2 (weights 1/2, 1/2), one reference each, r = 2 (BP 1):
#: "a b c d" / "a b x y z": 2 of 4 unigrams and 1 of 3 bigrams match, sqrt(1/2 * 1/3) = sqrt(1/6); the reference cut
#: to its first 2 tokens ("a b") gives the same counts (x, y, z matched nothing) and r = 2: the cut fits as well.
#: "p q r" / "p q s t": 2 of 3, 1 of 2: sqrt(1/3); cut to "p q" the same again.
#: "a b c d e f" / "a b xyz": 2 of 6, 1 of 5: sqrt(1/15), BP 1 for the oracle's r = 3 too (the score agrees, the
#: counts differ at r); cut to "a b" the same counts again; r = 2 is neither the distance |6 - 3| nor the length of
#: "a b xy" (its last character chopped).
#: "d e f" / "d e f g h i", "k l m n" / "z k l m n", "u v w" / "u v w x y z q": every n-gram matches (score 1); a cut
#: to 2 tokens would lose matches, and r = 2 is not the distance |c - r| (3, 1, 4) either: only what is known fits.
COINCIDENT = ((_one_segment("a b c d", "a b x y z"), _length_two(4, (2, 1), (4, 3), math.sqrt(1 / 6))),
              (_one_segment("p q r", "p q s t"), _length_two(3, (2, 1), (3, 2), math.sqrt(1 / 3))),
              (_one_segment("a b c d e f", "a b xyz"), _length_two(6, (2, 1), (6, 5), math.sqrt(1 / 15))))
LENGTH_TWO_ONLY = ((_one_segment("d e f", "d e f g h i"), _length_two(3, (3, 2), (3, 2), 1.0)),
                   (_one_segment("k l m n", "z k l m n"), _length_two(4, (4, 3), (4, 3), 1.0)),
                   (_one_segment("u v w", "u v w x y z q"), _length_two(3, (3, 2), (3, 2), 1.0)))
CAP, KNOWN = "references-truncated-to-2-tokens", "other-counting-of-ref_len"


def test_a_narrower_coincidental_fit_keeps_what_is_known_among_its_fits():
    """Where only a name needing evidence reproduces the returned counts, `other-counting-of-<layer>` (what is known of
    them: they differ first at r, and scored by the formulas they give the answer) stays among the fits, in a search
    among given names (a kind's earlier record's name, tried first) as well."""
    for request, answer in COINCIDENT:
        for among in (None, (CAP,)):
            found = classify(request, answer, "papineni", among=among)
            assert CAP in (found.name, *found.fits) and KNOWN in (found.name, *found.fits)


def test_a_run_names_records_its_main_cause_explains_by_it_not_by_a_narrower_coincidence():
    """Six records of the length-2 bug: three only what is known fits, three the cap to 2 tokens fits as well (a
    pattern by itself). One cause explains all six: the cap is what those three inputs fit as well, not a cause.
    Every record has one reference and r = 2, which the counting grammar's `number-of-references-plus-1` gives on each
    (1 + 1, by hand; no reference length, hypothesis length or other offset of them is 2 on all six: 6, 5, 7, 5, 4, 3
    and c 3, 4, 3, 4, 3, 6), among the fits of the three what is known names and, since only r differs, beside the
    cap on the other three (fits-beside): a fit all six records share names the run (`cover._fitted_over_known`),
    what these one-reference inputs cannot tell from "2 a segment", which its words say is a fit of the integers."""
    tally = RootCauseTally()
    for index, (request, answer) in enumerate(LENGTH_TWO_ONLY + COINCIDENT):
        classification = classify(request, answer, "papineni").classification()
        tally.add(Record(id=f"random-0-{index}", kind="example", outcome=Outcome.FAIL, layer="ref_len",
                         classification=classification))
    fitted = ("ref_len-fitted-as-number-of-references-plus-1",)
    assert tally.run_names() == [fitted]
    assert [(g.name, g.count) for g in tally.groups()] == [(fitted[0], 6)]


def test_what_is_known_among_every_records_fits_is_no_alternative_to_the_mechanism_that_names_them():
    # the bug whose r is the last segment's alone: each record also keeps what is known of its counts (they differ
    # first at r); the inputs need no telling apart of the two ("fits: A or B"), since the second is no mechanism
    run = {one("reference-length-of-last-segment-only", KNOWN): 92}
    assert [(c.name, c.records, c.alternatives) for c in minimal_cover(run)] == [
        ("reference-length-of-last-segment-only", 92, ())]
    # where what is known names the run, the mechanisms fitting every record stay its alternatives, as before
    assert [(c.name, c.alternatives) for c in minimal_cover({one(KNOWN, "mean-of-sentence-scores"): 2})] == [
        (KNOWN, ("mean-of-sentence-scores",))]


def test_a_shrunk_record_keeps_what_is_known_where_its_original_holds_it():
    """The shrunk input of a length-2 record, "" against "a b b", BLEU-1: r = 2 where the oracle counts 3, the score 0
    on both sides (c = 0). Whichever name the shrunk input fits first, the one kept is the one that explains the
    original ("a b c d" / "a b x y z" above), and what is known of the original stays among its fits."""
    small = ScoreRequest(level="corpus", weights=(1.0,), smoothing={"method": "none"}, lowercase=False,
                         segments=[Segment(hypothesis=[], references=[["a", "b", "b"]])])
    small_answer = {"seq": 1, "score": 0.0, "statistics": {"hyp_len": 0, "ref_len": 2, "matches": [0], "totals": [0],
                                                           "bp": 0.0}}
    original, original_answer = COINCIDENT[0]
    judged = []
    for request, answer in ((small, small_answer), (original, {"seq": 1, **original_answer})):
        reply = Reply("score", ScoreReply.from_json(answer))
        expected = oracle_expected(request, "papineni")
        judged.append((request, reply, judge(expected, reply), expected))
    assert judged[0][2].outcome is Outcome.FAIL and judged[1][2].outcome is Outcome.FAIL
    out = attribute_shrunk(judged[0], judged[1], "papineni")
    assert out.name == CAP and KNOWN in out.fits
    assert out.value == pytest.approx(0.0, abs=1e-12)


#: "" against "a", shrunk from THREE: an end token on both sides gives hypothesis [</s>], reference [a, </s>], so c = 1,
#: r = 2, one unigram matched of one, BP = e^(1 - 2/1) (hand-derived)
SHRUNK_END = (ScoreRequest(level="corpus", weights=(1.0,), smoothing={"method": "none"}, lowercase=False,
                           segments=[Segment(hypothesis=[], references=[["a"]])]),
              {"seq": 1, "score": math.exp(-1.0),
               "statistics": {"hyp_len": 1, "ref_len": 2, "matches": [1], "totals": [1], "bp": math.exp(-1.0)}})
#: ("a b c" against "a", "a" against "a b", "b" against "b")
THREE = ScoreRequest(level="corpus", weights=(1.0,), smoothing={"method": "none"}, lowercase=False,
                     segments=[Segment(hypothesis=["a", "b", "c"], references=[["a"]]),
                               Segment(hypothesis=["a"], references=[["a", "b"]]),
                               Segment(hypothesis=["b"], references=[["b"]])])


def _shrunk_of_three(original_answer):
    judged = []
    for request, answer in (SHRUNK_END, (THREE, original_answer)):
        reply = Reply("score", ScoreReply.from_json(answer))
        expected = oracle_expected(request, "papineni")
        judged.append((request, reply, judge(expected, reply), expected))
    assert judged[0][2].outcome is Outcome.FAIL and judged[1][2].outcome is Outcome.FAIL
    return attribute_shrunk(judged[0], judged[1], "papineni")


def test_an_end_token_and_each_sides_own_pads_name_the_original_whose_shrunk_input_has_the_end_token_alone():
    """An end token kept on both sides, with pads after it to each side's own longest (a decoder's output and its
    labels decoded with their special tokens: tests/fakes/realbleu_heldout11.py's GLM-4 plant; glm4-pads). Shrunk
    (`SHRUNK_END`), the end token on both sides explains it: one segment has no pads. The original, THREE:
    hypotheses [a b c </s>], [a </s> <pad> <pad>], [b </s> <pad> <pad>] (4 wide), references [a </s> <pad>],
    [a b </s>], [b </s> <pad>] (3 wide), so c = 12, r = 9, 2 + 2 + 3 = 7 unigrams of 12 matched, BP 1 (hand-derived,
    and what the GLM-4 plant answers): the end token alone does not explain it, the end token then each side's own
    pads does, and explains the shrunk input too (no pads there), so it names the record."""
    out = _shrunk_of_three({"seq": 2, "score": 7 / 12,
                            "statistics": {"hyp_len": 12, "ref_len": 9, "matches": [7], "totals": [12], "bp": 1.0}})
    assert out.name == "end-token-and-padding-on-both-sides"


def test_the_end_token_alone_still_names_a_request_its_pads_add_nothing_to():
    """`SHRUNK_END` on its own (one segment of one reference: each side's longest is its one sequence, so the pads add
    nothing): the single operator, `end-token-on-both-sides`, names it, tried before the end token with pads."""
    request, answer = SHRUNK_END
    out = classify(request, answer, "papineni")
    assert out.name == "end-token-on-both-sides"


def test_a_mechanism_of_the_shrunk_input_alone_is_said_beside_what_is_known_of_its_original():
    """The end token on both sides, then every sequence padded to a common width (4, the longest hypothesis plus its
    end token). Shrunk (`SHRUNK_END`), the end token on both sides explains it. The original, THREE: hypotheses
    [a b c </s>], [a </s> <pad> <pad>], [b </s> <pad> <pad>], references [a </s> <pad> <pad>], [a b </s> <pad>],
    [b </s> <pad> <pad>], so c = 12, r = 12, 2 + 3 + 4 = 9 unigrams of 12 matched, BP 1 (hand-derived): no
    explanation reproduces it (neither the end token alone, nor the end token with each side's own pads: r 9), only
    what is known of it (its own statistics scored). That stays the name (a mechanism that explains only a small input
    is weak evidence), and what is known says which mechanism explains the shrunk input."""
    out = _shrunk_of_three({"seq": 2, "score": 9 / 12,
                            "statistics": {"hyp_len": 12, "ref_len": 12, "matches": [9], "totals": [12], "bp": 1.0}})
    assert out.name == "other-counting-of-hyp_len"
    assert "its shrunk input alone is explained by end-token-on-both-sides" in out.description
