#!/usr/bin/env python3
"""Fake implementation: the clean implementation: follows the papineni profile (or --profile matlab)."""
from fakebleu import serve

serve()
