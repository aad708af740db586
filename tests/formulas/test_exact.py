"""The exact arithmetic under every score: logarithms and exponentials correctly rounded to 50 digits, the
edges a score meets (ln 0, exp of minus infinity), and a caller's decimal context left alone.

Expected digits are those of well-known constants (e, ln 2, 1/3), written out from their published expansions.

Holds: oracle.formulas.exact
"""

import decimal
from decimal import Decimal
from fractions import Fraction

from oracle.formulas import exact

# ln 2 and e to 50 significant digits (OEIS A002162 and A001113, rounded half-even at the 50th digit)
LN2_50 = Decimal("0.69314718055994530941723212145817656807550013436026")
E_50 = Decimal("2.7182818284590452353602874713526624977572470937000")


def test_ln_and_exp_round_to_the_published_digits():
    assert exact.final(exact.ln(2)) == LN2_50
    assert exact.final(exact.exp(1)) == E_50


def test_fractions_are_divided_exactly_before_rounding():
    assert exact.final(exact.to_decimal(Fraction(1, 3))) == Decimal("0." + "3" * 50)
    assert exact.final(exact.mul(Fraction(1, 2), Fraction(1, 4))) == Decimal("0.125")
    assert exact.final(exact.add(Fraction(1, 3), Fraction(2, 3))) == 1


def test_the_edges_a_score_meets():
    assert exact.ln(0) == Decimal("-Infinity")  # a precision of zero
    assert exact.exp(Decimal("-Infinity")) == 0  # ... gives a score of zero
    assert str(exact.final(Decimal("0E-70"))) == "0"  # zero is plain 0, not a zero with an exponent
    assert exact.final(Decimal("NaN")).is_nan()


def test_the_callers_context_is_untouched():
    with decimal.localcontext() as mine:
        mine.prec = 5
        assert exact.final(exact.ln(2)) == LN2_50
        assert decimal.getcontext().prec == 5
