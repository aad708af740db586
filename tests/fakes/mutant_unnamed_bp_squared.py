#!/usr/bin/env python3
"""Fake implementation: the brevity penalty squared when c < r (a bug no explanation of the classifier names)."""
from fakebleu import serve

serve("bp-squared-when-short")
