#!/usr/bin/env python3
"""Fake implementation: answers error (AssertionError) on any input with a segment of exactly one reference, as a
scorer asserting every segment has more than one does (pycocoevalcap's `assert(len(ref) > 1)` before
tylin/coco-caption #15); right on every other input."""
from fakebleu import serve

serve("error-one-reference")
