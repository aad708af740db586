#!/usr/bin/env python3
"""Fake implementation: answers the handshake with protocol 2."""
from fakebleu import serve

serve("protocol-2")
