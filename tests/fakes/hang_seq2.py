#!/usr/bin/env python3
"""Fake implementation: sleeps forever on the request with seq 2."""
from fakebleu import serve

serve("hang-seq-2")
