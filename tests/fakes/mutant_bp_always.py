#!/usr/bin/env python3
"""Fake implementation: applies e^(1 - r/c) also when c > r."""
from fakebleu import serve

serve("bp-always")
