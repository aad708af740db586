#!/usr/bin/env python3
"""Fake implementation: breaks reference-length ties towards the longer reference."""
from fakebleu import serve

serve("ties-longer")
