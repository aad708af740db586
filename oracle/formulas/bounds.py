"""The bounds of every number bleu-oracle reads from outside, named once and checked at the door.

A handshake, a reply, a request, a case file, a baseline and the command line's `--weights` and
`--smoothing` all carry numbers an implementation or a user chose. Each is checked against the
bounds here before anything uses it, so that no declared integer decides how long a loop runs or
how much memory a list takes, and no number is turned into a float it does not fit. PROTOCOL.md
("Bounds") states them; the protocol's JSON Schemas carry them.

Why these values:

- `MAX_ORDER` (100): BLEU is used with N = 4 and sometimes up to 10; the libraries checked here
  declare at most 16 and the search draws at most 12. Counting a sentence of L tokens to order N
  holds about L * N^2 / 2 references to tokens (an n-gram of order n is a tuple of n), so 100
  keeps a 1,000-token sentence near 50 MB (measured: 47 MB) where 1,000 would allow 1.4 GB from a
  line of a few kilobytes.
- `MAX_REFERENCES` (1,000): multi-reference test sets have a handful (NIST: 4); each reference is
  counted on its own, so the bound keeps a line of empty references from costing a counter each.
- `MAX_COUNT` (2**53 - 1): lengths, matches, totals and seq numbers: the largest integer a double
  (every JSON reader's number) holds exactly; no corpus has that many tokens.
- `MAX_DIGITS` (100) and `MAX_EXPONENT` (300): a number in a case file, a baseline or on the
  command line has at most 100 significant digits (an integer's digits, each side of a fraction)
  and, unless it is 0, a magnitude between 1e-300 and 1e300, so that it reaches a request as the
  double it says (a double's range is 1e-308 to 1e308) and exact arithmetic never builds a
  hundred-million-digit integer from `1e100000000`.
- `MAX_NUMBER_TEXT` (1,000): the characters of one number on a protocol line. A double printed
  with any precision fits (`%.300f` of 0.5 is 302 characters); converting an integer costs time
  quadratic in its length, and Python's own limit (4,300 digits) is a setting of the interpreter
  (PYTHONINTMAXSTRDIGITS=0 lifts it), not of the protocol.

Pure: standard library only.
"""

from __future__ import annotations

import math
from decimal import Decimal, InvalidOperation
from fractions import Fraction

MAX_ORDER = 100
MAX_REFERENCES = 1000
MAX_COUNT = 2**53 - 1
MAX_DIGITS = 100
MAX_EXPONENT = 300
MAX_NUMBER_TEXT = 1000

_DIGITS_LIMIT = 10**MAX_DIGITS
_LARGEST = Decimal(f"1e{MAX_EXPONENT}")
_SMALLEST = Decimal(f"1e-{MAX_EXPONENT}")


def _digit_problem(digits: int | None = None) -> str:
    if digits is None:
        return f"has more than the {MAX_DIGITS} digits a number may have"
    return f"has {digits} digits, more than the {MAX_DIGITS} a number may have"


def _magnitude_problem() -> str:
    return f"lies beyond the bounds of a number (0, or a magnitude between 1e-{MAX_EXPONENT} and 1e{MAX_EXPONENT})"


def number_problem(value: int | float | Decimal | Fraction | str) -> str | None:
    """Why `value` lies outside the bounds of a number read from outside, as a phrase to follow the
    field's name ("has 5000 digits, more than ..."), or None when it is within them (or is no number at
    all: the caller's type check says that). `value` is an int, float, Decimal or Fraction, or the text of
    a decimal number or a fraction ("1/3"). Never converts a long text to an integer to find out."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        text = value.strip().lstrip("+-")
        if "/" in text:  # a fraction: each side's digits (its magnitude then lies within 10**±MAX_DIGITS)
            longest = max(len(part.strip()) for part in text.split("/"))
            return _digit_problem(longest) if longest > MAX_DIGITS else None
        try:
            value = Decimal(text)  # reads the text as it is: no integer is built
        except InvalidOperation:
            return None
    if isinstance(value, int):
        return _digit_problem() if abs(value) >= _DIGITS_LIMIT else None
    if isinstance(value, Fraction):
        if abs(value.numerator) >= _DIGITS_LIMIT or value.denominator >= _DIGITS_LIMIT:
            return _digit_problem()
        return None
    if isinstance(value, float):  # a double's digits are its own: only its magnitude is bounded
        if not math.isfinite(value):
            return "must be a finite number"
        return None if value == 0 or 10.0**-MAX_EXPONENT <= abs(value) <= 10.0**MAX_EXPONENT else _magnitude_problem()
    if isinstance(value, Decimal):
        if not value.is_finite():
            return "must be a finite number"
        digits = len(value.as_tuple().digits)  # as written: "1.50" has 3
        if digits > MAX_DIGITS:
            return _digit_problem(digits)
        if value.is_zero():
            return None
        if not _SMALLEST <= value.copy_abs() <= _LARGEST:  # copy_abs: no context, so no overflow
            return _magnitude_problem()
    return None


def count_problem(value: object) -> str | None:
    """Why an integer count (a length, matches, totals) is out of bounds, or None."""
    if isinstance(value, int) and not isinstance(value, bool) and value > MAX_COUNT:
        return f"must be at most {MAX_COUNT} (2**53 - 1, the largest integer every JSON reader holds exactly)"
    return None
