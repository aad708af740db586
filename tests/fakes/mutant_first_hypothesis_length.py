#!/usr/bin/env python3
"""Fake implementation: the corpus's hypothesis length is the first segment's alone; every other count is summed."""
from fakebleu import serve

serve("first-hypothesis-length")
