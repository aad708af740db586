"""Exact and correctly rounded arithmetic for the few numbers a BLEU score needs.

Counts and precisions stay `Fraction`s; logarithms and exponentials are taken
with `decimal` with guard digits and rounded once to `DIGITS` significant digits; each `Decimal.ln` and
`Decimal.exp` are correctly rounded. A private context is used every time, so
the caller's decimal context is never touched.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Context, Decimal
from fractions import Fraction

from .memo import memoized

DIGITS = 50
#: Intermediate values carry guard digits, so the composed score is right to DIGITS
#: digits even though each ln/exp/product rounds once.
GUARD_DIGITS = 15
CONTEXT = Context(prec=DIGITS + GUARD_DIGITS, rounding=ROUND_HALF_EVEN, Emin=-999999, Emax=999999)
FINAL = Context(prec=DIGITS, rounding=ROUND_HALF_EVEN, Emin=-999999, Emax=999999)
NAN = Decimal("NaN")
ZERO = Decimal(0)
ONE = Decimal(1)


#: What the arithmetic here takes: exact numbers, or a Decimal already computed
Exact = int | Fraction | Decimal


def to_decimal(number: Exact) -> Decimal:
    """A Fraction, int or Decimal as a Decimal rounded to DIGITS + GUARD_DIGITS digits (CONTEXT's precision;
    `final` rounds to DIGITS once, at the end)."""
    if isinstance(number, Decimal):
        return CONTEXT.plus(number)
    number = Fraction(number)
    return CONTEXT.divide(Decimal(number.numerator), Decimal(number.denominator))


def ln(number: Exact) -> Decimal:
    """Natural logarithm, correctly rounded; ln(0) is -Infinity."""
    if number == 0:
        return Decimal("-Infinity")
    if isinstance(number, Decimal):
        return CONTEXT.ln(to_decimal(number))
    return _ln_of_ratio(number if type(number) is Fraction else Fraction(number))


@memoized(1024)  # (the least recently used dropped past it)
def _ln_of_ratio(number: Fraction) -> Decimal:
    """`ln` of an exact ratio, kept: the same few precisions (1/2, 3/4, ...) recur across the segments of a corpus and
    the candidates of a search, and each 65-digit logarithm costs some 100 to 200 microseconds (a Decimal is
    immutable, and the value is a function of the ratio alone). The last 1,024: a 5,000-example `check` hit 15,258
    times with them against 15,448 with 4,096, which filled on and on with the examples (about 300 B a ratio kept:
    `check`'s memory grew by it; benchmarks/README.md, "`check`'s memory: what grows with the examples")."""
    return CONTEXT.ln(to_decimal(number))


def exp(number: Exact) -> Decimal:
    """e ** number, correctly rounded; exp(-Infinity) is 0."""
    if isinstance(number, Decimal) and number.is_infinite():
        return ZERO if number < 0 else Decimal("Infinity")
    return CONTEXT.exp(to_decimal(number))


def final(number: Decimal) -> Decimal:
    """Round an intermediate to DIGITS significant digits, once, at the end; zero is plain 0."""
    if number.is_nan() or number.is_infinite():
        return number
    return ZERO if number == 0 else FINAL.plus(number)


def mul(a: Exact, b: Exact) -> Decimal:
    return CONTEXT.multiply(to_decimal(a), to_decimal(b))


def add(a: Exact, b: Exact) -> Decimal:
    return CONTEXT.add(to_decimal(a), to_decimal(b))
