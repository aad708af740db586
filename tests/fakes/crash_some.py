#!/usr/bin/env python3
"""Fake implementation: raises (exits 1) on about one input in four, chosen by the input's content alone."""
from fakebleu import serve

serve("crash-some")
