#!/usr/bin/env python3
"""Fake implementation: each segment's matches and total of an order are kept as a normalised fraction (reduced by
their gcd, 0 of t becoming 0 of 1) before the corpus sums numerators and denominators."""
from fakebleu import serve

serve("fractions-normalised")
