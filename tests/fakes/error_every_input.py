#!/usr/bin/env python3
"""Fake implementation: answers error (an IndexError, as a statistics list one order short indexed on every request
does) on every score request, whatever it holds; it rejects nothing it should score."""
from fakebleu import serve

serve("error-every-input")
