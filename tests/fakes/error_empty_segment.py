#!/usr/bin/env python3
"""Fake implementation: answers error (a ZeroDivisionError) on any input with a segment whose hypothesis and
every reference are empty, as a library dividing by a segment's length does; right on every other input."""
from fakebleu import serve

serve("error-empty-segment")
