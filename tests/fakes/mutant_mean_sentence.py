#!/usr/bin/env python3
"""Fake implementation: corpus score = mean of the sentence scores."""
from fakebleu import serve

serve("mean-sentence")
