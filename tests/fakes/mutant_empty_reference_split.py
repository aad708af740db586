#!/usr/bin/env python3
"""Fake implementation: an empty reference is split into one empty token (Python's ''.split(' ') is ['']), so its
length is 1 and its one n-gram is the empty token; the hypothesis is guarded (an empty one stays empty)."""
from fakebleu import serve

serve("empty-reference-split")
