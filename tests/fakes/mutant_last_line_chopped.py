#!/usr/bin/env python3
"""Fake implementation: the last segment's hypothesis, read as the last line of a file without a final newline,
loses its last character to a chop (a last token of one character is left out)."""
from fakebleu import serve

serve("last-line-chopped")
