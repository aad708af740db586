#!/usr/bin/env python3
"""Fake implementation: raises (exits 1) on the 3rd score request of each process."""
from fakebleu import serve

serve("crash-3rd")
