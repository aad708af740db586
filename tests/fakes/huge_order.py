#!/usr/bin/env python3
"""Fake implementation: declares max_order 10**12 in its handshake (otherwise a clean papineni implementation).

Before the protocol bounded its integers, the footer's coverage computed max(range(1, 10**12 + 1)): one C
loop no signal interrupts, so `check` ran for hours, deaf to SIGTERM and ^C."""
from fakebleu import serve

serve("huge-max-order")
