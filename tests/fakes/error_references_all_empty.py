#!/usr/bin/env python3
"""Fake implementation: answers error (ValueError) on any input with a segment whose references are all empty, as a
wrapper that leaves out empty references and then refuses a segment left with none does (sacrebleu 2.0's
`_cache_references`, the code mjpost/sacrebleu #175 changes); right on every other input, an empty reference beside
a non-empty one too."""
from fakebleu import serve

serve("error-references-all-empty")
