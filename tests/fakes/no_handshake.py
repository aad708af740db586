#!/usr/bin/env python3
"""Fake implementation: never answers the start command."""
from fakebleu import serve

serve("no-handshake")
