"""The counting grammar's stage 2 and stage 5 expressions (issue 36, fit-aggregation: `oracle.diagnose.countfit`): an
n-gram extractor other than the formulas' applied to both sides, and the corpus's value of a field aggregated from
the formulas' per-segment values otherwise than the sum. Every expected value is derived by hand in the comment beside
it (the formulas' section 2.1 counts beside it, so that each row is a departure from them), never read from the code.

Holds: oracle.diagnose.countfit
"""

from __future__ import annotations

import pytest
from test_counting_fit import answer  # (a reply of those counts, its score written out by hand)
from test_counting_kinds import request

from oracle.diagnose.classify import classify, what_is_known
from oracle.diagnose.countfit import GRAMMAR, fitted_counts
from oracle.formulas.bleu import Options

# Stage 2, BLEU-2 unless a row says otherwise; each extractor on the hypothesis and the reference alike, clipped as
# section 2.1 clips. "a b c" / "c a b": the formulas' windows (a, b, c) against (c, a, b): 3; (ab, bc) against (ca, ab):
# 1; so (3, 1) of (3, 2).
CAB = [("a b c", ["c a b"])]
EXTRACTION = [
    # range(len - n): (a, b) against (c, a): a, 1; (ab) against (ca): 0
    (CAB, 2, "matches-fitted-as-clipped-windows-but-the-last", (1, 0)),
    # two references, "a b c" / "c a b", "a b", range(len - n): (a, b) against (c, a) and (a): a, 1; (ab) against (ca)
    # and nothing: 0 (the formulas: every unigram, 3; ab, 1)
    ([("a b c", ["c a b", "a b"])], 2, "matches-fitted-as-clipped-windows-but-the-last", (1, 0)),
    # range(1, len - n + 1): (b, c) against (a, b): b, 1; (bc) against (ab): 0
    (CAB, 2, "matches-fitted-as-clipped-windows-but-the-first", (1, 0)),
    # range(len - n + 2): (a, b, c, ()) against (c, a, b, ()): 4; (ab, bc, c) against (ca, ab, b): ab, 1
    (CAB, 2, "matches-fitted-as-clipped-windows-one-past-the-end", (4, 1)),
    # tokens[i:i + n - 1] for i in range(len - n + 2): order 1 the empty window 4 times on each side: 4; order 2 the
    # unigrams (a, b, c) against (c, a, b): 3
    (CAB, 2, "matches-fitted-as-clipped-windows-one-narrower", (4, 3)),
    # "a b c" / "a b c", range(len): (a, b, c) both: 3; (ab, bc, c) both: 3 (the formulas: (3, 2))
    ([("a b c", ["a b c"])], 2, "matches-fitted-as-clipped-windows-at-every-position", (3, 3)),
    # "a b c" / "a b d", range(1): (a) against (a): 1; (ab) against (ab): 1 (the formulas: (2, 1))
    ([("a b c", ["a b d"])], 2, "matches-fitted-as-clipped-first-window-only", (1, 1)),
    # "a" / "a", range(n - len + 1): order 1 range(1), (a) both: 1; order 2 range(2), tokens[0:2] = (a) and tokens[1:3]
    # = () on both sides: 2 (the formulas: (1, 0) of (1, 0))
    ([("a", ["a"])], 2, "matches-fitted-as-clipped-windows-of-the-bound-swapped", (1, 2)),
    # tokens[i:n] for i in range(len - n + 1): order 1 (a), (), () against (c), (), (): the two empty ones, 2; order 2
    # (a b), (b) against (c a), (a): 0
    (CAB, 2, "matches-fitted-as-clipped-windows-ending-at-n", (2, 0)),
    # "a b c" / "b a c", each window's tokens sorted: order 1 3; order 2 (ab, bc) against (ab, ac): 1 (the formulas:
    # (ab, bc) against (ba, ac): (3, 0))
    ([("a b c", ["b a c"])], 2, "matches-fitted-as-clipped-windows-as-sorted-tuples", (3, 1)),
    # "a b c d" / "b c a b", range(0, len - n + 1, n): order 1 every unigram, a b c of (b c a b): 3; order 2 i = 0, 2:
    # (ab, cd) against (bc, ab): 1 (the formulas: (ab, bc, cd) against (bc, ca, ab): (3, 2))
    ([("a b c d", ["b c a b"])], 2, "matches-fitted-as-clipped-windows-with-stride-n", (3, 1)),
    # "a b" / "a b" and "c d" / "c d" read as one stream "a b c d" / "a b c d": 4; (ab, bc, cd) both: 3 (the formulas:
    # (4, 2), (b c) spanning the two segments being no n-gram of either)
    ([("a b", ["a b"]), ("c d", ["c d"])], 2, "matches-fitted-as-clipped-windows-across-segments", (4, 3)),
    # (fit-cost2, rows the shortcuts of the extractors of few windows read) "a b c d e" / "c d a b e" at stride n:
    # order 1 every unigram, 5; order 2 range(0, 4, 2), (ab, cd), the last token in no window, against (cd, ab): 2
    ([("a b c d e", ["c d a b e"])], 2, "matches-fitted-as-clipped-windows-with-stride-n", (5, 2)),
    # two references, the first window alone: (a) against (a) and (b): 1; (a b) against (a c) and (b a): 0
    ([("a b c", ["a c b", "b a"])], 2, "matches-fitted-as-clipped-first-window-only", (1, 0)),
    # a hypothesis longer than n, range(n - len + 1) empty at every order: no window, nothing matched (the reference
    # "a" has windows (a) and (a), () at orders 1 and 2, matched by none)
    ([("a b c", ["a"])], 2, "matches-fitted-as-clipped-windows-of-the-bound-swapped", (0, 0)),
    # a hypothesis of n tokens or fewer, its windows shrinking towards the n-th token: "a b" / "a b c" at BLEU-3, order
    # 1 range(2): (a) and (), against (a), (), (): 2; order 2 range(1): (a b) against (a b), (b): 1; order 3 none: 0
    ([("a b", ["a b c"])], 3, "matches-fitted-as-clipped-windows-ending-at-n", (2, 1, 0)),
    ([("a", ["a"])], 2, "totals-fitted-as-windows-of-the-bound-swapped", (1, 2)),
    # "a b c d" at BLEU-3 with stride n: order 1 4; order 2 range(0, 3, 2): 2; order 3 range(0, 2, 3): 1 (the
    # formulas: 4, 3, 2)
    ([("a b c d", ["a b c d"])], 3, "totals-fitted-as-windows-with-stride-n", (4, 2, 1)),
    # "a b" and "c d" as one stream of 4 tokens at BLEU-3: 4, 3, 2 (the formulas: 4, 2, 0)
    ([("a b", ["a b"]), ("c d", ["c d"])], 3, "totals-fitted-as-windows-across-segments", (4, 3, 2)),
]

# Stage 5, BLEU-2, three segments, each with the formulas' own statistics (r the closest reference length):
# "a b c" / "a b d": c 3, r 3, matches (a, b; ab) (2, 1), totals (3, 2);
# "e f" / "e g h": c 2, r 3, matches (e; none) (1, 0), totals (2, 1);
# "x y z w" / "x y": c 4, r 2, matches (x, y; xy) (2, 1), totals (4, 3).
# Their sums, the formulas': c 9, r 8, matches (5, 2), totals (9, 6).
THREE = [("a b c", ["a b d"]), ("e f", ["e g h"]), ("x y z w", ["x y"])]
PER_FIELD = {  # (hyp_len, ref_len, matches, totals) of each aggregation, from the three rows above
    "first-segment-alone": (3, 3, (2, 1), (3, 2)),
    "last-segment-alone": (4, 2, (2, 1), (4, 3)),
    "sum-without-first-segment": (2 + 4, 3 + 2, (1 + 2, 0 + 1), (2 + 4, 1 + 3)),
    "sum-without-last-segment": (3 + 2, 3 + 3, (2 + 1, 1 + 0), (3 + 2, 2 + 1)),
    "largest-segment-value": (4, 3, (2, 1), (4, 3)),
    "segment-mean-rounded-down": (9 // 3, 8 // 3, (5 // 3, 2 // 3), (9 // 3, 6 // 3)),
}
AGGREGATION = [(THREE, 2, f"{field}-fitted-as-{aggregation}", values[at])
               for aggregation, values in PER_FIELD.items()
               for at, field in enumerate(("hyp_len", "ref_len", "matches", "totals"))]
# c read from each segment's r: 3 + 3 + 2 = 8 (the formulas' c: 9)
AGGREGATION.append((THREE, 2, "hyp_len-fitted-as-reference-length-field", 8))


@pytest.mark.parametrize("corpus, n, name, value", EXTRACTION + AGGREGATION)
def test_each_new_expression_counts_what_the_hand_gives(corpus, n, name, value):
    field = GRAMMAR[name].field
    assert fitted_counts(name)(request(corpus, n).segments, n, Options()) == {field: value}


def test_an_aggregation_needs_two_segments():
    """On one segment each aggregation is the formulas' sum or a constant 0 (every segment but the first: none), which
    many bugs give: not in the grammar's reach there."""
    segments = request([("a b c", ["a b d"])], 2).segments
    for aggregation in PER_FIELD:
        assert fitted_counts(f"totals-fitted-as-{aggregation}")(segments, 2, Options()) is None


def test_the_new_expressions_come_after_every_earlier_one_of_their_field():
    """No existing fit moves: each field's earlier expressions keep their places, the new ones after them (the true
    divisions, later still, are fitted to numbers written as floats alone: test_numeric_fits.py)."""
    names = list(GRAMMAR)
    for field in ("hyp_len", "ref_len", "matches", "totals"):
        mine = [name for name in names if GRAMMAR[name].field == field and not GRAMMAR[name].dividing]
        new = {name for corpus, n, name, value in EXTRACTION + AGGREGATION if GRAMMAR[name].field == field}
        assert new and mine[-len(new):] == [name for name in mine if name in new], field


def test_a_record_an_extractor_gives_keeps_what_is_known_the_fit_beside_it():
    """"a" / "a" at BLEU-2 answered with matches (1, 2) of totals (1, 2), c = r = 1 (the extractor's loop bound with
    its operands swapped, range(n - len + 1): derived in `EXTRACTION`): the formulas' counts are (1, 0) of (1, 0), and
    no named variant gives (1, 2); scored as returned, BP 1 (c = r) times the mean of log(1/1) and log(2/2): 1. The
    record is what is known of its first differing layer, the fit of both fields beside it."""
    explanation = classify(request([("a", ["a"])], 2), answer(1, 1, (1, 2), (1, 2)), "papineni")
    assert explanation.name == "other-counting-of-matches", explanation
    assert ("matches-fitted-as-clipped-windows-of-the-bound-swapped + totals-fitted-as-windows-of-the-bound-swapped"
            in explanation.fits), explanation


def test_a_record_an_aggregation_gives_carries_the_fit_where_it_is_not_searched():
    """The three segments answered with the last segment's totals, (4, 3), every other count the formulas' (c 9, r 8,
    matches (5, 2)): a record its run does not search (`what_is_known`) is what is known of its totals, the fit of the
    last segment's alone among its fits (a search names it `totals-of-last-segment-only`, the named stage kind,
    first)."""
    known = what_is_known(request(THREE, 2), answer(9, 8, (5, 2), (4, 3)), "papineni")
    assert known.name == "other-counting-of-totals", known
    assert "totals-fitted-as-last-segment-alone" in known.fits, known
    assert "totals-fitted-as-largest-segment-value" in known.fits, known  # (4, 3) is the largest segment's too
