#!/usr/bin/env python3
"""Fake implementation: the score raised to the power 1.1 (a bug no explanation of the classifier names)."""
from fakebleu import serve

serve("score-power-1.1")
