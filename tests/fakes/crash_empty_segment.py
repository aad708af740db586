#!/usr/bin/env python3
"""Fake implementation: dies (an unhandled exception, exit 1) on any input with a segment whose hypothesis and every
reference are empty, whatever request of the process it is; right on every other input."""
from fakebleu import serve

serve("crash-empty-segment")
