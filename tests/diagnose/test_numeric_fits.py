"""Counts a reply wrote as numbers that are not integers, fitted by the true divisions of the counting grammar (issue
36, "an average in place of a sum"; `oracle.diagnose.countfit.fit_numbers`, `classify.numeric_fits`): the record stays a
protocol error, the fit beside it, and a run whose records share it is named by it. Every expected value is derived
by hand in the comment beside it (the formulas' section 2.1 counts beside it), never read from the code.

Holds: oracle.diagnose.countfit, oracle.diagnose.classify, oracle.diagnose.attribute, oracle.diagnose.cover,
    oracle.models.protocol
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from test_counting_kinds import request

from oracle.diagnose.attribute import attribute
from oracle.diagnose.countfit import GRAMMAR, fit, fit_numbers, fitted_counts
from oracle.diagnose.cover import minimal_cover
from oracle.diagnose.expect import oracle_expected
from oracle.diagnose.judge import judge
from oracle.formulas.bleu import Options
from oracle.harness.replies import Reply
from oracle.models.protocol import NumericReply

# BLEU-2, three segments, each with the formulas' own statistics (r the closest reference length, one reference each):
# "a b c" / "a b d": c 3, r 3, matches (a, b; ab) (2, 1), totals (3, 2);
# "e f" / "e g h": c 2, r 3, matches (e; none) (1, 0), totals (2, 1);
# "x y z w" / "x y": c 4, r 2, matches (x, y; xy) (2, 1), totals (4, 3).
# Their sums, the formulas': c 9, r 8, matches (5, 2), totals (9, 6). Their means: c 9/3 = 3, r 8/3, matches
# (5/3, 2/3), totals (3, 2).
THREE = [("a b c", ["a b d"]), ("e f", ["e g h"]), ("x y z w", ["x y"])]
FORMULAS = SimpleNamespace(hyp_len=9, ref_len=8, matches=(5, 2), totals=(9, 6))


def numbers(hyp_len, ref_len, matches, totals):
    """Counts as a reply wrote them (a float where a float was written)."""
    return NumericReply.model_validate({"score": 0.5, "statistics": {
        "hyp_len": hyp_len, "ref_len": ref_len, "matches": list(matches), "totals": list(totals)}}).statistics


def fits_of(corpus, n, written, formulas):
    return fit_numbers(request(corpus, n).segments, n, Options(), written, formulas)


def test_a_corpus_length_written_as_the_segments_mean_is_fitted_by_it():
    """r written as 8/3 (2.6666666666666665, the mean of 3, 3 and 2), every other count the formulas' integers: the
    mean of the segments' r. The mean reference length a segment is each one's only reference, 3 + 3 + 2 = 8: not it."""
    found = fits_of(THREE, 2, numbers(9, 8 / 3, (5, 2), (9, 6)), FORMULAS)
    assert found == [("ref_len-fitted-as-mean-of-segments",)], found


def test_a_whole_mean_written_as_a_float_is_fitted_by_the_division():
    """c written as 3.0, the mean of 3, 2 and 4 (the formulas' sum is 9): a whole number, but a float, the division's
    trace."""
    found = fits_of(THREE, 2, numbers(3.0, 8, (5, 2), (9, 6)), FORMULAS)
    assert found == [("hyp_len-fitted-as-mean-of-segments",)], found


def test_one_segments_mean_is_its_value_and_the_float_still_fits():
    """One segment, "a b c" / "a b d": c 3 by the formulas, written 3.0. The mean over one segment is the segment's c:
    the numbers are the formulas', only the type is not, and the true division that gives it fits (a run's other,
    longer inputs tell it from another division)."""
    one = SimpleNamespace(hyp_len=3, ref_len=3, matches=(2, 1), totals=(3, 2))
    found = fits_of(THREE[:1], 2, numbers(3.0, 3, (2, 1), (3, 2)), one)
    assert found == [("hyp_len-fitted-as-mean-of-segments",)], found


def test_a_clip_averaged_over_the_distinct_windows_is_fitted():
    """BLEU-1, "a a b c" / "a": the distinct windows a (twice), b, c, clipped by the reference's counts a 1, b 0, c
    0: their sum 1 (the formulas' matches), their mean 1/3. Totals 4, their mean count 4/3 (written as the formulas'
    4 here). c 4, r 1."""
    formulas = SimpleNamespace(hyp_len=4, ref_len=1, matches=(1,), totals=(4,))
    found = fits_of([("a a b c", ["a"])], 1, numbers(4, 1, (1 / 3,), (4,)), formulas)
    assert found == [("matches-fitted-as-mean-clipped-count-per-distinct-window",)], found
    found = fits_of([("a a b c", ["a"])], 1, numbers(4, 1, (1,), (4 / 3,)), formulas)
    assert found == [("totals-fitted-as-mean-count-per-distinct-window",)], found


def test_a_segments_mean_reference_length_is_fitted():
    """"a b c" / "a b", "a b c d e": the formulas' r is the closest reference length to c = 3, 2 (|2 - 3| = 1 against
    2; BLEU-1, matches a, b: 2 of 3). The mean of the two lengths is 7/2 = 3.5."""
    formulas = SimpleNamespace(hyp_len=3, ref_len=2, matches=(2,), totals=(3,))
    found = fits_of([("a b c", ["a b", "a b c d e"])], 1, numbers(3, 3.5, (2,), (3,)), formulas)
    assert found == [("ref_len-fitted-as-mean-reference-length",)], found


def test_a_number_off_the_division_by_more_than_the_tolerance_fits_nothing():
    """8/3 + 1e-6: no float arithmetic of one division leaves that far (countfit.NUMERIC_TOLERANCE, 1e-9 relative)."""
    assert fits_of(THREE, 2, numbers(9, 8 / 3 + 1e-6, (5, 2), (9, 6)), FORMULAS) == []


def test_integers_are_never_fitted_by_a_true_division():
    """c returned as the integer 3 (the mean of 3, 2 and 4 is 3 exactly): the integer fit names the mean rounded down,
    the existing expression, and never the true division (whose value is a Fraction, and which would move an integer
    record's fits). Its replay (`fitted_counts`) gives no integer counting either."""
    found = fit(request(THREE, 2).segments, 2, Options(), SimpleNamespace(hyp_len=3, ref_len=8, matches=(5, 2),
                                                                         totals=(9, 6)), FORMULAS)
    names = {part for parts in found for part in parts}
    assert "hyp_len-fitted-as-segment-mean-rounded-down" in names, found
    assert not any(GRAMMAR[name].dividing for name in names), found
    assert fitted_counts("hyp_len-fitted-as-mean-of-segments")(request(THREE, 2).segments, 2, Options()) is None


@pytest.mark.parametrize("line, read", [
    ('{"seq": 1, "score": 0.5, "statistics": {"hyp_len": 7.0, "ref_len": 5, "matches": [3], "totals": [7]}}',
     ("hyp_len",)),
    ('{"seq": 1, "score": 0.5, "statistics": {"hyp_len": 7, "ref_len": 5, "matches": [1.5, 2], "totals": [7, 6.25]}}',
     ("matches", "totals")),
    # every count an integer: the line broke the protocol otherwise
    ('{"seq": 1, "score": 0.5, "statistics": {"hyp_len": 7, "ref_len": 5, "matches": [3], "totals": [7]}}', None),
    # a negative count, a string, no score, no statistics, an infinite score, not JSON
    ('{"seq": 1, "score": 0.5, "statistics": {"hyp_len": -1.5, "ref_len": 5, "matches": [3], "totals": [7]}}', None),
    ('{"seq": 1, "score": 0.5, "statistics": {"hyp_len": "7.5", "ref_len": 5, "matches": [3], "totals": [7]}}', None),
    ('{"seq": 1, "statistics": {"hyp_len": 7.5, "ref_len": 5, "matches": [3], "totals": [7]}}', None),
    ('{"seq": 1, "score": 0.5}', None),
    # a NaN score (both lengths 0 under both_empty=nan) is a score
    ('{"seq": 1, "score": "NaN", "statistics": {"hyp_len": 0.0, "ref_len": 0, "matches": [0], "totals": [0]}}',
     ("hyp_len",)),
    ('{"seq": 1, "score": Infinity, "statistics": {"hyp_len": 7.5, "ref_len": 5, "matches": [3], "totals": [7]}}',
     None),
    ("not json", None),
    (None, None),
])
def test_a_reply_line_is_read_as_numbers_only_where_its_counts_are_numbers_some_not_integers(line, read):
    numeric = NumericReply.from_reply_line(line)
    assert (numeric.statistics.written_as_numbers if numeric is not None else None) == read


def _protocol_error(corpus, n, statistics, score):
    """The record of a reply whose counts are `statistics` (floats where written so) and whose score is `score`."""
    scored = request(corpus, n)
    raw = json.dumps({"seq": 0, "score": score, "statistics": statistics})
    reply = Reply("protocol-error", message="malformed reply: a count is not an integer", raw=raw)
    expected = oracle_expected(scored, "papineni")
    return attribute(scored, reply, judge(expected, reply), expected, "papineni")


def test_a_protocol_error_keeps_its_name_with_the_division_beside_it():
    """THREE at BLEU-1 answered with the segments' means: c 3, r 8/3, matches 5/3, totals 3 (the mean of 3, 2, 4). Its
    score from those numbers, by hand: c > r, so BP = 1; p1 = (5/3)/3 = 5/9; the score 5/9. The record is the protocol
    error (its outcome), the four means' fit first beside it. At BLEU-1 the stage 3 means give the same matches and
    totals here: each segment's unigrams are distinct, so its mean count is 1 (3 in all) and its mean clipped count its
    matches over its length, 2/3 + 1/2 + 2/4 = 5/3; those fits follow, as fits of the same numbers."""
    record = _protocol_error(THREE, 1, {"hyp_len": 3.0, "ref_len": 8 / 3, "matches": [5 / 3], "totals": [3.0]}, 5 / 9)
    assert record.name == "protocol-error", record
    means = ("hyp_len-fitted-as-mean-of-segments", "ref_len-fitted-as-mean-of-segments")
    assert record.fit_parts == (
        (*means, "matches-fitted-as-mean-of-segments", "totals-fitted-as-mean-of-segments"),
        (*means, "matches-fitted-as-mean-of-segments", "totals-fitted-as-mean-count-per-distinct-window"),
        (*means, "matches-fitted-as-mean-clipped-count-per-distinct-window", "totals-fitted-as-mean-of-segments"),
        (*means, "matches-fitted-as-mean-clipped-count-per-distinct-window",
         "totals-fitted-as-mean-count-per-distinct-window")), record


def test_a_protocol_error_whose_score_does_not_follow_from_its_numbers_has_no_fit():
    """The same numbers with the score 0.5 (5/9 is 0.5556): the statistics fit, the score does not follow from them;
    the record says so and names nothing beside its outcome."""
    record = _protocol_error(THREE, 1, {"hyp_len": 3.0, "ref_len": 8 / 3, "matches": [5 / 3], "totals": [3.0]}, 0.5)
    assert record.name == "protocol-error" and record.fits == (), record
    assert "fit no true division" in record.description, record


def test_a_run_of_protocol_errors_sharing_a_fit_is_named_by_it():
    """Three records named protocol-error with the same fit beside them, one without: the fit names the run's three
    (more than half of what is known reaches, two at least), the fourth stays the protocol error."""
    fit_parts = ("hyp_len-fitted-as-mean-of-segments",)
    causes = minimal_cover({(("protocol-error",), fit_parts): 3, (("protocol-error",),): 1})
    assert [(c.parts, c.records) for c in causes] == [(fit_parts, 3), (("protocol-error",), 1)], causes


def test_the_true_divisions_come_after_every_other_expression_of_their_field():
    """Each field's order of fits is unchanged by them (they are tried only on numbers written as floats anyway)."""
    for field in ("hyp_len", "ref_len", "matches", "totals"):
        kinds = [GRAMMAR[name].dividing for name in GRAMMAR if GRAMMAR[name].field == field]
        assert kinds == sorted(kinds) and any(kinds), field


def test_a_nan_score_of_empty_counts_follows_from_them():
    """"" / "", "a" at BLEU-2 (one segment, c 0 and r 0: the empty reference is closest), answered "NaN" with c written
    0.0: papineni scores c = r = 0 as NaN (both_empty), so the score follows from the numbers, and the mean over one
    segment, 0, fits c."""
    record = _protocol_error([("", ["", "a"])], 2, {"hyp_len": 0.0, "ref_len": 0, "matches": [0, 0],
                                                     "totals": [0, 0]}, "NaN")
    assert record.fit_parts and record.fit_parts[0] == ("hyp_len-fitted-as-mean-of-segments",), record
