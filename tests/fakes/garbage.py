#!/usr/bin/env python3
"""Fake implementation: prints a non-JSON line instead of every reply."""
from fakebleu import serve

serve("garbage")
