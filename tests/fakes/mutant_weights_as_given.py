#!/usr/bin/env python3
"""Fake implementation: declares the matlab profile (weights normalised) but uses the weights as given."""
import sys

from fakebleu import serve

if "--profile" not in sys.argv:
    sys.argv += ["--profile", "matlab"]
serve("weights-as-given")
