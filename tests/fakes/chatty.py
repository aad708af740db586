#!/usr/bin/env python3
"""Fake implementation: the clean one, writing 200 kB to stderr on every request (never a deadlock)."""
import sys

from fakebleu import serve

sys.argv.append("--chatty")
serve()
