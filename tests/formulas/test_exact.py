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


def test_a_kept_logarithm_is_the_logarithm_of_its_own_ratio():
    # ln is kept by exact ratio (a corpus's segments share their precisions): two ratios a float cannot tell apart,
    # 1 + 1e-30 and 1, keep logarithms of their own; ln(1 + x) = x - x^2/2 + x^3/3 - ...: with x = 1e-30 that is
    # 1e-30 - 5e-61 to 50 significant digits (the digits run down to 1e-80; x^3/3 is 3.3e-91), and ln 1 = 0. Asked
    # twice, each gives the same digits the second time.
    near_one = Fraction(10**30 + 1, 10**30)
    for _ in range(2):
        assert exact.final(exact.ln(1)) == 0
        assert exact.final(exact.ln(near_one)) == Decimal("9." + "9" * 29 + "5E-31")  # 1e-30 - 5e-61
        assert exact.final(exact.ln(Fraction(1, 2))) == LN2_50.copy_negate()  # (unary minus would round to 28 digits)
    # a Decimal (a smoothed precision) is not a ratio: taken as given, rounded to the working digits
    assert exact.final(exact.ln(Decimal(2))) == LN2_50
