#!/usr/bin/env python3
"""Fake implementation: a precision returned as 0 whose logarithm is taken past a guard that answers 0 where an order in
force (its weight above 0) has no n-gram or, once smoothed, no match: errs on every other input (ValueError, math
domain error); right wherever it answers."""
from fakebleu import serve

serve("error-guarded-log-of-zero")
