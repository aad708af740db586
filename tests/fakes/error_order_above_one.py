#!/usr/bin/env python3
"""Fake implementation: statistics kept for order 1 only and indexed for every order: an IndexError on every request
whose order (number of weights) is above 1, whatever else it holds; right at order 1."""
from fakebleu import serve

serve("error-order-above-one")
