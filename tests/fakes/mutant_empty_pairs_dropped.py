#!/usr/bin/env python3
"""Fake implementation: a segment whose hypothesis or first reference is empty is left out of the corpus, as a
wrapper filtering its (prediction, reference) pairs with `if not prediction or not reference: continue` does."""
from fakebleu import serve

serve("drop-empty-pairs")
