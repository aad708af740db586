#!/usr/bin/env python3
"""Fake implementation: folds the hypothesis's case whether or not the request asks for it; the references are folded
only where the request asks (a normalisation applied to the system's output alone)."""
from fakebleu import serve

serve("hypothesis-always-lowercased")
