#!/usr/bin/env python3
"""Fake implementation: clips against the sum of the references' counts instead of the maximum."""
from fakebleu import serve

serve("max-ref-sum")
