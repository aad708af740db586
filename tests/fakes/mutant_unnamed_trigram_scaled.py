#!/usr/bin/env python3
"""Fake implementation: the 3-gram precision multiplied by 0.9 (a bug no explanation of the classifier names)."""
from fakebleu import serve

serve("trigram-precision-scaled")
