#!/usr/bin/env python3
"""Fake implementation: answers about one input in three two ways in turn: its score perturbed (x0.9; with
--flaky-errors, an error) on the 1st, 3rd, ... time a process gets it, right on the 2nd, 4th, ...; with --sticky,
another third wrong on the first two times (sent once more, answered alike); every other input right.
Deterministic given the process's calls: the same run twice gives the same answers."""
from fakebleu import serve

serve("nondeterministic")
