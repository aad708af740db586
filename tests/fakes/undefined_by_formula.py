#!/usr/bin/env python3
"""Fake implementation written from the formulas: scores what the documents leave undefined instead of refusing it.

An empty corpus scores 0 (its sums are c = r = 0, nothing matches) and all-zero weights score BP (exp of a sum of
zeros is 1); every other input as the clean fake. Each answer is a named convention's value: acceptable."""
from fakebleu import serve

serve("undefined-by-formula")
