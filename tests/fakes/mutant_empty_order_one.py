#!/usr/bin/env python3
"""Fake implementation: an order with no n-grams counts as p_n = 1 instead of 0."""
from fakebleu import serve

serve("empty-order-one")
