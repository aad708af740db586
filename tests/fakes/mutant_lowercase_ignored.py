#!/usr/bin/env python3
"""Fake implementation: ignores the lowercase flag."""
from fakebleu import serve

serve("lowercase-ignored")
