#!/usr/bin/env python3
"""Fake implementation: scores an empty corpus 0.5, a value no convention gives (a failure, strict or not)."""
from fakebleu import serve

serve("empty-corpus-half")
