"""A structure whose call errs (issue 36, errs-structure): an error is named by the structure whose caller's mis-shaping
the library refuses, only where that refusal separates the probes and the failing input given a shape the caller's
structure takes is answered with that structure's statistics (the classifier among it alone). Every value is derived
by hand below, under papineni: unigram weights [1] (the score is BP * m / t), r the closest reference length (ties to
the shorter) summed over segments, BP = 1 if c > r else e^(1 - r/c). The implementations are modelled by hand: a
caller of sacrebleu 1.4 passing per-segment reference lists as reference streams (zip_longest raises where a stream
is not as many as the hypotheses), and a reader cutting lines with `str.splitlines` (the line counts asserted equal).

Holds: oracle.diagnose.errsstructure
"""

from __future__ import annotations

import math

from oracle.diagnose import errsstructure
from oracle.diagnose.classify import classify
from oracle.diagnose.expect import ORACLE_REFUSALS
from oracle.diagnose.mechanisms import structure as declared
from oracle.models.protocol import ScoreRequest, Segment


def request(*segments, level="corpus"):
    """A request of (hypothesis, references) pairs, each text space-separated tokens."""
    return ScoreRequest(level=level, weights=[1.0], segments=[
        Segment(hypothesis=tuple(h.split(" ")), references=[tuple(r.split(" ")) for r in refs])
        for h, refs in segments])


def answer(score, c, r, m, t):
    return {"score": score, "statistics": {"hyp_len": c, "ref_len": r, "matches": [m], "totals": [t]}}


def explains(probe, reply, name):
    """The harness's reading: the classifier among the structure alone names it."""
    try:
        return classify(probe, reply, "papineni", among=(name,)).parts == (name,)
    except ORACLE_REFUSALS:
        return False


def asking(answers):
    """An implementation asked a neighbour: the hand-derived answer for it, None for any other (not answered)."""
    def ask(probe):
        return next((reply for known, reply in answers if known == probe), None)
    return ask


# One segment "a b" with two references "a c" and "b d" (a sentence request): passed as reference streams, two
# streams of one line each against one hypothesis: zip_longest over streams of 2 lines and 1 hypothesis raises.
FAILING = request(("a b", ["a c", "b d"]), level="sentence")
# The error search's neighbour that keeps one reference: one stream of one line, as many as the hypotheses: answered
# (and transposed it is what it was: "a b" against "a c", m 1/2, c 2, r 2 -> 1/2, the oracle's too)
ONE_REFERENCE = request(("a b", ["a c"]), level="sentence")
# The failing input given two segments (the segment cycled, at corpus level), each with its two references: two
# streams of two lines against two hypotheses, which zip_longest takes. Transposed, segment i is scored against the
# i-th reference of every segment: "a b" | "a c", "a c" (m 1/2, r 2) and "a b" | "b d", "b d" (m 1/2, r 2): c 4,
# r 4, m 2/4, BP 1 -> 1/2. The oracle reads each segment against both: m 2/2 twice -> 1.
ACCEPTED = request(("a b", ["a c", "b d"]), ("a b", ["a c", "b d"]))
TRANSPOSED_ANSWER = answer(0.5, 4, 4, 2, 4)
PLAIN_ANSWER = answer(1.0, 4, 4, 4, 4)


def test_the_streams_refusal_reads_the_request_alone():
    assert errsstructure.streams_not_as_many_as_hypotheses(FAILING)  # 2 references, 1 segment
    assert not errsstructure.streams_not_as_many_as_hypotheses(ONE_REFERENCE)  # 1 and 1
    assert not errsstructure.streams_not_as_many_as_hypotheses(ACCEPTED)  # 2 and 2
    # two segments of one reference each, and of three: 1 != 2, 3 != 2
    assert errsstructure.streams_not_as_many_as_hypotheses(request(("a", ["a"]), ("b", ["b"])))
    assert errsstructure.streams_not_as_many_as_hypotheses(request(("a", ["a", "b", "c"]), ("b", ["b", "c", "a"])))
    assert errsstructure.streams_as_many_as_hypotheses(FAILING) == ACCEPTED


def test_a_transposed_call_that_errs_is_named_by_the_structure():
    """sacrebleu 1.4's caller: the failing input errs, the neighbour of one reference is answered (both agree with
    the refusal), and the accepted neighbour is answered with the transposed statistics: references-transposed."""
    cause = errsstructure.structure_cause(
        FAILING, declared.REFUSALS, asked=[(FAILING, True), (ONE_REFERENCE, False)],
        ask=asking([(ACCEPTED, TRANSPOSED_ANSWER)]), explains=explains)
    assert cause is not None and cause.name == declared.TRANSPOSED
    assert "a structure whose call errs" in cause.description


def test_a_predicate_that_alone_separates_is_not_replaced():
    """A library that refuses streams of another length by a check of its own and scores what it takes as sent (the
    fixed wrapper's ValueError): the refusal separates the errors as well, but the accepted neighbour is answered as
    the oracle reads it, so no structure is named (the error search's predicate stays the cause)."""
    cause = errsstructure.structure_cause(
        FAILING, declared.REFUSALS, asked=[(FAILING, True), (ONE_REFERENCE, False)],
        ask=asking([(ACCEPTED, PLAIN_ANSWER)]), explains=explains)
    assert cause is None


def test_one_erring_record_does_not_make_a_structure_the_cause():
    """The failing input alone is refused, but nothing answered carries the structure's statistics (the accepted
    neighbour errs too: not answered), or a probe disagrees (one that the refusal takes erred): no structure."""
    assert errsstructure.structure_cause(FAILING, declared.REFUSALS, asked=[(FAILING, True)], ask=asking([]),
                                         explains=explains) is None
    assert errsstructure.structure_cause(
        FAILING, declared.REFUSALS, asked=[(FAILING, True), (ONE_REFERENCE, True)],
        ask=asking([(ACCEPTED, TRANSPOSED_ANSWER)]), explains=explains) is None


def test_later_errors_are_named_by_the_structure_where_refused():
    hints = [("error-when-segments-one",), (declared.TRANSPOSED,)]
    refused = errsstructure.hinted(request(("a", ["a"]), ("b", ["b"])), hints, declared.REFUSALS)
    assert refused is not None and refused.structure == declared.TRANSPOSED
    assert errsstructure.hinted(ACCEPTED, hints, declared.REFUSALS) is None  # not refused
    assert errsstructure.hinted(FAILING, [("error-when-segments-one",)], declared.REFUSALS) is None


# A reader of `str.splitlines`: the hypothesis "a<U+2028>b" is two lines, the reference "a b" one: the hypotheses'
# file has 2 lines, the reference file 1 (the counts asserted equal: AssertionError). Universal newlines take no
# U+2028: for them the two files have a line each.
LINE_FAILING = ScoreRequest(level="sentence", weights=[1.0],
                            segments=[Segment(hypothesis=("a\u2028b",), references=[("a", "b")])])
# The line ends evened: the reference given "<U+2028>z", a line end and a token after it: 2 lines each side. Read
# back: ("a" | "a b"): c 1, r 2, m 1/1; ("b" | "z"): c 1, r 1, m 0/1. c 2, r 3, m 1/2, BP e^(1 - 3/2) -> e^-0.5 / 2.
# The oracle: "a<U+2028>b" against "a b <U+2028>z": m 0 -> 0.
LINE_ACCEPTED = ScoreRequest(level="sentence", weights=[1.0],
                             segments=[Segment(hypothesis=("a\u2028b",), references=[("a", "b", "\u2028z")])])


def test_lines_a_reader_cuts_that_err_are_named_by_the_reader():
    splitlines = next(r for r in declared.REFUSALS if r.structure == declared.LINES_CUT_AT_SPLITLINES_LINE_ENDS)
    universal = next(r for r in declared.REFUSALS if r.structure == declared.LINES_CUT_AT_UNIVERSAL_NEWLINES)
    assert splitlines.refuses(LINE_FAILING) and not universal.refuses(LINE_FAILING)
    assert splitlines.accepted(LINE_FAILING) == LINE_ACCEPTED and not splitlines.refuses(LINE_ACCEPTED)
    without = ScoreRequest(level="sentence", weights=[1.0], segments=[Segment(hypothesis=("a", "b"),
                                                                              references=[("a", "b")])])
    cause = errsstructure.structure_cause(
        LINE_FAILING, declared.REFUSALS, asked=[(LINE_FAILING, True), (without, False)],
        ask=asking([(LINE_ACCEPTED, answer(math.exp(-0.5) / 2, 2, 3, 1, 2))]), explains=explains)
    assert cause is not None and cause.name == declared.LINES_CUT_AT_SPLITLINES_LINE_ENDS
