#!/usr/bin/env python3
"""Fake implementation: echoes seq + 1."""
from fakebleu import serve

serve("wrong-seq")
