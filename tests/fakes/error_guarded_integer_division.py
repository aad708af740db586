#!/usr/bin/env python3
"""Fake implementation: each precision taken as `m // l` (an integer division: 0 below 1) and its logarithm taken past a
guard that answers 0 where an order in force has no n-gram or, once smoothed, no match: errs on every input but those
and the ones where every order in force has a precision of 1 (m = l); right wherever it answers."""
from fakebleu import serve

serve("error-guarded-integer-division")
