"""`Statistics`' checks asked at once (`bleu._plain_counts`, the fast path of `Statistics.__post_init__`) and a kept
result's weights as (numerator, denominator) pairs (`bleu._weights_key`): each decides as what it stands for.

The references are written here from the documents' rules, not taken from the code under test: every count an int
(not a bool), non-negative, an order's clipped matches never above its candidate n-grams (section 2.1.1: Count_clip
is a count of the candidate's n-grams, at most their number), checked one field at a time as `Statistics` always did,
the first failing check's error raised; and two weight vectors keyed alike exactly when they are equal as numbers
(Python's own Fraction equality).

Holds: oracle.formulas.bleu
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle.formulas import bleu
from oracle.formulas.errors import BleuTypeError, BleuValueError


class _Int(int):
    """An int subclass: not a plain count (the fast path leaves it to the one-by-one checks)."""


def _reference_outcome(hyp_len, ref_len, matches, totals, segments):
    """(error type, message) of the first failing check, one field at a time, or None: the literal rules."""
    if len(matches) != len(totals):
        return BleuValueError, None
    for name, value in (("hyp_len", hyp_len), ("ref_len", ref_len), ("segments", segments),
                        *((f"matches[{i}]", v) for i, v in enumerate(matches)),
                        *((f"totals[{i}]", v) for i, v in enumerate(totals))):
        if isinstance(value, bool) or not isinstance(value, int):
            return BleuTypeError, f"`{name}` must be an int"
        if value < 0:
            return BleuValueError, f"`{name}` must be non-negative"
    for i, (m, t) in enumerate(zip(matches, totals, strict=True)):
        if m > t:
            return BleuValueError, f"`matches[{i}]` must not exceed `totals[{i}]`"
    return None


_COUNTS = st.one_of(st.integers(-3, 12), st.integers(-3, 12), st.integers(0, 2**70), st.booleans(),
                    st.integers(0, 5).map(_Int), st.just(2.0), st.none())


@settings(max_examples=1000, deadline=None)
@given(_COUNTS, _COUNTS, st.lists(_COUNTS, max_size=5), st.lists(_COUNTS, max_size=5), _COUNTS,
       st.integers(0, 1))
def test_statistics_checks_decide_as_the_rules_one_by_one(hyp_len, ref_len, matches, totals, segments, trim):
    if trim and len(matches) > len(totals):  # mostly as many orders on both sides: the checks past the first
        matches = matches[:len(totals)]
    expected = _reference_outcome(hyp_len, ref_len, tuple(matches), tuple(totals), segments)
    if expected is None:
        stats = bleu.Statistics(hyp_len, ref_len, tuple(matches), tuple(totals), segments)
        assert (stats.hyp_len, stats.matches, stats.totals) == (hyp_len, tuple(matches), tuple(totals))
        return
    kind, message = expected
    with pytest.raises(kind) as caught:
        bleu.Statistics(hyp_len, ref_len, tuple(matches), tuple(totals), segments)
    assert type(caught.value) is kind
    if message is not None:
        assert str(caught.value).startswith(message)


def test_statistics_checks_by_hand():
    assert bleu.Statistics(5, 4, (3, 2, 1, 0), (5, 4, 3, 2), 1).matches == (3, 2, 1, 0)
    assert bleu.Statistics(0, 0, (0,), (0,), 1).totals == (0,)
    for bad, kind in (((5, 4, (3,), (2,), 1), BleuValueError), ((-1, 4, (0,), (2,), 1), BleuValueError),
                      ((5, 4, (0,), (-2,), 1), BleuValueError), ((True, 4, (0,), (2,), 1), BleuTypeError),
                      ((5, 4, (1.0,), (2,), 1), BleuTypeError), ((5, 4, (0,), (2,), -1), BleuValueError)):
        with pytest.raises(kind):
            bleu.Statistics(*bad)


_FRACTIONS = st.fractions(min_value=0, max_value=3, max_denominator=12)


@settings(max_examples=1000, deadline=None)
@given(st.lists(_FRACTIONS, min_size=1, max_size=4), st.lists(_FRACTIONS, min_size=1, max_size=4))
def test_weights_keyed_alike_exactly_when_equal(a, b):
    a, b = tuple(a), tuple(b)
    assert (bleu._weights_key(a) == bleu._weights_key(b)) == (a == b)
    if a == b:
        assert hash(bleu._weights_key(a)) == hash(bleu._weights_key(b))


def test_weights_key_by_hand():
    quarter = (Fraction(1, 4),) * 4
    assert bleu._weights_key(quarter) == bleu._weights_key((Fraction(2, 8),) * 4)
    assert bleu._weights_key(quarter) != bleu._weights_key((Fraction(1, 3),) * 3 + (Fraction(0),))
    assert bleu._weights_key((Fraction(1, 2), Fraction(1, 4))) != bleu._weights_key((Fraction(1, 4), Fraction(1, 2)))
    assert bleu._weights_key((Fraction(1, 2), Fraction(1, 3))) != bleu._weights_key((Fraction(1, 3), Fraction(1, 3)))
