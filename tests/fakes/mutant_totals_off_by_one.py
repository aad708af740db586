#!/usr/bin/env python3
"""Fake implementation: n-gram totals len - n instead of len - n + 1."""
from fakebleu import serve

serve("totals-off-by-one")
