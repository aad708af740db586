#!/usr/bin/env python3
"""Fake implementation: no brevity penalty at all."""
from fakebleu import serve

serve("bp-missing")
