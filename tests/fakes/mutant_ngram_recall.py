#!/usr/bin/env python3
"""Fake implementation: n-gram recall in place of precision, per order each reference's n-grams matched in the
hypothesis (min of the two counts) over the references' own n-gram counts (each floored at 1, as a precision's
`max(1, denominator)` turned round)."""
from fakebleu import serve

serve("ngram-recall")
